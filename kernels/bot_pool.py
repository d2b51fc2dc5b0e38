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
run_games), then plays on until one of its Python seats must decide — writing its turn
(kernels.game_state.Turns, report_turn: the turns estimate's stepped rollouts exchange too)
— or until its rows are done. Each round is recorded into the result arrays as it ends, with
the records kernels.batch.play_games fills (kernels.results).
"""
from collections import namedtuple

from numba import njit

from kernels.game_loop import seat_listed
from kernels.game_state import advance, apply_caller_answer, next_round, report_turn, start_game
from kernels.records import NO_SEAT
from kernels.results import record_game, record_plays, record_round
from kernels.rules import cards_dealt

NO_ROW = -1  # an env whose rows are all played

# The rows of a batch: the game each row plays [n] and the listed policy at each seat [n, players].
Rows = namedtuple("Rows", ("game_ids", "seatings"))
# The listed policies [6]: kernel policy id, parameter row, and the DECIDE_* bits a Python
# policy takes (0 for a built-in policy).
Listed = namedtuple("Listed", ("policy_ids", "params", "decisions"))
# Env i plays rows rows[i], rows[i] + stride, ... (rows[i]: its row now, NO_ROW once done).
Schedule = namedtuple("Schedule", ("rows", "stride"))


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
        record_plays(workspace.plays, cards_dealt(table), results, row, plays_before(state))
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
def run_envs(states, starting, schedule, rows, listed, results, turns):
    """For every env of a part of the pool: start its first row (`starting`) or apply its
    answer if it was asked; then play until one of its Python seats must decide (its turn
    written to `turns`, a kernels.game_state.Turns) or its rows are done (asked: NO_SEAT).
    One thread steps a part (no parallel loop, so no thread waits at its barrier); nogil: the
    run's other threads step other parts and the driver asks the bots for another meanwhile.
    Parts play distinct rows: neither their number nor the thread count changes a result.

    Every call a step makes takes game records only, never arrays: an array crossing a call
    costs two atomic reference-count updates, on a cache line every thread writes (the
    observation and mask too are written through records: game_state.OBSERVATION_DTYPE)."""
    env_rows = schedule.rows
    answers = turns.answers
    seats = turns.seats
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
        report_turn(state, seat, i, turns)
