"""The valid range of every number a user can give (docs/runs.md, Options).

Each check raises ConfigError with one line naming the option and its range, before anything
is allocated or written.
"""
from __future__ import annotations

import math

from sim.config.errors import ConfigError, echo

MAX_GAMES = 10**12  # games (or a tournament's deals) of one run
MAX_CHUNKS = 10**7  # chunks of one run: raise --chunk-games for more games
MAX_CHUNK_BYTES = 2**30  # estimated memory of one chunk's results (at most three in flight)
MAX_DEMO_BYTES = 2**30  # estimated memory of demo's one batch
MAX_BATCH_SIZE = 10**7  # rows per streamed batch of a report
MAX_WORKERS = 256  # --workers of a local Dask cluster
MAX_TOTAL = 100_000  # |score| on the pad given to estimate (a real game stays within +-5,000)
MAX_BOT_PARAMETER = 1e9  # |value| of an external bot's parameter
# Kernel threads (NUMBA_NUM_THREADS). Far more crash the process when numba starts them
# (100,000: a segfault, or libgomp's "Thread creation failed"); 1,024 is hundreds of times
# the cores of any machine the kernels run on, and each costs a stack.
MAX_THREADS = 1024


def check_count(value: object, name: str, low: int, high: int) -> int:
    """A whole number in low..high (bools refused)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ConfigError(f"{name} must be a whole number in {low:,}..{high:,}, got {echo(value)}")
    number = int(value.__index__())  # ints and numpy integers
    if not low <= number <= high:
        raise ConfigError(f"{name} must be in {low:,}..{high:,}, got {shown(number)}")
    return number


def shown(number: int) -> str:
    """A number for an error message, however large."""
    return f"{number:,}" if abs(number) < 10**18 else f"a {len(str(abs(number)))}-digit number"


def check_parameter(value: float, name: str, low: float, high: float) -> float:
    """A finite number in [low, high]."""
    if not math.isfinite(value) or not low <= value <= high:
        raise ConfigError(f"policy parameter {name} must be a finite number in [{low:g}, {high:g}], got {value:g}")
    return value


def threads_variable_problem(value: str | int | None) -> str | None:
    """What is wrong with NUMBA_NUM_THREADS (None: nothing): the environment's text, or the
    count numba read from it. Checked before numba starts its threads, by the command line
    before numba loads (sim.cli.environment_problem) and by the engine before its first kernel
    (sim.engine.startup.start)."""
    if value is None:
        return None
    text = str(value).strip()
    if text.isascii() and text.isdecimal() and len(text) <= 6 and 1 <= int(text) <= MAX_THREADS:
        return None
    return f"NUMBA_NUM_THREADS must be a whole number in 1..{MAX_THREADS:,} (the kernels' threads) or unset, got {echo(value)}"


def check_totals(totals: list[int]) -> list[int]:
    for total in totals:
        if not -MAX_TOTAL <= total <= MAX_TOTAL:
            raise ConfigError(f"totals must be in -{MAX_TOTAL:,}..{MAX_TOTAL:,}, got {shown(total)}")
    return totals
