"""The engine lets numba's OpenMP threads sleep between parallel loops, unless the user chose: when
it starts (before numba starts its threads), not when sim is imported."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = """
import os, sys
import sim
from sim import Rules, run_games
imported = os.environ.get("OMP_WAIT_POLICY", "-")
run_games(Rules(players=3), "random", seed=1, games=64, threads=2)
import numba
print(imported, os.environ.get("OMP_WAIT_POLICY"), numba.threading_layer())
"""


@pytest.mark.parametrize("given,expected", [(None, "PASSIVE"), ("ACTIVE", "ACTIVE"), ("passive", "passive")])
def test_wait_policy_set_when_the_engine_starts_unless_given(given, expected):
    environment = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    if given is not None:
        environment["OMP_WAIT_POLICY"] = given
    environment.setdefault("NUMBA_NUM_THREADS", "2")
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment, timeout=300)
    assert probe.returncode == 0, probe.stderr
    imported, policy, _layer = probe.stdout.split()
    assert imported == (given or "-")  # the import set nothing
    assert policy == expected


def test_libgomp_is_not_loaded_by_the_import():
    """libgomp reads OMP_WAIT_POLICY once, when loaded: importing sim must not load it before
    the variable is set (numba loads it when it first starts its threads)."""
    probe = subprocess.run([sys.executable, "-c", "import sim; print(any('libgomp' in line for line in open('/proc/self/maps')))"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "False"


@pytest.mark.parametrize("configured", [1025, 100_000])
def test_a_thread_count_beyond_the_bound_is_refused_before_numba_starts_its_threads(monkeypatch, configured):
    """Issue 61: NUMBA_NUM_THREADS=100000 crashed the process when numba started its thread pool
    (simulate segfaulted; estimate: "libgomp: Thread creation failed"). The engine refuses it
    before its first kernel, whichever entry point starts it."""
    import numba

    from sim.config.errors import ConfigError
    from sim.engine import startup, threads

    monkeypatch.setattr(numba.config, "NUMBA_NUM_THREADS", configured)
    monkeypatch.setattr(startup, "_started", False)
    with pytest.raises(ConfigError, match=r"^NUMBA_NUM_THREADS must be a whole number in 1..1,024 \(the kernels' threads\)"):
        startup.start()
    with pytest.raises(ConfigError, match="^NUMBA_NUM_THREADS must be"):
        threads.set_threads(None)
    assert not startup._started
