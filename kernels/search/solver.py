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
- bounds on every seat's final tricks under any play (trick_bounds: Wizards and the top
  trumps are sure tricks but for the Wizards that can still beat them, a Jester loses when
  too few Jesters are left to fill a trick, and the tricks are shared), which bound each
  seat's round score;
- immediate pruning: a seat's cards are tried in ascending id and the first that reaches the
  seat's bound is taken (no later card could beat it under the tie-break);
- shallow pruning (exact under the tie-break): a card after which the seat's bound is no
  better than its best so far is not searched, since only a strictly better score replaces
  the best;
- the last trick (every hand one card) resolved directly;
- a transposition table at trick boundaries, keyed on the position up to what cannot change
  its value: the remaining cards rank-normalised (in each suit only the order of the cards
  still in play counts; Wizards and Jesters only by how many each seat holds), the leader,
  the trump and every seat's need (its bid minus its tricks, clamped to -1 .. tricks left
  + 1: beyond that its preferences do not change). It stores the tricks still to be taken,
  so positions reached with other tricks or other cards share an entry. The entries stay
  valid for the life of the working record (every solve of a pimc decision shares them);
  a key is compared in full, so a hash collision costs a search, never a wrong value.

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

from kernels.bits import at, highest_bit, lowest_bit, popcount
from kernels.cards import JESTER_MASK, N_SUITS, NO_SUIT, WIZARD_MASK, card_bit, suit_mask
from kernels.search.equivalence import distinct_cards
from kernels.records import LED_NONE, MAX_PLAYERS, MAX_PLAYS_PER_ROUND
from kernels.rules import (
    EXACT_BID_BONUS,
    POINTS_PER_TRICK,
    POWER_WIZARD,
    led_suit_after,
    legal_cards,
    round_score,
    seat_after,
    trick_power,
)

