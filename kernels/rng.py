"""Counter-keyed SplitMix64 streams (docs/randomness.md is the contract).

Every random number comes from a stream keyed by (seed, game, round, stream id), so a game
is a pure function of the run seed and its index, whatever the thread count or batch split.
A generator is a one-element uint64 array holding its state.
"""
import numpy as np
from numba import njit

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_LOW_32 = np.uint64(0xFFFFFFFF)
_TWO_32 = np.uint64(1 << 32)

STREAM_DEAL = 1
STREAM_DECISIONS = 2
STREAM_DRAW = 3
STREAM_PILOT = 4  # estimate: the posterior sampler's pilot draws (game key 0)
STREAM_SEATING = 8  # tournaments without duplicate deals: who sits where (round key 0)
ROUND_OF_DRAW = 0


@njit(cache=True, inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def seed_stream(generator, seed, game, round_size, stream):
    """Set `generator` to the start of the stream (seed, game, round, stream id)."""
    h = mix64(np.uint64(seed))
    h = mix64(h ^ np.uint64(game))
    generator[0] = mix64(h ^ np.uint64(round_size * 256 + stream))


@njit(cache=True, inline="always")
def next_u64(generator):
    generator[0] += GOLDEN_GAMMA
    return mix64(generator[0])


@njit(cache=True, inline="always")
def below_from_state(state, n):
    """(uniform integer in [0, n), the generator state after it) for 1 <= n < 2**32, without
    modulo bias (Lemire). On a state held in a local variable, a loop of draws keeps it in a
    register instead of storing and reloading the generator every time."""
    bound = np.uint64(n)
    state += GOLDEN_GAMMA
    product = (mix64(state) >> np.uint64(32)) * bound
    low = product & _LOW_32
    if low < bound:
        threshold = (_TWO_32 - bound) % bound
        while low < threshold:
            state += GOLDEN_GAMMA
            product = (mix64(state) >> np.uint64(32)) * bound
            low = product & _LOW_32
    return np.int64(product >> np.uint64(32)), state


@njit(cache=True)
def below(generator, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32, without modulo bias (Lemire)."""
    value, generator[0] = below_from_state(generator[0], n)
    return value


@njit(cache=True)
def uniform(generator):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(generator) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
