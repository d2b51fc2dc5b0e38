"""A perfect-information solver for the rest of a Wizard round (max^n; docs/pimc.md).

Given every seat's hand, the bids, the tricks taken so far and the trick in progress, each
seat in turn plays the card that maximises its own round score (kernels.rules.round_score of
its bid and its final tricks) under the same play by everyone after it: the max^n value of
the position, as the vector of every seat's final tricks.

Tie-break (max^n is ambiguous when a seat's cards give it the same score): the lowest card
id among the best. It depends on nothing but the position (not on the search order), so a
brute-force enumeration reproduces it exactly (tests/reference.py), and it lets the search
stop at a seat's first card that reaches the best score the seat could still make. An
indifferent seat therefore plays a low club before a Wizard: arbitrary, but fixed and said.

The search: depth first over the cards, one level per card, with
- card-equivalence pruning: of cards of one hand with no card still in play elsewhere (in
  another hand or the current trick) between them, only the lowest is tried (they play
  alike; kernels.search.equivalence, shared with mc);
- immediate pruning: a seat's cards are tried in ascending id and the first that reaches the
  seat's best possible score is taken (no later card could beat it under the tie-break);
- the last trick (every hand one card) resolved directly;
- a transposition table at trick boundaries, keyed by the cards still in play, the leader
  and the tricks taken so far (these decide the rest), entries stamped by solve so a new
  position needs no clearing.

Tricks are packed 5 bits per seat in an int64 (at most 20 tricks a round, 6 seats).

The depth-first search keeps its own stack (the frame_* arrays of the working record) instead
of recursing: numba's cache is known to crash on recursive functions (numba/numba#6061).

Usage (all compiled; one working record per thread):

    storage = new_work()            # SOLVER_DTYPE, keep it referenced
    work = storage[0]
    set_position(work, table, seats)    # the table's trick state, every seat's hand and bid
    final = solve(work)                        # packed final tricks under max^n play
    tricks_of(final, seat)
    card = best_card(work)                     # the seat to act's max^n card
"""
import numpy as np
from numba import njit

from kernels.bits import at, lowest_bit, popcount
from kernels.cards import card_bit
from kernels.search.equivalence import distinct_cards
from kernels.records import LED_NONE, MAX_PLAYERS, MAX_PLAYS_PER_ROUND
from kernels.rules import EXACT_BID_BONUS, POINTS_PER_TRICK, led_suit_after, legal_cards, round_score, seat_after, trick_power

TRICK_BITS = 5  # bits per seat in a packed trick vector (a round has at most 20 tricks)
TRICK_FIELD = (1 << TRICK_BITS) - 1
TABLE_BITS = 12  # transposition table of 2**12 entries (128 KiB: a decision allocates it)
TABLE_SIZE = 1 << TABLE_BITS
NO_SCORE = -(1 << 30)
OPEN = np.int64(-1)  # a node's value while its cards are being tried (packed tricks are >= 0)
MAX_DEPTH = MAX_PLAYS_PER_ROUND  # one frame per card played below the root

_i8 = np.int64

SOLVER_DTYPE = np.dtype(
    [
        ("n_players", _i8),
        ("trump", _i8),
        ("bids", _i8, (MAX_PLAYERS,)),  # every seat's bid (what it plays for)
        ("hands", _i8, (MAX_PLAYERS,)),  # every seat's current hand
        ("in_play", _i8),  # the union of the hands
        ("tricks", _i8),  # tricks taken so far, packed (TRICK_BITS per seat)
        ("leader", _i8),  # seat that led the current trick
        ("n_in_trick", _i8),
        ("led_suit", _i8),  # as the table's: LED_NONE, LED_FREE or a suit
        ("winning_position", _i8),
        ("winning_power", _i8),  # rules.trick_power of the card winning the trick
        ("trick_cards", _i8),  # mask of the cards of the current trick
        ("nodes", _i8),  # cards tried (a count for benchmarks)
        ("stamp", _i8),  # the current solve's stamp in the transposition table
        ("entry_stamp", _i8, (TABLE_SIZE,)),
        ("entry_cards", _i8, (TABLE_SIZE,)),
        ("entry_state", _i8, (TABLE_SIZE,)),  # leader | tricks so far << 3
        ("entry_final", _i8, (TABLE_SIZE,)),  # packed final tricks
        # The search's stack, one frame per node on the path from the root: the seat to act,
        # its best possible score, its best so far, the cards it has still to try, the card
        # being tried and the trick state that card's undo restores. (Its bid and
        # transposition slot follow from the node's position, which undo restores.)
        ("frame_seat", _i8, (MAX_DEPTH,)),
        ("frame_bound", _i8, (MAX_DEPTH,)),
        ("frame_best_score", _i8, (MAX_DEPTH,)),
        ("frame_best_final", _i8, (MAX_DEPTH,)),
        ("frame_rest", _i8, (MAX_DEPTH,)),
        ("frame_card", _i8, (MAX_DEPTH,)),
        ("frame_leader", _i8, (MAX_DEPTH,)),
        ("frame_n_in_trick", _i8, (MAX_DEPTH,)),
        ("frame_led_suit", _i8, (MAX_DEPTH,)),
        ("frame_winning_position", _i8, (MAX_DEPTH,)),
        ("frame_winning_power", _i8, (MAX_DEPTH,)),
        ("frame_trick_cards", _i8, (MAX_DEPTH,)),
        ("frame_tricks", _i8, (MAX_DEPTH,)),
    ]
)


