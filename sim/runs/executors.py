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
import itertools
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar, Iterable, Iterator, Protocol

import pyarrow as pa

from sim.storage import (
    FORMAT_VERSION,
    RUN_FORMAT,
    RunDirectory,
    chunk_count,
    config_metadata,
    fingerprint,
    new_run_id,
    now,
    part_name,
    versions,
)
from sim.storage.parts import part_index
from sim.storage.errors import CannotResume, NotOurs, PartsOfAnotherRun, RunError
from sim.storage.parts import DIGEST_KEY
from sim.engine.threads import set_threads
from sim.runs.bot_games import check_batch
from sim.config.errors import BotError, ConfigError
from sim.policies.registry import as_policy, bot_name, is_external, parameter_changes, split_policy_list


@dataclass
class FinishedChunk:
    """The tables to write for one chunk and its small summary statistics (kept in run.json)."""

    tables: dict[str, pa.Table]
    stats: dict


class ChunkedConfig(Protocol):
    """What the executors need of a run configuration (SimulationConfig, TournamentConfig)."""

    command: ClassVar[str]  # the wizard-sim command of its runs, as recorded in run.json
    policies: tuple  # the run's policies (sim.policies.registry.Policy)

    @classmethod
    def from_dict(cls, data: dict) -> "ChunkedConfig": ...

    @property
    def tables(self) -> tuple[str, ...]: ...

    @property
    def size(self) -> tuple[int, int]:
        """(units of the run, units per chunk): games, or a tournament's deals."""

    def chunk_range(self, index: int) -> tuple[int, int]: ...

    def compute_chunk(self, first: int, count: int, threads: int | None, batch: int | None) -> Any: ...

    def finish_chunk(self, result: Any) -> FinishedChunk: ...

    def to_dict(self) -> dict: ...

    # What sets a command's runs apart once its chunks are computed (run and resume below).
    @property
    def games_per_unit(self) -> int:
        """Games per unit of its size: 1 (simulate), or the games of a deal."""

    def stop_test(self, recorded: dict) -> "StopTest | None":
        """Its stop test (--sprt), built from its run.json form `recorded`; None without."""

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        """Its summaries, written once the run is complete (or stopped by its test)."""

    def result(self, out: str, record: dict, units: int, games: int, seconds: float) -> "RunResult":
        """Its command's result of a session."""


@dataclass(frozen=True)
class ChunkJob:
    """Everything a chunk task needs, small and picklable: the run's configuration class (pickled
    by name) and configuration as in run.json, its absolute output directory, the kernel
    threads per chunk and the games in play at once with Python policies (None: the defaults;
    the data never depends on them).

    `live` is the configuration object itself, used in this process: its Python policies may be
    objects the caller passed (sim.policies.registry.policy_of_object). Another process rebuilds
    the configuration from its run.json form (portable())."""

    kind: type[ChunkedConfig]
    config: dict
    out: str
    threads: int | None = None
    batch: int | None = None
    live: Any = field(default=None, compare=False, repr=False)
    parameters: dict | None = None  # run.json's policy_parameters (None: a run from before them)

    @property
    def command(self) -> str:
        return self.kind.command

    def configuration(self) -> ChunkedConfig:
        if self.live is not None:
            return self.live
        config = self.kind.from_dict(self.config)
        check_parameters(config, self.parameters, f"the run in {self.out} cannot be computed by this wizard-sim")
        return config

    def portable(self) -> "ChunkJob":
        """The job for other processes, which rebuild the configuration from its run.json form."""
        if self.live is not None:
            check_portable(self.live)
        return replace(self, live=None)


def check_portable(config: ChunkedConfig) -> None:
    """Another process imports every policy of `config` by its label: refused (one line) when
    a policy object given in this process is not what its label imports."""
    rebuilt = type(config).from_dict(config.to_dict())
    for given, imported in zip(config.policies, rebuilt.policies):
        if given != imported:
            raise ConfigError(
                f"policy {given.label} was given as an object that importing {given.label} does not give back"
                " (an instance, or a class defined elsewhere): other processes cannot rebuild it; pass a class"
                " importable as module:Class"
            )


