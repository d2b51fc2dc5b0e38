"""Calling the kernels: with the engine compiled for a run's policies, in slices short
enough that Ctrl-C is seen between two calls, and a policy's failure as one line."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numba
from numba.core.errors import NumbaError

from kernels.round_state import IllegalAction
from sim.config.errors import BotError
from sim.policies.registry import Policy
from sim.engine.policy_engine import compile_failure
from sim.engine.seating import Seating
from sim.engine.startup import start

SLICE_SECONDS = 0.25  # a kernel call's target length: Ctrl-C is seen between two calls


def call_kernel(kernel, seating: Seating | list[Policy], *arguments, chunksize: int = 1):
    """Call `kernel` (compiled with the seating's numba bots, if any: looked up once per
    Seating and entry point) and return its result; its parallel loops hand out `chunksize`
    iterations at a time. A bot that does not compile is one BotError line naming it and its
    file:line; a policy that fails at run time in a kernel that does not report its failures
    itself (see play_in_slices) is one BotError line naming the policies. A list of policies
    is seated for this call alone (Seating.of)."""
    start()
    seating = Seating.of(seating)
    bots = list(seating.bots)
    engine = seating.kernel(kernel)
    # The kernels' parallel loops hand out their blocks a few at a time instead of splitting
    # them evenly in advance, so a core slowed by other work does not hold up the others.
    # (Set here: calling set_parallel_chunksize inside a kernel would stop numba caching it.)
    previous_chunksize = numba.set_parallel_chunksize(chunksize)
    try:
        return engine(*arguments)
    except NumbaError as error:  # raised while compiling: a bot's typing (or lowering) error
        if not bots:
            raise
        raise BotError(compile_failure(bots, error)) from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        # numba wraps an exception raised in a parallel region in a SystemError whose cause is
        # the original one.
        cause = error.__cause__ if isinstance(error, SystemError) and error.__cause__ is not None else error
        if not (bots or isinstance(cause, IllegalAction)):
            raise
        raise BotError(f"a policy failed: {exception_text(cause)} (policies: {seating.labels})") from None
    finally:
        numba.set_parallel_chunksize(previous_chunksize)


def exception_text(error: BaseException) -> str:
    """`Type: first line of the message`."""
    message = str(error).strip()
    return type(error).__name__ + (f": {message.splitlines()[0]}" if message else "")


JOIN_SECONDS = 0.05  # how often the main thread, waiting for a kernel call, can run a signal handler


def off_main_thread(function: Callable[..., None], *arguments: object) -> None:
    """function(*arguments), in a helper thread when called from the main thread, which waits
    for it in short joins: Python runs a signal handler only in the main thread and only
    between bytecodes, so a kernel call held there would delay Ctrl-C by its whole length (a
    slice of pimc games under load: 6 to 9 s, measured). The kernels release the GIL. The
    helper runs on the caller's numba thread count (numba's is per thread); its exception,
    if any, is raised here. After Ctrl-C the helper finishes its slice unwatched (daemon)."""
    if threading.current_thread() is not threading.main_thread():
        function(*arguments)
        return
    threads = numba.get_num_threads()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            numba.set_num_threads(threads)
            function(*arguments)
        except BaseException as error:  # noqa: BLE001 - raised again in the caller's thread
            failure.append(error)

    helper = threading.Thread(target=run, name="wizard-sim-kernel", daemon=True)
    helper.start()
    while helper.is_alive():
        helper.join(JOIN_SECONDS)
    if failure:
        raise failure[0]


def in_slices(total: int, first_size: int, run_slice: Callable[[int, int], None]) -> None:
    """run_slice(start, stop) over successive slices of range(total), each sized by the
    measured cost of an item to take about SLICE_SECONDS, so that Python sees a Ctrl-C
    (KeyboardInterrupt) within about that long plus one item. No slice after the first is
    smaller than the first (callers pass an item per kernel thread): items that cost more than
    a slice (a game with pimc at every seat, 0.4 s) would otherwise go one per call, on one
    thread."""
    start, size = 0, first_size
    while start < total:
        stop = min(total, start + size)
        began = time.perf_counter()
        off_main_thread(run_slice, start, stop)
        per_item = (time.perf_counter() - began) / (stop - start)
        start = stop
        # Straight to the measured size: items cost alike (whole games, or estimate's samples),
        # and every extra call costs a parallel region's start and join.
        size = max(first_size, int(SLICE_SECONDS / max(per_item, 1e-9)))
