"""The Python-seat driver's kernels: a pool of B games, each a GAME_STATE_DTYPE record, played
part by part (each part by one thread; the parts side by side) until some Python seat must
decide (sim.runs.bot_games asks the bots).

A batch of n games (Rows: each row's game, a pure function of (seed, game id), and the index
of the listed policy at each seat) is played by the listed policies (Listed). A Python seat is
seated with its bot's fallback policy, which makes the decisions the bot does not take and
those it delegates. Env i of a pool of `stride` envs plays rows i, i + stride, ... (Schedule),
so the pool's size never changes a game.

A step (run_envs): every env that was asked applies its answer (a flat action, or DELEGATE:
the seated fallback decides, drawing from the round's DECISIONS stream as it does in
run_games), then plays on until one of its Python seats must decide — writing that seat's observation and mask
— or until its rows are done. Each round is recorded into the result arrays as it ends, with
the records kernels.batch.play_games fills (kernels.results).
"""
from collections import namedtuple

import numpy as np
from numba import njit

from kernels.batch import seat_listed
from kernels.game_state import advance, apply_caller_answer, next_round, observe, start_game
from kernels.observation import N_ACTIONS, OBSERVATION_SIZE
from kernels.records import NO_SEAT
from kernels.results import record_game, record_plays, record_round

NO_ROW = -1  # an env whose rows are all played

# The rows of a batch: the game each row plays [n] and the listed policy at each seat [n, players].
Rows = namedtuple("Rows", ("game_ids", "seatings"))
# The listed policies [6]: kernel policy id, parameter row, and the DECIDE_* bits a Python
# policy takes (0 for a built-in policy).
Listed = namedtuple("Listed", ("policy_ids", "params", "decisions"))
# Env i plays rows rows[i], rows[i] + stride, ... (rows[i]: its row now, NO_ROW once done).
Schedule = namedtuple("Schedule", ("rows", "stride"))
# What a step exchanges with the driver, per env: the answer it applies (a flat action or
# DELEGATE), and the seat asked next (NO_SEAT: none), its decision kind, round size,
# observation and mask.
Exchange = namedtuple("Exchange", ("answers", "seats", "kinds", "round_sizes", "observations", "masks"))
# An env's observation and mask, each held in a record: the step writes them through the
# record's nested array, which carries no reference count (a row view of a 2-D array costs two
# atomic updates a decision). The field of an array of them, observations["values"], is the
# C-contiguous float32 [n, OBSERVATION_SIZE] array the bots get; a mask is held as uint8 (numba
# nests no bool arrays in records) and the bots get masks["legal"].view(bool).
OBSERVATION_DTYPE = np.dtype([("values", np.float32, (OBSERVATION_SIZE,))])
MASK_DTYPE = np.dtype([("legal", np.uint8, (N_ACTIONS,))])


@njit(cache=True)
def seat_row(state, row, rows, listed):
    """Seat row `row`'s policies (ids, parameters, the decisions its Python seats take) and
    start its game."""
    seating = rows.seatings[row]
    seat_listed(state.workspace, seating, listed.policy_ids, listed.params)
    for seat in range(seating.shape[0]):
        state.controlled[seat] = listed.decisions[seating[seat]]
    start_game(state, rows.game_ids[row])


@njit(cache=True)
def plays_before(state):
    """Index in the game's play records of the first card of the round in play."""
    count = 0
    for index in range(state.round_index):
        count += state.round_sizes[index]
    return count * state.rules.n_players


@njit(cache=True)
def finish_round(state, row, schedule, rows, listed, results):
    """Record the round the env's game just ended (the state holds it); start the next round,
    or the game of the env's next row. Returns the row the env plays now (NO_ROW: none left)."""
    workspace = state.workspace
    table = workspace.table
    record_round(table, workspace.seats, results, row, state.round_index)
    if results.plays.shape[1] > 0:
        record_plays(workspace.plays, table.round_size * table.n_players, results, row, plays_before(state))
    next_round(state)
    if not state.over:
        return row
    record_game(table.totals, state.winners, table.n_players, results, row)
    row += schedule.stride
    if row >= rows.game_ids.shape[0]:
        return NO_ROW
    seat_row(state, row, rows, listed)
    return row


@njit(cache=True, nogil=True)
def run_envs(states, starting, schedule, rows, listed, results, exchange):
    """For every env of a part of the pool: start its first row (`starting`) or apply its
    answer if it was asked; then play until one of its Python seats must decide (written to
    `exchange`) or its rows are done (asked: NO_SEAT). One thread steps a part (no parallel
    loop, so no thread waits at its barrier); nogil: the run's other threads step other parts
    and the driver asks the bots for another meanwhile. Parts play distinct rows: neither
    their number nor the thread count changes a result.

    Every call a step makes takes game records only, never arrays: an array crossing a call
    costs two atomic reference-count updates, on a cache line every thread writes (the
    observation and mask too are written through records: OBSERVATION_DTYPE)."""
    # Written in the loop: each taken out of its tuple once, before it.
    env_rows = schedule.rows
    answers = exchange.answers
    seats = exchange.seats
    kinds = exchange.kinds
    round_sizes = exchange.round_sizes
    observations = exchange.observations
    masks = exchange.masks
    for i in range(states.shape[0]):
        row = env_rows[i]
        if row == NO_ROW:
            seats[i] = NO_SEAT
            continue
        state = states[i]
        if starting:
            seat_row(state, row, rows, listed)
        elif seats[i] != NO_SEAT:
            apply_caller_answer(state, answers[i])
        seat = advance(state)
        while seat == NO_SEAT:  # a round ended
            row = finish_round(state, row, schedule, rows, listed, results)
            if row == NO_ROW:
                break
            seat = advance(state)
        env_rows[i] = row
        seats[i] = seat
        if seat != NO_SEAT:
            # Read through `state` (with a record variable for the table assigned here, numba's
            # parallel loop, when this was one, lost these two writes).
            kinds[i] = state.workspace.table.phase
            round_sizes[i] = state.workspace.table.round_size
            observe(state, seat, observations[i].values, masks[i].legal)
