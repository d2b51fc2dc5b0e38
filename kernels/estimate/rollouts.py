"""estimate's built-in rollouts: every candidate bid played on each sampled deal.

For each sample the unseen cards are dealt to the other seats once (kernels.estimate.situation),
then the round is replayed for every candidate bid from the same deal and the same start of
the decisions stream (common random numbers): a sample's decisions come from the stream
(seed, sample, round size, DECISIONS), whatever the thread count.
"""
from collections import namedtuple

from numba import njit, prange

from kernels.game_loop import seated_policies
from kernels.blocks import NO_FAILURE, block_rows, first_failure, n_blocks, new_failures
from kernels.estimate.situation import Sampling, deal_sample, new_estimate_memory, start_sample_round
from kernels.policy_calls import decide
from kernels.rng import STREAM_DECISIONS, seed_stream
from kernels.round_state import play_out

# The samples of a call: samples first, first + 1, ... of the estimate seeded `seed`.
Samples = namedtuple("Samples", ("seed", "first"))
# Per sample i of a call: the estimating seat's tricks for every candidate bid [n, candidates],
# the sample's importance weight [n] (1 without inference; 0: not played) and the candidate
# hands the posterior sampler tried for it [n].
SampleResults = namedtuple("SampleResults", ("tricks", "weights", "proposals"))


@njit(cache=True)
def play_sample_round(sample_key, fixed_bids, hands, situation, workspace):
    """Bid and play one round from the sampled hands; returns the estimating seat's tricks."""
    seed, sample = sample_key
    table = workspace.table
    seats = workspace.seats
    generator = workspace.scratch.generator
    no_log = workspace.plays[:0]  # the estimate never reads the play log
    start_sample_round(situation, hands, table, seats)
    seed_stream(generator, seed, sample, situation.round_size, STREAM_DECISIONS)
    play_out(decide, seated_policies(workspace), table, seats, generator, fixed_bids, no_log)
    return table.tricks[situation.seat]


@njit(cache=True)
def estimate_sample(i, samples, candidates, situation, sampling, memory, results):
    """Deal sample samples.first + i once and, when its weight is not 0, play it for every
    candidate bid: results.tricks[i, k] receives the estimating seat's tricks when it bids
    candidates[k]."""
    sample_key = (samples.seed, samples.first + i)
    workspace = memory.workspace[0]  # the memory's storages keep these records alive
    known = memory.known[0]
    weight, proposals = deal_sample(sample_key, situation, sampling, memory)
    results.weights[i] = weight
    results.proposals[i] = proposals
    if weight == 0.0:
        return
    fixed_bids = known.fixed_bids
    for k in range(candidates.shape[0]):
        fixed_bids[situation.seat] = candidates[k]
        results.tricks[i, k] = play_sample_round(sample_key, fixed_bids, known.hands, situation, workspace)


@njit(cache=True, parallel=True)
def estimate_tricks(samples, known, policies, candidates, inference, results):
    """Fill `results` (SampleResults) for the call's samples (Samples): every candidate bid
    played on each sampled deal. known = (rules, situation), one-record arrays (a parallel
    kernel cannot take a bare record); inference = (opponent model: a one-record
    kernels.search.posterior.MODEL_DTYPE array, infer flag).

    Samples are independent, so neither the blocking over threads nor a split of the samples
    into several calls changes a result. Returns the index of the first sample in which a
    policy failed, or NO_FAILURE."""
    rules, situation = known
    models, infer = inference
    n_samples = results.tricks.shape[0]
    failures = new_failures(n_samples)
    for block in prange(n_blocks(n_samples)):
        block_situation = situation[0]
        sampling = Sampling(models[0], infer)
        memory = new_estimate_memory(samples.seed, rules[0], block_situation, policies, sampling)
        # A thread-local copy: shared arrays would make every reference count contended.
        block_candidates = candidates.copy()
        rows = block_rows(block, n_samples)
        failures[block] = estimate_block(samples, rows, block_candidates, block_situation, sampling, memory, results)
    return first_failure(failures)


@njit(cache=True)
def estimate_block(samples, rows, candidates, situation, sampling, memory, results):
    """estimate_sample for the call's samples rows = (first, stop); returns the first that
    failed (a policy raised or answered illegally), which ends the block, or NO_FAILURE."""
    for i in range(rows[0], rows[1]):
        try:
            estimate_sample(i, samples, candidates, situation, sampling, memory, results)
        except Exception:  # numba cannot bind it
            return i
    return NO_FAILURE
