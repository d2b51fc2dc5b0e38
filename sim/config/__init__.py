"""What a run is made of, validated: rules, policies, cards, seeds, external bots, the version.

The lowest layer of `sim`: it imports only the kernels (see tests/test_layout.py)."""
from sim.engine.kernel_cache import clear_stale_caches
from sim.engine.threads import prefer_passive_waiting

clear_stale_caches()  # before any kernel is compiled or loaded from numba's cache
prefer_passive_waiting()  # before numba starts its threads
