"""The `Rules` configuration: every variant of docs/rules.md as a validated option."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from kernels import records
from kernels.cards import N_CARDS
from sim.config.errors import ConfigError, echo

BIDDING_MODES = {"open": records.BIDDING_OPEN, "hidden": records.BIDDING_HIDDEN, "delayed": records.BIDDING_DELAYED}
EVEN_BIDS_MODES = {
    "allowed": records.EVEN_BIDS_ALLOWED,
    "forbidden": records.EVEN_BIDS_FORBIDDEN,
    "leader": records.EVEN_BIDS_LEADER,
}


def is_whole_number(value: object) -> bool:
    """An int or numpy integer, but not a bool (True would otherwise pass as 1)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def max_round(players: int) -> int:
    """Rounds in a full game, which is also the largest round size: 60 / players."""
    return N_CARDS // players


def parse_rounds(text: str, players: int) -> tuple[int, ...]:
    """Round sizes from `7`, `1-5` or `1,3,5` (mixes allowed, e.g. `1-3,10`), in the order
    given: a size listed twice is refused by Rules, never dropped."""
    sizes: list[int] = []
    for part in text.replace(" ", "").split(","):
        match = re.fullmatch(r"([0-9]{1,6})(?:-([0-9]{1,6}))?", part)
        if match is None:
            raise ConfigError(f"bad round list {echo(text)}: use e.g. 7, 1-5 or 1,3,5")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if low > high:
            raise ConfigError(f"bad round range {echo(part)}: the first size is larger than the second")
        if not 1 <= low <= high <= max_round(players):
            size = low if low < 1 else high
            raise ConfigError(f"round size {size} is outside 1..{max_round(players)} for {players} players")
        sizes.extend(range(low, high + 1))
    return tuple(sizes)


@dataclass(frozen=True)
class Rules:
    """One table's rules. `rounds` holds the round sizes each game plays (default: all,
    1..60/players); `first_dealer` is "draw" or a fixed seat."""

    players: int = 4
    rounds: tuple[int, ...] | None = None
    bidding: str = "open"
    even_bids: str = "allowed"
    first_dealer: str | int = "draw"
    round_sizes: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        if not is_whole_number(self.players) or not records.MIN_PLAYERS <= self.players <= records.MAX_PLAYERS:
            raise ConfigError(f"players must be 3..6, got {self.players}")
        largest = max_round(self.players)
        sizes = tuple(range(1, largest + 1)) if self.rounds is None else tuple(self.rounds)
        if not sizes:
            raise ConfigError("rounds is empty: give at least one round size")
        for size in sizes:
            if not is_whole_number(size):
                raise ConfigError(f"round sizes must be whole numbers, got {echo(size)}")
            if not 1 <= size <= largest:
                raise ConfigError(f"round size {size} is outside 1..{largest} for {self.players} players")
        seen: set[int] = set()
        for size in sizes:
            if size in seen:
                raise ConfigError(f"round size {size} is listed twice: give each size once")
            seen.add(size)
        object.__setattr__(self, "round_sizes", tuple(sorted(int(s) for s in sizes)))
        if self.bidding not in BIDDING_MODES:
            raise ConfigError(f"bidding must be one of {', '.join(BIDDING_MODES)}, got {echo(self.bidding)}")
        if self.even_bids not in EVEN_BIDS_MODES:
            raise ConfigError(f"even_bids must be one of {', '.join(EVEN_BIDS_MODES)}, got {echo(self.even_bids)}")
        if self.bidding != "open" and self.even_bids != "allowed":
            raise ConfigError(
                f"even_bids={self.even_bids} needs a last bidder, which {self.bidding} bidding does not have"
            )
        dealer = self.first_dealer
        if isinstance(dealer, str) and dealer != "draw":
            if not (dealer.isascii() and dealer.isdigit() and len(dealer) <= 6):
                raise ConfigError(f"first_dealer must be 'draw' or a seat 0..{self.players - 1}, got {echo(dealer)}")
            dealer = int(dealer)
            object.__setattr__(self, "first_dealer", dealer)
        if dealer != "draw" and not is_whole_number(dealer):
            raise ConfigError(f"first_dealer must be 'draw' or a seat 0..{self.players - 1}, got {echo(dealer)}")
        if dealer != "draw" and not 0 <= dealer < self.players:
            raise ConfigError(f"first_dealer seat {dealer} is outside 0..{self.players - 1}")

    def to_record(self) -> np.ndarray:
        """The one-record RULES_DTYPE array the kernels take."""
        record = np.zeros(1, dtype=records.RULES_DTYPE)
        record["n_players"] = self.players
        record["bidding"] = BIDDING_MODES[self.bidding]
        record["even_bids"] = EVEN_BIDS_MODES[self.even_bids]
        record["first_dealer"] = records.FIRST_DEALER_DRAW if self.first_dealer == "draw" else int(self.first_dealer)
        return record

    def round_sizes_array(self) -> np.ndarray:
        return np.array(self.round_sizes, dtype=np.int64)

    def plays_per_game(self) -> int:
        return self.players * sum(self.round_sizes)

    def to_dict(self) -> dict:
        return {
            "players": self.players,
            "rounds": list(self.round_sizes),
            "bidding": self.bidding,
            "even_bids": self.even_bids,
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "Rules":
        """The rules of `to_dict` (as stored in run.json), validated again."""
        return cls(data["players"], tuple(data["rounds"]), data["bidding"], data["even_bids"], data["first_dealer"])
