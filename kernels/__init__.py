"""Numba-jitted core of wizard-sim: pure functions over integer arrays and records.

Nothing here touches files, Python objects or the terminal; sim/ validates input, allocates
the outputs and calls these kernels.
"""
