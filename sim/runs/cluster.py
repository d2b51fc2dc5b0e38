"""The Dask executor: a run's chunks as tasks on a Dask distributed cluster (optional extra).

A task is sim.runs.executors.run_chunk for one chunk: it rebuilds the configuration from its run.json
form, runs the kernels on its worker and writes the chunk's parts atomically into the output
directory, which every worker sees at the same path. A task's key is fixed by (run, chunk) and
its files are a pure function of both, so a task Dask reruns after its worker died, or one
submitted twice, rewrites the same files. The driver receives only each chunk's statistics,
records them in run.json and drives the progress bar; it keeps a few tasks per worker thread
in flight, so its memory does not grow with the run.

Dask is imported only when this executor is used: `pip install 'wizard-sim[dask]'`.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import hashlib
import itertools
import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import numba

from sim.storage import RUN_FILE, RunError, versions
from sim.config.errors import ConfigError
from sim.config.limits import MAX_WORKERS, check_count
from sim.config.rules import is_whole_number
from sim.runs.executors import ChunkDone, ChunkJob, run_chunk

INSTALL = "pip install 'wizard-sim[dask]'"
TASKS_PER_THREAD = 3  # in flight per worker thread (of the workers there now): none waits for the driver
TASK_RETRIES = 1  # e.g. a task whose temporary file a resumed run's cleanup removed runs again


def check_cluster_choice(scheduler: str | None, workers: int | None) -> None:
    """Exactly one of a running cluster's --scheduler and a local cluster's --workers."""
    if scheduler is None and workers is None:
        raise ConfigError(
            "--engine dask needs --scheduler tcp://HOST:8786 (a running cluster) or --workers N (a local one)"
        )
    if scheduler is not None and workers is not None:
        raise ConfigError("--scheduler and --workers exclude each other")
    if workers is not None:
        check_count(workers, "workers", 1, MAX_WORKERS)


def import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ConfigError(f"--engine dask needs Dask, which is not installed: {INSTALL}") from None
    return distributed


# -- on the workers ---------------------------------------------------------------------------
def worker_threads(requested: int | None) -> int:
    """Kernel threads of one task on this worker: `requested` (at most the worker's
    NUMBA_NUM_THREADS), or by default NUMBA_NUM_THREADS shared by the worker's task threads."""
    from distributed import get_worker

    available = numba.config.NUMBA_NUM_THREADS
    if requested is not None:
        return min(requested, available)
    return max(1, available // get_worker().state.nthreads)


def chunk_task(job: ChunkJob, index: int) -> dict:
    """run_chunk on a worker, with its kernel threads."""
    return run_chunk(dataclasses.replace(job, threads=worker_threads(job.threads)), index)


def worker_report(out: str) -> dict:
    """What the driver checks of each worker before a run."""
    return {"wizard_sim": versions()["wizard_sim"], "sees_out": os.path.isfile(os.path.join(out, RUN_FILE))}


# -- on the driver ----------------------------------------------------------------------------
def check_workers(reports: dict[str, dict], out: str) -> None:
    """Every worker must run this wizard-sim version (the data depend on it) and see --out."""
    expected = versions()["wizard_sim"]
    for address, report in sorted(reports.items()):
        if report["wizard_sim"] != expected:
            raise ConfigError(
                f"Dask worker {address} runs wizard-sim {report['wizard_sim']}, this driver {expected}:"
                " install the same version on every worker"
            )
        if not report["sees_out"]:
            raise ConfigError(
                f"Dask worker {address} cannot see {os.path.join(out, RUN_FILE)}: --out must be on storage"
                " shared by the driver and every worker, mounted at the same path"
            )


def chunk_key(job: ChunkJob, index: int) -> str:
    """The task key of chunk `index`: the same in every session of the run, so a task submitted
    twice runs once. The thread count is left out: it never changes the data."""
    run = json.dumps([job.command, job.config, job.out], sort_keys=True).encode()
    return f"wizard-sim-chunk-{hashlib.sha256(run).hexdigest()[:16]}-{index}"


def lost_scheduler(detail: str) -> RunError:
    """The one-line failure of a run whose scheduler died; --resume finishes it."""
    return RunError(f"lost the Dask scheduler ({detail}); is it still running?")


def check_task_threads(threads: int | None) -> None:
    """A task's kernel threads (None: the worker's default); each worker caps them at its cores."""
    if threads is not None and (not is_whole_number(threads) or threads < 1):
        raise ConfigError(f"threads must be at least 1, got {threads}")


class DaskExecutor:
    """Run the chunks as tasks on the Dask cluster of `client` (a distributed.Client).

    Kernel threads per task: the run's `threads`, else `default_threads`, else each worker's
    NUMBA_NUM_THREADS shared by its task threads (see worker_threads)."""

    def __init__(self, client: Any, default_threads: int | None = None):
        self.client = client
        self.default_threads = default_threads

    def check_threads(self, threads: int | None) -> None:
        check_task_threads(threads)

    def run(self, job: ChunkJob, indices: list[int], on_chunk: ChunkDone) -> None:
        from distributed import KilledWorker, as_completed

        try:
            reports = self.client.run(worker_report, job.out)
        except Exception as error:  # Dask re-raises a worker's ModuleNotFoundError as a bare Exception
            raise ConfigError(
                f"the Dask workers could not run wizard-sim ({error}): install it, the same version, on every worker"
            ) from None
        check_workers(reports, job.out)
        job = job.portable()
        if job.threads is None:
            job = dataclasses.replace(job, threads=self.default_threads)
        todo = iter(indices)
        running: dict[str, tuple[int, Any]] = {}  # key: chunk index and future
        completed = as_completed()

        def top_up() -> None:
            """Submit chunks until TASKS_PER_THREAD per worker thread are in flight."""
            try:
                window = TASKS_PER_THREAD * max(1, sum(self.client.nthreads().values()))
            except OSError as error:  # the scheduler died (connection reset or closed)
                raise lost_scheduler(str(error) or type(error).__name__) from None
            for index in itertools.islice(todo, max(0, window - len(running))):
                future = self.client.submit(chunk_task, job, index, key=chunk_key(job, index), retries=TASK_RETRIES)
                running[future.key] = (index, future)
                completed.add(future)

        try:
            top_up()
            for future in completed:
                index, _ = running[future.key]
                try:
                    stats = future.result()
                except KilledWorker as error:
                    raise RunError(f"chunk {index} failed: {error}") from None
                except concurrent.futures.CancelledError as error:
                    # The scheduler died: the client cancels every pending future.
                    reason = getattr(error, "reason", None) or "cancelled"
                    raise lost_scheduler(f"{reason}, chunk {index}") from None
                except ConfigError as error:
                    # The driver validated the configuration: a worker that refuses it lacks
                    # something the driver has, such as an external bot's module.
                    raise ConfigError(
                        f"on a Dask worker: {error} (an external bot's module must be importable on every worker)"
                    ) from None
                del running[future.key]
                on_chunk(index, stats)
                top_up()
        finally:
            # Including a failed task's: the scheduler forgets its key, so that the same chunk
            # submitted again (--resume in this process) runs anew instead of failing at once.
            with contextlib.suppress(OSError):  # no scheduler left to tell
                self.client.cancel([future for _, future in running.values()])


SCHEDULER_TIMEOUT = 10.0  # seconds for --scheduler to answer as a Dask scheduler


def probe_scheduler(address: str, timeout: float | None = None) -> None:
    """Ask `address` who it is, within `timeout` seconds: ConfigError unless a Dask scheduler
    answers (distributed.Client itself waits forever on a server that accepts and says nothing)."""
    import asyncio

    from distributed.core import rpc

    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout

    async def identity() -> dict:
        remote = rpc(address)
        try:
            return await remote.identity()
        finally:
            await remote.close_rpc()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), timeout))
    except (OSError, TimeoutError, asyncio.TimeoutError, ValueError, TypeError) as error:
        detail = f"no answer within {timeout:g} s" if isinstance(error, (TimeoutError, asyncio.TimeoutError)) else str(error)
        raise ConfigError(f"--scheduler {address} does not answer as a Dask scheduler ({detail})") from None
    except Exception as error:  # a server speaking another protocol
        raise ConfigError(f"--scheduler {address} does not answer as a Dask scheduler ({type(error).__name__})") from None
    if not isinstance(answer, dict) or answer.get("type") != "Scheduler":
        raise ConfigError(f"--scheduler {address} is not a Dask scheduler")


