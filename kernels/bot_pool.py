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

A step: every env that was asked applies its answer (a flat action, or DELEGATE: the seated
fallback decides, drawing from the round's DECISIONS stream as it does in run_games), then
plays on until one of its Python seats must decide — writing that seat's observation and mask
— or until its rows are done. Each round is recorded into the result arrays as it ends, with
the records kernels.games.play_games fills (kernels.games.record_round, record_plays,
record_game).
"""
from numba import njit, prange

from kernels.game_state import advance, apply_answer, next_round, observe, play_seated, start_game
from kernels.games import record_game, record_plays, record_round
from kernels.observation import answer_of
from kernels.round_state import checked, legal_actions
from kernels.state import MAX_PARAMS, NO_SEAT

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
def play_until_asked(states, i, schedule, games, listed, results):
    """Play env i until one of its Python seats must decide (that seat is returned) or its rows
    are done (NO_SEAT), recording every round and game that ends."""
    rows, stride = schedule
    state = states[i]
    workspace = state.workspace
    table = workspace.table
    log_plays = results[3].shape[1] > 0
    while True:
        seat = advance(state)
        if seat != NO_SEAT:
            return seat
        # A round ended (the state holds it until it is recorded).
        row = rows[i]
        record_round(table, workspace.seats, results, row, state.round_index)
        if log_plays:
            record_plays(workspace.plays, table.round_size * table.n_players, results, row, plays_before(state))
        next_round(state)
        if state.over:
            record_game(table.totals, state.winners, table.n_players, results, row)
            row += stride
            if row >= games[0].shape[0]:
                rows[i] = NO_ROW
                return NO_SEAT
            rows[i] = row
            seat_row(state, row, games, listed)


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


@njit(cache=True)
def run_env(states, i, starting, schedule, answers, games, listed, results, outputs):
    """Start env i's first row (`starting`) or apply its answer if it was asked; then play it
    until a Python seat must decide. outputs = (observations [B, K], masks [B, A], seats [B]
    (the seat asked, NO_SEAT when none), kinds [B] (DECIDE_*), round sizes [B])."""
    observations, masks, asked, kinds, round_sizes = outputs
    rows = schedule[0]
    if rows[i] == NO_ROW:
        asked[i] = NO_SEAT
        return
    state = states[i]
    if starting:
        seat_row(state, rows[i], games, listed)
    elif asked[i] != NO_SEAT:
        apply_bot_answer(state, answers[i])
    seat = play_until_asked(states, i, schedule, games, listed, results)
    asked[i] = seat
    if seat != NO_SEAT:
        table = state.workspace.table
        observe(state, seat, observations[i], masks[i])
        kinds[i] = table.phase
        round_sizes[i] = table.round_size


@njit(cache=True, parallel=True, nogil=True)
def run_envs(states, starting, schedule, answers, games, listed, results, outputs):
    """run_env for every env, in parallel (envs play distinct rows: the thread count never
    changes a result). nogil: writer threads write earlier chunks meanwhile."""
    for i in prange(states.shape[0]):
        run_env(states, i, starting, schedule, answers, games, listed, results, outputs)


@njit(cache=True, nogil=True)
def run_envs_serial(states, starting, schedule, answers, games, listed, results, outputs):
    """run_envs on the calling thread (for a few envs, waking the thread pool costs more)."""
    for i in range(states.shape[0]):
        run_env(states, i, starting, schedule, answers, games, listed, results, outputs)