def write_chunk(config: ChunkedConfig, job: ChunkJob, index: int, result: Any) -> dict:
    """Build the tables of computed chunk `index` and write its parts atomically; its report:
    `stats` (the summary's sums), `parts` (per table, [size in bytes, rows] as written) and
    `sha256` (per table, the part's checksum)."""
    chunk = config.finish_chunk(result)
    directory = RunDirectory(job.out, config.tables)
    metadata = config_metadata(job.config, fingerprint(job.command, job.config))
    # Parquet encoding releases the GIL: the tables of a chunk are written side by side.
    with ThreadPoolExecutor(max_workers=len(chunk.tables)) as table_writers:
        written = {
            name: table_writers.submit(directory.write_part, name, index, table, metadata)
            for name, table in chunk.tables.items()
        }
        parts = {name: future.result() for name, future in written.items()}
    return {"stats": chunk.stats, "parts": {name: part[0] for name, part in parts.items()},
            DIGEST_KEY: {name: part[1] for name, part in parts.items()}}  # fmt: skip


def run_chunk(job: ChunkJob, index: int) -> dict:
    """Compute and write chunk `index` of `job`: the task of a cluster worker."""
    config = job.configuration()
    first, count = config.chunk_range(index)
    return write_chunk(config, job, index, config.compute_chunk(first, count, job.threads, job.batch))


ChunkDone = Callable[[int, dict], None]


class Executor(Protocol):
    def check_threads(self, threads: int | None) -> None:
        """Refuse a bad kernel thread count before anything is written."""

    def run(self, job: ChunkJob, indices: Iterable[int], on_chunk: ChunkDone) -> None:
        """Run chunks `indices` of `job`; call on_chunk(index, report) in this thread as each is
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

    def run(self, job: ChunkJob, indices: Iterable[int], on_chunk: ChunkDone) -> None:
        config = job.configuration()

        def write(index: int, result: Any) -> tuple[int, dict]:
            return index, write_chunk(config, job, index, result)

        with ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="wizard-sim-writer") as writers:
            in_flight: collections.deque[Future] = collections.deque()

            def settle(keep: int) -> None:
                """Wait for the oldest writes until at most `keep` are in flight."""
                while len(in_flight) > keep:
                    on_chunk(*in_flight.popleft().result())

            try:
                todo = iter(indices)
                while True:
                    # Report the writes that have landed before asking for the next chunk, so
                    # that a run with a stop test stops as soon as it can.
                    while in_flight and in_flight[0].done():
                        on_chunk(*in_flight.popleft().result())
                    index = next(todo, None)
                    if index is None:
                        break
                    result = config.compute_chunk(*config.chunk_range(index), job.threads, job.batch)
                    settle(WRITERS - 1)
                    in_flight.append(writers.submit(write, index, result))
                settle(0)
            finally:
                # Interrupted or failed: let the chunks being written land (or fail) cleanly.
                while in_flight:
                    with contextlib.suppress(Exception):
                        settle(len(in_flight) - 1)


def checked_executor(executor: Executor | None, threads: int | None, config: ChunkedConfig | None = None) -> Executor:
    """`executor` (default: a LocalExecutor), once it has accepted the kernel thread count and,
    when it runs chunks in other processes, `config`'s policies (check_portable)."""
    executor = executor if executor is not None else LocalExecutor()
    executor.check_threads(threads)
    if config is not None and not isinstance(executor, LocalExecutor):
        check_portable(config)
    return executor


class ProgressCallback(Protocol):
    def __call__(self, games_done: int, games_total: int) -> None: ...


def pending_chunks(record: dict) -> Iterator[int]:
    """The chunks not yet complete, in order (lazily: a run may have millions)."""
    complete = record["chunks"]["complete"]
    return (index for index in range(record["chunks"]["count"]) if str(index) not in complete)


def new_record(
    command: str, config: dict, games: int, chunk_games: int, versions: dict, parameters: dict | None = None
) -> dict:
    """A run record; `games` counts the run's units (games, or a tournament's deals);
    `parameters`: what each policy label means (RecordedConfig.policy_parameters). run.json
    holds it without `chunks.complete`, which lives in the chunk journal."""
    return {
        "format": RUN_FORMAT,
        "format_version": FORMAT_VERSION,
        "command": command,
        "fingerprint": fingerprint(command, config),
        "run_id": new_run_id(),
        "config": config,
        **({"policy_parameters": parameters} if parameters is not None else {}),
        "versions": versions,
        "started": now(),
        "finished": None,
        "resumed": [],
        "chunks": {"count": chunk_count(games, chunk_games), "total": games, "games": chunk_games, "complete": {}},
    }


