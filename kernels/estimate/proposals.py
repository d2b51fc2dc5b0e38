"""The posterior's proposals when an earlier bidder (or the dealer's trump choice) is modelled
by a Python policy, and the observations its likelihood is computed from.

Such a seat is not conditioned on by the posterior sampler (kernels.posterior sees it as
uninformative): `propose_deals` draws a sample's deals one after another from its DEAL stream,
each with, per such seat, a uniform number for the caller's rejection step and a generator
state for its fallback's answer; `observe_decisions` gives the seat's observation and mask of
the decision it made (its bid, or the trump it chose) on the sampled hand, and the answer its
fallback policy would give there (for the decisions the caller's policy delegates).
"""
import numpy as np
from numba import njit, prange

from kernels.batch import NO_FAILURE
from kernels.cards import N_CARDS
from kernels.estimate.situation import deal_sample, new_estimate_memory, new_known_memory
from kernels.estimate.stepped import block_rows, first_failure, n_blocks
from kernels.observation import encode_observation, flat_action, write_action_mask
from kernels.policies.dispatch import decide
from kernels.posterior import new_work, prepare, sample_deal
from kernels.records import DECIDE_BID, MAX_PLAYERS, NO_BID, SEAT_DTYPE, TABLE_DTYPE
from kernels.rng import STREAM_PILOT, next_u64, seed_stream, uniform
from kernels.round_state import ALL_SUITS, begin_round, checked, set_rules, turn_up

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
def trump_view(table, view, bidders):
    """Rebuild in `view` the table as the dealer saw it when it named trump after a turned-up
    Wizard: the round begun again with the same dealer, turned-up card and score pad. Returns
    the mask of the legal answers (every suit)."""
    set_rules(view, table)
    for seat in range(MAX_PLAYERS):
        view.totals[seat] = table.totals[seat]
    begin_round(view, bidders, table.round_size, table.dealer)
    turn_up(view, table.trump_card)
    return ALL_SUITS


@njit(cache=True)
def new_proposal_memory(known_table, evaluated, likelihood_work):
    """The views of the evaluated seats (evaluated = (seats [m], decisions [m])): a bidder's
    is the one the posterior rebuilds for its likelihood (prepared in likelihood_work), the
    dealer's trump choice's is trump_view."""
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
    memory = new_known_memory(rules[0], situation[0])[0]
    work_storage = new_work()
    generator = np.empty(1, dtype=np.uint64)
    seed_stream(generator, seed, 0, situation[0].round_size, STREAM_PILOT)
    prepare(memory.known_seats[situation[0].seat], memory.known_table, model[0], work_storage[0], generator)
    return work_storage


@njit(cache=True)
def propose_sample(sample_key, pending, situation, inference, memories, outputs):
    """Draw outputs' k proposals of sample `sample_key`, whose stream stands at pending =
    (deals proposed so far, generator state; none: the start of its DEAL stream, as
    kernels.estimate.situation.deal_sample). For each: the hands, the sampler's weight and proposals,
    and per evaluated seat j a uniform number (the caller's rejection step) and the state of
    a generator for its fallback policy's answer (observe_decisions). The generator state is
    left in pending for the next call."""
    done, states = pending
    model, infer, m = inference
    workspace_storage, memory_storage, work_storage = memories
    hands_out, weights, proposals, uniforms, fallback_states = outputs
    memory = memory_storage[0]
    generator = workspace_storage[0].scratch.generator
    for t in range(weights.shape[0]):
        if t == 0 and done == 0:
            weight, drawn = deal_sample(sample_key, situation, (model, infer), memories)
        else:
            if t == 0:
                generator[0] = states[0]
            weight, drawn = sample_deal(model, work_storage[0], memory.hands, generator)
        weights[t] = weight
        proposals[t] = drawn
        for seat in range(MAX_PLAYERS):
            hands_out[t, seat] = memory.hands[seat]
        for j in range(m):
            uniforms[t, j] = uniform(generator)
            fallback_states[t, j] = next_u64(generator)
    states[0] = generator[0]


