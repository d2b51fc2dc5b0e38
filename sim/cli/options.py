"""Options several commands share, turned into configuration objects."""
from __future__ import annotations

from typing import Optional

from sim.config.rules import Rules, parse_rounds


def first_dealer_option(text: str) -> str | int:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 6 else text


def rules_from_options(players: int, rounds: Optional[str], bidding: str, even_bids: str, first_dealer: str) -> Rules:
    Rules(players)  # players first: the round sizes depend on it
    sizes = parse_rounds(rounds, players) if rounds is not None else None
    return Rules(players, sizes, bidding, even_bids, first_dealer_option(first_dealer))