def check_out(out: str, overwrite: bool) -> None:
    """The checks of a new run's --out that need no configuration (before bots are imported)."""
    RunDirectory(out, ()).check_new(overwrite)


def start_run(config: ChunkedConfig, out: str, overwrite: bool) -> tuple[RunDirectory, dict]:
    """Check the output directory of a new run, take its lock and write its first run.json
    (replacing a previous run's files only after that). The caller releases the lock."""
    directory = RunDirectory(out, config.tables)
    directory.check_new(overwrite)
    record = new_record(config.command, config.to_dict(), *config.size, versions(), config.policy_parameters())
    directory.acquire()
    try:
        directory.begin(record, overwrite)
    except BaseException as error:
        if not (isinstance(error, RunError) and error.resumable) and not directory.run_file.exists():
            directory.abandon()  # nothing of the run was written: no lock file or directory of ours stays
        directory.release()
        raise
    return directory, record


def load_record(command: str, out: str) -> dict:
    """The run record in `out`, which must hold a `command` run."""
    record = RunDirectory(out, ()).load()
    if record.get("command") != command:
        raise ConfigError(f"cannot resume: {out} holds a {record.get('command')} run, not a {command} run")
    return record


def check_named_bots(record: dict, policies: str | list | None, where: str, option: str = "policies=") -> None:
    """A run with external bots is rebuilt only when its caller names them again (`policies`:
    the --policy/--policies text, or a list of texts and objects, matching the recorded labels):
    run.json alone never makes wizard-sim import code. `option`: how the caller names them."""
    recorded = record["config"].get("policies")
    labels = [str(label) for label in recorded] if isinstance(recorded, list) else []
    bots = [label for label in labels if is_external(label)]
    if not bots:
        return
    if policies is None:
        raise ConfigError(
            f"{where}: the run uses external bots ({', '.join(dict.fromkeys(bots))}); name its policies again"
            f" with {option} to allow importing them"
        )
    names = split_policy_list(policies) if isinstance(policies, str) else list(policies)
    names = names * len(labels) if len(names) == 1 else names
    named = [name if isinstance(name, str) else as_policy(name).label for name in names]
    if len(named) != len(labels) or any(
        is_external(label) and bot_name(name) != bot_name(label) for name, label in zip(named, labels)
    ):
        shown = policies if isinstance(policies, str) else ",".join(named)
        raise ConfigError(f"{option.rstrip('=')} {shown} differs from the run being resumed ({','.join(labels)})")


def load_run(kind: type[ChunkedConfig], out: str, policies: str | list | None = None) -> tuple[ChunkedConfig, dict]:
    """The configuration and record of the `kind` run in `out`, checked against each other;
    its external bots are imported only when `policies` names them (check_named_bots)."""
    record = load_record(kind.command, out)
    check_named_bots(record, policies, f"cannot resume: {out}")
    return config_of(kind, record, f"cannot resume: {out}/run.json"), record


