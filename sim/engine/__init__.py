"""The engine: the kernels called from Python (in slices, on a number of threads), the engine
compiled with numba bots, and numba's cache of the kernels."""