@njit(cache=True)
def propose_block(seed, rules, situation, inference, pending, outputs, rows):
    """propose_sample for every pending sample i of rows = (first, stop): pending = (samples
    [p], deals proposed so far [p], generator states [p]); inference = (sampler model (a
    one-record kernels.posterior.MODEL_DTYPE array, the evaluated seats uninformative), infer
    flag (False: one uniform deal, nothing evaluated), seated policies (ids, parameter rows),
    evaluated seats m); outputs = (hands [p, k, MAX_PLAYERS], weights [p, k], proposals
    [p, k], uniforms [p, k, m], fallback generator states [p, k, m]). The sampler's pilot
    comes from (seed, 0, round size, PILOT) in every block, as in
    kernels.estimate.rollouts.estimate_tricks: a sample's proposals are a pure function of the seed,
    its index and how many it has made."""
    samples, done, states = pending
    sampler_models, infer, policies, m = inference
    hands, weights, proposals, uniforms, fallback_states = outputs
    block_situation = situation[0]
    model = sampler_models[0]
    memories = new_estimate_memory(seed, rules[0], block_situation, policies, model, infer)
    for i in range(rows[0], rows[1]):
        sample_outputs = (hands[i], weights[i], proposals[i], uniforms[i], fallback_states[i])
        sample_pending = (done[i], states[i : i + 1])
        propose_sample((seed, samples[i]), sample_pending, block_situation, (model, infer, m), memories, sample_outputs)


@njit(cache=True, parallel=True)
def propose_deals(seed, rules, situation, inference, pending, outputs):
    # A parallel loop cannot take a tuple nesting tuples: the nested ones cross it unpacked.
    sampler_models, infer, policies, m = inference
    n = pending[0].shape[0]
    for block in prange(n_blocks(n)):
        block_inference = (sampler_models, infer, policies, m)
        propose_block(seed, rules, situation, block_inference, pending, outputs, block_rows(block, n))


@njit(cache=True)
def propose_deals_serial(seed, rules, situation, inference, pending, outputs):
    propose_block(seed, rules, situation, inference, pending, outputs, (0, pending[0].shape[0]))


@njit(cache=True)
def observe_block(records, likelihood, answering, evaluated, rows, outputs, block):
    """observe_decisions for rows block = (first, stop)."""
    rules, situation = records
    seat, decision = evaluated
    hands, states = rows
    observations, masks, fallback = outputs
    known = new_known_memory(rules[0], situation[0])[0]
    proposal_storage = new_proposal_memory(known.known_table, (np.full(1, seat), np.full(1, decision)), likelihood[0])
    proposal = proposal_storage[0]
    record = proposal.record[0]
    view = proposal.views[seat]
    legal = proposal.legal[seat]
    generator = np.empty(1, dtype=np.uint64)
    for i in range(block[0], block[1]):
        record.seat = seat
        record.hand = hands[i, seat]
        record.dealt = hands[i, seat]
        record.bid = NO_BID
        encode_observation(view, record, proposal.card_trick, observations[i])
        write_action_mask(view.phase, legal, masks[i])
        generator[0] = states[i]
        try:
            answer = checked(decide(answering, decision, record, view, legal, generator), legal)
        except Exception:  # numba cannot bind it
            return i
        fallback[i] = flat_action(decision, answer)
    return NO_FAILURE


@njit(cache=True, parallel=True)
def observe_decisions(records, likelihood, answering, evaluated, rows, outputs):
    """For proposals rows = (hands [R, MAX_PLAYERS], fallback generator states [R]): the
    observation and mask of evaluated = (seat, decision) (DECIDE_BID: its bid, in the view the
    posterior rebuilt in likelihood, a likelihood_work storage; DECIDE_TRUMP: the dealer's
    trump choice, in trump_view) on its hand, and the flat answer its fallback gives
    (answering = seated (ids, parameter rows); a random fallback draws from the row's
    generator state). records = (rules, situation) one-record arrays; outputs =
    (observations [R, OBSERVATION_SIZE], masks [R, N_ACTIONS], fallback answers [R]). Returns
    the first row whose fallback failed, or NO_FAILURE."""
    n = rows[1].shape[0]
    failures = np.empty(n_blocks(n), dtype=np.int64)
    for block in prange(n_blocks(n)):
        failures[block] = observe_block(records, likelihood, answering, evaluated, rows, outputs, block_rows(block, n))
    return first_failure(failures)


@njit(cache=True)
def observe_decisions_serial(records, likelihood, answering, evaluated, rows, outputs):
    return observe_block(records, likelihood, answering, evaluated, rows, outputs, (0, rows[1].shape[0]))

