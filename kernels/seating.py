"""Seatings: who sits where in the games of a tournament or league, and a batch of games played
by a seating per row.

A random seating (a tournament without duplicate deals) is a pure function of (seed, game).
A seated batch plays game_ids[i] with the listed policy seatings[i, s] at seat s: the deal
depends on the game id alone, so a row's game is the one kernels.batch.play_games plays with
that seating's policies, whichever rows share its batch.
"""
import numpy as np
from numba import njit, prange

from kernels.batch import GAMES_PER_BLOCK, NO_FAILURE, new_workspace, play_block
from kernels.records import MAX_PARAMS
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


@njit(cache=True)
def seat_listed(workspace, listed, seating):
    """Seat listed policy seating[s] at seat s of the workspace; listed = (policy id per listed
    policy, parameter row per listed policy)."""
    policy_ids, params = listed
    for seat in range(seating.shape[0]):
        index = seating[seat]
        workspace.policy_ids[seat] = policy_ids[index]
        for k in range(MAX_PARAMS):
            workspace.params[seat, k] = params[index, k]


@njit(cache=True, parallel=True, nogil=True)
def play_seated_games(seed, game_ids, seatings, rules, round_sizes, listed, results):
    """Play game_ids[i] with the seating seatings[i] into results[*][i] for every i, in
    parallel over blocks of games, as kernels.batch.play_games does for one seating (results
    and failures alike: the index of the first game that failed, or NO_FAILURE)."""
    n_games = game_ids.shape[0]
    n_blocks = (n_games + GAMES_PER_BLOCK - 1) // GAMES_PER_BLOCK
    failures = np.empty(n_blocks, dtype=np.int64)
    for block in prange(n_blocks):
        table_rules = rules[0]
        storage = new_workspace(table_rules, listed)
        block_round_sizes = round_sizes.copy()
        failures[block] = NO_FAILURE
        for i in range(block * GAMES_PER_BLOCK, min(n_games, (block + 1) * GAMES_PER_BLOCK)):
            seat_listed(storage[0], listed, seatings[i])
            failed = play_block(seed, game_ids, i, i + 1, table_rules, block_round_sizes, storage, results)
            if failed != NO_FAILURE:
                failures[block] = failed
                break
    for block in range(n_blocks):
        if failures[block] != NO_FAILURE:
            return failures[block]
    return NO_FAILURE
