"""Drive a chunked run: an executor runs the chunks, the driver keeps run.json.

A chunk is a pure function of the run configuration and its index. `run_chunk` rebuilds the
configuration from its run.json form, computes the chunk in the kernels and writes its parts
atomically, so whichever process runs a chunk, and however often, its files are the same.
An executor (LocalExecutor below, or sim.runs.cluster.DaskExecutor) reports each written chunk
with its small statistics to the driver, which alone records it in run.json and drives the progress.
"""
from __future__ import annotations

import collections
import contextlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Protocol

import pyarrow as pa

from sim.storage import RunDirectory, chunk_ranges, config_metadata, now, versions
from sim.runs.games import set_threads
from sim.config.errors import ConfigError


@dataclass
class FinishedChunk:
    """The tables to write for one chunk and its small summary statistics (kept in run.json)."""

    tables: dict[str, pa.Table]
    stats: dict


class ChunkedConfig(Protocol):
    """What the executors need of a run configuration (SimulationConfig, TournamentConfig)."""

    command: ClassVar[str]  # the wizard-sim command of its runs, as recorded in run.json

    @classmethod
    def from_dict(cls, data: dict) -> "ChunkedConfig": ...

    @property
    def tables(self) -> tuple[str, ...]: ...

    def chunk_ranges(self) -> list[tuple[int, int]]: ...

    def compute_chunk(self, first: int, count: int, threads: int | None) -> Any: ...

    def finish_chunk(self, result: Any) -> FinishedChunk: ...

    def to_dict(self) -> dict: ...


@dataclass(frozen=True)
class ChunkJob:
    """Everything a chunk task needs, small and picklable: the run's configuration class (pickled
    by name) and configuration as in run.json, its absolute output directory, and the kernel
    threads per chunk (None: the executor's default; the data never depends on it)."""

    kind: type[ChunkedConfig]
    config: dict
    out: str
    threads: int | None = None

    @property
    def command(self) -> str:
        return self.kind.command

    def configuration(self) -> ChunkedConfig:
        return self.kind.from_dict(self.config)


def write_chunk(config: ChunkedConfig, job: ChunkJob, index: int, result: Any) -> dict:
    """Build the tables of computed chunk `index`, write its parts atomically; its statistics."""
    chunk = config.finish_chunk(result)
    directory = RunDirectory(job.out, config.tables)
    metadata = config_metadata(job.config)
    # Parquet encoding releases the GIL: the tables of a chunk are written side by side.
    with ThreadPoolExecutor(max_workers=len(chunk.tables)) as table_writers:
        for written in [
            table_writers.submit(directory.write_part, name, index, table, metadata)
            for name, table in chunk.tables.items()
        ]:
            written.result()
    return chunk.stats


def run_chunk(job: ChunkJob, index: int) -> dict:
    """Compute and write chunk `index` of `job`: the task of a cluster worker."""
    config = job.configuration()
    first, count = config.chunk_ranges()[index]
    return write_chunk(config, job, index, config.compute_chunk(first, count, job.threads))


ChunkDone = Callable[[int, dict], None]


class Executor(Protocol):
    def check_threads(self, threads: int | None) -> None:
        """Refuse a bad kernel thread count before anything is written."""

    def run(self, job: ChunkJob, indices: list[int], on_chunk: ChunkDone) -> None:
        """Run chunks `indices` of `job`; call on_chunk(index, stats) in this thread as each is
        written, in any order."""


# Chunks being written while the next one computes. Encoding a chunk's Parquet takes about as
# long as computing it on both cores, and one writer thread alone fell behind the kernel;
# two keep up (at most three chunks in memory).
WRITERS = 2


