"""`heuristic`: a rule-based player that bids from hand strength and plays to make its bid.

It reads only its own seat record (hand, bid) and the public table. docs/heuristic.md
describes the model behind the bid and the play.
"""
import numpy as np
from numba import njit

from kernels.bits import at, highest_bit, lowest_bit, pick_float, popcount
from kernels.cards import (
    ACE,
    JESTER_MASK,
    LOWEST_RANK,
    N_SUITS,
    NO_SUIT,
    ONE_SUIT_MASK,
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
from kernels.rules import unseen_cards
from kernels.records import DECIDE_BID, DECIDE_CARD, NO_BID

# Parameter vector layout; defaults and names live in the Python registry (sim.policies).
# A timing t: an opponent's card that beats one of ours lands on the trick ours is played to
# with chance min(1, t / r) in a round of r cards.
P_AGGRESSION = 0  # multiplies the estimated number of tricks before rounding to a bid
P_WIZARD_WIN = 1  # chance a Wizard in hand takes a trick
P_WIZARD_TIMING = 2  # timing of the opponents' Wizards
P_TRUMP_TIMING = 3  # timing of the opponents' higher trumps against a trump
P_SIDE_TIMING = 4  # timing of the opponents' higher cards of a side suit against a side card
P_CROWDING = 5  # tricks given up per trick the earlier visible bids exceed their fair share
NAME = "heuristic"
SUMMARY = "bids from hand strength, plays to make its bid"
PARAMETERS = (
    ("aggression", 1.0),
    ("wizard_win", 0.95),
    ("wizard_timing", 1.5),
    ("trump_timing", 3.0),
    ("side_timing", 8.0),
    ("crowding", 0.15),
)
DEFAULT_PARAMS = np.array([default for _, default in PARAMETERS])  # a parameter row at the defaults
# The valid range of each parameter (docs/runs.md, Options), checked by sim.policies.registry.
RANGES = {
    "aggression": (0.0, 10.0),
    "wizard_win": (0.0, 1.0),
    "wizard_timing": (0.0, 100.0),
    "trump_timing": (0.0, 100.0),
    "side_timing": (0.0, 100.0),
    "crowding": (0.0, 10.0),
}

RANK_ROW = sum(1 << (RANKS_PER_SUIT * suit) for suit in range(N_SUITS))  # the 2 of every suit
ACE_ROW = RANK_ROW << (ACE - LOWEST_RANK)


@njit(cache=True, inline="always")
def ipow(base, exponent):
    """base ** exponent for an integer exponent >= 0 by squaring (a float pow call costs more
    than the rest of a bid). The exponents of a bid (card counts, round sizes) are below 32:
    five unrolled steps take them without a mispredicted loop exit, each multiplying by the
    square or by 1.0 (exact) as the exponent's bit says, without a branch (a card's count of
    higher unseen cards is a coin flip per bit); the loop finishes larger ones. Either way the
    products are the same, in the same order."""
    result = 1.0
    for _ in range(5):
        result *= pick_float(exponent, base, 1.0)
        base *= base
        exponent >>= 1
    while exponent > 0:
        if exponent & 1:
            result *= base
        base *= base
        exponent >>= 1
    return result


@njit(cache=True, inline="always")
def cards_above(card):
    """Mask of the card ids above `card`'s: within its suit, the cards that outrank it."""
    return -(card_bit(card) << 1)


@njit(cache=True)
def higher_in_suit(card):
    """Mask of the cards of the card's suit that outrank it."""
    return suit_mask(card_suit(card)) & cards_above(card)


@njit(cache=True, inline="always")
def collision(params, row, timing, round_size):
    """Chance that an opponent's card lands on the trick one of ours is played to."""
    return min(1.0, params[at(row), timing] / round_size)


@njit(cache=True, inline="always")  # inlined: the suits' calls share the unseen suited count
def lead_chance(suit, n_players, round_size, unseen):
    """Chance that a side card gets a trick it can win, one it leads or one led in its suit:
    each trick is ours to lead with chance 1/N, otherwise led in the suit as often as the suit
    is among the unseen suited cards; the card can wait for such a trick over the r tricks."""
    in_suit = popcount(unseen & suit_mask(suit)) / popcount(unseen & ~SPECIAL_MASK)
    per_trick = 1.0 / n_players + (1.0 - 1.0 / n_players) * in_suit
    return 1.0 - ipow(1.0 - per_trick, round_size)


@njit(cache=True)
def expected_tricks(hand, table, params, row):
    """Estimated tricks the hand takes, with the parameters of params[row]: a sum of per-card
    win chances. Each unseen card is held by an opponent with chance (N-1)r/unseen and, if
    held, lands on our card's trick with its timing's collision chance; a card wins when no
    Wizard and no higher card of its suit lands on its trick, and a side card also needs a
    trick it can win (lead_chance) and no opponent ruffing it."""
    n_players = table.n_players
    round_size = table.round_size
    trump = table.trump
    unseen = unseen_cards(hand, table)
    n_unseen = popcount(unseen)
    held_by_opponents = (n_players - 1) * round_size / n_unseen
    wizard_hits = held_by_opponents * collision(params, row, P_WIZARD_TIMING, round_size)
    wizard_escape = ipow(1.0 - wizard_hits, popcount(WIZARD_MASK & unseen))
    trump_hits = held_by_opponents * collision(params, row, P_TRUMP_TIMING, round_size)
    side_hits = held_by_opponents * collision(params, row, P_SIDE_TIMING, round_size)
    trumps_out = popcount(suit_mask(trump) & unseen) if trump != NO_SUIT else 0
    opponent_has_trump = 1.0 - ipow(1.0 - trumps_out / n_unseen, round_size)

    total = params[at(row), P_WIZARD_WIN] * popcount(hand & WIZARD_MASK)
    for suit in range(N_SUITS):
        cards = hand & suit_mask(suit)
        if cards == 0:
            continue
        # A side card's trick chance and ruff escape are the same for every card of its suit,
        # so they are computed once per suit; a trump needs neither (a factor 1.0 is exact).
        escape_one = 1.0 - trump_hits if suit == trump else 1.0 - side_hits
        trick_chance = 1.0
        no_ruff = 1.0
        if suit != trump:
            trick_chance = lead_chance(suit, n_players, round_size, unseen)
            if trump != NO_SUIT:
                opponent_void = ipow(1.0 - popcount(suit_mask(suit) & unseen) / n_unseen, round_size)
                no_ruff = ipow(1.0 - opponent_void * opponent_has_trump, n_players - 1)
        unseen_in_suit = unseen & suit_mask(suit)
        while cards:  # ascending card ids, as the sum always ran
            card = lowest_bit(cards)
            cards &= cards - 1
            beaten_by = popcount(unseen_in_suit & cards_above(card))  # as higher_in_suit, its suit known
            total += ipow(escape_one, beaten_by) * wizard_escape * trick_chance * no_ruff
    return total


@njit(cache=True)
def draws_avoid(n_pool, n_avoided, n_draws):
    """Chance that n_draws cards drawn without replacement from a pool of n_pool miss all of
    n_avoided given cards of it."""
    chance = 1.0
    for i in range(n_draws):
        chance *= max(0, n_pool - n_avoided - i) / (n_pool - i)
    return chance


@njit(cache=True)
def one_card_win_chance(card, position, table):
    """Exact chance that `card` takes the trick of a 1-card round when played at `position`
    (0 = lead) of the trick: play is forced, and the other cards are a uniform ordered draw
    from the cards this seat has not seen."""
    others = table.n_players - 1
    unseen = unseen_cards(card_bit(card), table)  # bidding: nothing played yet
    n_unseen = popcount(unseen)
    wizards = popcount(unseen & WIZARD_MASK)
    if is_wizard(card):
        return draws_avoid(n_unseen, wizards, position)  # the first Wizard wins
    if is_jester(card):
        if position > 0:
            return 0.0
        return draws_avoid(n_unseen, n_unseen - popcount(unseen & JESTER_MASK), others)
    beaters = unseen & (WIZARD_MASK | higher_in_suit(card))
    if table.trump != NO_SUIT and card_suit(card) != table.trump:
        beaters |= unseen & suit_mask(table.trump)
    chance = draws_avoid(n_unseen, popcount(beaters), others)
    if card_suit(card) == table.trump:
        return chance
    # Given no beater, the other cards are a uniform draw from the rest; a side card also
    # needs the first non-Jester card played before it (if any) to be of its own suit.
    safe = unseen & ~beaters
    non_jesters = popcount(safe & ~JESTER_MASK)
    off_suit = popcount(safe & ~(JESTER_MASK | suit_mask(card_suit(card))))
    if non_jesters > 0:
        led_before = 1.0 - draws_avoid(popcount(safe), non_jesters, position)
        chance *= 1.0 - led_before * off_suit / non_jesters
    return chance


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
    """The legal bid nearest the estimated tricks (bid_estimate)."""
    return nearest_bid(bid_estimate(params, me, table), legal, table.round_size)


@njit(cache=True, inline="always")  # inlined: the heuristic's bid costs no extra call
def bid_estimate(params, me, table):
    """The estimated tricks the bid is rounded from: the exact win chance of the card in a
    1-card round, expected_tricks otherwise; scaled by aggression, lowered by crowding. (The
    posterior's wide bid model reads it: kernels.search.posterior.)"""
    row = me.seat
    if table.round_size == 1:
        position = (me.seat - table.leader) % table.n_players  # the first bidder leads
        estimate = one_card_win_chance(lowest_bit(me.hand), position, table)
    else:
        estimate = expected_tricks(me.hand, table, params, row)
    estimate *= params[at(row), P_AGGRESSION]
    # Earlier visible bids above their fair share mean the tricks are contested.
    visible = 0
    n_visible = 0
    for seat in range(table.n_players):
        if seat != me.seat and table.bids[seat] != NO_BID:
            visible += table.bids[seat]
            n_visible += 1
    if n_visible > 0:
        fair_share = table.round_size * n_visible / table.n_players
        estimate -= params[at(row), P_CROWDING] * (visible - fair_share)
    return estimate


@njit(cache=True)
def nearest_bid(estimate, legal, round_size):
    """The legal bid nearest `estimate`, the lower one on a tie: the nearer of the highest
    legal bid at or below it and the lowest legal bid above it (bit scans, not a loop)."""
    at_or_below = min(max(np.floor(estimate), -1.0), float(round_size))
    low_bids = (np.int64(1) << (int(at_or_below) + 1)) - 1  # bids 0..floor(estimate)
    legal_low = legal & low_bids
    legal_high = legal & ~low_bids
    if legal_low == 0:
        return lowest_bit(legal_high)
    lower = highest_bit(legal_low)
    if legal_high == 0:
        return lower
    higher = lowest_bit(legal_high)
    return lower if estimate - lower <= higher - estimate else higher


@njit(cache=True)
def side_card_by_rank(side, want_highest):
    """Highest (or lowest) ranked card of a non-empty mask of suited cards; the lowest suit
    on equal ranks. The four suits' bands are folded onto one to find the rank (bit scans
    instead of a loop over ranks that mispredicts its exit)."""
    ranks = (side | side >> RANKS_PER_SUIT | side >> 2 * RANKS_PER_SUIT | side >> 3 * RANKS_PER_SUIT) & ONE_SUIT_MASK
    rank_index = highest_bit(ranks) if want_highest else lowest_bit(ranks)
    return lowest_bit(side & (RANK_ROW << rank_index))


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
    best = table.trick_cards[at(table.winning_position)]
    if is_wizard(best):
        return np.int64(0)
    if is_jester(best):
        return legal & ~JESTER_MASK
    beating = WIZARD_MASK | higher_in_suit(best)
    if table.trump != NO_SUIT and card_suit(best) != table.trump:
        beating |= suit_mask(table.trump)
    return legal & beating


@njit(cache=True)
def sure_winners(hand, table):
    """Cards of the hand that take the trick they are played to, short of a rare collision:
    Wizards (beaten only by an earlier Wizard of the same trick) and, once every Wizard
    outside the hand is played, the trumps that no unplayed card outside the hand outranks."""
    unseen = ~(hand | table.played)
    sure = hand & WIZARD_MASK
    if table.trump == NO_SUIT or unseen & WIZARD_MASK:
        return sure
    trumps = hand & suit_mask(table.trump)
    trumps_out = unseen & suit_mask(table.trump)
    if trumps_out:  # only the trumps above the highest one out are sure
        trumps &= ~((card_bit(highest_bit(trumps_out)) << 1) - 1)
    return sure | trumps


@njit(cache=True)
def cheapest_winner(winners, table):
    """The winning card to spend: the cheapest one when last to play; otherwise a side-suit
    Ace (the cheapest likely winner: later players may still overtake) or the cheapest."""
    trump = table.trump
    if table.n_in_trick < table.n_players - 1:
        trumps = suit_mask(trump) if trump != NO_SUIT else np.int64(0)
        side_aces = winners & ACE_ROW & ~trumps
        if side_aces:
            return lowest_bit(side_aces)
    return extreme_card(winners, trump, False)


@njit(cache=True)
def duck(legal, winners, trump):
    """Shed the most dangerous card that does not take the trick; when every card takes it,
    spend the biggest."""
    if legal & ~winners:
        return extreme_card(legal & ~winners, trump, True)
    return extreme_card(legal, trump, True)


@njit(cache=True, inline="always")  # inlined: the play loops call it for every card
def choose_card(me, table, legal):
    """Play to make the bid. While it needs more tricks than its sure winners will take, win
    with ordinary cards (lead the strongest, follow with the cheapest winner); once the sure
    winners cover the need, cash one whenever it takes the trick and duck with the others;
    once the bid is made, duck (lead the weakest card, follow with the most dangerous card
    that loses)."""
    trump = table.trump
    needed = me.bid - table.tricks[at(me.seat)]
    # Sure winners are an asset while tricks are needed, a liability once the bid is made.
    sure = sure_winners(me.hand, table) if needed > 0 else np.int64(0)
    ordinary = legal & ~sure
    leading = table.n_in_trick == 0
    winners = legal if leading else winning_cards(legal, table)
    if needed > popcount(sure):
        cards = ordinary if ordinary else legal
        if leading:
            return extreme_card(cards, trump, True)
        if winners & cards:
            return cheapest_winner(winners & cards, table)
        if winners:
            return extreme_card(winners, trump, False)  # only a sure winner takes this trick
        return extreme_card(cards, trump, False)
    if needed > 0 and winners & sure:
        return extreme_card(winners & sure, trump, False)
    if leading:
        return extreme_card(ordinary if ordinary else legal, trump, False)
    if ordinary:
        return duck(ordinary, winners & ordinary, trump)
    return duck(legal, winners, trump)


@njit(cache=True, inline="always")
def decide(decision, params, me, table, legal, generator):
    if decision == DECIDE_BID:
        return choose_bid(params, me, table, legal)
    if decision == DECIDE_CARD:
        return choose_card(me, table, legal)
    return choose_trump(me.hand)
