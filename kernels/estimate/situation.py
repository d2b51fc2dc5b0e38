"""What the estimating seat knows when it bids, and how a sample of the unseen cards is dealt.

Seat layout: the dealer is seat N-1, so bidding position p is seat p and seat 0 leads the
first trick. A sample's deal is a pure function of (seed, sample index): it comes from the
stream (seed, sample, round size, DEAL) — from the posterior given the earlier bids and the
dealer's trump choice (kernels.search.posterior, with an importance weight), or uniformly without
inference — and the sampler's pilot, the same for every thread, from (seed, 0, round size,
PILOT) (docs/estimate.md).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from kernels.game_loop import new_workspace
from kernels.bits import lowest_bit
from kernels.search.posterior import new_work, prepare, sample_deal
from kernels.records import MAX_PLAYERS, SEAT_DTYPE, TABLE_DTYPE
from kernels.rng import STREAM_DEAL, STREAM_PILOT, seed_stream
from kernels.round_state import begin_round, legal_actions, make_earlier_bids, set_hands, set_rules, turn_up_known
from kernels.rules import deal_hands, unseen_cards

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


# A thread's memory for an estimate, as storage arrays (one record each, kept alive by the
# tuple): the engine workspace, the round as the seat knows it (ESTIMATE_DTYPE) and the
# posterior sampler's work (kernels.search.posterior.POSTERIOR_WORK_DTYPE).
EstimateMemory = namedtuple("EstimateMemory", ("workspace", "known", "work"))
# How a sample is dealt: from the posterior of `model` (a MODEL_DTYPE record) or, without
# `infer`, uniformly.
Sampling = namedtuple("Sampling", ("model", "infer"))


@njit(cache=True)
def new_estimate_memory(seed, rules, situation, policies, sampling):
    """A thread's EstimateMemory: the round as the seat knows it and, with inference, the
    sampler prepared from the pilot stream (seed, 0, round size, PILOT), identical in every
    thread."""
    memory = EstimateMemory(new_workspace(rules, policies), new_known_memory(rules, situation), new_work())
    if sampling.infer:
        generator = np.empty(1, dtype=np.uint64)
        seed_stream(generator, seed, 0, situation.round_size, STREAM_PILOT)
        known = memory.known[0]
        prepare(known.known_seats[situation.seat], known.known_table, sampling.model, memory.work[0], generator)
    return memory


@njit(cache=True)
def deal_sample(sample_key, situation, sampling, memory):
    """Deal sample `sample_key` into the memory's known record (.hands): from the posterior
    (its first proposal, from the stream (seed, sample, round size, DEAL), which the engine
    workspace's generator is left on) or uniformly. Returns (weight, proposals)."""
    seed, sample = sample_key
    workspace = memory.workspace[0]
    known = memory.known[0]
    if sampling.infer:
        generator = workspace.scratch.generator
        seed_stream(generator, seed, sample, situation.round_size, STREAM_DEAL)
        return sample_deal(sampling.model, memory.work[0], known.hands, generator)
    return deal_uniformly(seed, sample, situation, known, workspace.scratch), 0


@njit(cache=True)
def seat_legal_bids(rules, situation):
    """Mask of the bids the estimating seat may make (the even-bids restriction of the
    dealer depends only on the earlier bids and the score pad, which are known)."""
    return known_legal_actions(new_known_memory(rules, situation))


@njit(cache=True)
def known_legal_actions(known_storage):
    """The legal actions at the known round's turn (known_storage: a new_known_memory array,
    whose record is taken here, where the caller holds the array: numba frees a local array
    after its last use even while a record of it is read, kernels/blocks.py)."""
    memory = known_storage[0]
    return legal_actions(memory.known_table, memory.known_seats)


@njit(cache=True)
def prepare_known(known_storage, seat, model, work_storage, generator):
    """kernels.search.posterior.prepare for `seat` of the known round (a new_known_memory array)
    into work_storage (a posterior new_work array); returns prepare's count of observed seats."""
    memory = known_storage[0]
    return prepare(memory.known_seats[seat], memory.known_table, model, work_storage[0], generator)


@njit(cache=True)
def observed_seats(rules, situation, models):
    """How many other seats' bids or trump choice the posterior sampler conditions on in
    this situation (rules, situation, models: one-record arrays)."""
    generator = np.zeros(1, dtype=np.uint64)  # the pilot's draws do not change the count
    return prepare_known(new_known_memory(rules[0], situation[0]), situation[0].seat, models[0], new_work(), generator)