TRICK_BITS = 5  # bits per seat in a packed trick vector (a round has at most 20 tricks)
TRICK_FIELD = (1 << TRICK_BITS) - 1
TABLE_BITS = 12  # transposition table of 2**12 entries (128 KiB: a decision allocates it)
TABLE_SIZE = 1 << TABLE_BITS
NO_SCORE = -(1 << 30)
OPEN = np.int64(-1)  # a node's value while its cards are being tried (packed tricks are >= 0)
PRUNED = np.int64(-2)  # a card not searched: its seat's bound is no better than its best so far
OWNER_BITS = 3  # bits per card in a transposition key's sequence of owners
OWNERS_PER_WORD = 21
MAX_KEYED_CARDS = 2 * OWNERS_PER_WORD  # positions with more cards in play are not tabled
NO_SLOT = -1
MAX_TRICKS = MAX_PLAYS_PER_ROUND // 3  # the most tricks a round has (3 players)
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
        ("owner", _i8, (64,)),  # the seat holding each card in play (set_position)
        # trick_bounds by tricks left (the trick in progress too): every seat's fewest and most
        # final tricks, their sums over the seats, and the tricks of the round.
        ("lo", _i8, (MAX_TRICKS + 1, MAX_PLAYERS)),
        ("hi", _i8, (MAX_TRICKS + 1, MAX_PLAYERS)),
        ("sum_lo", _i8, (MAX_TRICKS + 1,)),
        ("sum_hi", _i8, (MAX_TRICKS + 1,)),
        ("round_tricks", _i8, (MAX_TRICKS + 1,)),
        ("key_owners", _i8, (2,)),  # table_key: the owners of the cards in play, in order
        # The transposition table (table_key); an entry's state is never 0, so a zeroed
        # entry is empty.
        ("entry_state", _i8, (TABLE_SIZE,)),
        ("entry_owners", _i8, (TABLE_SIZE, 2)),
        ("entry_rest", _i8, (TABLE_SIZE,)),  # packed tricks still to be taken
        # The search's stack, one frame per node on the path from the root: the seat to act,
        # its best possible score, its best so far, the cards it has still to try, the card
        # being tried, the trick state that card's undo restores and the node's
        # transposition slot and key. (Its bid follows from the node's position.)
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
        ("frame_slot", _i8, (MAX_DEPTH,)),  # the node's transposition slot (NO_SLOT: none)
        # Shallow pruning against the parent's seat (shallow_cut): its fewest and most
        # tricks, the node's seat's, and the tricks the two of them share at most and least.
        ("frame_parent_lo", _i8, (MAX_DEPTH,)),
        ("frame_parent_hi", _i8, (MAX_DEPTH,)),
        ("frame_lo", _i8, (MAX_DEPTH,)),
        ("frame_hi", _i8, (MAX_DEPTH,)),
        ("frame_pair_most", _i8, (MAX_DEPTH,)),
        ("frame_pair_fewest", _i8, (MAX_DEPTH,)),
        ("frame_state", _i8, (MAX_DEPTH,)),  # and its key (table_key)
        ("frame_owners", _i8, (MAX_DEPTH, 2)),
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
    bid it plays for). The transposition entries of earlier positions stay: their keys hold
    all that decides their values."""
    n_players = table.n_players
    work.n_players = n_players
    work.trump = table.trump
    in_play = np.int64(0)
    tricks = np.int64(0)
    for seat in range(MAX_PLAYERS):
        held = seats[seat].hand if seat < n_players else 0
        work.hands[seat] = held
        rest = held
        while rest:
            work.owner[lowest_bit(rest)] = seat
            rest &= rest - 1
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


@njit(cache=True, inline="always")
def seat_to_play(work):
    return seat_after(work.leader, work.n_in_trick, work.n_players)


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
def score_bound(bid, lo, hi):
    """The best round score of a seat that will end with lo..hi tricks."""
    if bid < lo:
        return -POINTS_PER_TRICK * (lo - bid)
    if bid > hi:
        return -POINTS_PER_TRICK * (bid - hi)
    return EXACT_BID_BONUS + POINTS_PER_TRICK * bid


@njit(cache=True)
def trick_bounds(work):
    """work.lo[left, s] .. work.hi[left, s]: the fewest and the most tricks seat s can end the
    round with, whatever anyone plays from the current position, where `left` (returned) is
    the number of tricks left, the one in progress too. The bounds of a trick boundary hold
    for every position of its trick, which is how the search uses them (one call a trick).

    Sure tricks: every card is played, each in a trick of its own, so a seat's Wizards and its
    trumps above every trump in another hand each take their trick, but for one such trick
    per Wizard in another hand (it can come first, or beat a trump) and, when the seat has
    still to play to the trick in progress, that trick (it may hold a Wizard or a higher
    trump already); a Wizard leading the trick in progress takes it. Sure losses: a Jester
    loses its trick unless the trick is all Jesters, impossible with fewer Jesters left than
    players; a seat that has played to the trick in progress and is not winning it loses it,
    and so does every seat after a Wizard. The most tricks are also at most what the others'
    sure tricks leave."""
    n_players = work.n_players
    leader = work.leader
    n_in_trick = work.n_in_trick
    in_play = work.in_play
    left = popcount(work.hands[at(seat_after(leader, n_in_trick, n_players))])  # tricks left, this one too
    wizards = popcount(in_play & WIZARD_MASK)
    jesters_lose = popcount((in_play | work.trick_cards) & JESTER_MASK) < n_players
    top_seat = -1
    top_trumps = 0
    if work.trump != NO_SUIT:
        trumps = in_play & suit_mask(work.trump)
        if trumps:
            top_seat = work.owner[highest_bit(trumps)]
            held = work.hands[at(top_seat)] & trumps
            below = trumps & ~held
            above = ~((card_bit(highest_bit(below)) << 1) - 1) if below else np.int64(-1)
            top_trumps = popcount(held & above)
    winner = seat_after(leader, work.winning_position, n_players)
    wizard_won = n_in_trick > 0 and work.winning_power == POWER_WIZARD
    sure_total = 0
    for position in range(n_players):
        seat = seat_after(leader, position, n_players)
        hand = work.hands[at(seat)]
        played = position < n_in_trick
        own_wizards = popcount(hand & WIZARD_MASK)
        sure = own_wizards + (top_trumps if seat == top_seat else 0)
        beaten = wizards - own_wizards + (1 if n_in_trick > 0 and not played else 0)
        gain = max(0, sure - beaten) + (1 if wizard_won and seat == winner else 0)
        jesters = popcount(hand & JESTER_MASK) if jesters_lose else 0
        if n_in_trick == 0:
            most = left - jesters
        elif played:
            most = (1 if seat == winner else 0) + left - 1 - jesters
        elif wizard_won:
            most = left - max(1, jesters)
        else:
            most = left - jesters
        work.lo[left, seat] = gain
        work.hi[left, seat] = most
        sure_total += gain
    sum_lo = 0
    sum_hi = 0
    round_tricks = left
    for seat in range(n_players):
        taken = tricks_of(work.tricks, seat)
        work.hi[left, seat] = taken + min(work.hi[left, seat], left - (sure_total - work.lo[left, seat]))
        work.lo[left, seat] += taken
        sum_lo += work.lo[left, seat]
        sum_hi += work.hi[left, seat]
        round_tricks += taken
    work.sum_lo[left] = sum_lo
    work.sum_hi[left] = sum_hi
    work.round_tricks[left] = round_tricks
    return left


@njit(cache=True)
def table_key(work):
    """The transposition state of a position at a trick boundary (0: not tabled, too many
    cards), its owner sequence left in work.key_owners: the owner of every card in play in
    id order (suits by rank), then the Wizards' and the Jesters' owners by seat. With the
    number of cards in play of each suit and kind, the leader, the trump, the players and
    every seat's clamped need in the state, it decides the rest of the round: a relabelling
    of the ranks that keeps their order within each suit plays every trick alike and keeps
    the order of each hand's card ids (the tie-break)."""
    in_play = work.in_play
    n_players = work.n_players
    if popcount(in_play) > MAX_KEYED_CARDS:
        return np.int64(0)
    left = popcount(work.hands[at(work.leader)])
    first = np.int64(0)
    second = np.int64(0)
    count = 0
    suited = in_play & ~(WIZARD_MASK | JESTER_MASK)
    while suited:
        owner = work.owner[lowest_bit(suited)]
        suited &= suited - 1
        if count < OWNERS_PER_WORD:
            first |= owner << (OWNER_BITS * count)
        else:
            second |= owner << (OWNER_BITS * (count - OWNERS_PER_WORD))
        count += 1
    state = np.int64(work.leader) | ((work.trump + 1) << 3) | (np.int64(n_players) << 6)
    shift = 9
    for seat in range(n_players):
        need = work.bids[at(seat)] - tricks_of(work.tricks, seat)
        state |= (min(max(need, -1), left + 1) + 1) << shift
        shift += 5
    for kind in (WIZARD_MASK, JESTER_MASK):
        for seat in range(n_players):
            for _ in range(popcount(work.hands[at(seat)] & kind)):
                if count < OWNERS_PER_WORD:
                    first |= np.int64(seat) << (OWNER_BITS * count)
                else:
                    second |= np.int64(seat) << (OWNER_BITS * (count - OWNERS_PER_WORD))
                count += 1
    shift = 39
    for suit in range(N_SUITS):
        state |= np.int64(popcount(in_play & suit_mask(suit))) << shift
        shift += 4
    state |= np.int64(popcount(in_play & WIZARD_MASK)) << 55
    state |= np.int64(popcount(in_play & JESTER_MASK)) << 58
    work.key_owners[0] = first
    work.key_owners[1] = second
    return state


