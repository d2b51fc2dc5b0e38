"""Figures that the summaries of simulate and tournament runs share, from their additive sums."""
from __future__ import annotations

import math

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def policy_figures(seat_games: float, wins: float, bids: int, exact_bids: int, abs_error_sum: int) -> dict[str, float]:
    """Win rate, exact-bid rate and mean |bid - tricks| of one policy (`wins` may be a share
    of shared wins)."""
    return {
        "win_rate": wins / seat_games,
        "bid_accuracy": exact_bids / bids,
        "mean_abs_error": abs_error_sum / bids,
    }


def normal_interval(total: float, squares: float, n: int) -> tuple[float, float, float]:
    """Mean and 95% normal interval of n independent values from their sum and sum of squares
    (NaN bounds for a single value)."""
    mean = total / n
    variance = max(squares - n * mean * mean, 0.0) / (n - 1) if n > 1 else float("nan")
    half = Z_95 * math.sqrt(variance / n) if n > 1 else float("nan")
    return mean, mean - half, mean + half
