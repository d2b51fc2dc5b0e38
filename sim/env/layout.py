"""The action space and the observation layout in Python: constants, names and a readable
form of an observation vector (the same information, decoded field by field)."""
from __future__ import annotations

import numpy as np

from kernels import observation as obs
from kernels.cards import N_CARDS, N_SUITS
from kernels.records import MAX_PLAYERS, MIN_PLAYERS, PHASE_BID, PHASE_PLAY, PHASE_TRUMP
from sim.config.actions import action_name  # noqa: F401  (part of the environments' API)
from sim.config.cards import SUIT_NAMES, cards_to_mask, format_card, format_hand

ACTION_CARD0 = obs.ACTION_CARD0
ACTION_BID0 = obs.ACTION_BID0
ACTION_SUIT0 = obs.ACTION_SUIT0
N_ACTIONS = obs.N_ACTIONS
N_BIDS = obs.N_BIDS
OBSERVATION_FIELDS = obs.OBSERVATION_FIELDS
OBSERVATION_OFFSETS = obs.OBSERVATION_OFFSETS
OBSERVATION_SIZE = obs.OBSERVATION_SIZE
observation_bounds = obs.observation_bounds

DECISION_NAMES = {PHASE_TRUMP: "trump", PHASE_BID: "bid", PHASE_PLAY: "card"}
BIDDING_NAMES = ("open", "hidden", "delayed")
EVEN_BIDS_NAMES = ("allowed", "forbidden", "leader")
LED_SUIT_NAMES = ("none",) + SUIT_NAMES + ("free",)
TRUMP_NAMES = SUIT_NAMES + ("none",)

def field(vector: np.ndarray, name: str) -> np.ndarray:
    """The slice of an observation vector (or a batch [..., K]) holding field `name`."""
    offset = OBSERVATION_OFFSETS[name]
    size = next(size for field_name, size, *_ in OBSERVATION_FIELDS if field_name == name)
    return vector[..., offset : offset + size]

def _one_hot(vector: np.ndarray, name: str) -> int | None:
    hot = np.flatnonzero(field(vector, name))
    return int(hot[0]) if hot.size else None

def _cards(bits: np.ndarray) -> str:
    return format_hand(cards_to_mask(np.flatnonzero(bits)))

def observation_layout_table() -> str:
    """The Markdown table of the layout (docs/env.md is generated from it)."""
    lines = ["| field | offset | size | range | meaning |", "| --- | --- | --- | --- | --- |"]
    for name, size, low, high, meaning in OBSERVATION_FIELDS:
        lines.append(f"| `{name}` | {OBSERVATION_OFFSETS[name]} | {size} | {low}..{high} | {meaning} |")
    lines.append(f"| total | | {OBSERVATION_SIZE} | | |")
    return "\n".join(lines)

def _trick_history(card_trick: np.ndarray, played_by: np.ndarray) -> list[dict[int, str]]:
    """For every trick of the round so far: {relative seat: card it played}."""
    history: list[dict[int, str]] = []
    for card in np.flatnonzero(card_trick):
        trick = int(card_trick[card]) - 1
        while len(history) <= trick:
            history.append({})
        seat = int(np.flatnonzero(played_by[:, card])[0])
        history[trick][seat] = format_card(int(card))
    return [dict(sorted(trick.items())) for trick in history]

def decode_observation(vector: np.ndarray) -> dict:
    """A readable dict of one observation vector: cards in card notation, seats relative to
    the observer (index 0 = itself, 1 = the seat on its left, ...)."""
    vector = np.asarray(vector)
    players = MIN_PLAYERS + _one_hot(vector, "players")
    decision = _one_hot(vector, "decision")
    turned = _one_hot(vector, "turned_up")
    trump = _one_hot(vector, "trump")
    own_bid = _one_hot(vector, "own_bid")
    bids = field(vector, "bids").reshape(MAX_PLAYERS, N_BIDS)
    played_by = field(vector, "played_by").reshape(MAX_PLAYERS, N_CARDS)
    voids = field(vector, "voids").reshape(MAX_PLAYERS, N_SUITS)
    card_trick = field(vector, "card_trick")
    seats = range(players)
    return {
        "players": players,
        "seat": _one_hot(vector, "seat"),
        "dealer": _one_hot(vector, "dealer"),
        "round_size": _one_hot(vector, "round_size") + 1,
        "bidding": BIDDING_NAMES[_one_hot(vector, "bidding")],
        "even_bids": EVEN_BIDS_NAMES[_one_hot(vector, "even_bids")],
        "decision": None if decision is None else DECISION_NAMES[decision],
        "hand": _cards(field(vector, "hand")),
        "turned_up": None if turned is None else format_card(turned),
        "trump": None if trump is None else TRUMP_NAMES[trump],  # None: the dealer is choosing
        "own_bid": own_bid,
        "has_bid": [bool(field(vector, "has_bid")[s]) for s in seats],
        "bids": [int(np.flatnonzero(bids[s])[0]) if bids[s].any() else None for s in seats],
        "tricks": [int(field(vector, "tricks")[s]) for s in seats],
        "totals": [int(field(vector, "totals")[s]) for s in seats],
        "trick": int(field(vector, "trick")[0]),
        "leader": _one_hot(vector, "leader"),
        "led_suit": LED_SUIT_NAMES[_one_hot(vector, "led_suit")],
        "current_trick": _cards(field(vector, "current_trick")),
        "played_by": [_cards(played_by[s]) for s in seats],
        "trick_history": _trick_history(card_trick, played_by),
        "voids": [[SUIT_NAMES[k] for k in np.flatnonzero(voids[s])] for s in seats],
    }
