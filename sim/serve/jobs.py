"""The server's estimates: a bounded queue served by worker threads, each job cancellable.

The kernels release the GIL, so a few worker threads run estimates side by side while the
event loop keeps answering pages. A job is cancelled by its request (the page changed its
input, or the client went away): the estimate's progress callback, called between its slices
of samples (about every quarter second), raises and the sampling stops there.
"""
from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from dataclasses import dataclass, field

from sim.config.errors import BotError, ConfigError
from sim.estimation.request import CheckedRequest, EstimateRequest
from sim.estimation.results import BidEstimate
from sim.estimation.run import StopSampling, run_estimate

# A small estimate that loads (or compiles) every kernel a page's estimate uses: inference on
# earlier bids and a Wizard's trump choice, the built-in policies, the certainty check.
WARM_UP = EstimateRequest("W AS KH", trump="W", trump_suit="H", position=2, bids=(1, 0),
                          opponents="heuristic,mc,random", samples=64)  # fmt: skip


class Cancelled(Exception):
    """The job was cancelled while it sampled."""


class Busy(Exception):
    """Every place in the queue is taken."""


# A request's cost is bounded before it starts: its sampling stops after this many seconds
# (mc opponents at their largest settings take about 0.25 s a sample: a million samples would
# hold a worker for days). The answer then says so, and its intervals are those of the
# samples done, wider than asked for.
TIME_BUDGET_SECONDS = 30.0


@dataclass(eq=False)  # hashed by identity: the running set holds jobs
class Job:
    """One estimate: its request, its progress (samples done of samples), and its outcome —
    the JSON text of the answer, or the error (a ConfigError is bad input, anything else a
    failure) — delivered to the event loop through `future`."""

    request: EstimateRequest | CheckedRequest  # the server queues checked ones (validated once)
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    cancelled: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    total: int = 0
    started: float | None = None
    budget: float | None = None  # seconds of sampling, then the samples done are the answer's
    capped: bool = False  # the budget ended the sampling

    def cancel(self) -> None:
        self.cancelled.set()

    def progress(self, done: int, total: int) -> None:
        if self.cancelled.is_set():
            raise Cancelled
        self.done, self.total = done, total
        if self.budget is not None and self.started is not None and 2 <= done < total:
            if time.perf_counter() - self.started > self.budget:
                self.capped = True
                raise StopSampling

    def answer(self, result: BidEstimate) -> str:
        """The answer's JSON text: `estimate --json`'s, and when the time budget ended the
        sampling, what it cut ("time_budget")."""
        payload = result.to_json()
        if self.capped:
            payload["time_budget"] = {
                "seconds": self.budget, "samples_requested": self.request.samples, "samples": result.samples,
                "note": f"sampling stopped after {self.budget:g} s, the server's limit per estimate: the intervals"
                        f" are those of {result.samples:,} samples",
            }  # fmt: skip
        return json.dumps(payload, allow_nan=False)

    def finish(self, answer: str | None, error: BaseException | None) -> None:
        def deliver() -> None:
            if self.future.done():
                return
            if error is None:
                self.future.set_result(answer)
            else:
                self.future.set_exception(error)
                # Read here: a request that went away never awaits its future, and asyncio
                # would log "Future exception was never retrieved" with a traceback.
                self.future.exception()

        try:
            self.loop.call_soon_threadsafe(deliver)
        except RuntimeError:  # the event loop is closed: the server is stopping
            pass


class EstimateQueue:
    """`workers` daemon threads take jobs from a queue of at most `capacity` waiting jobs.
    Daemon threads: stopping the server never waits for an estimate (or a compile) to end."""

    def __init__(self, workers: int = 2, capacity: int = 16, budget: float | None = TIME_BUDGET_SECONDS) -> None:
        self.workers = workers
        self.capacity = capacity
        self.budget = budget
        self._jobs: queue.Queue[Job | None] = queue.Queue(maxsize=capacity)
        self._running: set[Job] = set()
        self._lock = threading.Lock()
        self.ready = threading.Event()  # the kernels are loaded (or compiled)
        self.warm_up_seconds: float | None = None
        self.warm_up_error: str | None = None
        self._threads: list[threading.Thread] = []

    def start(self, on_ready=None) -> None:
        """Start the workers; the first one warms the kernels up before taking any job."""
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, args=(number == 0, on_ready), daemon=True,
                                      name=f"estimate-{number}")  # fmt: skip
            thread.start()
            self._threads.append(thread)

    def _warm_up(self, on_ready) -> None:
        began = time.perf_counter()
        try:
            run_estimate(WARM_UP)
        except Exception as error:  # noqa: BLE001 - reported on the page and the terminal, the server goes on
            self.warm_up_error = f"{type(error).__name__}: {error}"
        self.warm_up_seconds = time.perf_counter() - began
        self.ready.set()
        if on_ready is not None:
            on_ready(self)

    def _work(self, warms_up: bool, on_ready) -> None:
        if warms_up:
            self._warm_up(on_ready)
        else:
            self.ready.wait()  # the kernels compile once, on the first worker
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if job.cancelled.is_set():
                job.finish(None, Cancelled())
                continue
            with self._lock:
                self._running.add(job)
            job.started = time.perf_counter()
            try:
                result: BidEstimate = run_estimate(job.request, progress=job.progress)
                job.finish(job.answer(result), None)
            except (Cancelled, ConfigError, BotError) as error:
                job.finish(None, error)
            except Exception as error:  # noqa: BLE001 - one request's failure never stops the server
                job.finish(None, RuntimeError(f"the estimate failed: {type(error).__name__}: {error}"))
            finally:
                with self._lock:
                    self._running.discard(job)

    def submit(self, request: EstimateRequest | CheckedRequest) -> Job:
        """Queue an estimate (Busy when the queue is full). Call from the event loop."""
        loop = asyncio.get_running_loop()
        job = Job(request, loop.create_future(), loop, budget=self.budget)
        try:
            self._jobs.put_nowait(job)
        except queue.Full:
            raise Busy(
                f"the server is busy: {self.capacity} estimates are waiting; try again in a moment"
            ) from None
        return job

    @property
    def waiting(self) -> int:
        return self._jobs.qsize()

    @property
    def running(self) -> int:
        with self._lock:
            return len(self._running)

    def stop(self) -> None:
        """Cancel every job (running ones stop at their next slice) and end the workers. Takes
        no lock: the server calls it from its Ctrl-C handler."""
        for job in list(self._running):
            job.cancel()
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.cancel()
                job.finish(None, Cancelled())
        for _ in self._threads:
            try:
                self._jobs.put_nowait(None)
            except queue.Full:
                break
