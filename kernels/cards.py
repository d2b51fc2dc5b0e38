"""The 60-card deck as integers (docs/rules.md §1).

Card id = suit * 13 + (rank - 2) for the 52 suited cards, 52..55 are the Wizards and 56..59
the Jesters. A hand is an int64 mask whose bit i is set when card i is held.
"""
import numpy as np
from numba import njit

N_CARDS = 60
N_SUITS = 4
RANKS_PER_SUIT = 13
LOWEST_RANK = 2
ACE = 14
FIRST_WIZARD = 52
FIRST_JESTER = 56

NO_CARD = -1
NO_SUIT = -1  # a Wizard or Jester; also "no trump" when used as the trump suit

ONE_SUIT_MASK = (1 << RANKS_PER_SUIT) - 1
WIZARD_MASK = 0xF << FIRST_WIZARD
JESTER_MASK = 0xF << FIRST_JESTER
SPECIAL_MASK = WIZARD_MASK | JESTER_MASK
FULL_DECK = (1 << N_CARDS) - 1
SUIT_MASKS = np.array([ONE_SUIT_MASK << (RANKS_PER_SUIT * s) for s in range(N_SUITS)], dtype=np.int64)

# Value of a card in the first-dealer draw (docs/rules.md §2): Wizard highest, Jester lowest.
DRAW_VALUE_WIZARD = 15
DRAW_VALUE_JESTER = 1


@njit(cache=True, inline="always")
def is_wizard(card):
    return FIRST_WIZARD <= card < FIRST_JESTER


@njit(cache=True, inline="always")
def is_jester(card):
    return card >= FIRST_JESTER


@njit(cache=True, inline="always")
def card_suit(card):
    """Suit 0..3 of a suited card, NO_SUIT for a Wizard or Jester."""
    if card < FIRST_WIZARD:
        return card // RANKS_PER_SUIT
    return NO_SUIT


@njit(cache=True, inline="always")
def card_rank(card):
    """Rank 2..14 of a suited card (Ace = 14)."""
    return card % RANKS_PER_SUIT + LOWEST_RANK


@njit(cache=True, inline="always")
def suit_mask(suit):
    return np.int64(ONE_SUIT_MASK) << (RANKS_PER_SUIT * suit)


@njit(cache=True, inline="always")
def card_bit(card):
    return np.int64(1) << card


@njit(cache=True)
def draw_value(card):
    """Rank of a card in the first-dealer draw: Wizard 15, suited rank 2..14, Jester 1."""
    if is_wizard(card):
        return DRAW_VALUE_WIZARD
    if is_jester(card):
        return DRAW_VALUE_JESTER
    return card_rank(card)
