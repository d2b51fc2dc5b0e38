"""The posterior's proposals when an earlier bidder (or the dealer's trump choice) is modelled
by a Python policy, and the observations its likelihood is computed from.

Such a seat is not conditioned on by the posterior sampler (kernels.search.posterior sees it as
uninformative): `propose_deals` draws a sample's deals one after another from its DEAL stream,
each with, per such seat, a uniform number for the caller's rejection step and a generator
state for its fallback's answer; `observe_decisions` gives the seat's observation and mask of
the decision it made (its bid, or the trump it chose) on the sampled hand, and the answer its
fallback policy would give there (for the decisions the caller's policy delegates).
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.blocks import NO_FAILURE, block_rows, first_failure, n_blocks, new_failures, parallel_and_serial
from kernels.cards import N_CARDS
from kernels.estimate.situation import Sampling, deal_sample, new_estimate_memory, new_known_memory, prepare_known
from kernels.observation import encode_observation, flat_action, write_action_mask
from kernels.policy_calls import decide
from kernels.search.posterior import new_work, sample_deal
from kernels.records import DECIDE_BID, MAX_PLAYERS, MAX_SEAT_STATE, NO_BID, SEAT_DTYPE, TABLE_DTYPE, SeatedPolicies
from kernels.rng import STREAM_PILOT, next_u64, seed_stream, uniform
from kernels.round_state import checked, trump_view

# One thread's memory for proposals: the evaluated seats' views of the table when they
# decided, and a seat record and card history to encode their observations.
PROPOSAL_DTYPE = np.dtype(
    [
        ("views", TABLE_DTYPE, (MAX_PLAYERS,)),
        ("legal", np.int64, (MAX_PLAYERS,)),
        ("bidders", SEAT_DTYPE, (MAX_PLAYERS,)),
        ("record", SEAT_DTYPE, (1,)),
        ("card_trick", np.int64, (N_CARDS,)),  # no card played when anyone bids or names trump
    ]
)


@njit(cache=True)
def new_proposal_memory(known_storage, evaluated, likelihood_work):
    """The views of the evaluated seats (evaluated = (seats [m], decisions [m])): a bidder's
    is the one the posterior rebuilds for its likelihood (prepared in likelihood_work), the
    dealer's trump choice's is trump_view of the known round (known_storage, a
    new_known_memory array)."""
    known_table = known_storage[0].known_table
    seats, decisions = evaluated
    storage = np.zeros(1, dtype=PROPOSAL_DTYPE)
    memory = storage[0]
    for j in range(seats.shape[0]):
        seat = seats[j]
        if decisions[j] == DECIDE_BID:
            memory.views[seat] = likelihood_work.views[seat]
            memory.legal[seat] = likelihood_work.legal[seat]
        else:
            memory.legal[seat] = trump_view(known_table, memory.views[seat], memory.bidders)
    return storage


@njit(cache=True)
def likelihood_work(seed, rules, situation, model):
    """A POSTERIOR_WORK_DTYPE storage prepared for the situation with `model` (one-record
    arrays; the pilot from (seed, 0, round size, PILOT)): its bid_weight and trump_weight
    tables hold the posterior's acceptance of every answer a seat modelled as
    OPPONENT_HEURISTIC could give, and its views each bidder's table when it bid."""
    work_storage = new_work()
    generator = np.empty(1, dtype=np.uint64)
    seed_stream(generator, seed, 0, situation[0].round_size, STREAM_PILOT)
    prepare_known(new_known_memory(rules[0], situation[0]), situation[0].seat, model[0], work_storage, generator)
    return work_storage


# The pending samples of a call: their indices [p], deals proposed so far [p] and the states of
# their generators [p] (where their DEAL streams stand).
Pending = namedtuple("Pending", ("samples", "done", "states"))
# How deals are proposed: the sampler's model (a one-record kernels.search.posterior.MODEL_DTYPE array,
# the evaluated seats uninformative), the infer flag (False: one uniform deal, nothing
# evaluated), the seated policies (ids and parameter rows) and the count m of evaluated seats.
Proposing = namedtuple("Proposing", ("models", "infer", "policy_ids", "params", "evaluated"))
# k proposals of each pending sample: hands [p, k, MAX_PLAYERS], the sampler's weights [p, k] and
# proposals [p, k], and per evaluated seat j a uniform number [p, k, m] (the caller's rejection
# step) and the state of a generator for its fallback policy's answer [p, k, m].
Proposals = namedtuple("Proposals", ("hands", "weights", "proposals", "uniforms", "fallback_states"))
# The decision a proposal is evaluated at: the seat and its kind (DECIDE_BID or DECIDE_TRUMP).
Evaluated = namedtuple("Evaluated", ("seat", "kind"))
# Per evaluated proposal: its hands [R, MAX_PLAYERS] and its fallback's generator state [R].
Questions = namedtuple("Questions", ("hands", "states"))
# Per evaluated proposal: the seat's observation and mask, and the flat answer its fallback gives.
Answers = namedtuple("Answers", ("observations", "masks", "fallback"))


