"""`heuristic`: a rule-based player that bids from hand strength and plays to make its bid.

It reads only its own seat record (hand, bid) and the public table.
"""
import numpy as np
from numba import njit

from kernels.bits import highest_bit, lowest_bit, popcount
from kernels.cards import (
    ACE,
    LOWEST_RANK,
    JESTER_MASK,
    N_CARDS,
    N_SUITS,
    NO_CARD,
    NO_SUIT,
    RANKS_PER_SUIT,
    SPECIAL_MASK,
    WIZARD_MASK,
    card_bit,
    card_rank,
    card_suit,
    is_jester,
    is_wizard,
    suit_mask,
)
from kernels.state import DECIDE_BID, DECIDE_CARD, NO_BID

# Parameter vector layout; defaults and names live in the Python registry (sim.policies).
P_AGGRESSION = 0  # multiplies the estimated number of tricks before rounding to a bid
P_WIZARD_WIN = 1  # chance a Wizard in hand takes a trick
P_WIZARD_TIMING = 2  # how often an opponent's Wizard lands on the trick a card is played to (x 1/r)
P_RUFF_VALUE = 3  # extra tricks from a small trump for each side suit the hand is void in
P_CROWDING = 4  # tricks given up per trick the earlier visible bids exceed their fair share
P_LATE_TRICKS = 5  # tricks per card beyond the fourth that small cards win late in long rounds
LATE_TRICKS_FROM = 4
PARAMETERS = (
    ("aggression", 1.0),
    ("wizard_win", 0.95),
    ("wizard_timing", 1.5),
    ("ruff_value", 0.3),
    ("crowding", 0.15),
    ("late_tricks", 0.05),
)

RANK_ROW = sum(1 << (RANKS_PER_SUIT * suit) for suit in range(N_SUITS))  # the 2 of every suit
ACE_ROW = RANK_ROW << (ACE - LOWEST_RANK)


@njit(cache=True, inline="always")
def ipow(base, exponent):
    """base ** exponent for an integer exponent >= 0 by squaring (a float pow call costs more
    than the rest of a bid)."""
    result = 1.0
    while exponent > 0:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


@njit(cache=True)
def higher_in_suit(card):
    """Mask of the cards of the card's suit that outrank it."""
    return suit_mask(card_suit(card)) & ~((card_bit(card) << 1) - 1)


@njit(cache=True)
def expected_tricks(hand, table, params, row):
    """Estimated tricks the hand takes, with the parameters of params[row]: a sum of per-card
    win chances from how many unseen cards could beat each card, how likely opponents hold
    them, ruffs and Wizards."""
    n_players = table.n_players
    round_size = table.round_size
    trump = table.trump
    known = hand
    if table.trump_card != NO_CARD:
        known |= card_bit(table.trump_card)
    n_unseen = N_CARDS - popcount(known)
    held_by_opponents = (n_players - 1) * round_size / n_unseen
    wizards_out = popcount(WIZARD_MASK & ~known)
    wizard_hits = min(1.0, params[row, P_WIZARD_TIMING] / round_size)
    wizard_escape = ipow(1.0 - held_by_opponents * wizard_hits, wizards_out)
    trumps_out = 0
    trumps_held = 0
    if trump != NO_SUIT:
        trumps_out = popcount(suit_mask(trump) & ~known)
        trumps_held = popcount(hand & suit_mask(trump))
    opponent_has_trump = 1.0 - ipow(1.0 - trumps_out / n_unseen, round_size)

    total = 0.0
    small_trumps = 0
    void_suits = 0
    for suit in range(N_SUITS):
        if suit != trump and hand & suit_mask(suit) == 0:
            void_suits += 1
    rest = hand & ~(WIZARD_MASK | JESTER_MASK)
    total += params[row, P_WIZARD_WIN] * popcount(hand & WIZARD_MASK)
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        suit = card_suit(card)
        beaten_by = popcount(higher_in_suit(card) & ~known)
        chance = ipow(1.0 - held_by_opponents, beaten_by) * wizard_escape
        if suit == trump:
            if chance < 0.5:
                small_trumps += 1
        elif trump != NO_SUIT:
            suit_out = popcount(suit_mask(suit) & ~known)
            opponent_void = ipow(1.0 - suit_out / n_unseen, round_size)
            chance *= ipow(1.0 - opponent_void * opponent_has_trump, n_players - 1)
        total += chance
    if trumps_held > 0 and round_size >= 3:
        total += params[row, P_RUFF_VALUE] * min(small_trumps, void_suits)
    # Once suits run out, cards this estimate counts as losers take tricks too.
    return total + params[row, P_LATE_TRICKS] * max(0, round_size - LATE_TRICKS_FROM)