@njit(cache=True)
def new_work():
    """A one-record SOLVER_DTYPE array; keep it referenced while its record is used."""
    return np.zeros(1, dtype=SOLVER_DTYPE)


@njit(cache=True, inline="always")
def tricks_of(packed, seat):
    """The tricks of `seat` in a packed trick vector."""
    return (packed >> (TRICK_BITS * seat)) & TRICK_FIELD


@njit(cache=True, inline="always")
def one_trick(seat):
    return np.int64(1) << (TRICK_BITS * seat)


@njit(cache=True)
def set_position(work, table, seats):
    """Load a position: the table's trump, tricks taken and trick in progress (a TABLE_DTYPE
    record in its play phase) and every seat's record (SEAT_DTYPE: its current hand and the
    bid it plays for). Starts a new solve (transposition entries of earlier positions no
    longer count)."""
    n_players = table.n_players
    work.n_players = n_players
    work.trump = table.trump
    in_play = np.int64(0)
    tricks = np.int64(0)
    for seat in range(MAX_PLAYERS):
        held = seats[seat].hand if seat < n_players else 0
        work.hands[seat] = held
        work.bids[seat] = seats[seat].bid if seat < n_players else 0
        in_play |= held
        if seat < n_players:
            tricks += table.tricks[seat] * one_trick(seat)
    work.in_play = in_play
    work.tricks = tricks
    work.leader = table.leader
    work.n_in_trick = table.n_in_trick
    work.led_suit = table.led_suit
    work.winning_position = table.winning_position
    work.winning_power = table.winning_power
    trick_cards = np.int64(0)
    for position in range(table.n_in_trick):
        trick_cards |= card_bit(table.trick_cards[position])
    work.trick_cards = trick_cards
    work.stamp += 1


@njit(cache=True, inline="always")
def seat_to_play(work):
    return seat_after(work.leader, work.n_in_trick, work.n_players)


@njit(cache=True, inline="always")
def best_possible(bid, taken, left):
    """The best round score a seat with `taken` tricks and `left` still to play can make."""
    if bid < taken:
        return -POINTS_PER_TRICK * (taken - bid)
    if bid > taken + left:
        return -POINTS_PER_TRICK * (bid - taken - left)
    return EXACT_BID_BONUS + POINTS_PER_TRICK * bid


@njit(cache=True, inline="always")
def candidates(work, seat):
    """The seat's legal cards, one of each equivalent set."""
    hand = work.hands[at(seat)]
    elsewhere = (work.in_play & ~hand) | work.trick_cards
    return distinct_cards(legal_cards(hand, work.led_suit), elsewhere)


@njit(cache=True, inline="always")
def play(work, seat, card):
    """The seat to act plays `card` (rules.led_suit_after and rules.trick_power decide the
    trick); a complete trick goes to its winner, who leads the next. Returns what undo needs."""
    saved = (work.leader, work.n_in_trick, work.led_suit, work.winning_position, work.winning_power, work.trick_cards, work.tricks)
    bit = card_bit(card)
    work.hands[at(seat)] &= ~bit
    work.in_play &= ~bit
    position = work.n_in_trick
    led = led_suit_after(work.led_suit, card)
    power = trick_power(card, led, work.trump)
    if power > work.winning_power:
        work.winning_power = power
        work.winning_position = position
    if position + 1 < work.n_players:
        work.led_suit = led
        work.n_in_trick = position + 1
        work.trick_cards |= bit
        return saved
    winner = seat_after(work.leader, work.winning_position, work.n_players)
    work.tricks += one_trick(winner)
    work.leader = winner
    work.n_in_trick = 0
    work.led_suit = LED_NONE
    work.winning_position = 0
    work.winning_power = 0
    work.trick_cards = 0
    return saved


@njit(cache=True, inline="always")
def undo(work, seat, card, saved):
    bit = card_bit(card)
    work.hands[at(seat)] |= bit
    work.in_play |= bit
    leader, n_in_trick, led_suit, winning_position, winning_power, trick_cards, tricks = saved
    work.leader = leader
    work.n_in_trick = n_in_trick
    work.led_suit = led_suit
    work.winning_position = winning_position
    work.winning_power = winning_power
    work.trick_cards = trick_cards
    work.tricks = tricks


@njit(cache=True)
def last_trick(work):
    """Final tricks when every hand holds one card and a trick starts: no choice is left."""
    n_players = work.n_players
    led = LED_NONE
    winning_power = 0
    winning_position = 0
    for position in range(n_players):
        card = lowest_bit(work.hands[at(seat_after(work.leader, position, n_players))])
        led = led_suit_after(led, card)
        power = trick_power(card, led, work.trump)
        if power > winning_power:
            winning_power = power
            winning_position = position
    work.nodes += n_players
    return work.tricks + one_trick(seat_after(work.leader, winning_position, n_players))


