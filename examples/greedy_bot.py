"""An external wizard-sim bot, run without editing wizard-sim:

    cd examples && wizard-sim tournament --policies greedy_bot:GreedyBot,heuristic,random,random --games 2000 --out /tmp/greedy

(or put this directory on PYTHONPATH). GreedyBot bids its sure cards (Wizards, trump kings and
aces) plus a fraction `margin` of its side kings and aces; it plays greedily: while it needs
tricks it leads its strongest card and otherwise takes the trick with its cheapest winning
card; once its bid is made it throws its weakest card. Like every policy it reads only its own
seat record `me` and the public `table`, and would draw randomness only from `generator`.
"""
import numpy as np
from numba import njit

from kernels.bits import lowest_bit, popcount
from kernels.cards import ACE, JESTER_MASK, WIZARD_MASK, card_rank, card_suit, suit_mask
from kernels.rules import trick_power

KING = ACE - 1
MARGIN = 0  # index of the `margin` parameter in the parameter row


@njit
def strength(card, table):
    """Order of cards by how well they win: Jesters, side cards, trumps, Wizards (by rank)."""
    power = trick_power(card, card_suit(card), table.trump)  # as if its own suit were led
    return power * 16 + max(card_rank(card), 0)


@njit
def extreme(cards, table, strongest):
    best, best_strength = lowest_bit(cards), -1
    while cards:
        card = lowest_bit(cards)
        cards &= cards - 1
        value = strength(card, table) if strongest else -strength(card, table)
        if best_strength == -1 or value > best_strength:
            best, best_strength = card, value
    return best


class GreedyBot:
    PARAMETERS = (("margin", 0.5),)

    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        sure = popcount(me.hand & WIZARD_MASK)
        maybe = 0
        for suit in range(4):
            cards = me.hand & suit_mask(suit)
            while cards:
                card = lowest_bit(cards)
                cards &= cards - 1
                if card_rank(card) >= KING:
                    if suit == table.trump:
                        sure += 1
                    else:
                        maybe += 1
        wanted = int(np.floor(sure + params[MARGIN] * maybe + 0.5))
        for bid in range(wanted, -1, -1):  # the wanted bid, or the nearest legal one below it
            if (legal >> bid) & 1:
                return bid
        return lowest_bit(legal)

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        best_suit, best_count = 0, -1
        for suit in range(4):
            count = popcount(me.hand & suit_mask(suit))
            if count > best_count:
                best_suit, best_count = suit, count
        return best_suit

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        needs_tricks = me.bid > table.tricks[me.seat]
        if table.n_in_trick == 0:
            return extreme(legal, table, needs_tricks)
        winners = 0
        cards = legal
        while cards:
            card = lowest_bit(cards)
            cards &= cards - 1
            if trick_power(card, table.led_suit, table.trump) > table.winning_power:
                winners |= np.int64(1) << card
        if needs_tricks and winners:
            return extreme(winners, table, False)
        if legal & JESTER_MASK:
            return lowest_bit(legal & JESTER_MASK)
        losers = legal & ~winners
        return extreme(losers if losers else legal, table, not losers)
