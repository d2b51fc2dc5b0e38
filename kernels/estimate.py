"""Monte Carlo bid estimation: one seat's known hand, every candidate bid, many sampled deals.

Seat layout: the dealer is seat N-1, so bidding position p is seat p and seat 0 leads the
first trick. For each sample the unseen cards are dealt to the other seats once — from their
posterior given the earlier bids and the dealer's trump choice (kernels.posterior, with an
importance weight), or uniformly without inference — then the round is replayed for every
candidate bid from the same deal and the same start of the decisions stream (common random
numbers). A sample is a pure function of (seed, sample index): its deal comes from the
stream (seed, sample, round size, DEAL), its decisions from (seed, sample, round size,
DECISIONS), and the sampler's pilot, the same for every thread, from (seed, 0, round size,
PILOT), whatever the thread count (docs/estimate.md).
"""
import numpy as np
from numba import njit, prange

from kernels.bits import lowest_bit
from kernels.games import NO_FAILURE, new_workspace, seated_policies
from kernels.policies.dispatch import decide
from kernels.posterior import new_work, prepare, sample_deal
from kernels.rng import STREAM_DEAL, STREAM_DECISIONS, STREAM_PILOT, seed_stream
from kernels.round_state import (
    begin_round,
    legal_actions,
    make_earlier_bids,
    play_out,
    set_hands,
    set_rules,
    turn_up_known,
)
from kernels.rules import deal_hands, unseen_cards
from kernels.state import MAX_PLAYERS, SEAT_DTYPE, TABLE_DTYPE

_i8 = np.int64

# What the estimating seat knows when it bids. `bids` holds the bids fixed in advance (the
# earlier bidders' under open bidding, NO_BID for seats that bid by their policy); the
# kernels write each candidate into the estimating seat's entry of a per-thread copy.
SITUATION_DTYPE = np.dtype(
    [
        ("round_size", _i8),
        ("seat", _i8),  # the estimating seat, equal to its bidding position
        ("hand", _i8),  # its cards
        ("trump_card", _i8),  # NO_CARD when nothing was turned up
        ("trump", _i8),  # suit 0..3 or NO_SUIT
        ("bids", _i8, (MAX_PLAYERS,)),
        ("totals", _i8, (MAX_PLAYERS,)),  # the score pad (read by even_bids=leader)
    ]
)

SAMPLES_PER_BLOCK = 64  # samples a thread estimates with one workspace


@njit(cache=True)
def dealer_seat(n_players):
    return n_players - 1


@njit(cache=True)
def mask_to_deck(mask, deck):
    """Write the card ids of `mask` in ascending order to deck[:k]; returns k."""
    count = 0
    while mask:
        deck[count] = lowest_bit(mask)
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def begin_situation_round(situation, table, seats):
    """Begin the situation's round on `table`: its size and dealer, the score pad the
    estimating seat sees."""
    begin_round(table, seats, situation.round_size, dealer_seat(table.n_players))
    for seat in range(MAX_PLAYERS):
        table.totals[seat] = situation.totals[seat]


@njit(cache=True)
def known_round(situation, table, seats):
    """Begin the round on `table` as the estimating seat knows it at its turn: its own hand,
    the turned-up card and trump, the score pad, and the earlier bids made. The other seats'
    records hold no cards."""
    begin_situation_round(situation, table, seats)
    me = seats[situation.seat]
    me.hand = situation.hand
    me.dealt = situation.hand
    turn_up_known(table, situation.trump_card, situation.trump)
    make_earlier_bids(table, seats, situation.bids, situation.seat)


@njit(cache=True)
def deal_uniformly(seed, sample, situation, memory, scratch):
    """Without inference: deal the unseen cards to the other seats (kernels.rules.deal_hands
    on the unseen cards in ascending id order, from the stream (seed, sample, round size,
    DEAL)); memory.hands[seat] receives every seat's hand mask. Returns the weight, 1."""
    table = memory.known_table
    deck = scratch.deck
    generator = scratch.generator
    n_unseen = mask_to_deck(unseen_cards(situation.hand, table), deck)
    seed_stream(generator, seed, sample, situation.round_size, STREAM_DEAL)
    deal_hands(deck, n_unseen, table, memory.dealt, situation.seat, generator)
    for seat in range(table.n_players):
        memory.hands[seat] = situation.hand if seat == situation.seat else memory.dealt[seat].hand
    return 1.0


@njit(cache=True)
def start_sample_round(situation, hands, table, seats):
    """Begin the round on the table with the sample's hands, the known trump and the score
    pad the estimating seat sees."""
    begin_situation_round(situation, table, seats)
    set_hands(table, seats, hands, situation.trump_card, situation.trump)


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


