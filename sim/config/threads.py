"""How the kernels' threads wait between parallel loops."""
from __future__ import annotations

import os

WAIT_POLICY = "OMP_WAIT_POLICY"


def prefer_passive_waiting() -> None:
    """Let numba's OpenMP threads sleep, not spin, once a parallel loop is done (unless the
    user chose otherwise). GNU OpenMP spins by default: on a machine with other work (simulate's
    Parquet writers, a Python seat's bot, other processes) a spinning thread takes the core from
    the thread that has work. Measured on the shared 2-core machine (docs/development.md, Figures): the
    VectorEnv at B = 64 on 2 threads 232,000–337,000 decisions/s sleeping against 5,400–60,000
    spinning. libgomp reads the variable once, when numba first starts its threads: this runs
    when `sim` is imported, before any kernel."""
    os.environ.setdefault(WAIT_POLICY, "PASSIVE")
