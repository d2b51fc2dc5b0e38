"""Numba-jitted core of wizard-sim: pure functions over integer arrays and records.

Nothing here touches files, Python objects or the terminal; sim/ validates input, allocates
the outputs and calls these kernels. The one exception is `cache_stamps`, numba's cache
configuration, installed here before any kernel is decorated: a cached kernel is reused only
while every kernel source its code can contain is unchanged.
"""
from kernels import cache_stamps

cache_stamps.install()
