"""estimate's built-in rollouts: every candidate bid played on each sampled deal.

For each sample the unseen cards are dealt to the other seats once (kernels.estimate.situation),
then the round is replayed for every candidate bid from the same deal and the same start of
the decisions stream (common random numbers): a sample's decisions come from the stream
(seed, sample, round size, DECISIONS), whatever the thread count.
"""
import numpy as np
from numba import config, njit, prange

from kernels.batch import NO_FAILURE, seated_policies
from kernels.estimate.situation import deal_sample, new_estimate_memory, start_sample_round
from kernels.policies.dispatch import decide
from kernels.rng import STREAM_DECISIONS, seed_stream
from kernels.round_state import play_out

SAMPLES_PER_BLOCK = 64  # samples a thread estimates with one workspace
# The threads a call's blocks are shared among, frozen when the kernel is compiled (a global
# int is a constant that numba can cache; numba.get_num_threads() in a kernel is not):
# another machine loading the cache may block differently, which changes no result.
THREADS = config.NUMBA_NUM_THREADS


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
def estimate_sample(sample_key, candidates, situation, inference, memories, results):
    """Deal sample `sample_key` once and, when its weight is not 0, play it for every
    candidate bid: tricks[k] receives the estimating seat's tricks when it bids
    candidates[k]. results = (tricks, weights, proposals) rows of this sample."""
    workspace_storage, memory_storage, _ = memories
    tricks, weight_out, proposals_out = results
    workspace = workspace_storage[0]  # the callers' storages keep these records alive
    memory = memory_storage[0]
    weight, proposals = deal_sample(sample_key, situation, inference, memories)
    weight_out[0] = weight
    proposals_out[0] = proposals
    if weight == 0.0:
        return
    fixed_bids = memory.fixed_bids
    for k in range(candidates.shape[0]):
        fixed_bids[situation.seat] = candidates[k]
        tricks[k] = play_sample_round(sample_key, fixed_bids, memory.hands, situation, workspace)


@njit(cache=True, parallel=True)
def estimate_tricks(seed, first_sample, rules, situation, policies, candidates, inference, results):
    """Fill results = (tricks [n, candidates], weights [n], proposals [n]) for samples
    first_sample .. first_sample + n - 1: tricks[i, k] is the estimating seat's tricks in
    sample first_sample + i when it bids candidates[k], weights[i] the sample's importance
    weight (1 without inference; 0: not played), and proposals[i] the candidate hands the
    posterior sampler tried for it.
    inference = (opponent model record array (kernels.posterior.MODEL_DTYPE), infer flag).

    rules and situation are one-record arrays (a parallel kernel cannot take a bare record).
    Samples are independent, so neither the blocking over threads nor a split of the samples
    into several calls changes a result. Returns the index of the first sample in which a
    policy failed, or NO_FAILURE."""
    tricks, weights, proposals = results
    n_samples = tricks.shape[0]
    # Fewer samples a block when a call has too few to give every thread one (a short call of
    # costly samples: the caller slices them so that Ctrl-C is seen).
    per_block = min(SAMPLES_PER_BLOCK, max(1, (n_samples + THREADS - 1) // THREADS))
    n_blocks = (n_samples + per_block - 1) // per_block
    models, infer = inference
    failures = np.empty(n_blocks, dtype=np.int64)
    for block in prange(n_blocks):
        block_situation = situation[0]
        model = models[0]
        memories = new_estimate_memory(seed, rules[0], block_situation, policies, model, infer)
        # A thread-local copy: shared arrays would make every reference count contended.
        block_candidates = candidates.copy()
        start, stop = block * per_block, min(n_samples, (block + 1) * per_block)
        failures[block] = estimate_block(seed, first_sample, start, stop, block_candidates, block_situation,
                                         (model, infer), memories, results)  # fmt: skip
    for block in range(n_blocks):
        if failures[block] != NO_FAILURE:
            return failures[block]
    return NO_FAILURE


@njit(cache=True)
def estimate_block(seed, first_sample, start, stop, candidates, situation, inference, memories, results):
    """estimate_sample for samples start..stop-1 of the call; returns the index of the first
    that failed (a policy raised or answered illegally), which ends the block, or NO_FAILURE
    (caught here for the reason kernels.batch.play_block gives)."""
    tricks, weights, proposals = results
    for i in range(start, stop):
        sample_results = (tricks[i], weights[i : i + 1], proposals[i : i + 1])
        try:
            estimate_sample((seed, first_sample + i), candidates, situation, inference, memories, sample_results)
        except Exception:  # numba cannot bind it
            return i
    return NO_FAILURE

