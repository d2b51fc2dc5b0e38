"""The rules of Wizard, one small function per phase (docs/rules.md §2-7).

Every function works on integers, masks and the table/seat records of kernels.records.
"""
import types

import numpy as np
from numba import njit
from numba.core.dispatcher import Dispatcher

from kernels.bits import at
from kernels.cards import (
    FULL_DECK,
    N_CARDS,
    N_SUITS,
    NO_CARD,
    NO_SUIT,
    SPECIAL_MASK,
    card_bit,
    card_rank,
    card_suit,
    draw_value,
    is_jester,
    is_wizard,
    suit_mask,
)
from kernels.rng import ROUND_OF_DRAW, STREAM_DEAL, STREAM_DRAW, below, below_from_state, seed_stream
from kernels.records import (
    BIDDING_DELAYED,
    BIDDING_HIDDEN,
    BIDDING_OPEN,
    DEALER_CHOOSES_TRUMP,
    EVEN_BIDS_ALLOWED,
    EVEN_BIDS_LEADER,
    FIRST_DEALER_DRAW,
    LED_FREE,
    LED_NONE,
    NO_SEAT,
)

EXACT_BID_BONUS = 20
POINTS_PER_TRICK = 10


# --- first dealer -----------------------------------------------------------------------


@njit(cache=True)
def reset_deck(deck):
    for card in range(N_CARDS):
        deck[card] = card


@njit(cache=True)
def draw_first_dealer(seed, game, n_players, scratch):
    """Every player draws a card; the highest deals; tied players draw again (docs/rules.md §2)."""
    generator = scratch.generator
    deck = scratch.deck
    values = scratch.draw_values
    contenders = scratch.contenders
    seed_stream(generator, seed, game, ROUND_OF_DRAW, STREAM_DRAW)
    reset_deck(deck)
    drawn = 0
    for seat in range(n_players):
        contenders[seat] = seat
    n_contenders = n_players
    while True:
        if drawn + n_contenders > N_CARDS:
            reset_deck(deck)
            drawn = 0
        best = 0
        for i in range(n_contenders):
            pick = drawn + below(generator, N_CARDS - drawn)
            deck[drawn], deck[pick] = deck[pick], deck[drawn]
            values[i] = draw_value(deck[drawn])
            drawn += 1
            best = max(best, values[i])
        kept = 0
        for i in range(n_contenders):
            if values[i] == best:
                contenders[kept] = contenders[i]
                kept += 1
        n_contenders = kept
        if n_contenders == 1:
            return contenders[0]


@njit(cache=True)
def first_dealer(seed, game, rules, scratch):
    if rules.first_dealer == FIRST_DEALER_DRAW:
        return draw_first_dealer(seed, game, rules.n_players, scratch)
    return rules.first_dealer


@njit(cache=True, inline="always")
def seat_after(seat, steps, n_players):
    """The seat `steps` places to the left (clockwise) of `seat`, for 0 <= steps <= n_players;
    a compare instead of a modulo, which costs a division in the play loop."""
    seat += steps
    return seat - n_players if seat >= n_players else seat


@njit(cache=True, inline="always")
def dealer_of_round(first, round_size, n_players):
    """The dealer passes left every round, so round size r is dealt by first + r - 1."""
    return (first + round_size - 1) % n_players


# --- deal and trump ---------------------------------------------------------------------


@njit(cache=True, inline="always")
def deal_hands(deck, n_cards, table, seats, skip_seat, generator):
    """Deal round_size cards of deck[:n_cards] to every seat but `skip_seat` (NO_SEAT: none),
    in seat order; returns how many cards were dealt. deck[:n_cards] is shuffled as far as
    dealt and the rest is left for the turned-up card.

    A Fisher-Yates shuffle of the dealt positions only: step i swaps position i with a random
    later one. Each seat takes its cards as their positions are fixed, and a fixed position is
    never read again, so the swap only writes the other side."""
    state = generator[0]
    position = 0
    for seat in range(table.n_players):
        if seat == skip_seat:
            continue
        hand = np.int64(0)
        for _ in range(table.round_size):
            offset, state = below_from_state(state, n_cards - position)
            pick = at(position + offset)
            hand |= card_bit(deck[pick])
            deck[pick] = deck[at(position)]
            position += 1
        seats[seat].hand = hand
        seats[seat].dealt = hand
    generator[0] = state
    return position


@njit(cache=True)
def deal(seed, game, table, seats, scratch):
    """Shuffle the full deck, deal round_size cards to each seat and return the card turned
    up (NO_CARD when every card is dealt), all from the round's DEAL stream."""
    generator = scratch.generator
    seed_stream(generator, seed, game, table.round_size, STREAM_DEAL)
    deck = scratch.deck
    reset_deck(deck)
    n_dealt = deal_hands(deck, N_CARDS, table, seats, NO_SEAT, generator)
    if n_dealt == N_CARDS:
        return NO_CARD
    return deck[at(n_dealt + below(generator, N_CARDS - n_dealt))]


