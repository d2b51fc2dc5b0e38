"""Paired differences over deals: the sums behind a tournament's SPRT, and the verdict on a
difference's 95% interval that tournament, league and compare print."""
from __future__ import annotations

import math


class PairSums:
    """The paired per-deal differences of a tournament's chunks, summed in chunk order (the
    sums behind its SPRT)."""

    def __init__(self) -> None:
        self.deals = 0
        self.sums: dict[str, list[float]] = {}

    def add(self, stats: dict) -> None:
        self.deals += stats["deals"]
        for key, (total, squares) in stats["pairs"].items():
            previous = self.sums.get(key, [0.0, 0.0])
            self.sums[key] = [previous[0] + total, previous[1] + squares]

    def difference(self, first: str, second: str) -> tuple[int, float, float]:
        """(deals, mean paired difference, the variance of that mean)."""
        n = self.deals
        total, squares = self.sums.get(f"{first}\t{second}", [0.0, 0.0])
        if n < 2:
            return n, total / n if n else math.nan, math.nan
        mean = total / n
        return n, mean, max(squares - n * mean * mean, 0.0) / (n - 1) / n


def significant(low: float, high: float) -> bool:
    """Whether a difference's interval excludes 0 (NaN bounds: not significant)."""
    return bool(low > 0 or high < 0)


def verdict(label_a: str, label_b: str, mean: float, low: float, high: float) -> str:
    """label_a - label_b = `mean` points per game, 95% interval (low, high), in plain words."""
    if not significant(low, high):
        return (
            f"no significant difference between {label_a} and {label_b}"
            f" ({label_a} - {label_b}: {mean:+.1f} points per game, 95% CI {low:+.1f} to {high:+.1f})"
        )
    if mean > 0:
        return f"{label_a} beats {label_b} by {mean:.1f} points per game (95% CI {low:.1f} to {high:.1f})"
    return f"{label_b} beats {label_a} by {-mean:.1f} points per game (95% CI {-high:.1f} to {-low:.1f})"


def pair_row(label_a: str, label_b: str, mean: float, low: float, high: float, **more: object) -> dict:
    """A pair's row of a summary: the difference, its interval and verdict (`more`: the
    columns a league adds before the verdict)."""
    return {"policy_a": label_a, "policy_b": label_b, "difference": mean, "ci_low": low, "ci_high": high,
            "significant": significant(low, high), **more, "verdict": verdict(label_a, label_b, mean, low, high)}  # fmt: skip
