"""`random`: a uniformly random legal trump suit, bid and card."""
from numba import njit

from kernels.bits import nth_set_bit, popcount
from kernels.rng import below

NAME = "random"
SUMMARY = "uniformly random legal trump, bid and card"
PARAMETERS = ()


@njit(cache=True, inline="always")
def decide(decision, params, me, table, legal, generator):
    """Index of a uniformly chosen set bit of `legal` (docs/randomness.md fixes the order)."""
    return nth_set_bit(legal, below(generator, popcount(legal)))