class LocalExecutor:
    """In-process, on all cores by default. The kernels release the GIL, so writer threads
    write chunks k and k-1 while this thread computes chunk k+1."""

    def check_threads(self, threads: int | None) -> None:
        set_threads(threads)

    def run(self, job: ChunkJob, indices: list[int], on_chunk: ChunkDone) -> None:
        config = job.configuration()
        ranges = config.chunk_ranges()

        def write(index: int, result: Any) -> tuple[int, dict]:
            return index, write_chunk(config, job, index, result)

        with ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="wizard-sim-writer") as writers:
            in_flight: collections.deque[Future] = collections.deque()

            def settle(keep: int) -> None:
                """Wait for the oldest writes until at most `keep` are in flight."""
                while len(in_flight) > keep:
                    on_chunk(*in_flight.popleft().result())

            try:
                for index in indices:
                    result = config.compute_chunk(*ranges[index], job.threads)
                    settle(WRITERS - 1)
                    in_flight.append(writers.submit(write, index, result))
                settle(0)
            finally:
                # Interrupted or failed: let the chunks being written land (or fail) cleanly.
                while in_flight:
                    with contextlib.suppress(Exception):
                        settle(len(in_flight) - 1)


def checked_executor(executor: Executor | None, threads: int | None) -> Executor:
    """`executor` (default: a LocalExecutor), once it has accepted the kernel thread count."""
    executor = executor if executor is not None else LocalExecutor()
    executor.check_threads(threads)
    return executor


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


def start_run(config: ChunkedConfig, out: str, overwrite: bool, total: int, chunk: int) -> tuple[RunDirectory, dict]:
    """Check and create the output directory of a new run and write its first run.json."""
    directory = RunDirectory(out, config.tables)
    directory.check_new(overwrite)
    directory.create(overwrite)
    record = new_record(config.command, config.to_dict(), total, chunk, versions())
    directory.save(record)
    return directory, record


def load_record(command: str, out: str) -> dict:
    """The run record in `out`, which must hold a `command` run."""
    record = RunDirectory(out, ()).load()
    if record.get("command") != command:
        raise ConfigError(f"cannot resume: {out} holds a {record.get('command')} run, not a {command} run")
    return record


def load_run(kind: type[ChunkedConfig], out: str) -> tuple[ChunkedConfig, dict]:
    """The configuration and record of the `kind` run in `out`."""
    record = load_record(kind.command, out)
    return kind.from_dict(record["config"]), record


def reopen_run(kind: type[ChunkedConfig], out: str) -> tuple[ChunkedConfig, RunDirectory, dict]:
    """The configuration, directory and record of the interrupted `kind` run in `out`."""
    record = load_record(kind.command, out)
    recorded = record.get("versions", {}).get("wizard_sim")
    if recorded != versions()["wizard_sim"]:
        raise ConfigError(
            f"cannot resume: {out} was started by wizard-sim {recorded}, this is {versions()['wizard_sim']}"
            " (its data would not be identical); start a new run"
        )
    config = kind.from_dict(record["config"])
    record.setdefault("resumed", []).append(now())
    directory = RunDirectory(out, config.tables)
    directory.create(overwrite=False)
    directory.remove_stray_temporaries()
    return config, directory, record


def execute(
    kind: type[ChunkedConfig],
    directory: RunDirectory,
    record: dict,
    executor: Executor,
    threads: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> int:
    """Run every chunk that run.json does not list as complete on `executor`, recording each in
    run.json as it lands. Returns the number of games (units) computed."""
    games_total = record["chunks"]["total"]
    ranges = chunk_ranges(games_total, record["chunks"]["games"])
    todo = pending_chunks(record)
    games_done = games_total - sum(ranges[index][1] for index in todo)
    computed = 0
    if on_progress:
        on_progress(games_done, games_total)

    def on_chunk(index: int, stats: dict) -> None:
        nonlocal games_done, computed
        record["chunks"]["complete"][str(index)] = stats
        directory.save(record)
        games_done += ranges[index][1]
        computed += ranges[index][1]
        if on_progress:
            on_progress(games_done, games_total)

    job = ChunkJob(kind, record["config"], str(directory.path.absolute()), threads)
    executor.run(job, todo, on_chunk)
    directory.remove_stray_temporaries()  # of tasks that died (or were duplicated) mid-write
    record["finished"] = now()
    directory.save(record)
    return computed
