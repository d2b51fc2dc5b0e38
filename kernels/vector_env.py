"""Batched stepping: B games, each a GAME_STATE_DTYPE record, advanced in parallel.

The caller acts for the controlled seats; between its decisions the built-in policies play
the other seats inside these kernels (kernels.game_state.advance). A finished game is
replaced by game `game + game_stride` of the same seed, so env i plays games
first + i, first + i + B, ... and every game stays a pure function of (seed, game index).
"""
from collections import namedtuple

from numba import njit, prange

from kernels.blocks import parallel_and_serial

from kernels.game_state import APPLIED, advance, apply_flat_action, observe, start_game
from kernels.round_state import current_seat
from kernels.records import MAX_PLAYERS, NO_SEAT

# Reward modes (docs/env.md).
REWARD_ROUND = 0  # the acting seat's round score, in the step in which its round ends
REWARD_GAME = 1  # the acting seat's final total, in the step in which the game ends
REWARD_WIN = 2  # 1 when the acting seat wins the game (ties share the win), at the end


@njit(cache=True)
def reset_one(state, game, observation, mask):
    """Start game `game` and play built-in seats up to the first controlled decision; write
    its observation and mask and return the seat to act."""
    start_game(state, game)
    seat = advance(state)
    observe(state, seat, observation, mask)
    return seat


@njit(cache=True)
def step_one(state, action, reward_mode, autoreset, observation, mask, final_totals):
    """Apply the controlled seat's flat `action`, let the built-in seats play until a
    controlled seat must act again, and write that seat's observation and mask.

    Returns (seat to act, reward of the acting seat, game over, status). When the game ends,
    final_totals gets its totals and, with `autoreset`, game + game_stride starts (the
    observation is then the new game's). Without autoreset, the observation of a finished
    game is the acting seat's. A refused action (status != APPLIED) changes nothing."""
    table = state.workspace.table
    acting = current_seat(table)
    rounds_before = state.rounds_ended
    status = apply_flat_action(state, action)
    if status != APPLIED:
        return NO_SEAT, 0.0, False, status
    seat = advance(state)
    reward = 0.0
    if reward_mode == REWARD_ROUND and state.rounds_ended != rounds_before:
        reward = float(state.last_round.seats[acting].score)
    over = state.over == 1
    if over:
        for other in range(MAX_PLAYERS):
            final_totals[other] = table.totals[other]
        if reward_mode == REWARD_GAME:
            reward = float(table.totals[acting])
        elif reward_mode == REWARD_WIN:
            reward = float(state.winners[acting])
        if autoreset:
            start_game(state, state.game + state.game_stride)
            seat = advance(state)
    observe(state, acting if seat == NO_SEAT else seat, observation, mask)
    return seat, reward, over, status


# Per env: its observation and mask, the seat to act, the game it plays.
Observed = namedtuple("Observed", ("observations", "masks", "seats", "games"))
# A step's outputs per env: Observed's, and the acting seat's reward, whether its game ended
# (its final totals then), and the action's status (APPLIED or why it was refused).
Stepped = namedtuple(
    "Stepped", ("observations", "masks", "seats", "games", "rewards", "terminated", "final_totals", "status")
)


def reset_envs(states, game_ids, out):
    """reset_one(states[i], game_ids[i]) for every env; out: an Observed."""
    # Written in the loop: each taken out of the tuple first, one statement each (kernels.blocks).
    observations = out.observations
    masks = out.masks
    seats = out.seats
    games = out.games
    for i in prange(states.shape[0]):
        seats[i] = reset_one(states[i], game_ids[i], observations[i], masks[i])
        games[i] = game_ids[i]


@njit(cache=True)
def step_env(states, i, actions, reward_mode, out):
    """step_one with autoreset for env i; out: a Stepped."""
    state = states[i]
    seat, reward, over, status = step_one(
        state, actions[i], reward_mode, True, out.observations[i], out.masks[i], out.final_totals[i]
    )
    out.seats[i] = seat
    out.rewards[i] = reward
    out.terminated[i] = over
    out.games[i] = state.game
    out.status[i] = status


def step_envs(states, actions, reward_mode, out):
    """step_env for every env (envs are independent, so the thread count never changes a
    result)."""
    for i in prange(states.shape[0]):
        step_env(states, i, actions, reward_mode, out)


reset_envs, reset_envs_serial = parallel_and_serial(reset_envs)
step_envs, step_envs_serial = parallel_and_serial(step_envs)


# --- one game, without threads (the Gymnasium environment) --------------------------------


@njit(cache=True)
def reset_single(storage, game, observation, mask):
    return reset_one(storage[0], game, observation, mask)


@njit(cache=True)
def step_single(storage, action, reward_mode, observation, mask, final_totals):
    return step_one(storage[0], action, reward_mode, False, observation, mask, final_totals)