@njit(cache=True, inline="always")
def boundary_state(work):
    """What decides the rest at a trick boundary besides the cards in play: the leader and the
    tricks taken so far."""
    return work.leader | (work.tricks << 3)


@njit(cache=True, inline="always")
def table_slot(cards, state):
    mixed = (cards ^ (state * np.int64(0x9E3779B97F4A7C15))) * np.int64(0xBF58476D1CE4E5B9)
    return (mixed >> (64 - TABLE_BITS)) & (TABLE_SIZE - 1)


@njit(cache=True, inline="always")
def keep(work, depth, saved):
    """Store what undo needs (play's return) in frame `depth`."""
    leader, n_in_trick, led_suit, winning_position, winning_power, trick_cards, tricks = saved
    work.frame_leader[depth] = leader
    work.frame_n_in_trick[depth] = n_in_trick
    work.frame_led_suit[depth] = led_suit
    work.frame_winning_position[depth] = winning_position
    work.frame_winning_power[depth] = winning_power
    work.frame_trick_cards[depth] = trick_cards
    work.frame_tricks[depth] = tricks


@njit(cache=True, inline="always")
def kept(work, depth):
    """What keep stored in frame `depth`."""
    return (work.frame_leader[depth], work.frame_n_in_trick[depth], work.frame_led_suit[depth],
            work.frame_winning_position[depth], work.frame_winning_power[depth], work.frame_trick_cards[depth],
            work.frame_tricks[depth])  # fmt: skip


@njit(cache=True)
def open_node(work, depth):
    """The current position's packed final tricks when they need no search (the round is
    over, the last trick, a transposition hit); otherwise OPEN, with frame `depth` set up to
    try the seat's cards."""
    seat = seat_to_play(work)
    hand = work.hands[at(seat)]
    if hand == 0:
        return work.tricks
    if work.n_in_trick == 0:
        if popcount(hand) == 1:
            return last_trick(work)
        state = boundary_state(work)
        slot = table_slot(work.in_play, state)
        if (
            work.entry_stamp[slot] == work.stamp
            and work.entry_cards[slot] == work.in_play
            and work.entry_state[slot] == state
        ):
            return work.entry_final[slot]
    bid = work.bids[at(seat)]
    work.frame_seat[depth] = seat
    work.frame_bound[depth] = best_possible(bid, tricks_of(work.tricks, seat), popcount(hand))
    work.frame_best_score[depth] = NO_SCORE
    work.frame_best_final[depth] = 0
    work.frame_rest[depth] = candidates(work, seat)
    return OPEN


@njit(cache=True)
def search(work):
    """Packed final tricks of every seat under max^n play from the current position (the
    position is restored on return). Each seat tries its candidate cards in ascending id and
    keeps the first best-scoring one, stopping at its best possible score."""
    depth = 0
    value = open_node(work, depth)
    while True:
        if value == OPEN:  # try the next card of the node at `depth`
            seat = work.frame_seat[depth]
            rest = work.frame_rest[depth]
            card = lowest_bit(rest)
            work.frame_rest[depth] = rest & (rest - 1)
            work.frame_card[depth] = card
            work.nodes += 1
            keep(work, depth, play(work, seat, card))
            depth += 1
            value = open_node(work, depth)
            continue
        # `value` is the node at `depth` decided: fold it into its parent.
        if depth == 0:
            return value
        depth -= 1
        seat = work.frame_seat[depth]
        undo(work, seat, work.frame_card[depth], kept(work, depth))
        score = round_score(work.bids[at(seat)], tricks_of(value, seat))
        if score > work.frame_best_score[depth]:
            work.frame_best_score[depth] = score
            work.frame_best_final[depth] = value
        if score != work.frame_bound[depth] and work.frame_rest[depth] != 0:
            value = OPEN
            continue
        value = work.frame_best_final[depth]
        if work.n_in_trick == 0:  # a node at a trick boundary: remember its value
            state = boundary_state(work)
            slot = table_slot(work.in_play, state)
            work.entry_stamp[slot] = work.stamp
            work.entry_cards[slot] = work.in_play
            work.entry_state[slot] = state
            work.entry_final[slot] = value


@njit(cache=True)
def solve(work):
    """Packed final tricks of every seat under max^n play from the loaded position."""
    return search(work)


@njit(cache=True)
def final_after(work, card):
    """Packed final tricks when the seat to act plays `card` (legal) and max^n play follows."""
    seat = seat_to_play(work)
    saved = play(work, seat, card)
    final = search(work)
    undo(work, seat, card, saved)
    return final


@njit(cache=True)
def best_card(work):
    """The seat to act's max^n card: of its best-scoring cards the lowest id (its equivalent
    cards are never better than the lowest of their set, which is the one tried)."""
    seat = seat_to_play(work)
    bid = work.bids[at(seat)]
    best_score = NO_SCORE
    best = -1
    rest = candidates(work, seat)
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        score = round_score(bid, tricks_of(final_after(work, card), seat))
        if score > best_score:
            best_score = score
            best = card
    return best
