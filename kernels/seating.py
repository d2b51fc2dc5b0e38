"""Random seating of a tournament without duplicate deals: a pure function of (seed, game)."""
import numpy as np
from numba import njit, prange

from kernels.rng import STREAM_SEATING, below, seed_stream


@njit(cache=True)
def shuffle_seating(generator, seating):
    """Fisher-Yates in place, front to back like the deal's: position i swaps with a uniform
    pick among positions i..n-1."""
    n = seating.shape[0]
    for position in range(n - 1):
        other = position + below(generator, n - position)
        seating[position], seating[other] = seating[other], seating[position]


@njit(cache=True, parallel=True)
def random_seatings(seed, game_ids, seatings):
    """seatings[i, s]: index of the policy at seat s in game game_ids[i], a uniformly random
    permutation from the stream (seed, game, 0, STREAM_SEATING)."""
    n_players = seatings.shape[1]
    for i in prange(game_ids.shape[0]):
        generator = np.empty(1, dtype=np.uint64)
        seed_stream(generator, seed, game_ids[i], 0, STREAM_SEATING)
        for seat in range(n_players):
            seatings[i, seat] = seat
        shuffle_seating(generator, seatings[i])
