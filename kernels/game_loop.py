"""A whole game's loop, without any policy: the workspace a thread plays in, the deal of a
round, the rounds of a game into the results, and a block of games, each taking the function
that plays a begun round (`play_round`): kernels.batch's (the decision step, which asks the
seated policies) or kernels.fast_games' (its twin, built-in non-search seats only).

Imports no policy, so that the fast path's code, and its compiled cache, contain none
(kernels/cache_stamps.py: an edit of a searching policy leaves it cached).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from kernels.blocks import NO_FAILURE, block_rows
from kernels.rng import STREAM_DECISIONS, seed_stream
from kernels.round_state import begin_round, deal_round, set_rules
from kernels.results import record_game, record_plays, record_round
from kernels.rules import cards_dealt, dealer_of_round, first_dealer, game_winners
from kernels.records import MAX_PARAMS, MAX_PLAYERS, MAX_SEAT_STATE, NO_BID, WORKSPACE_DTYPE, SeatedPolicies


@njit(cache=True)
def new_workspace(rules, policies):
    """One thread's working memory for games under `rules` with `policies` = (policy id per
    seat, parameter row per seat) seated: a one-record WORKSPACE_DTYPE array (a record cannot
    leave compiled code by value), allocated once and reused game after game."""
    storage = np.zeros(1, dtype=WORKSPACE_DTYPE)
    init_workspace(storage[0], rules, policies)
    return storage


@njit(cache=True)
def init_workspace(workspace, rules, policies):
    """Set a workspace record up for games under `rules` with `policies` seated (the
    environments keep one workspace per game inside their own records)."""
    set_rules(workspace.table, rules)
    policy_ids, params = policies
    for seat in range(MAX_PLAYERS):
        workspace.fixed_bids[seat] = NO_BID
        workspace.policy_ids[seat] = policy_ids[seat]
        for k in range(MAX_PARAMS):
            workspace.params[seat, k] = params[seat, k]


@njit(cache=True)
def seat_listed(workspace, seating, policy_ids, params):
    """Seat listed policy seating[s] at seat s: its kernel policy id and parameter row."""
    for seat in range(seating.shape[0]):
        index = seating[seat]
        workspace.policy_ids[seat] = policy_ids[index]
        for k in range(MAX_PARAMS):
            workspace.params[seat, k] = params[index, k]


@njit(cache=True, inline="always")
def seated_policies(workspace):
    """The SeatedPolicies that `decide` takes, viewed in the workspace."""
    return SeatedPolicies(workspace.policy_ids, workspace.params, workspace.seat_state)


@njit(cache=True)
def deal_and_seed(game_key, workspace):
    """Deal the begun round from its DEAL stream, then set the workspace's generator to the
    round's DECISIONS stream (the start of every round, here and in the environments)."""
    seed, game = game_key
    table = workspace.table
    scratch = workspace.scratch
    deal_round(seed, game, table, workspace.seats, scratch)
    seed_stream(scratch.generator, seed, game, table.round_size, STREAM_DECISIONS)


@njit(cache=True, inline="always")
def play_game(play_round, game_key, rules, round_sizes, workspace_storage, results, slot):
    """Play the rounds of `round_sizes` (each dealt by its own dealer of the full game) and
    fill results slot `slot` (results: a kernels.results.GameResults). `play_round`(game key,
    workspace, log_plays) plays each begun round: this module's (the decision step) or
    kernels.fast_games' (its twin, built-in seats only)."""
    # The storage array, not its record, crosses the call: a record does not keep its array
    # alive, and the caller's reference does.
    workspace = workspace_storage[0]
    table = workspace.table
    seats = workspace.seats
    n_players = rules.n_players
    first = begin_game(game_key, rules, workspace)
    log_plays = results.plays.shape[1] > 0
    logged = 0
    for index in range(round_sizes.shape[0]):
        round_size = round_sizes[index]
        begin_round(table, seats, round_size, dealer_of_round(first, round_size, n_players))
        play_round(game_key, workspace, log_plays)
        record_round(table, seats, results, slot, index)
        if log_plays:
            record_plays(workspace.plays, cards_dealt(table), results, slot, logged)
            logged += cards_dealt(table)
    game_winners(table.totals, n_players, workspace.winners)
    record_game(table.totals, workspace.winners, n_players, results, slot)


@njit(cache=True)
def begin_game(game_key, rules, workspace):
    """Clear the score pad and every seat's policy state, and return the first dealer (drawn
    from the DRAW stream or fixed)."""
    seed, game = game_key
    for seat in range(MAX_PLAYERS):
        workspace.table.totals[seat] = 0
        for k in range(MAX_SEAT_STATE):
            workspace.seat_state[seat, k] = 0.0
    return first_dealer(seed, game, rules, workspace.scratch)


# The games of a call: the run's seed, the game ids, the rules (a RULES_DTYPE record) and the
# round sizes each game plays.
Games = namedtuple("Games", ("seed", "game_ids", "rules", "round_sizes"))


@njit(cache=True, inline="always")
def play_block(play_round, games, rows, workspace, results):
    """Play the games of rows = (first, stop) into their results slots; return the first that
    failed (a policy raised, or answered illegally: kernels.round_state.checked), which ends
    the block, or NO_FAILURE (kernels.blocks: why it is caught here)."""
    for i in range(rows[0], rows[1]):
        try:
            play_game(play_round, (games.seed, games.game_ids[i]), games.rules, games.round_sizes, workspace, results, i)
        except Exception:  # numba cannot bind it: replay_game raises it again
            return i
    return NO_FAILURE


@njit(cache=True, inline="always")
def games_block_with(play_round, block, seed, game_ids, rules, round_sizes, policies, results):
    """Block `block` of play_games' loop with `play_round`: the first failed row or NO_FAILURE.

    A jitted function passed as an argument must be inlined down to its call (play_game,
    play_block and these two are inline="always"): passed on to a compiled function, it is
    a Python object in the machine code, which numba cannot cache. Each parallel kernel calls
    a block function (games_block, seated_block) that names its `play_round` itself."""
    n_games = game_ids.shape[0]
    table_rules = rules[0]
    workspace = new_workspace(table_rules, policies)
    # A thread-local copy: an array shared by threads puts its reference count on a
    # contended cache line.
    games = Games(seed, game_ids, table_rules, round_sizes.copy())
    return play_block(play_round, games, block_rows(block, n_games), workspace, results)


@njit(cache=True, inline="always")
def seated_block_with(play_round, block, seed, game_ids, seatings, rules, round_sizes, listed, results):
    """Block `block` of play_seated_games' loop with `play_round` (a seating per row)."""
    n_games = game_ids.shape[0]
    table_rules = rules[0]
    workspace = new_workspace(table_rules, listed)
    games = Games(seed, game_ids, table_rules, round_sizes.copy())
    first, stop = block_rows(block, n_games)
    for i in range(first, stop):
        seat_listed(workspace[0], seatings[i], listed[0], listed[1])
        failed = play_block(play_round, games, (i, i + 1), workspace, results)
        if failed != NO_FAILURE:
            return failed
    return NO_FAILURE