@njit(cache=True)
def cards_dealt(table):
    """How many cards the round deals to the seats (also how many it plays)."""
    return table.n_players * table.round_size


@njit(cache=True)
def every_card_dealt(table):
    """Whether the round deals the whole deck, so no card is turned up and there is no trump
    (docs/rules.md §3), and every unseen card is in another seat's hand."""
    return cards_dealt(table) == N_CARDS


@njit(cache=True)
def trump_of_turned_card(card):
    """Trump suit set by the turned-up card: its suit, NO_SUIT for a Jester or no card,
    DEALER_CHOOSES_TRUMP for a Wizard (docs/rules.md §3)."""
    if card == NO_CARD or is_jester(card):
        return NO_SUIT
    if is_wizard(card):
        return DEALER_CHOOSES_TRUMP
    return card_suit(card)


@njit(cache=True, inline="always")
def unseen_cards(hand, table):
    """Cards a seat holding `hand` has not seen: not in its hand, not played this round, not
    the turned-up card."""
    seen = hand | table.played
    if table.trump_card != NO_CARD:
        seen |= card_bit(table.trump_card)
    return FULL_DECK & ~seen


# --- bidding ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def bidder_at(table, bid_position):
    """Seat that bids at position 0..N-1; bidding starts left of the dealer."""
    return seat_after(table.dealer, 1 + bid_position, table.n_players)


@njit(cache=True, inline="always")
def bid_position(seat, dealer, n_players):
    """The bidding position of `seat` (0: left of the dealer .. N-1: the dealer), bidder_at's
    inverse; a compare, not a modulo, wraps it (a division costs more than a rounds row)."""
    position = seat - dealer - 1
    return position + n_players if position < 0 else position


@njit(cache=True)
def is_sole_leader(totals, seat, n_players):
    for other in range(n_players):
        if other != seat and totals[other] >= totals[seat]:
            return False
    return True


@njit(cache=True, inline="always")
def legal_bids(table, seats, bid_position):
    """Mask of the bids allowed at this bidding position (bit b = bid b, 0..round_size)."""
    allowed = (np.int64(1) << (table.round_size + 1)) - 1
    # Restrictions exist only for open bidding (Rules validation rejects the other mixes).
    if table.even_bids == EVEN_BIDS_ALLOWED or bid_position != table.n_players - 1:
        return allowed
    return restricted_last_bids(table, seats, bid_position, allowed)


@njit(cache=True)
def restricted_last_bids(table, seats, bid_position, allowed):
    """`allowed` without the bid that would make the bids sum to the round size, when the
    even_bids mode forbids that to the last bidder (docs/rules.md §4)."""
    n_players = table.n_players
    round_size = table.round_size
    seat = bidder_at(table, bid_position)
    if table.even_bids == EVEN_BIDS_LEADER and not is_sole_leader(table.totals, seat, n_players):
        return allowed
    others = 0
    for other in range(n_players):
        if other != seat:
            others += seats[other].bid
    forbidden = round_size - others
    if 0 <= forbidden <= round_size:
        allowed &= ~(np.int64(1) << forbidden)
    return allowed


@njit(cache=True, inline="always")
def record_bid(table, seats, seat, bid):
    """The seat's bid, on its own record, and on the table when the mode shows bids as they
    are made (docs/rules.md §4)."""
    seats[at(seat)].bid = bid
    if table.bidding == BIDDING_OPEN:
        table.bids[at(seat)] = bid


@njit(cache=True)
def reveal_bids(table, seats):
    for seat in range(table.n_players):
        table.bids[seat] = seats[seat].bid


@njit(cache=True, inline="always")
def reveals_bids_before_play(bidding):
    """Hidden bids are shown once everyone has bid."""
    return bidding == BIDDING_HIDDEN


@njit(cache=True, inline="always")
def reveals_bids_after_play(bidding):
    """Delayed bids are shown once the last trick is played."""
    return bidding == BIDDING_DELAYED


# --- play -------------------------------------------------------------------------------


def as_python(function: Dispatcher) -> types.FunctionType:
    """`function` run as plain Python, and every jitted function it calls too: a table built
    from the rules at import compiles nothing (so importing the kernels writes nothing to
    numba's cache)."""
    source = function.py_func
    calls = {name: as_python(value) for name, value in source.__globals__.items()
             if isinstance(value, Dispatcher) and name in source.__code__.co_names}  # fmt: skip
    return types.FunctionType(source.__code__, {**source.__globals__, **calls}, source.__name__, source.__defaults__)


# The cards that must follow, by led suit + 1: none under LED_NONE (index 0) and LED_FREE (5).
FOLLOW_MASKS = np.array([0] + [as_python(suit_mask)(suit) for suit in range(N_SUITS)] + [0], dtype=np.int64)


@njit(cache=True)
def legal_cards(hand, led_suit):
    """Cards of `hand` that may be played to a trick whose led suit is `led_suit` (docs/rules.md §5).

    Follow suit if able; Wizards and Jesters may always be played. LED_NONE (nothing or only
    Jesters played) and LED_FREE (a Wizard set the trick) allow any card. Written as a select,
    not branches: whether a seat can follow is a coin flip to the branch predictor."""
    following = hand & FOLLOW_MASKS[at(led_suit + 1)]
    return hand if following == 0 else following | (hand & SPECIAL_MASK)


