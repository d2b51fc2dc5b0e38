"""Whole games whose seats all play built-in non-search policies (`random`, `heuristic`), on
the fast path: kernels.batch's kernels (on kernels.game_loop) with each round sequenced by
kernels.sequencer instead of the decision step.

Same arguments, results and failure report as kernels.batch.play_games / play_seated_games,
bit for bit (tests/test_fast_path.py). sim.runs.games calls these when every policy of a
batch is `random` or `heuristic` (sequencer.FAST_POLICY_IDS), the others otherwise. They reach
neither mc, pimc, the posterior nor the solver, so a run of built-in seats compiles none of
them (docs/architecture.md, "The fast path").
"""
from numba import njit, prange

from kernels.game_loop import deal_and_seed, games_block_with, seated_block_with
from kernels.blocks import first_failure, n_blocks, new_failures
from kernels.records import MAX_PLAYS_PER_ROUND
from kernels.sequencer import play_rest


@njit(cache=True)
def play_round(game_key, workspace, log_plays):
    """kernels.batch.play_round on the fast path: deal, then play_rest with the seated
    policies."""
    plays = workspace.plays[: MAX_PLAYS_PER_ROUND if log_plays else 0]
    deal_and_seed(game_key, workspace)
    play_rest(workspace.policy_ids, workspace.params, workspace.table, workspace.seats, workspace.scratch.generator,
              workspace.fixed_bids, plays)  # fmt: skip


@njit(cache=True)
def games_block(block, seed, game_ids, rules, round_sizes, policies, results):
    return games_block_with(play_round, block, seed, game_ids, rules, round_sizes, policies, results)


@njit(cache=True)
def seated_block(block, seed, game_ids, seatings, rules, round_sizes, listed, results):
    return seated_block_with(play_round, block, seed, game_ids, seatings, rules, round_sizes, listed, results)


@njit(cache=True, parallel=True, nogil=True)
def play_games(seed, game_ids, rules, round_sizes, policies, results):
    """kernels.batch.play_games for built-in seats."""
    n_games = game_ids.shape[0]
    failures = new_failures(n_games)
    for block in prange(n_blocks(n_games)):
        failures[block] = games_block(block, seed, game_ids, rules, round_sizes, policies, results)
    return first_failure(failures)


@njit(cache=True, parallel=True, nogil=True)
def play_seated_games(seed, game_ids, seatings, rules, round_sizes, listed, results):
    """kernels.batch.play_seated_games for built-in listed policies."""
    n_games = game_ids.shape[0]
    failures = new_failures(n_games)
    for block in prange(n_blocks(n_games)):
        failures[block] = seated_block(block, seed, game_ids, seatings, rules, round_sizes, listed, results)
    return first_failure(failures)
