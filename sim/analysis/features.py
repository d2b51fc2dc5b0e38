"""Features derived from columns of the rounds table: the trump kind and what a hand holds.

Vectorised numpy over whole columns (numpy arrays, pandas Series or pyarrow arrays); the
report and the notebooks share them. Card ids, suits and hand masks follow docs/rules.md §1.

    kinds = trump_kind(rounds["trump_card"])             # "suit", "jester (no trump)", ...
    wizards = wizard_count(rounds["hand"])               # Wizards held, 0..4
    trumps = trump_count(rounds["hand"], rounds["trump"])  # cards of the trump suit held
"""
from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from kernels.cards import (
    FIRST_JESTER,
    FIRST_WIZARD,
    JESTER_MASK,
    N_CARDS,
    N_SUITS,
    NO_CARD,
    NO_SUIT,
    ONE_SUIT_MASK,
    RANKS_PER_SUIT,
    SUIT_MASKS,
    WIZARD_MASK,
)
from sim.config.errors import ConfigError

# What the turned-up card makes of the trump (docs/rules.md §3); a code is an index into TRUMP_KINDS.
TRUMP_KINDS = ("suit", "jester (no trump)", "wizard (dealer's choice)", "last round")
SUIT_TURNED_UP, JESTER_TURNED_UP, WIZARD_TURNED_UP, LAST_ROUND = range(len(TRUMP_KINDS))

# Trump kind code of trump_card c at index c + 1 (index 0: NO_CARD, nothing turned up).
_KIND_OF_TRUMP_CARD = np.array(
    [LAST_ROUND]
    + [SUIT_TURNED_UP] * FIRST_WIZARD
    + [WIZARD_TURNED_UP] * (FIRST_JESTER - FIRST_WIZARD)
    + [JESTER_TURNED_UP] * (N_CARDS - FIRST_JESTER),
    dtype=np.int8,
)
# Set bits of every byte value: popcount of an int64 is the sum over its 8 bytes.
_BITS_IN_BYTE = np.array([bin(value).count("1") for value in range(256)], dtype=np.int8)


def trump_kind_codes(trump_card: npt.ArrayLike) -> np.ndarray:
    """Trump kind of each round as an int8 index into TRUMP_KINDS.

    trump_card -1 (nothing turned up: the last round, all cards dealt) -> LAST_ROUND;
    0..51 (a suited card: its suit is trump) -> SUIT_TURNED_UP; 52..55 (a Wizard: the dealer
    chooses trump) -> WIZARD_TURNED_UP; 56..59 (a Jester: no trump) -> JESTER_TURNED_UP.
    Other values raise ConfigError."""
    cards = np.asarray(trump_card, dtype=np.int64)
    if cards.size and (cards.min() < NO_CARD or cards.max() >= N_CARDS):
        raise ConfigError(f"trump_card values must be {NO_CARD}..{N_CARDS - 1}, got {cards.min()}..{cards.max()}")
    return _KIND_OF_TRUMP_CARD[cards - NO_CARD]


def trump_kind(trump_card: npt.ArrayLike) -> pd.Categorical:
    """Trump kind of each round as labels of TRUMP_KINDS (categories in that order)."""
    return pd.Categorical.from_codes(trump_kind_codes(trump_card), categories=list(TRUMP_KINDS))


def _as_masks(hand: npt.ArrayLike) -> np.ndarray:
    return np.asarray(hand, dtype=np.int64)


def card_count(hand: npt.ArrayLike) -> np.ndarray:
    """Number of set bits (cards held) of each int64 hand mask, as int8."""
    masks = _as_masks(hand)
    per_byte = _BITS_IN_BYTE[np.ascontiguousarray(masks.reshape(-1)).view(np.uint8)].reshape(-1, masks.itemsize)
    return per_byte.sum(axis=1, dtype=np.int8).reshape(masks.shape)


def wizard_count(hand: npt.ArrayLike) -> np.ndarray:
    """Wizards (cards 52..55) in each hand, 0..4."""
    return card_count(_as_masks(hand) & np.int64(WIZARD_MASK))


def jester_count(hand: npt.ArrayLike) -> np.ndarray:
    """Jesters (cards 56..59) in each hand, 0..4."""
    return card_count(_as_masks(hand) & np.int64(JESTER_MASK))


def suit_counts(hand: npt.ArrayLike) -> np.ndarray:
    """Cards of each suit in each hand: shape hand.shape + (4,), suits in docs/rules.md §1 order."""
    masks = _as_masks(hand)[..., None]
    shifts = np.arange(N_SUITS, dtype=np.int64) * RANKS_PER_SUIT
    return card_count((masks >> shifts) & np.int64(ONE_SUIT_MASK))


def trump_count(hand: npt.ArrayLike, trump: npt.ArrayLike) -> np.ndarray:
    """Cards of the trump suit in each hand (Wizards and Jesters are no suit, so not counted).

    trump is the suit 0..3 of the round (the rounds table's `trump` column, after the
    dealer's choice on a turned-up Wizard) or -1 for no trump, which counts 0."""
    masks = _as_masks(hand)
    suits = np.asarray(trump, dtype=np.int64)
    if suits.size and (suits.min() < NO_SUIT or suits.max() >= N_SUITS):
        raise ConfigError(f"trump values must be {NO_SUIT}..{N_SUITS - 1}, got {suits.min()}..{suits.max()}")
    # SUIT_MASKS padded with an empty mask at index NO_SUIT (-1, the last element).
    trump_masks = np.append(SUIT_MASKS, np.int64(0))[suits]
    return card_count(masks & trump_masks)
