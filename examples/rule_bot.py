"""A plain-Python Wizard bot (docs/bots.md): one decision at a time, rules anyone can read.

    wizard-sim tournament --policies examples.rule_bot:RuleBot,heuristic,heuristic,heuristic --games 2000 --out /tmp/rule
    wizard-sim simulate --policy examples.rule_bot:RuleBot:caution=0.5,random,random --players 3 --games 500 --out /tmp/r

(from the repository's root; elsewhere put this directory on PYTHONPATH and name it
`rule_bot:RuleBot`). RuleBot makes every decision itself from the observation a seat sees
(docs/env.md):

- trump (after a turned-up Wizard, as dealer): the suit it holds most of;
- bid: its sure and likely tricks — Wizards, high trumps, side aces and kings — less
  `caution` per uncertain card, the legal bid nearest that count;
- card: while it needs tricks, the cheapest card that takes the trick so far (or its
  strongest lead); once its bid is made, or when it cannot win, its weakest card.

It keeps no memory between decisions: everything it needs is in the observation.
"""
from __future__ import annotations

import numpy as np

from sim.env import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0, field

WIZARDS = range(52, 56)
JESTERS = range(56, 60)
SUITS = 4
RANKS = 13  # ranks 2..A of a suit: card = suit * 13 + rank - 2
NO_SUIT = -1


def suit_of(card: int) -> int:
    return card // RANKS if card < 52 else NO_SUIT


def rank_of(card: int) -> int:
    """2..14 for suited cards; 15 for a Wizard, 1 for a Jester."""
    if card >= 56:
        return 1
    return 15 if card >= 52 else card % RANKS + 2


def power(card: int, trump: int, led: int) -> int:
    """How strongly `card` holds a trick whose led suit is `led` (NO_SUIT: none yet): Jesters
    0, off-suit cards 0, the led suit 100 + rank, trumps 200 + rank, Wizards 300."""
    if card >= 56:
        return 0
    if card >= 52:
        return 300
    suit = suit_of(card)
    if suit == trump:
        return 200 + rank_of(card)
    if suit == led or led == NO_SUIT:
        return 100 + rank_of(card)
    return 0


class RuleBot:
    """Rules on the observation, one decision at a time (act_one)."""

    PARAMETERS = (("caution", 0.3),)  # tricks taken off per uncertain card (a king, a low trump)

    def __init__(self, caution: float = 0.3) -> None:
        self.caution = caution

    def act_one(self, observation: np.ndarray, mask: np.ndarray) -> int:
        hand = [int(c) for c in np.flatnonzero(field(observation, "hand"))]
        trump_slots = np.flatnonzero(field(observation, "trump"))
        trump = int(trump_slots[0]) if trump_slots.size and trump_slots[0] < SUITS else NO_SUIT
        decision = int(np.argmax(field(observation, "decision")))
        if decision == 0:
            return ACTION_SUIT0 + self.trump_choice(hand)
        if decision == 1:
            return ACTION_BID0 + self.bid(hand, trump, mask[ACTION_BID0:ACTION_SUIT0], observation)
        legal = [int(c) for c in np.flatnonzero(mask[ACTION_CARD0 : ACTION_CARD0 + 60])]
        return ACTION_CARD0 + self.card(legal, trump, observation)

    @staticmethod
    def trump_choice(hand: list[int]) -> int:
        counts = [sum(1 for c in hand if suit_of(c) == suit) for suit in range(SUITS)]
        return int(np.argmax(counts))

    def bid(self, hand: list[int], trump: int, legal_bids: np.ndarray, observation: np.ndarray) -> int:
        players = int(np.argmax(field(observation, "players"))) + 3
        sure = sum(1 for c in hand if c in WIZARDS)
        likely = 0.0
        for card in hand:
            suit, rank = suit_of(card), rank_of(card)
            if suit == NO_SUIT:
                continue
            if suit == trump:
                likely += 1.0 if rank >= 13 else (1.0 - self.caution if rank >= 10 else 0.5 - self.caution / 2)
            elif rank == 14:
                likely += 1.0 - self.caution * (players - 2) / 2
            elif rank == 13:
                likely += 0.5 - self.caution
        wanted = sure + max(0.0, likely)
        bids = np.flatnonzero(legal_bids)
        return int(bids[np.argmin(np.abs(bids - wanted))])

    @staticmethod
    def card(legal: list[int], trump: int, observation: np.ndarray) -> int:
        own_bid = int(np.argmax(field(observation, "own_bid")))
        taken = int(field(observation, "tricks")[0])  # relative seat 0: itself
        led_slot = int(np.argmax(field(observation, "led_suit")))  # none, 4 suits, free
        led = led_slot - 1 if 1 <= led_slot <= SUITS else NO_SUIT
        in_trick = [int(c) for c in np.flatnonzero(field(observation, "current_trick"))]
        weakest = min(legal, key=lambda c: (power(c, trump, NO_SUIT), rank_of(c)))
        if taken >= own_bid:
            return weakest
        if not in_trick:  # it leads
            return max(legal, key=lambda c: (power(c, trump, NO_SUIT), rank_of(c)))
        if any(c in WIZARDS for c in in_trick):  # the first Wizard takes the trick
            return weakest
        best = max(power(c, trump, led) for c in in_trick)
        winners = [c for c in legal if power(c, trump, led) > best]
        return min(winners, key=lambda c: power(c, trump, led)) if winners else weakest
