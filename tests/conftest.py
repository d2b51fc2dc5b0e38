"""Shared hooks. Tests that call the kernels directly need nothing first: a kernel compiled
from other sources is never loaded (kernels/cache_stamps.py); the engine's start
(sim/engine/startup.py) only lets numba's threads sleep between parallel loops.

The tests are marked by what makes them cost (pyproject.toml lists the markers): `processes`
(Python processes and signals: the command line end to end, Ctrl-C, kill -9, the real
server), `statistics` (claims checked at a stated sigma, or against an exact enumeration),
`cluster` (Dask), `browser` (Chromium), `figures` (the published figures of results/). Each
of them is also `slow`, like the other tests over about 1.5 s (long in-process runs: leagues,
engines compiled with numba bots, sweeps of hostile inputs), so the fast lane stays
`-m "not slow"` and one cost runs alone with, e.g., `-m processes`."""
import pytest

from sim.engine.startup import start

COSTS = ("processes", "statistics", "cluster", "browser", "figures")

start()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(cost) for cost in COSTS):
            item.add_marker(pytest.mark.slow)
