"""What a run is made of, validated: rules, policies, cards, seeds, external bots, the version.

The lowest layer of `sim`: it imports only the kernels (see tests/test_layout.py)."""
from sim.config.kernel_cache import clear_stale_caches

clear_stale_caches()  # before any kernel is compiled or loaded from numba's cache