@contextlib.contextmanager
def connect(scheduler: str | None, workers: int | None) -> Iterator[DaskExecutor]:
    """A DaskExecutor on the cluster at `scheduler`, or on a new local cluster of `workers`
    processes (one task thread each, the cores shared among their kernels); closed on exit."""
    distributed = import_distributed()
    check_cluster_choice(scheduler, workers)
    with contextlib.ExitStack() as stack:
        default_threads = None
        if workers is not None:
            # Passed to the tasks, not set as the workers' NUMBA_NUM_THREADS: a spawned worker
            # re-imports the driver's __main__ (and with it numba) before Dask sets its env.
            default_threads = max(1, (os.cpu_count() or 1) // workers)
            target = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: never clashes with a running scheduler
                    silence_logs=logging.ERROR,
                )
            )
        else:
            probe_scheduler(scheduler)
            target = scheduler
        # The client logs a lost scheduler as it gives up reconnecting; the run reports that
        # failure itself, in one line (DaskExecutor.run).
        client_log = logging.getLogger("distributed.client")
        stack.callback(client_log.setLevel, client_log.level)
        client_log.setLevel(logging.CRITICAL)
        try:
            client = stack.enter_context(distributed.Client(target))
        except (OSError, TimeoutError, ValueError) as error:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
        yield DaskExecutor(client, default_threads)
