"""Equivalent cards: cards of one hand that play alike, so a search tries one of them.

Two cards of a hand are equivalent when they are both Wizards, both Jesters, or suited cards
of one suit with no card between them that is still in play elsewhere (in another hand or in
the current trick): whichever of them is played, every trick goes the same way. `mc` prunes
its candidate cards with this from what its seat may know (every unseen card may be in
play); the solver (kernels.search.solver) from the hands it is given.
"""
import numpy as np
from numba import njit

from kernels.bits import highest_bit, lowest_bit
from kernels.cards import JESTER_MASK, NO_CARD, WIZARD_MASK, card_bit, card_suit, suit_mask
from kernels.rules import unseen_cards


@njit(cache=True)
def distinct_cards(legal, elsewhere):
    """One card of each set of equivalent cards of `legal`: the lowest Wizard, the lowest
    Jester, and of suited cards the lowest of each run with no card of `elsewhere` (the cards
    that may be in play outside this hand) between them."""
    distinct = np.int64(0)
    specials = legal & (WIZARD_MASK | JESTER_MASK)
    if specials & WIZARD_MASK:
        distinct |= card_bit(lowest_bit(specials & WIZARD_MASK))
    if specials & JESTER_MASK:
        distinct |= card_bit(lowest_bit(specials & JESTER_MASK))
    rest = legal & ~specials
    previous = lowest_bit(rest) if rest else NO_CARD
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        between = (card_bit(card) - 1) & ~((card_bit(previous) << 1) - 1)
        if card == previous or card_suit(card) != card_suit(previous) or between & elsewhere:
            distinct |= card_bit(card)
            previous = card
    return distinct


@njit(cache=True)
def in_play_for_seat(me, table):
    """The cards a seat must count as in play elsewhere: every card it has not seen, and the
    cards of the current trick."""
    elsewhere = unseen_cards(me.hand, table)
    for position in range(table.n_in_trick):
        elsewhere |= card_bit(table.trick_cards[position])
    return elsewhere


@njit(cache=True)
def representative(card, distinct):
    """The card of `distinct` equivalent to `card` (a card of the legal set)."""
    if card_bit(card) & WIZARD_MASK:
        return lowest_bit(distinct & WIZARD_MASK)
    if card_bit(card) & JESTER_MASK:
        return lowest_bit(distinct & JESTER_MASK)
    return highest_bit(distinct & suit_mask(card_suit(card)) & ((card_bit(card) << 1) - 1))