@njit(cache=True)
def propose_sample(sample_key, i, situation, proposing, memory, pending, out):
    """Draw the k proposals out.*[i] of pending sample i (sample_key = (seed, its index)), whose
    stream stands at pending.states[i] after pending.done[i] deals (none: the start of its DEAL
    stream, as kernels.estimate.situation.deal_sample). The generator state is left in
    pending.states[i] for the next call."""
    sampling = Sampling(proposing.models[0], proposing.infer)
    known = memory.known[0]
    generator = memory.workspace[0].scratch.generator
    for t in range(out.weights.shape[1]):
        if t == 0 and pending.done[i] == 0:
            weight, drawn = deal_sample(sample_key, situation, sampling, memory)
        else:
            if t == 0:
                generator[0] = pending.states[i]
            weight, drawn = sample_deal(sampling.model, memory.work[0], known.hands, generator)
        out.weights[i, t] = weight
        out.proposals[i, t] = drawn
        for seat in range(MAX_PLAYERS):
            out.hands[i, t, seat] = known.hands[seat]
        for j in range(proposing.evaluated):
            out.uniforms[i, t, j] = uniform(generator)
            out.fallback_states[i, t, j] = next_u64(generator)
    pending.states[i] = generator[0]


@njit(cache=True)
def propose_block(seed, known, proposing, pending, out, rows):
    """propose_sample for every pending sample of rows = (first, stop); known = (rules,
    situation) one-record arrays. The sampler's pilot comes from (seed, 0, round size, PILOT)
    in every block, as in kernels.estimate.rollouts.estimate_tricks: a sample's proposals are
    a pure function of the seed, its index and how many it has made."""
    rules, situation = known
    block_situation = situation[0]
    policies = (proposing.policy_ids, proposing.params)
    sampling = Sampling(proposing.models[0], proposing.infer)
    memory = new_estimate_memory(seed, rules[0], block_situation, policies, sampling)
    for i in range(rows[0], rows[1]):
        propose_sample((seed, pending.samples[i]), i, block_situation, proposing, memory, pending, out)


def propose_deals(seed, known, proposing, pending, out):
    """k proposals (Proposals) of every pending sample (Pending)."""
    n = pending.samples.shape[0]
    for block in prange(n_blocks(n)):
        propose_block(seed, known, proposing, pending, out, block_rows(block, n))


@njit(cache=True)
def observe_block(known, likelihood, answering, evaluated, questions, answers, rows):
    """observe_decisions for the questions of rows = (first, stop)."""
    rules, situation = known
    evaluated_seats = (np.full(1, evaluated.seat), np.full(1, evaluated.kind))
    proposal_storage = new_proposal_memory(new_known_memory(rules[0], situation[0]), evaluated_seats, likelihood[0])
    return observe_rows(proposal_storage, answering, evaluated, questions, answers, rows)


@njit(cache=True)
def observe_rows(proposal_storage, answering, evaluated, questions, answers, rows):
    """observe_block's loop on its proposal memory (a new_proposal_memory array, whose
    records are taken here, where the caller holds it: kernels.estimate.situation.known_legal_actions)."""
    seat, decision = evaluated.seat, evaluated.kind
    listed_ids, listed_params = answering
    # A situation's seats have no finished round of this game behind them: their state is clear.
    seated = SeatedPolicies(listed_ids, listed_params, np.zeros((MAX_PLAYERS, MAX_SEAT_STATE)))
    proposal = proposal_storage[0]
    record = proposal.record[0]
    view = proposal.views[seat]
    legal = proposal.legal[seat]
    generator = np.empty(1, dtype=np.uint64)
    for i in range(rows[0], rows[1]):
        record.seat = seat
        record.hand = questions.hands[i, seat]
        record.dealt = questions.hands[i, seat]
        record.bid = NO_BID
        encode_observation(view, record, proposal.card_trick, answers.observations[i])
        write_action_mask(view.phase, legal, answers.masks[i])
        generator[0] = questions.states[i]
        try:
            answer = checked(decide(seated, decision, record, view, legal, generator), legal)
        except Exception:  # numba cannot bind it
            return i
        answers.fallback[i] = flat_action(decision, answer)
    return NO_FAILURE


def observe_decisions(known, likelihood, answering, evaluated, questions, answers):
    """For each question (a proposal's hands and a fallback generator state): the observation
    and mask of the evaluated decision (DECIDE_BID: its bid, in the view the posterior rebuilt
    in likelihood, a likelihood_work storage; DECIDE_TRUMP: the dealer's trump choice, in
    round_state.trump_view) on the seat's hand, and the flat answer its fallback gives
    (answering = the listed (ids, parameter rows); a random fallback draws from the question's
    generator state). known = (rules, situation) one-record arrays. Returns the first
    question whose fallback failed, or NO_FAILURE."""
    n = questions.states.shape[0]
    failures = new_failures(n)
    for block in prange(n_blocks(n)):
        failures[block] = observe_block(known, likelihood, answering, evaluated, questions, answers, block_rows(block, n))
    return first_failure(failures)


# Each comes in two forms, parallel over blocks and on the calling thread
# (kernels.blocks.parallel_and_serial); neither the form nor the blocking changes a result.
propose_deals, propose_deals_serial = parallel_and_serial(propose_deals)
observe_decisions, observe_decisions_serial = parallel_and_serial(observe_decisions)