# Trick power (docs/rules.md §6) once the led suit is known: the first Wizard beats everything, then
# trumps by rank, then the led suit by rank; other cards and Jesters have no power. A card takes
# the lead only with strictly more power, so the first of equal Wizards or Jesters keeps it.
POWER_WIZARD = 64
POWER_TRUMP = 32
POWER_LED = 16


@njit(cache=True, inline="always")
def trick_power(card, led_suit, trump):
    """Power of `card` in a trick whose led suit is `led_suit` (written as selects, not
    branches: the play loop resolves every card with it)."""
    suit = card_suit(card)
    suited = suit != NO_SUIT
    rank = card_rank(card)
    power = POWER_LED + rank if suited and suit == led_suit else 0
    power = POWER_TRUMP + rank if suited and suit == trump else power
    return POWER_WIZARD if is_wizard(card) else power


# trick_power of every card id (64 columns: the ids past the deck have none) by trump + 1
# (NO_SUIT..3) and led suit + 1 (LED_NONE..LED_FREE): the play loop looks a card's power up,
# a few instructions less per card than computing it.
python_power = as_python(trick_power)
TRICK_POWERS = np.array(
    [
        [[python_power(card, led, trump) for card in range(64)] for led in range(LED_NONE, LED_FREE + 1)]
        for trump in range(NO_SUIT, N_SUITS)
    ],
    dtype=np.int8,
)
del python_power


@njit(cache=True, inline="always")
def looked_up_power(card, led_suit, trump):
    """trick_power(card, led_suit, trump) from TRICK_POWERS (led_suit: the trick's led suit
    once `card` is played, led_suit_after)."""
    return np.int64(TRICK_POWERS[at(trump + 1), at(led_suit + 1), at(card)])


@njit(cache=True)
def led_suit_after(led_suit, card):
    """The trick's led suit after `card` is played to it (docs/rules.md §5): the first non-Jester
    card decides; a Wizard frees the trick."""
    if led_suit != LED_NONE or is_jester(card):
        return led_suit
    return LED_FREE if is_wizard(card) else card_suit(card)


@njit(cache=True, inline="always")
def play_card(table, seats, seat, card):
    """Move `card` from the seat's hand to the current trick and update the public state."""
    bit = card_bit(card)
    seats[at(seat)].hand &= ~bit
    table.played |= bit
    table.played_by[at(seat)] |= bit
    position = table.n_in_trick
    table.trick_cards[at(position)] = card
    led = table.led_suit
    suit = card_suit(card)
    # Selects rather than branches (random play makes both outcomes common): a suited card off
    # a led suit shows the seat void in it; a card with more power takes the lead.
    shows_void = (0 <= led) & (led < LED_FREE) & (suit != NO_SUIT) & (suit != led)
    table.voids[at(seat)] |= np.int64(shows_void) << (led & 3)
    led = led_suit_after(led, card)
    table.led_suit = led
    power = looked_up_power(card, led, table.trump)
    # Cards before the first suited card are Jesters (power 0), so the stored power stays right.
    # (As arithmetic: LLVM turns a select between a load and a register back into a branch.)
    best = table.winning_power
    takes_lead = np.int64(power > best)
    table.winning_power = max(power, best)
    table.winning_position += takes_lead * (position - table.winning_position)
    table.n_in_trick = position + 1


@njit(cache=True)
def finish_trick(table):
    """Award the complete trick; its winner leads the next one. Returns the winning seat."""
    winner = seat_after(table.leader, table.winning_position, table.n_players)
    table.tricks[at(winner)] += 1
    table.leader = winner
    table.trick += 1
    table.n_in_trick = 0
    table.led_suit = LED_NONE
    table.winning_position = 0
    table.winning_power = 0
    return winner


# --- scoring ----------------------------------------------------------------------------


@njit(cache=True)
def round_score(bid, tricks):
    """20 + 10 per trick for an exact bid, otherwise -10 per trick over or under (docs/rules.md §7)."""
    if bid == tricks:
        return EXACT_BID_BONUS + POINTS_PER_TRICK * tricks
    return -POINTS_PER_TRICK * abs(bid - tricks)


@njit(cache=True)
def round_scores(bid, tricks):
    """round_score of `bid` for every entry of the array `tricks` (int64 array of its shape)."""
    scores = np.empty(tricks.shape, dtype=np.int64)
    flat_tricks, flat_scores = tricks.ravel(), scores.ravel()
    for i in range(flat_tricks.shape[0]):
        flat_scores[i] = round_score(bid, np.int64(flat_tricks[i]))
    return scores


@njit(cache=True)
def game_winners(totals, n_players, winners):
    """Mark every seat tied for the highest total (ties share the win)."""
    best = totals[0]
    for seat in range(1, n_players):
        best = max(best, totals[seat])
    for seat in range(n_players):
        winners[seat] = totals[seat] == best