def config_of(kind: type[ChunkedConfig], record: dict, where: str) -> ChunkedConfig:
    """The configuration in `record`, validated as a new one would be."""
    try:
        config = kind.from_dict(record["config"])
    except ConfigError as error:
        raise ConfigError(f"{where}: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ConfigError(f"{where}: its configuration is incomplete or malformed ({type(error).__name__}: {error})") from None
    if config.to_dict() != record["config"]:
        raise ConfigError(f"{where}: its configuration is not in the form wizard-sim writes")
    check_parameters(config, record.get("policy_parameters"), where)
    return config


def check_parameters(config: ChunkedConfig, recorded: dict | None, where: str) -> None:
    """Each policy label of `config` must mean what it meant when its run started: a label
    names only the parameters that differ from the defaults, so a changed default would
    otherwise resume (or compute a chunk of) the run with another policy. `recorded`: run.json's
    policy_parameters; None for runs from before it, checked by their version alone."""
    if recorded is None:
        return
    for label, today in config.policy_parameters().items():
        then = recorded.get(label)
        if then == today:
            continue
        if not isinstance(then, dict):
            raise ConfigError(f"{where}: its run.json records no parameters for its policy {label}")
        changed = parameter_changes(then, today, "then", "now")
        if "model_sha256" in today:
            raise ConfigError(
                f"{where}: its policy {label} was started with another model (SHA-256 {str(then.get('model_sha256'))[:12]}"
                f" then, {today['model_sha256'][:12]} now): the model directory has changed; restore it, or start a new run"
            )
        # Other names: the policy's parameters were redefined (pimc's infer became switches).
        what = "defaults" if then.keys() == today.keys() else "parameters"
        raise ConfigError(
            f"{where}: its policy {label} was started with other parameters ({changed}): its {what} have changed"
            " since; finish it with the wizard-sim that started it, or start a new run"
        )


def reopen_run(
    kind: type[ChunkedConfig], out: str, policies: str | list | None = None
) -> tuple[ChunkedConfig, RunDirectory, dict]:
    """The configuration, directory and record of the interrupted `kind` run in `out`, its lock
    taken (the caller releases it). Every part its journal lists is checked: a missing or
    damaged one is recomputed; parts of another configuration refuse the resume. Its external
    bots are imported only when the caller names them in `policies` (check_named_bots)."""
    directory = RunDirectory(out, ())
    directory.load()  # a run directory at all, before the lock file is created in it
    directory.acquire()
    try:
        record = load_record(kind.command, out)  # again, under the lock
        recorded = record["versions"].get("wizard_sim")
        if recorded != versions()["wizard_sim"]:
            raise ConfigError(
                f"cannot resume: {out} was started by wizard-sim {recorded}, this is {versions()['wizard_sim']}"
                " (its data would not be identical); start a new run"
            )
        check_named_bots(record, policies, f"cannot resume: {out}")
        config = config_of(kind, record, f"cannot resume: {out}/run.json")
        directory.tables = config.tables
        directory.reopen()  # an interrupted clearing finished first: a file it puts back is checked below
        check = directory.audit(record, config.tables)
        if check.mismatched:
            raise CannotResume(PartsOfAnotherRun(len(check.mismatched), check.mismatched[0]))
        if check.occupied:
            raise CannotResume(NotOurs(directory.path / check.occupied[0]))
        record["chunks"]["complete"] = {str(index): entry["stats"] for index, entry in sorted(check.complete.items())}
        record["resumed"].append(now())
        directory.save(record)
    except BaseException:
        directory.release()
        raise
    return config, directory, record


def run(
    config: ChunkedConfig,
    out: str,
    *,
    overwrite: bool = False,
    threads: int | None = None,
    batch: int | None = None,
    on_progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run `config` (a SimulationConfig, TournamentConfig or LeagueConfig) into the directory
    `out` (refused when it is not empty, unless overwrite) on `executor` (default:
    LocalExecutor, this process); `threads` kernel threads per chunk, `batch` games in play at
    once with Python policies (neither changes the data); `on_progress(done, total)` hears of
    games. The one start of every run (sim.simulate, sim.runs.tournament.tournament and
    sim.league are this function)."""
    options = run_options(executor, threads, batch, on_progress, config)
    return run_session(config, *start_run(config, out, overwrite), options)


def resume(
    kind: type[ChunkedConfig],
    out: str,
    *,
    threads: int | None = None,
    batch: int | None = None,
    on_progress: ProgressCallback | None = None,
    executor: Executor | None = None,
    policies: str | list | None = None,
) -> RunResult:
    """Finish the interrupted run of configuration class `kind` in `out` (on any executor); the
    result equals an uninterrupted run. A run with external bots (module:Object) needs
    `policies` naming them again, as given to the run (texts or the objects): run.json alone
    never makes wizard-sim import code. The one resume of every run (sim.resume,
    resume_tournament and resume_league are this function for their class)."""
    options = run_options(executor, threads, batch, on_progress)
    return run_session(*reopen_run(kind, out, policies), options)


def run_session(config: ChunkedConfig, directory: RunDirectory, record: dict, options: RunOptions) -> RunResult:
    """This session of a started or reopened run: its chunks to the end (or to its stop
    test's decision), then its summaries; the command's result."""
    fields = run_to_end(config, directory, record, options, games_per_unit=config.games_per_unit,
                        test=config.stop_test(record["config"]), finish=config.write_outputs)  # fmt: skip
    return config.result(*fields)


def run_options(
    executor: Executor | None,
    threads: int | None,
    batch: int | None,
    on_progress: ProgressCallback | None,
    config: ChunkedConfig | None = None,
) -> RunOptions:
    """The options of a run once checked, before anything is written: the executor (default:
    a LocalExecutor) accepts the thread count and, when it runs chunks in other processes,
    `config`'s policies; `batch` is in range."""
    executor = checked_executor(executor, threads, config)
    check_batch(batch)
    return RunOptions(executor, threads, batch, on_progress)


@dataclass(frozen=True)
class RunOptions:
    """How a run's chunks are computed, none of which changes the data: on `executor`, with
    `threads` kernel threads per chunk and `batch` games in play at once when Python policies
    play; `on_progress(done, total)` hears of every chunk that lands."""

    executor: Executor
    threads: int | None = None
    batch: int | None = None
    on_progress: ProgressCallback | None = None


class StopTest(Protocol):
    """A rule that may end a run before its last chunk (sim.stats.sprt.SequentialTest): fed
    each chunk's statistics in chunk order, it says after each whether the run stops there."""

    def add(self, stats: dict) -> bool: ...

    def record(self) -> dict:
        """Its state, recorded in run.json under "sprt"."""


@dataclass
class RunResult:
    """What a run did in this session: its directory and record (with every complete chunk's
    statistics), the units (games, or deals) and games it computed, and how long it took."""

    out: str
    record: dict
    units_computed: int
    games_computed: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games_computed / self.seconds if self.seconds > 0 else float("nan")


def run_to_end(
    config: ChunkedConfig,
    directory: RunDirectory,
    record: dict,
    options: RunOptions,
    *,
    games_per_unit: int = 1,
    test: StopTest | None = None,
    finish: Callable[[RunDirectory, dict], None] | None = None,
) -> tuple[str, dict, int, int, float]:
    """execute the run, then finish(directory, record) (its summaries), the lock released at
    the end: the fields of its RunResult. A run's units are games or deals of `games_per_unit`
    games; its progress callback hears of games."""
    on_progress = options.on_progress
    if on_progress is not None and games_per_unit != 1:
        options = replace(options, on_progress=lambda done, total: on_progress(done * games_per_unit, total * games_per_unit))
    start = time.perf_counter()
    try:
        units = execute(config, directory, record, options, test)
        if finish is not None:
            finish(directory, record)
    finally:
        directory.release()
    return str(directory.path), record, units, units * games_per_unit, time.perf_counter() - start


def execute(
    config: ChunkedConfig, directory: RunDirectory, record: dict, options: RunOptions, test: StopTest | None = None
) -> int:
    """Run every chunk of the run `config` that is not complete, appending each to the
    journal as it lands. Returns the number of games (units) computed. The caller holds the
    lock.

    With a stop `test`, the chunks are journaled and fed to it in chunk order (a chunk that
    lands early waits in memory; one lost then is unlisted, and recomputed by --resume), and
    the run ends after the first chunk where it decides: no chunk after that is started, and
    those already computed are removed, so the data are the same on every executor."""
    on_progress = options.on_progress
    games_total, per_chunk = record["chunks"]["total"], record["chunks"]["games"]
    size = lambda index: min(per_chunk, games_total - index * per_chunk)  # noqa: E731
    complete = record["chunks"]["complete"]
    games_done = sum(size(int(index)) for index in complete)
    computed = 0
    sequence = ChunkSequence(test, complete)
    todo = itertools.takewhile(lambda _: not sequence.stopped, pending_chunks(record))
    if test is not None:
        record["sprt"] = test.record()
        directory.save(record)
    if on_progress:
        on_progress(games_done, games_total)

    def journal(index: int, report: dict) -> None:
        nonlocal games_done, computed
        directory.append_chunk({"run": record["run_id"], "chunk": index, **report})
        complete[str(index)] = report["stats"]
        games_done += size(index)
        computed += size(index)
        if on_progress:
            on_progress(games_done, games_total)

    def on_chunk(index: int, report: dict) -> None:
        if test is None:
            journal(index, report)
            return
        for ready, ready_report in sequence.landed(index, report):
            journal(ready, ready_report)
        for beyond in sequence.beyond_stop():
            remove_parts(directory, record, beyond)

    job = ChunkJob(type(config), record["config"], str(directory.path.absolute()), options.threads, options.batch, config,
                   parameters=record.get("policy_parameters"))  # fmt: skip
    try:
        options.executor.run(job, todo, on_chunk)
    except BotError as error:
        # A bot failed before the run recorded a chunk: a new run then leaves nothing behind,
        # so that the same command can run again once the bot is fixed. A run with recorded
        # chunks stays resumable, as after Ctrl-C (and so does one stopped by a Dask worker
        # that cannot import a bot: a ConfigError, fixed on the workers, then resumed).
        discarded = False
        if not record["resumed"]:
            with contextlib.suppress(OSError):
                discarded = directory.discard(record)
        if not discarded:
            error.chunks_saved = len(record["chunks"]["complete"])
        raise
    if sequence.stopped:
        # Chunks computed ahead of the decision (or before a kill, unlisted): not the run's data.
        for index in parts_from(directory, sequence.frontier):
            remove_parts(directory, record, index)
        if on_progress:
            on_progress(games_done, games_done)  # the run is complete where it stopped
    directory.remove_stray_temporaries()  # of tasks that died (or were duplicated) mid-write
    if test is not None:
        record["sprt"] = test.record()
    record["finished"] = now()
    directory.save(record)
    return computed


class ChunkSequence:
    """The order in which a run with a stop test journals its chunks: the chunks complete
    before this session are fed to the test first (up to the first gap), then each chunk as
    the ones before it are journaled, until the test decides."""

    def __init__(self, test: StopTest | None, complete: dict) -> None:
        self.test = test
        self.complete = complete
        self.frontier = 0  # the first chunk not yet fed to the test
        self.stopped = False
        self.waiting: dict[int, dict] = {}  # chunks landed before the frontier reached them
        self.dropped: list[int] = []
        if test is not None:
            self._advance()

    def _advance(self) -> list[tuple[int, dict]]:
        """Feed the test every chunk at the frontier that is there; the ones to journal."""
        ready = []
        while not self.stopped:
            if str(self.frontier) in self.complete:
                stats = self.complete[str(self.frontier)]
            elif self.frontier in self.waiting:
                report = self.waiting.pop(self.frontier)
                ready.append((self.frontier, report))
                stats = report["stats"]
            else:
                break
            self.frontier += 1
            self.stopped = self.test.add(stats)
        if self.stopped:
            self.dropped.extend(self.waiting)
            self.waiting.clear()
        return ready

    def landed(self, index: int, report: dict) -> list[tuple[int, dict]]:
        """Chunk `index` was written: the chunks now to journal, in order."""
        if self.stopped:
            self.dropped.append(index)
            return []
        self.waiting[index] = report
        return self._advance()

    def beyond_stop(self) -> list[int]:
        """Chunks written after the one where the test decided (their parts are removed)."""
        dropped, self.dropped = self.dropped, []
        return dropped


def parts_from(directory: RunDirectory, first: int) -> list[int]:
    """The chunks from `first` on that have a part file in any table of the run."""
    found = set()
    for table in directory.tables:
        with contextlib.suppress(OSError):
            for entry in os.scandir(directory.path / table):
                index = part_index(entry.name)
                if index is not None and index >= first:
                    found.add(index)
    return sorted(found)


def remove_parts(directory: RunDirectory, record: dict, index: int) -> None:
    """Remove the parts of chunk `index` of the run `record` (written by it: they carry its
    fingerprint), e.g. of chunks computed after its stop test decided."""
    for table in directory.tables:
        path = directory.path / table / part_name(index)
        with contextlib.suppress(OSError):
            if directory.owns(record, set(), path):
                path.unlink()
