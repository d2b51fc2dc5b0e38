"""What the engine does once per process, before its first kernel: explicitly, never on import.

Importing `sim` writes no file and sets no environment variable (tests/test_imports.py). The
engine's entry points (threads.set_threads, calls.call_kernel, and the few that call a kernel
directly) call `start()` first; it runs once."""
from __future__ import annotations

import os

import numba

from sim.config.errors import ConfigError
from sim.config.limits import threads_variable_problem

WAIT_POLICY = "OMP_WAIT_POLICY"
_started = False


def prefer_passive_waiting() -> None:
    """Let numba's OpenMP threads sleep, not spin, once a parallel loop is done (unless the
    user chose otherwise). GNU OpenMP spins by default: on a machine with other work (simulate's
    Parquet writers, a Python seat's bot, other processes) a spinning thread takes the core from
    the thread that has work. Measured on the shared 2-core machine: the VectorEnv at B = 64 on
    2 threads 232,000–337,000 decisions/s sleeping against 5,400–60,000 spinning. libgomp reads
    the variable once, when it is loaded: numba loads it with its threading layer when it first
    starts its threads (the first numba.set_num_threads, get_num_threads or parallel kernel), so
    this must run before that."""
    os.environ.setdefault(WAIT_POLICY, "PASSIVE")


def start() -> None:
    """Prepare this process for the kernels, once: let numba's threads sleep between parallel
    loops (before numba starts them). A thread count numba cannot start
    (threads_variable_problem) is refused first: numba would crash the process. A stale
    compiled kernel needs no clearing here: numba's cache stamps each kernel with the sources
    it contains (kernels/cache_stamps.py)."""
    global _started
    if _started:
        return
    problem = threads_variable_problem(numba.config.NUMBA_NUM_THREADS)
    if problem is not None:
        raise ConfigError(problem)
    prefer_passive_waiting()
    _started = True
