"""Tests that import the kernels directly still never load a cache compiled from other kernel
sources: importing sim.config clears stale ones (sim/config/kernel_cache.py)."""
import sim.config  # noqa: F401
