"""Sequential stopping of a tournament or league: an SPRT on a points-per-game difference.

The question (docs/league.md, "Sequential stopping"): is the first policy better than the
second by at least HIGH points per game (H1), or by at most LOW (H0)? After every chunk, in
chunk order, the run's estimate x of that difference (a tournament: the mean over deals of the
paired per-deal difference; a league: the difference of the two ratings) and its estimated
variance V give the log-likelihood ratio of H1 (mean HIGH) against H0 (mean LOW) for a normal
estimate with that variance,

    LLR = (HIGH - LOW) / V * (x - (LOW + HIGH) / 2),

the generalized SPRT that fishtest uses for its normalized-Elo tests (the variance estimated
from the data). Wald's bounds: accept H0 when LLR <= log(beta / (1 - alpha)), accept H1 when
LLR >= log((1 - beta) / alpha); else play on, up to the run's --games. tests/test_sprt.py
checks both error rates on simulated sequences.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from sim.config.errors import ConfigError, echo

MAX_POINTS = 10_000.0  # |LOW|, |HIGH| in points per game (a game's whole score stays far inside)
ALPHA_RANGE = (1e-6, 0.5)  # alpha and beta: open interval
MIN_DEALS = 16  # no decision before: with fewer deals the estimated variance is too noisy (tests/test_sprt.py)
# Deals per chunk of a run with --sprt when --chunk-games is not given: the test looks after
# every chunk, so a decided run overshoots its decision by less than this.
LOOK_DEALS = 64


@dataclass(frozen=True)
class Sprt:
    """H0: the first policy beats the second by at most `low` points per game; H1: by at least
    `high`; `alpha` = P(accept H1 | H0 holds), `beta` = P(accept H0 | H1 holds)."""

    low: float
    high: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("low", "high", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ConfigError(f"sprt {name} must be a finite number, got {echo(value)}")
            object.__setattr__(self, name, float(value))
        for name in ("low", "high"):
            value = getattr(self, name)
            if abs(value) > MAX_POINTS:
                raise ConfigError(f"sprt {name} must be in -{MAX_POINTS:,.0f}..{MAX_POINTS:,.0f} points per game, got {value:g}")
        if not self.low < self.high:
            raise ConfigError(f"sprt needs LOW < HIGH, got {self.low:g},{self.high:g}")
        low, high = ALPHA_RANGE
        for name in ("alpha", "beta"):
            if not low <= getattr(self, name) < high:
                raise ConfigError(f"{name} must be in [{low:g}, {high:g}), got {getattr(self, name):g}")

    @classmethod
    def of(cls, value: object) -> "Sprt | None":
        """An Sprt from an Sprt, its run.json form (a dict), a (low, high) pair, or None."""
        if value is None or isinstance(value, Sprt):
            return value
        if isinstance(value, dict):
            if set(value) != {"low", "high", "alpha", "beta"}:
                raise ConfigError(f"sprt must have exactly low, high, alpha and beta, got {sorted(value)}")
            return cls(value["low"], value["high"], value["alpha"], value["beta"])
        if isinstance(value, (tuple, list)) and len(value) == 2:
            return cls(*value)
        raise ConfigError(f"sprt must be (LOW, HIGH) or an Sprt, got {echo(value)}")

    @classmethod
    def parse(cls, text: str, alpha: float | None, beta: float | None) -> "Sprt":
        """`--sprt LOW,HIGH` with `--alpha` and `--beta` (default 0.05 each)."""
        parts = text.split(",")
        try:
            low, high = (float(part) for part in parts)
        except ValueError:
            raise ConfigError(f"--sprt needs LOW,HIGH in points per game, e.g. 0,10; got {echo(text)}") from None
        return cls(low, high, 0.05 if alpha is None else alpha, 0.05 if beta is None else beta)

    def to_dict(self) -> dict:
        return {"low": self.low, "high": self.high, "alpha": self.alpha, "beta": self.beta}

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) bounds of the LLR: accept H0 at or below, H1 at or above."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, estimate: float, variance: float) -> float:
        """The log-likelihood ratio of H1 against H0 for a normal `estimate` of the difference
        with `variance`; 0 while the variance is unknown."""
        if not (variance > 0 and math.isfinite(variance) and math.isfinite(estimate)):
            return 0.0
        return (self.high - self.low) / variance * (estimate - (self.low + self.high) / 2)

    def decision(self, llr: float) -> str | None:
        lower, upper = self.bounds
        if llr >= upper:
            return "H1"
        if llr <= lower:
            return "H0"
        return None


class PairedSums(Protocol):
    """A run's additive chunk statistics, accumulated in chunk order."""

    def add(self, stats: dict) -> None: ...

    def difference(self, first: str, second: str) -> tuple[int, float, float]:
        """(deals so far, estimate of first - second in points per game, its variance)."""


class SequentialTest:
    """The SPRT of one run: fed its chunks' statistics in chunk order (`add`), it says after
    each whether the run stops there."""

    def __init__(self, sprt: Sprt, sums: PairedSums, pair: tuple[str, str]) -> None:
        self.sprt = sprt
        self.sums = sums
        self.pair = pair
        self.deals = 0
        self.estimate = math.nan
        self.llr = 0.0
        self.decision: str | None = None

    def add(self, stats: dict) -> bool:
        """Take the next chunk's statistics; True when the test has decided."""
        self.sums.add(stats)
        self.deals, self.estimate, variance = self.sums.difference(*self.pair)
        self.llr = self.sprt.llr(self.estimate, variance) if self.deals >= MIN_DEALS else 0.0
        self.decision = self.sprt.decision(self.llr)
        return self.decision is not None

    def record(self) -> dict:
        """What summary.json and run.json hold as "sprt"."""
        estimate = self.estimate if math.isfinite(self.estimate) else None
        return {
            "decision": self.decision,
            "deals": self.deals,
            "llr": self.llr,
            "bounds": list(self.sprt.bounds),
            "policies": list(self.pair),
            "difference": estimate,
            **self.sprt.to_dict(),
        }


def sprt_line(record: dict) -> str:
    """The test's outcome in one line, as the command line prints it."""
    first, second = record["policies"]
    lower, upper = record["bounds"]
    hypotheses = (
        f"H0: {first} - {second} <= {record['low']:g}, H1: >= {record['high']:g} points per game"
        f" (alpha {record['alpha']:g}, beta {record['beta']:g})"
    )
    where = f"after {record['deals']:,} deals: LLR {record['llr']:+.2f}, bounds {lower:+.2f} .. {upper:+.2f}"
    if record["decision"] is None:
        return f"SPRT undecided {where}; {hypotheses}"
    bound = f">= {record['high']:g}" if record["decision"] == "H1" else f"<= {record['low']:g}"
    won = f"{first} - {second} {bound}"
    return f"SPRT accepts {record['decision']} ({won}) {where}; {hypotheses}"
