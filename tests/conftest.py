"""Shared fixtures. Tests that call the kernels directly need nothing first: a kernel compiled
from other sources is never loaded (kernels/cache_stamps.py); the engine's start
(sim/engine/startup.py) only lets numba's threads sleep between parallel loops."""
from sim.engine.startup import start

start()
