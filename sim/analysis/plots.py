"""PNG charts of a report (matplotlib, Agg canvas: no display and no pyplot global state).

    write_plots(accuracy_tables(path), score_counts(path), "plots/")
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from sim.analysis.report import PLOT_FILES, write_atomically

MAX_BINS = 60
SCORE_STEP = 10  # every score and total is a multiple of 10 (docs/rules.md §7)


def accuracy_by_round_figure(by_round: pd.DataFrame) -> Figure:
    """Exact-bid rate and mean |bid - tricks| against round size, one line per policy."""
    figure = Figure(figsize=(11, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    exact_axes, error_axes = figure.subplots(1, 2, sharex=True)
    for policy, rows in by_round.groupby("policy", sort=True):
        exact_axes.plot(rows["round"], rows["exact_rate"], marker="o", label=policy)
        error_axes.plot(rows["round"], rows["mean_abs_error"], marker="o", label=policy)
    exact_axes.set(xlabel="round size (cards per player)", ylabel="exact bids (bid = tricks)", ylim=(0, 1))
    error_axes.set(xlabel="round size (cards per player)", ylabel="mean |bid - tricks|")
    error_axes.set_ylim(bottom=0)
    error_axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # shared with exact_axes
    exact_axes.legend(title="policy")
    figure.suptitle("Bid accuracy by round size")
    return figure


def _score_bins(scores: np.ndarray) -> np.ndarray:
    """Bin edges centred on multiples of SCORE_STEP, at most MAX_BINS bins."""
    low, high = int(scores.min()), int(scores.max())
    width = SCORE_STEP * max(1, int(np.ceil((high - low + SCORE_STEP) / (SCORE_STEP * MAX_BINS))))
    return np.arange(low - SCORE_STEP / 2, high + width, width)


def score_distribution_figure(counts: pd.DataFrame) -> Figure:
    """Share of games (or rounds) by score, one step histogram per policy."""
    figure = Figure(figsize=(8, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    bins = _score_bins(counts["score"].to_numpy())
    for policy, rows in counts.groupby("policy", sort=True):
        n = int(rows["count"].sum())
        mean = float(np.average(rows["score"], weights=rows["count"]))
        label = f"{policy} (mean {mean:.1f}, n = {n:,})"
        axes.hist(rows["score"], bins=bins, weights=rows["count"] / n, histtype="step", linewidth=1.5, label=label)
    source = counts["source"].iloc[0]
    what = "final game total" if source == "games.total" else "round score"
    axes.set(xlabel=what, ylabel="share", title=f"Distribution of the {what} per policy ({source})")
    axes.legend(title="policy")
    return figure


def write_plots(tables: dict[str, pd.DataFrame], counts: pd.DataFrame, directory: str | os.PathLike) -> list[Path]:
    """Write PLOT_FILES (accuracy by round size, score distribution) into an existing
    directory, each atomically; return their paths."""
    figures = (accuracy_by_round_figure(tables["by_round"]), score_distribution_figure(counts))
    paths = [Path(directory) / name for name in PLOT_FILES]
    for figure, path in zip(figures, paths):
        write_atomically(path, lambda temporary, figure=figure: figure.savefig(temporary, format="png", dpi=110))
    return paths
