"""Card notation of docs/rules.md §1: parsing and formatting.

`AS`, `10H`, `TD`, `2C`, `JH` (Jack of hearts), `QD`; suit symbols ♣♦♥♠ as well as letters,
in any case; a bare `W` (or `Wizard`) is a Wizard, a bare `J` (or `Jester`) a Jester.
Wizards and Jesters are interchangeable, so a hand's k-th Wizard gets the k-th free id.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from kernels.cards import FIRST_JESTER, FIRST_WIZARD, N_CARDS, RANKS_PER_SUIT
from sim.config.errors import ConfigError, echo

SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_NAMES = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_TOKENS = {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
_WIZARD_WORDS = {"W", "WIZARD"}
_JESTER_WORDS = {"J", "JESTER"}
_SUITED = re.compile(r"^(10|[2-9TJQKA])([CDHS♣♦♥♠])$")


def _suit_of(char: str) -> int:
    return SUIT_LETTERS.index(char) if char in SUIT_LETTERS else SUIT_SYMBOLS.index(char)


_SUIT_WORDS = {
    word: suit
    for suit, words in enumerate(zip(SUIT_LETTERS, SUIT_SYMBOLS, (name.upper() for name in SUIT_NAMES)))
    for word in words
}


def parse_suit(text: str) -> int:
    """Suit 0..3 of `S`, `spades` or `♠` (any case)."""
    suit = _SUIT_WORDS.get(str(text).strip().upper())
    if suit is None:
        raise ConfigError(f"unknown trump suit {echo(text)}: use C, D, H, S (or clubs, diamonds, hearts, spades)")
    return suit


def parse_card(token: str, wizard_index: int = 0, jester_index: int = 0) -> int:
    """Card id of one token. A Wizard or Jester token maps to the id of the given index (0..3)."""
    text = token.strip().upper()
    if text in _WIZARD_WORDS or text in _JESTER_WORDS:
        is_wizard = text in _WIZARD_WORDS
        index = wizard_index if is_wizard else jester_index
        if not 0 <= index < 4:
            raise ConfigError(f"more than four {'Wizards' if is_wizard else 'Jesters'} at {echo(token)}")
        return (FIRST_WIZARD if is_wizard else FIRST_JESTER) + index
    match = _SUITED.match(text)
    if match is None:
        raise ConfigError(
            f"unknown card {echo(token)}: use rank then suit (AS, 10H, TD, JH), W for a Wizard, J for a Jester"
        )
    rank_text, suit_char = match.groups()
    rank = _RANK_TOKENS[rank_text] if rank_text in _RANK_TOKENS else int(rank_text)
    return _suit_of(suit_char) * RANKS_PER_SUIT + rank - 2


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Card ids of a hand written as tokens separated by spaces or commas.

    Repeated Wizards and Jesters take successive ids; more than four of either, or a repeated
    suited card, is an error naming the token."""
    tokens = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    cards: list[int] = []
    wizards = jesters = 0
    for token in tokens:
        if not token:
            continue
        card = parse_card(token, wizards, jesters)
        if FIRST_WIZARD <= card < FIRST_JESTER:
            wizards += 1
        elif card >= FIRST_JESTER:
            jesters += 1
        elif card in cards:
            raise ConfigError(f"card {echo(token)} appears twice")
        cards.append(card)
    return cards


def format_card(card: int) -> str:
    """Text of a card id: `AS`, `10H`, `W`, `J`."""
    if not 0 <= card < N_CARDS:
        raise ConfigError(f"card id {card} is outside 0..{N_CARDS - 1}")
    if card >= FIRST_JESTER:
        return "J"
    if card >= FIRST_WIZARD:
        return "W"
    rank = card % RANKS_PER_SUIT + 2
    return f"{RANK_NAMES.get(rank, str(rank))}{SUIT_LETTERS[card // RANKS_PER_SUIT]}"


def mask_to_cards(mask: int) -> list[int]:
    """Card ids of a hand mask, ascending."""
    return [card for card in range(N_CARDS) if (int(mask) >> card) & 1]


def cards_to_mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def format_hand(mask: int) -> str:
    """A hand mask as text, Wizards first, then suits S H D C high to low, Jesters last."""
    cards = mask_to_cards(mask)
    wizards = [c for c in cards if FIRST_WIZARD <= c < FIRST_JESTER]
    jesters = [c for c in cards if c >= FIRST_JESTER]
    suited = sorted((c for c in cards if c < FIRST_WIZARD), key=lambda c: (-(c // 13), -(c % 13)))
    return " ".join(format_card(c) for c in wizards + suited + jesters)
