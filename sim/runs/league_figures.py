"""A league's charts: ratings with their intervals, and the head-to-head heat map (matplotlib,
Agg canvas: no display and no pyplot global state)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from sim.storage import atomic_write


def ratings_figure(ratings: list[dict], deals: int) -> Figure:
    """Each policy's rating (points per game relative to the pool's mean) with its 95%
    interval, best at the top."""
    figure = Figure(figsize=(8, 1.2 + 0.45 * len(ratings)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    rows = list(reversed(ratings))  # barh draws bottom up
    centre = np.array([row["rating"] for row in rows])
    low = np.array([_finite(row["ci_low"], row["rating"]) for row in rows])
    high = np.array([_finite(row["ci_high"], row["rating"]) for row in rows])
    positions = np.arange(len(rows))
    axes.errorbar(centre, positions, xerr=[centre - low, high - centre], fmt="o", capsize=4)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(positions, [row["policy"] for row in rows])
    axes.set(xlabel="rating: points per game relative to the pool's mean (95% interval)",
             title=f"League ratings over {deals:,} duplicate deals")  # fmt: skip
    return figure


def head_to_head_figure(pairs: list[dict], order: list[str]) -> Figure:
    """Row policy minus column policy: mean points per game at the deals they met at (blank
    where they never met)."""
    k = len(order)
    index = {label: position for position, label in enumerate(order)}
    values = np.full((k, k), np.nan)
    met = np.zeros((k, k), dtype=np.int64)
    for pair in pairs:
        a, b = index[pair["policy_a"]], index[pair["policy_b"]]
        if pair["deals_met"]:
            values[a, b], values[b, a] = pair["head_to_head"], -pair["head_to_head"]
        met[a, b] = met[b, a] = pair["deals_met"]
    size = 1.5 + 0.75 * k
    figure = Figure(figsize=(size + 1.5, size), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    largest = np.nanmax(np.abs(values)) if np.isfinite(values).any() else 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-max(largest, 1e-9), vmax=max(largest, 1e-9))
    image = axes.imshow(np.ma.masked_invalid(values), cmap="RdBu", norm=norm)
    if k <= 12:  # beyond, the cells are too small to read
        for a, b in zip(*np.nonzero(np.isfinite(values))):
            colour = "white" if abs(values[a, b]) > 0.6 * largest else "black"
            axes.text(b, a, f"{values[a, b]:+.0f}", ha="center", va="center", fontsize=8, color=colour)
    axes.set_xticks(range(k), order, rotation=45, ha="right")
    axes.set_yticks(range(k), order)
    fewest = met[~np.eye(k, dtype=bool)].min() if k > 1 else 0
    axes.set(title=f"Head to head: row - column, points per game\nat the deals both played (at least {fewest:,} per pair)")
    figure.colorbar(image, ax=axes, label="points per game")
    return figure


def save_figure(figure: Figure, path: Path) -> None:
    """Write `figure` as a PNG atomically."""
    atomic_write(path, lambda temporary: figure.savefig(temporary, format="png", dpi=110))


def _finite(value: float | None, fallback: float) -> float:
    return value if value is not None and math.isfinite(value) else fallback
