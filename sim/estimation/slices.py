"""estimate's kernel calls, sliced so that Ctrl-C stops it within about a quarter second.

The work is a grid of samples x candidate bids: each cell is one rollout of the sample's deal
for that bid, and a cell depends on its sample and its bid only (every candidate replays the
sample's deal from the same start of its decisions stream), so any split of the grid gives the
same results. A slice is a run of cells in row order, sized by the measured cost of a cell
(sim.engine.calls.in_slices): a sample too costly for one slice (mc opponents at their largest
settings in a 15-card round: 1.5 s) is split between its candidate bids.
"""
from __future__ import annotations

from collections.abc import Callable

import numba

from sim.engine.calls import in_slices

Piece = tuple[int, int, int, int]  # samples [first, stop) x candidates [low, high)


def pieces(start: int, stop: int, width: int) -> list[Piece]:
    """The rectangles of samples x candidates that cover cells start..stop-1 of a grid
    `width` candidates wide, in row order: a partial first row, the whole rows, a partial last."""
    first, low = divmod(start, width)
    last, high = divmod(stop, width)
    if first == last:
        return [(first, first + 1, low, high)]
    covered = []
    if low:
        covered.append((first, first + 1, low, width))
        first += 1
    if last > first:
        covered.append((first, last, 0, width))
    if high:
        covered.append((last, last + 1, 0, high))
    return covered


def estimate_in_slices(samples: int, candidates: int, run_piece: Callable[[int, int, int, int], None]) -> None:
    """run_piece(first, stop, low, high) over the samples x candidates grid, in slices."""

    def run_cells(start: int, stop: int) -> None:
        for piece in pieces(start, stop, candidates):
            run_piece(*piece)

    in_slices(samples * candidates, max(1, numba.get_num_threads()), run_cells)