@njit(cache=True, inline="always")
def table_slot(work, state):
    mixed = (work.key_owners[0] ^ (state * np.int64(0x9E3779B97F4A7C15)) ^ (work.key_owners[1] * np.int64(0x94D049BB133111EB)))
    mixed *= np.int64(0xBF58476D1CE4E5B9)
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
    over, the last trick, a transposition hit); PRUNED when the card that led here (frame
    depth - 1) cannot improve its seat's best; otherwise OPEN, with frame `depth` set up to
    try the seat's cards."""
    seat = seat_to_play(work)
    hand = work.hands[at(seat)]
    if hand == 0:
        return work.tricks
    if work.n_in_trick == 0 and popcount(hand) == 1:
        return last_trick(work)
    left = popcount(hand)  # tricks left, this one too
    if work.n_in_trick == 0 or depth == 0:
        trick_bounds(work)
    if depth > 0:
        parent = work.frame_seat[depth - 1]
        best = work.frame_best_score[depth - 1]
        if best > NO_SCORE and score_bound(work.bids[at(parent)], work.lo[left, parent], work.hi[left, parent]) <= best:
            return PRUNED
    slot = NO_SLOT
    if work.n_in_trick == 0:
        state = table_key(work)
        if state != 0:
            slot = table_slot(work, state)
            if (
                work.entry_state[slot] == state
                and work.entry_owners[slot, 0] == work.key_owners[0]
                and work.entry_owners[slot, 1] == work.key_owners[1]
            ):
                return work.tricks + work.entry_rest[slot]
    bid = work.bids[at(seat)]
    work.frame_seat[depth] = seat
    work.frame_bound[depth] = score_bound(bid, work.lo[left, seat], work.hi[left, seat])
    if depth > 0:
        # What the parent's seat can still get once this seat is sure of a score: the
        # tricks of the round not surely another seat's (shallow_cut).
        parent = work.frame_seat[depth - 1]
        others_lo = work.sum_lo[left] - work.lo[left, parent] - work.lo[left, seat]
        others_hi = work.sum_hi[left] - work.hi[left, parent] - work.hi[left, seat]
        work.frame_parent_lo[depth] = work.lo[left, parent]
        work.frame_parent_hi[depth] = work.hi[left, parent]
        work.frame_lo[depth] = work.lo[left, seat]
        work.frame_hi[depth] = work.hi[left, seat]
        work.frame_pair_most[depth] = work.round_tricks[left] - (others_lo if parent != seat else 0)
        work.frame_pair_fewest[depth] = work.round_tricks[left] - (others_hi if parent != seat else 0)
    work.frame_best_score[depth] = NO_SCORE
    work.frame_best_final[depth] = 0
    work.frame_rest[depth] = candidates(work, seat)
    work.frame_slot[depth] = slot
    if slot != NO_SLOT:
        work.frame_state[depth] = state
        work.frame_owners[depth, 0] = work.key_owners[0]
        work.frame_owners[depth, 1] = work.key_owners[1]
    return OPEN


