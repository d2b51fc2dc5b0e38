"""Entry points: one round, one game, and a parallel batch of games, on the decision step
(the seated policies asked through kernels.policy_calls, which an engine binds: sim.engine);
the game's loop is kernels.game_loop.

A game is a pure function of (seed, game index): the cards come from the DEAL and DRAW
streams, every random decision from the round's DECISIONS stream (docs/randomness.md).
"""
from numba import njit, prange

from kernels.blocks import first_failure, n_blocks, new_failures
from kernels.game_loop import deal_and_seed, games_block_with, play_game, seated_block_with, seated_policies
from kernels.policy_calls import decide, round_finished
from kernels.round_state import play_out
from kernels.records import MAX_PLAYS_PER_ROUND


@njit(cache=True)
def play_round(game_key, workspace, log_plays):
    """Deal, choose trump, bid, play and score one begun round on the workspace's table: its
    scores are added to table.totals, and the seated policies are told it finished; with
    log_plays, workspace.plays[:n*r] logs every card."""
    plays = workspace.plays[: MAX_PLAYS_PER_ROUND if log_plays else 0]
    deal_and_seed(game_key, workspace)
    table = workspace.table
    generator = workspace.scratch.generator
    policies = seated_policies(workspace)
    play_out(decide, policies, table, workspace.seats, generator, workspace.fixed_bids, plays)
    round_finished(policies, table)


@njit(cache=True)
def games_block(block, seed, game_ids, rules, round_sizes, policies, results):
    return games_block_with(play_round, block, seed, game_ids, rules, round_sizes, policies, results)


@njit(cache=True)
def seated_block(block, seed, game_ids, seatings, rules, round_sizes, listed, results):
    return seated_block_with(play_round, block, seed, game_ids, seatings, rules, round_sizes, listed, results)


@njit(cache=True, parallel=True, nogil=True)
def play_games(seed, game_ids, rules, round_sizes, policies, results):
    """Play game_ids[i] into results slot i for every i, in parallel over blocks of games.
    Returns the index of the first game that failed (replay_game tells why), or NO_FAILURE.

    rules is a one-record RULES_DTYPE array (a parallel kernel cannot take a bare record);
    results a kernels.results.GameResults. Each game is independent of the others, so the
    blocking never changes a result. nogil: the caller's writer threads convert and write
    earlier chunks meanwhile."""
    n_games = game_ids.shape[0]
    failures = new_failures(n_games)
    for block in prange(n_blocks(n_games)):
        failures[block] = games_block(block, seed, game_ids, rules, round_sizes, policies, results)
    return first_failure(failures)


@njit(cache=True, parallel=True, nogil=True)
def play_seated_games(seed, game_ids, seatings, rules, round_sizes, listed, results):
    """play_games with a seating per row: game_ids[i] is played with the listed policy
    seatings[i, s] at seat s (listed = (policy id, parameter row) per listed policy). A game's
    deal depends on its id alone, so row i's game is the one play_games plays with that
    seating's policies, whichever rows share its batch; failures as play_games reports them."""
    n_games = game_ids.shape[0]
    failures = new_failures(n_games)
    for block in prange(n_blocks(n_games)):
        failures[block] = seated_block(block, seed, game_ids, seatings, rules, round_sizes, listed, results)
    return first_failure(failures)


@njit(cache=True)
def replay_game(seed, game, rules, round_sizes, workspace_storage, results):
    """Play game `game` into results slot 0 on the given workspace, in the calling thread, so
    that a failure raises its exception (play_games only says which game failed) and leaves
    the workspace's round at the failing decision."""
    play_game(play_round, (seed, game), rules[0], round_sizes, workspace_storage, results, 0)
