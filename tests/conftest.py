"""Tests that import the kernels directly (without sim.config) still never load a cache
compiled from other kernel sources (sim/config/kernel_cache.py)."""
from sim.config.kernel_cache import clear_stale_caches

clear_stale_caches()