@njit(cache=True, inline="always")
def shallow_cut(work, depth):
    """Whether the node at `depth` (> 0) can stop: whatever card its seat ends up playing
    scores at least its best so far for it, so holds its tricks within a range, which leaves
    the parent's seat no score better than the parent's best so far (a tie does not replace
    that best either). Max^n's shallow pruning (Korf; Sturtevant and Korf), with the shared
    tricks in place of a constant sum of scores."""
    parent = work.frame_seat[depth - 1]
    seat = work.frame_seat[depth]
    if parent == seat:
        return False
    parent_best = work.frame_best_score[depth - 1]
    if parent_best == NO_SCORE:
        return False
    best = work.frame_best_score[depth]
    bid = work.bids[at(seat)]
    # The tricks at which the seat's score is at least `best` (at most `best`'s distance
    # from the bid, or the bid itself).
    spread = 0 if best > 0 else -best // POINTS_PER_TRICK
    fewest = max(work.frame_lo[depth], bid - spread)
    most = min(work.frame_hi[depth], bid + spread)
    parent_lo = max(work.frame_parent_lo[depth], work.frame_pair_fewest[depth] - most)
    parent_hi = min(work.frame_parent_hi[depth], work.frame_pair_most[depth] - fewest)
    if parent_lo > parent_hi:
        return False
    return score_bound(work.bids[at(parent)], parent_lo, parent_hi) <= parent_best


@njit(cache=True)
def search(work):
    """Packed final tricks of every seat under max^n play from the current position (the
    position is restored on return). Each seat tries its candidate cards in ascending id and
    keeps the first best-scoring one, stopping at its bound and skipping the cards that
    cannot beat its best so far."""
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
        # `value` is the node at `depth` decided (or PRUNED): fold it into its parent.
        if depth == 0:
            return value
        depth -= 1
        seat = work.frame_seat[depth]
        undo(work, seat, work.frame_card[depth], kept(work, depth))
        if value != PRUNED:
            score = round_score(work.bids[at(seat)], tricks_of(value, seat))
            if score > work.frame_best_score[depth]:
                work.frame_best_score[depth] = score
                work.frame_best_final[depth] = value
        if work.frame_best_score[depth] != work.frame_bound[depth] and work.frame_rest[depth] != 0:
            if depth == 0 or not shallow_cut(work, depth):
                value = OPEN
                continue
            value = PRUNED  # its parent keeps its best: no value of this node is needed
            continue
        value = work.frame_best_final[depth]
        slot = work.frame_slot[depth]
        if slot != NO_SLOT:  # a node at a trick boundary: remember what is still to be taken
            work.entry_state[slot] = work.frame_state[depth]
            work.entry_owners[slot, 0] = work.frame_owners[depth, 0]
            work.entry_owners[slot, 1] = work.frame_owners[depth, 1]
            work.entry_rest[slot] = value - work.tricks


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