# One thread's memory besides the engine workspace: the round as the estimating seat knows
# it, the posterior sampler's compiled observations, and a sample's hands and fixed bids.
ESTIMATE_DTYPE = np.dtype(
    [
        ("known_table", TABLE_DTYPE),
        ("known_seats", SEAT_DTYPE, (MAX_PLAYERS,)),
        ("dealt", SEAT_DTYPE, (MAX_PLAYERS,)),  # the uniform deal's hands
        ("hands", _i8, (MAX_PLAYERS,)),
        ("fixed_bids", _i8, (MAX_PLAYERS,)),
    ]
)


@njit(cache=True)
def new_known_memory(rules, situation):
    """An ESTIMATE_DTYPE storage array holding the round as the estimating seat knows it at
    its turn (known_round) and the bids fixed in advance."""
    memory_storage = np.zeros(1, dtype=ESTIMATE_DTYPE)
    memory = memory_storage[0]
    set_rules(memory.known_table, rules)
    known_round(situation, memory.known_table, memory.known_seats)
    for seat in range(MAX_PLAYERS):
        memory.fixed_bids[seat] = situation.bids[seat]
    return memory_storage


@njit(cache=True)
def new_estimate_memory(seed, rules, situation, policies, model, infer):
    """A thread's (engine workspace storage, ESTIMATE_DTYPE storage, posterior work storage):
    the round as the seat knows it and, with inference, the sampler prepared from the pilot
    stream (seed, 0, round size, PILOT), identical in every thread."""
    workspace_storage = new_workspace(rules, policies)
    memory_storage = new_known_memory(rules, situation)
    memory = memory_storage[0]
    work_storage = new_work()
    if infer:
        generator = np.empty(1, dtype=np.uint64)
        seed_stream(generator, seed, 0, situation.round_size, STREAM_PILOT)
        me = memory.known_seats[situation.seat]
        prepare(me, memory.known_table, model, work_storage[0], generator)
    return workspace_storage, memory_storage, work_storage


@njit(cache=True)
def deal_sample(sample_key, situation, inference, memories):
    """Deal sample `sample_key` into memories' ESTIMATE_DTYPE record (.hands): from the
    posterior (its first proposal, from the stream (seed, sample, round size, DEAL), which the
    engine workspace's generator is left on) or uniformly. Returns (weight, proposals)."""
    seed, sample = sample_key
    model, infer = inference
    workspace_storage, memory_storage, work_storage = memories
    workspace = workspace_storage[0]
    memory = memory_storage[0]
    if infer:
        generator = workspace.scratch.generator
        seed_stream(generator, seed, sample, situation.round_size, STREAM_DEAL)
        return sample_deal(model, work_storage[0], memory.hands, generator)
    return deal_uniformly(seed, sample, situation, memory, workspace.scratch), 0


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


@njit(cache=True)
def seat_legal_bids(rules, situation):
    """Mask of the bids the estimating seat may make (the even-bids restriction of the
    dealer depends only on the earlier bids and the score pad, which are known)."""
    memory_storage = new_known_memory(rules, situation)
    memory = memory_storage[0]
    return legal_actions(memory.known_table, memory.known_seats)


@njit(cache=True)
def observed_seats(rules, situation, models):
    """How many other seats' bids or trump choice the posterior sampler conditions on in
    this situation (rules, situation, models: one-record arrays)."""
    memory_storage = new_known_memory(rules[0], situation[0])
    memory = memory_storage[0]
    me = memory.known_seats[situation[0].seat]
    generator = np.zeros(1, dtype=np.uint64)  # the pilot's draws do not change the count
    return prepare(me, memory.known_table, models[0], new_work()[0], generator)


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
    n_blocks = (n_samples + SAMPLES_PER_BLOCK - 1) // SAMPLES_PER_BLOCK
    models, infer = inference
    failures = np.empty(n_blocks, dtype=np.int64)
    for block in prange(n_blocks):
        block_situation = situation[0]
        model = models[0]
        memories = new_estimate_memory(seed, rules[0], block_situation, policies, model, infer)
        # A thread-local copy: shared arrays would make every reference count contended.
        block_candidates = candidates.copy()
        start, stop = block * SAMPLES_PER_BLOCK, min(n_samples, (block + 1) * SAMPLES_PER_BLOCK)
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
    (caught here for the reason kernels.games.play_block gives)."""
    tricks, weights, proposals = results
    for i in range(start, stop):
        sample_results = (tricks[i], weights[i : i + 1], proposals[i : i + 1])
        try:
            estimate_sample((seed, first_sample + i), candidates, situation, inference, memories, sample_results)
        except Exception:  # numba cannot bind it
            return i
    return NO_FAILURE
