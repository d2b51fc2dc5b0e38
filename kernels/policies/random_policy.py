"""`random`: a uniformly random legal trump suit, bid and card."""
from numba import njit

from kernels.bits import nth_set_bit, popcount
from kernels.rng import below_from_state

NAME = "random"
SUMMARY = "uniformly random legal trump, bid and card"
PARAMETERS = ()


@njit(cache=True, inline="always")
def choose_from_state(legal, state):
    """(a uniformly chosen set bit of `legal`, the generator state after the draw) from a
    generator state in a local variable (docs/randomness.md fixes the order)."""
    index, state = below_from_state(state, popcount(legal))
    return nth_set_bit(legal, index), state


@njit(cache=True, inline="always")
def decide(decision, params, me, table, legal, generator):
    """Index of a uniformly chosen set bit of `legal`."""
    choice, generator[0] = choose_from_state(legal, generator[0])
    return choice
