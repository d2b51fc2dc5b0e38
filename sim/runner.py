"""Drive a chunked run: compute chunks in the kernels while the previous chunk is written.

The kernels release the GIL, so one writer thread converts and writes chunk k while the main
thread computes chunk k+1. At most two chunks are in memory at once, whatever the run size.
After each chunk's files are renamed into place the run record (run.json) lists it as complete.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Protocol

import pyarrow as pa

from sim.dataset import RunDirectory, chunk_ranges, now


@dataclass
class FinishedChunk:
    """The tables to write for one chunk and its small summary statistics (kept in run.json)."""

    tables: dict[str, pa.Table]
    stats: dict


class ProgressCallback(Protocol):
    def __call__(self, games_done: int, games_total: int) -> None: ...


def pending_chunks(record: dict) -> list[int]:
    complete = record["chunks"]["complete"]
    return [index for index in range(record["chunks"]["count"]) if str(index) not in complete]


def new_record(command: str, config: dict, games: int, chunk_games: int, versions: dict) -> dict:
    """A run record; `games` counts the run's units (games, or a tournament's deals)."""
    return {
        "format": 1,
        "command": command,
        "config": config,
        "versions": versions,
        "started": now(),
        "finished": None,
        "chunks": {"count": len(chunk_ranges(games, chunk_games)), "total": games, "games": chunk_games, "complete": {}},
    }


def execute(
    directory: RunDirectory,
    record: dict,
    compute: Callable[[int, int], Any],
    finish: Callable[[Any, dict[bytes, bytes]], FinishedChunk],
    metadata: dict[bytes, bytes],
    on_progress: ProgressCallback | None = None,
) -> int:
    """Compute and write every chunk that run.json does not list as complete.

    compute(first_game, games) runs the kernels (main thread); finish(result, metadata) builds
    the Arrow tables and statistics (writer thread). Returns the number of games computed."""
    games_total = record["chunks"]["total"]
    ranges = chunk_ranges(games_total, record["chunks"]["games"])
    todo = pending_chunks(record)
    games_done = games_total - sum(ranges[index][1] for index in todo)
    if on_progress:
        on_progress(games_done, games_total)
    computed = 0

    def write(index: int, result: Any) -> int:
        chunk = finish(result, metadata)
        # Parquet encoding releases the GIL: the tables of a chunk are written side by side.
        with ThreadPoolExecutor(max_workers=len(chunk.tables)) as table_writers:
            for written in [
                table_writers.submit(directory.write_part, name, index, table, metadata)
                for name, table in chunk.tables.items()
            ]:
                written.result()
        record["chunks"]["complete"][str(index)] = chunk.stats
        directory.save(record)
        return index

    def settle(future: Future | None) -> None:
        nonlocal games_done
        if future is None:
            return
        index = future.result()
        games_done += ranges[index][1]
        if on_progress:
            on_progress(games_done, games_total)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="wizard-sim-writer") as writer:
        in_flight: Future | None = None
        try:
            for index in todo:
                first, count = ranges[index]
                result = compute(first, count)
                computed += count
                previous, in_flight = in_flight, None
                settle(previous)
                in_flight = writer.submit(write, index, result)
            previous, in_flight = in_flight, None
            settle(previous)
        finally:
            if in_flight is not None:
                # Interrupted or failed: let the chunk being written land (or fail) cleanly.
                try:
                    settle(in_flight)
                except Exception:
                    pass
    record["finished"] = now()
    directory.save(record)
    return computed
