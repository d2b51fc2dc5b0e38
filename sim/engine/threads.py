"""The kernels' threads: how many a call uses (results never depend on it)."""
from __future__ import annotations

import numba

from sim.config.errors import ConfigError
from sim.engine.startup import start


def check_threads(threads: int | None) -> int:
    """`threads` kernel threads, checked (None: all cores)."""
    if threads is None:
        return numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise ConfigError(f"threads must be 1..{numba.config.NUMBA_NUM_THREADS}, got {threads}")
    return threads


def set_threads(threads: int | None) -> None:
    """Use `threads` kernel threads (default: all cores); results do not depend on it. The
    engine starts first (startup.start): numba starts its threads here."""
    count = check_threads(threads)
    start()
    numba.set_num_threads(count)
