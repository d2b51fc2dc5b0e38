"""The Python-seat driver's kernels: a pool of B games, each a GAME_STATE_DTYPE record, played
in parallel until some Python seat must decide (sim.runs.python_seats asks the bots).

A batch of n games (rows) is `games` = (game ids [n]: the game each row plays, a pure function
of (seed, game id); seatings [n, players]: the index of the listed policy at each seat), and
`listed` = (policy ids [6], parameter rows [6, MAX_PARAMS], decisions [6]: the DECIDE_* bits a
Python policy takes, 0 for a built-in policy) describes the listed policies. A Python seat is
seated with its bot's fallback policy, which makes the decisions the bot does not take and
those it delegates. `schedule` = (rows [B], stride): env i plays rows rows[i],
rows[i] + stride, ... (`rows[i]`: its row now, NO_ROW once done); the driver starts env k of
its pool of `stride` envs at row k, so the pool's size never changes a game.

A step (run_envs): every env that was asked applies its answer (a flat action, or DELEGATE:
the seated fallback decides, drawing from the round's DECISIONS stream as it does in
run_games), then plays on until one of its Python seats must decide — writing that seat's observation and mask
— or until its rows are done. Each round is recorded into the result arrays as it ends, with
the records kernels.batch.play_games fills (kernels.batch.record_round, record_plays,
record_game).
"""
from numba import njit, prange

from kernels.game_state import advance, apply_answer, next_round, observe, play_seated, start_game
from kernels.batch import record_game, record_plays, record_round
from kernels.observation import answer_of
from kernels.round_state import checked, legal_actions
from kernels.records import MAX_PARAMS, NO_SEAT

DELEGATE = -1  # an answer that hands the decision to the seat's seated (fallback) policy
NO_ROW = -1  # an env whose rows are all played


@njit(cache=True)
def seat_row(state, row, games, listed):
    """Seat row `row`'s policies (ids, parameters, the decisions its Python seats take) and
    start its game."""
    game_ids, seatings = games
    policy_ids, params, decisions = listed
    workspace = state.workspace
    for seat in range(state.rules.n_players):
        index = seatings[row, seat]
        workspace.policy_ids[seat] = policy_ids[index]
        for k in range(MAX_PARAMS):
            workspace.params[seat, k] = params[index, k]
        state.controlled[seat] = decisions[index]
    start_game(state, game_ids[row])


@njit(cache=True)
def plays_before(state):
    """Index in the game's play records of the first card of the round in play."""
    count = 0
    for index in range(state.round_index):
        count += state.round_sizes[index]
    return count * state.rules.n_players


@njit(cache=True)
def finish_round(state, row, schedule, games, listed, results):
    """Record the round the env's game just ended (the state holds it); start the next round,
    or the game of the env's next row. Returns the row the env plays now (NO_ROW: none left)."""
    workspace = state.workspace
    table = workspace.table
    record_round(table, workspace.seats, results, row, state.round_index)
    if results[3].shape[1] > 0:
        record_plays(workspace.plays, table.round_size * table.n_players, results, row, plays_before(state))
    next_round(state)
    if not state.over:
        return row
    record_game(table.totals, state.winners, table.n_players, results, row)
    row += schedule[1]
    if row >= games[0].shape[0]:
        return NO_ROW
    seat_row(state, row, games, listed)
    return row


@njit(cache=True)
def apply_bot_answer(state, action):
    """Apply a bot's flat action (checked again: the caller checked it), or let the seated
    fallback decide (DELEGATE)."""
    if action == DELEGATE:
        play_seated(state)
        return
    workspace = state.workspace
    table = workspace.table
    legal = legal_actions(table, workspace.seats)
    apply_answer(state, checked(answer_of(table.phase, action), legal), legal)


@njit(cache=True, parallel=True, nogil=True)
def run_envs(states, starting, schedule, answers, games, listed, results, outputs):
    """For every env, in parallel: start its first row (`starting`) or apply its answer if it
    was asked; then play until one of its Python seats must decide (written to outputs) or
    its rows are done (asked: NO_SEAT). outputs = (observations [B, K], masks [B, A], asked
    seats [B], decision kinds [B], round sizes [B]). Envs play distinct rows: the thread count
    never changes a result. nogil: the driver's other thread asks the bots meanwhile.

    Every call a step makes takes game records only, never arrays: an array crossing a call
    costs two atomic reference-count updates, on a cache line every thread writes."""
    observations, masks, asked, kinds, round_sizes = outputs
    rows = schedule[0]
    for i in prange(states.shape[0]):
        row = rows[i]
        if row == NO_ROW:
            asked[i] = NO_SEAT
            continue
        state = states[i]
        if starting:
            seat_row(state, row, games, listed)
        elif asked[i] != NO_SEAT:
            apply_bot_answer(state, answers[i])
        seat = advance(state)
        while seat == NO_SEAT:  # a round ended
            row = finish_round(state, row, schedule, games, listed, results)
            if row == NO_ROW:
                break
            seat = advance(state)
        rows[i] = row
        asked[i] = seat
        if seat != NO_SEAT:
            # Read through `state`: with a record variable for the table assigned here, numba's
            # parallel loop lost these two writes (tests/test_python_policies.py caught it).
            kinds[i] = state.workspace.table.phase
            round_sizes[i] = state.workspace.table.round_size
            observe(state, seat, observations[i], masks[i])
