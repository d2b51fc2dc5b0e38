"""estimate's rollouts one caller decision at a time, for seats played by a Python policy.

One GAME_STATE_DTYPE record (kernels.game_state) per (sample, candidate bid), positioned at
the sample's deal of the estimate's known round exactly as
kernels.estimate.rollouts.play_sample_round starts it (start_sample_round, the sample's
DECISIONS stream, the earlier bids and the candidate fixed). kernels.game_state.advance plays
the fixed bids and the seated built-in policies inside the kernel and stops at every decision
the caller answers (the state's controlled[seat] has the bit of the decision kind); the
caller's answers come back through `step_rollouts` (DELEGATED: the seat's seated policy
decides). Every decision is taken in the order of kernels.round_state.play_out and a seated
policy draws from the same stream, so a rollout whose caller delegates every decision is the
built-in rollout, draw for draw.
"""
import numpy as np
from numba import njit, prange

from kernels.batch import NO_FAILURE
from kernels.cards import N_CARDS
from kernels.estimate.situation import start_sample_round
from kernels.game_state import APPLIED, advance, apply_flat_action, observe, play_seated
from kernels.records import MAX_PLAYERS, NO_SEAT
from kernels.rng import STREAM_DECISIONS, seed_stream

DELEGATED = -1  # a caller's answer: the seat's seated (fallback) policy decides


NO_ANSWER = -2  # step_rollouts: this rollout is over (nothing to apply)


ROLLOUTS_PER_BLOCK = 64  # rollouts a thread takes at a time


@njit(cache=True)
def start_rollout(state, rollout, situation, hands):
    """Position `state` (set up by kernels.game_state.init_state for the estimate's rules and
    seated policies) at sample `sample`'s deal `hands` of the situation's round, the seat
    bidding `candidate`, and play on to the caller's first decision (returned, as
    kernels.game_state.advance: the seats and decision kinds the caller answers are the
    state's `controlled` bits; the fixed bids are made as they stand). rollout = (seed,
    sample, game id, candidate)."""
    seed, sample, game, candidate = rollout
    workspace = state.workspace
    start_sample_round(situation, hands, workspace.table, workspace.seats)
    state.seed = seed
    state.game = game
    state.round_sizes[0] = situation.round_size
    state.n_rounds = 1
    state.round_index = 0
    state.rounds_ended = 0
    state.over = 0
    for card in range(N_CARDS):
        state.card_trick[card] = 0
    for seat in range(MAX_PLAYERS):
        workspace.fixed_bids[seat] = situation.bids[seat]
    workspace.fixed_bids[situation.seat] = candidate
    seed_stream(workspace.scratch.generator, seed, sample, situation.round_size, STREAM_DECISIONS)
    return advance(state)


@njit(cache=True)
def step_rollout(state, action):
    """Apply the caller's answer to the seat to act (a flat action, or DELEGATED) and play on
    to its next decision (returned, as kernels.game_state.advance)."""
    if action == DELEGATED:
        play_seated(state)
    elif apply_flat_action(state, action) != APPLIED:  # the caller checks its answers first
        raise ValueError("an illegal answer reached estimate's rollouts")
    return advance(state)


@njit(cache=True)
def report_turn(state, seat, i, outputs):
    """outputs = (observations, masks, seats to act, decisions) of rollout i: its seat to act
    (NO_SEAT once over) and, when there is one, that seat's observation, mask and decision."""
    observations, masks, to_act, decisions = outputs
    to_act[i] = seat
    if seat != NO_SEAT:
        decisions[i] = state.workspace.table.phase
        observe(state, seat, observations[i], masks[i])


@njit(cache=True)
def start_block(states, rollouts, situation, outputs, rows):
    """start_rollout for rollouts rows = (first, stop); rollouts = (seed, samples [n], game
    ids [n], candidates [n], hands [n, MAX_PLAYERS]); situation a one-record array; outputs as
    in report_turn. Returns the first rollout in which a seated policy failed (raised, or
    answered illegally), which ends the block and stays at the failing decision, or
    NO_FAILURE (caught here for the reason kernels.batch.play_block gives)."""
    seed, samples, games, candidates, hands = rollouts
    block_situation = situation[0]
    for i in range(rows[0], rows[1]):
        rollout = (seed, samples[i], games[i], candidates[i])
        try:
            seat = start_rollout(states[i], rollout, block_situation, hands[i])
        except Exception:  # numba cannot bind it
            return i
        report_turn(states[i], seat, i, outputs)
    return NO_FAILURE


@njit(cache=True)
def step_block(states, actions, outputs, rows):
    """step_rollout for every rollout i of rows = (first, stop) with actions[i] !=
    NO_ANSWER; outputs as in report_turn. Returns the first failed rollout or NO_FAILURE, as
    start_block."""
    for i in range(rows[0], rows[1]):
        if actions[i] != NO_ANSWER:
            try:
                seat = step_rollout(states[i], actions[i])
            except Exception:  # numba cannot bind it
                return i
            report_turn(states[i], seat, i, outputs)
    return NO_FAILURE


@njit(cache=True, inline="always")
def block_rows(block, n):
    return block * ROLLOUTS_PER_BLOCK, min(n, (block + 1) * ROLLOUTS_PER_BLOCK)


@njit(cache=True, inline="always")
def n_blocks(n):
    return (n + ROLLOUTS_PER_BLOCK - 1) // ROLLOUTS_PER_BLOCK


@njit(cache=True)
def first_failure(failures):
    for block in range(failures.shape[0]):
        if failures[block] != NO_FAILURE:
            return failures[block]
    return NO_FAILURE


@njit(cache=True, parallel=True)
def start_rollouts(states, rollouts, situation, outputs):
    n = states.shape[0]
    failures = np.empty(n_blocks(n), dtype=np.int64)
    for block in prange(n_blocks(n)):
        failures[block] = start_block(states, rollouts, situation, outputs, block_rows(block, n))
    return first_failure(failures)


@njit(cache=True)
def start_rollouts_serial(states, rollouts, situation, outputs):
    return start_block(states, rollouts, situation, outputs, (0, states.shape[0]))


@njit(cache=True, parallel=True)
def step_rollouts(states, actions, outputs):
    n = states.shape[0]
    failures = np.empty(n_blocks(n), dtype=np.int64)
    for block in prange(n_blocks(n)):
        failures[block] = step_block(states, actions, outputs, block_rows(block, n))
    return first_failure(failures)


@njit(cache=True)
def step_rollouts_serial(states, actions, outputs):
    return step_block(states, actions, outputs, (0, states.shape[0]))

