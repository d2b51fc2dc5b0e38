"""Monte Carlo bid estimation: one seat's known hand, every candidate bid, many sampled deals.

Seat layout: the dealer is seat N-1, so bidding position p is seat p and seat 0 leads the
first trick. For each sample the unseen cards are dealt uniformly to the other seats once;
then the round is replayed for every candidate bid from the same deal and the same start of
the decisions stream (common random numbers). A sample is a pure function of (seed, sample
index): its deal comes from the stream (seed, sample, round size, DEAL) and its decisions
from (seed, sample, round size, DECISIONS), whatever the thread count (docs/estimate.md).
"""
import numpy as np
from numba import njit, prange

from kernels.bits import lowest_bit
from kernels.games import new_workspace, seated_policies
from kernels.policies.dispatch import decide
from kernels.rng import STREAM_DEAL, STREAM_DECISIONS, seed_stream
from kernels.round_state import begin_round, play_out, set_hands
from kernels.rules import deal_hands, legal_bids
from kernels.state import MAX_PARAMS, MAX_PLAYERS

_i8 = np.int64

# What the estimating seat knows when it bids. `bids` holds the bids fixed in advance (the
# earlier bidders' under open bidding, NO_BID for seats that bid by their policy); the
# kernels write each candidate into the estimating seat's entry of a per-thread copy.
SITUATION_DTYPE = np.dtype(
    [
        ("round_size", _i8),
        ("seat", _i8),  # the estimating seat, equal to its bidding position
        ("hand", _i8),  # its cards
        ("unseen", _i8),  # mask of the cards dealt at random to the other seats
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
def deal_sample(seed, sample, situation, table, seats, scratch, hands):
    """Deal the unseen cards to the other seats (kernels.rules.deal_hands on the unseen cards
    in ascending id order, from the stream (seed, sample, round size, DEAL)); hands[seat]
    receives every seat's hand mask. `table` is begun for the round."""
    deck = scratch.deck
    generator = scratch.generator
    n_unseen = mask_to_deck(situation.unseen, deck)
    seed_stream(generator, seed, sample, situation.round_size, STREAM_DEAL)
    deal_hands(deck, n_unseen, table, seats, situation.seat, generator)
    for seat in range(table.n_players):
        hands[seat] = situation.hand if seat == situation.seat else seats[seat].hand


@njit(cache=True)
def start_sample_round(situation, hands, table, seats):
    """Begin the round on the table with the sample's hands, the known trump and the score
    pad the estimating seat sees."""
    begin_round(table, seats, situation.round_size, dealer_seat(table.n_players))
    for seat in range(MAX_PLAYERS):
        table.totals[seat] = situation.totals[seat]
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


@njit(cache=True)
def estimate_sample(sample_key, candidates, situation, workspace_storage, work, tricks):
    """Deal sample `sample_key` once and play it for every candidate bid; tricks[k] receives
    the estimating seat's tricks when it bids candidates[k]. work = (hands, fixed bids)."""
    seed, sample = sample_key
    hands, fixed_bids = work
    workspace = workspace_storage[0]  # the caller's storage keeps this record alive
    begin_round(workspace.table, workspace.seats, situation.round_size, dealer_seat(workspace.table.n_players))
    deal_sample(seed, sample, situation, workspace.table, workspace.seats, workspace.scratch, hands)
    for k in range(candidates.shape[0]):
        fixed_bids[situation.seat] = candidates[k]
        tricks[k] = play_sample_round(sample_key, fixed_bids, hands, situation, workspace)


@njit(cache=True)
def new_estimate_workspace(rules, situation, policies):
    """A thread's engine workspace (storage array), and its (hands, fixed bids)."""
    workspace_storage = new_workspace(rules, policies)
    return workspace_storage, (np.zeros(MAX_PLAYERS, dtype=np.int64), situation.bids.copy())


@njit(cache=True)
def seat_legal_bids(rules, situation):
    """Mask of the bids the estimating seat may make (the even-bids restriction of the
    dealer depends only on the earlier bids and the score pad, which are known)."""
    unseated = (np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros((MAX_PLAYERS, MAX_PARAMS)))  # legality ignores policies
    workspace_storage, (hands, fixed_bids) = new_estimate_workspace(rules, situation, unseated)
    table = workspace_storage[0].table
    seats = workspace_storage[0].seats
    hands[situation.seat] = situation.hand
    start_sample_round(situation, hands, table, seats)
    for seat in range(situation.seat):
        seats[seat].bid = fixed_bids[seat]
    return legal_bids(table, seats, situation.seat)


@njit(cache=True, parallel=True)
def estimate_tricks(seed, rules, situation, policies, candidates, tricks):
    """Fill tricks[i, k]: the estimating seat's tricks in sample i when it bids candidates[k].

    rules and situation are one-record arrays (a parallel kernel cannot take a bare record).
    Samples are independent, so the blocking over threads never changes a result."""
    n_samples = tricks.shape[0]
    n_blocks = (n_samples + SAMPLES_PER_BLOCK - 1) // SAMPLES_PER_BLOCK
    for block in prange(n_blocks):
        block_situation = situation[0]
        workspace_storage, work = new_estimate_workspace(rules[0], block_situation, policies)
        # A thread-local copy: shared arrays would make every reference count contended.
        block_candidates = candidates.copy()
        for i in range(block * SAMPLES_PER_BLOCK, min(n_samples, (block + 1) * SAMPLES_PER_BLOCK)):
            estimate_sample((seed, i), block_candidates, block_situation, workspace_storage, work, tricks[i])