@njit(cache=True)
def choose_trump(hand):
    """The suit with the most cards, high cards counting extra."""
    best_suit = 0
    best_score = -1.0
    for suit in range(N_SUITS):
        cards = hand & suit_mask(suit)
        score = float(popcount(cards))
        while cards:
            card = lowest_bit(cards)
            cards &= cards - 1
            score += (card_rank(card) - 8) / 12.0 if card_rank(card) > 8 else 0.0
        if score > best_score:
            best_score = score
            best_suit = suit
    return best_suit


@njit(cache=True)
def choose_bid(params, me, table, legal):
    row = me.seat
    estimate = expected_tricks(me.hand, table, params, row) * params[row, P_AGGRESSION]
    # Earlier visible bids above their fair share mean the tricks are contested.
    visible = 0
    n_visible = 0
    for seat in range(table.n_players):
        if seat != me.seat and table.bids[seat] != NO_BID:
            visible += table.bids[seat]
            n_visible += 1
    if n_visible > 0:
        fair_share = table.round_size * n_visible / table.n_players
        estimate -= params[row, P_CROWDING] * (visible - fair_share)
    best_bid = 0
    best_gap = 1e9
    for bid in range(table.round_size + 1):
        if (legal >> bid) & 1:
            gap = abs(bid - estimate)
            if gap < best_gap:
                best_gap = gap
                best_bid = bid
    return best_bid


@njit(cache=True)
def side_card_by_rank(side, want_highest):
    """Highest (or lowest) ranked card of a non-empty mask of suited cards; the lowest suit
    on equal ranks."""
    for step in range(RANKS_PER_SUIT):
        rank_index = RANKS_PER_SUIT - 1 - step if want_highest else step
        same_rank = side & (RANK_ROW << rank_index)
        if same_rank:
            return lowest_bit(same_rank)
    return lowest_bit(side)


@njit(cache=True)
def extreme_card(cards, trump, want_highest):
    """The strongest (or weakest) card of a non-empty mask, the lowest card id among equals.

    Strength order: Jesters < side-suit cards by rank < trumps by rank < Wizards."""
    trumps = cards & suit_mask(trump) if trump != NO_SUIT else np.int64(0)
    side = cards & ~(SPECIAL_MASK | trumps)
    wizards = cards & WIZARD_MASK
    jesters = cards & JESTER_MASK
    if want_highest:
        if wizards:
            return lowest_bit(wizards)
        if trumps:
            return highest_bit(trumps)
        if side:
            return side_card_by_rank(side, True)
        return lowest_bit(jesters)
    if jesters:
        return lowest_bit(jesters)
    if side:
        return side_card_by_rank(side, False)
    if trumps:
        return lowest_bit(trumps)
    return lowest_bit(wizards)


@njit(cache=True)
def winning_cards(legal, table):
    """Legal cards that would take the lead of the current (non-empty) trick: Wizards and
    higher cards of the winning card's suit, and trumps when a non-trump is winning."""
    best = table.trick_cards[table.winning_position]
    if is_wizard(best):
        return np.int64(0)
    if is_jester(best):
        return legal & ~JESTER_MASK
    beating = WIZARD_MASK | higher_in_suit(best)
    if table.trump != NO_SUIT and card_suit(best) != table.trump:
        beating |= suit_mask(table.trump)
    return legal & beating


@njit(cache=True)
def choose_card(me, table, legal):
    trump = table.trump
    wants_tricks = me.bid > table.tricks[me.seat]
    if table.n_in_trick == 0:
        # Lead the strongest card to take a trick, the weakest to give the lead away.
        return extreme_card(legal, trump, wants_tricks)
    winners = winning_cards(legal, table)
    others = legal & ~winners
    if wants_tricks:
        if winners == 0:
            return extreme_card(legal, trump, False)
        last_to_play = table.n_in_trick == table.n_players - 1
        if last_to_play:
            return extreme_card(winners, trump, False)
        # Later players may still overtake: a side-suit Ace is the cheapest likely winner.
        trumps = suit_mask(trump) if trump != NO_SUIT else np.int64(0)
        side_aces = winners & ACE_ROW & ~trumps
        if side_aces:
            return lowest_bit(side_aces)
        return extreme_card(winners, trump, False)
    if others:
        return extreme_card(others, trump, True)  # shed the most dangerous card safely
    return extreme_card(winners, trump, True)  # forced to win: spend the biggest card


@njit(cache=True, inline="always")
def decide(decision, params, me, table, legal, generator):
    if decision == DECIDE_BID:
        return choose_bid(params, me, table, legal)
    if decision == DECIDE_CARD:
        return choose_card(me, table, legal)
    return choose_trump(me.hand)
