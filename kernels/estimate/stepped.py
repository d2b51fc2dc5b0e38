"""estimate's rollouts one caller decision at a time, for seats played by a Python policy.

One GAME_STATE_DTYPE record (kernels.game_state) per (sample, candidate bid), positioned at
the sample's deal of the estimate's known round exactly as
kernels.estimate.rollouts.play_sample_round starts it (start_sample_round, the sample's
DECISIONS stream, the earlier bids and the candidate fixed). kernels.game_state.advance plays
the fixed bids and the seated built-in policies inside the kernel and stops at every decision
the caller answers (the state's controlled[seat] has the bit of the decision kind). Each
rollout's turn is written to a kernels.game_state.Turns, the turns the Python-seat pool
(kernels.bot_pool) exchanges too, and the caller's answers come back in it through
`step_rollouts` (DELEGATE: the seat's seated policy decides). Every decision is taken in the
order of kernels.round_state.play_out and a seated policy draws from the same stream, so a
rollout whose caller delegates every decision is the built-in rollout, draw for draw.
"""
from collections import namedtuple

from numba import njit, prange

from kernels.blocks import NO_FAILURE, block_rows, first_failure, n_blocks, new_failures, parallel_and_serial
from kernels.cards import N_CARDS
from kernels.estimate.situation import start_sample_round
from kernels.game_state import advance, apply_caller_answer, report_turn
from kernels.records import MAX_PLAYERS, NO_SEAT
from kernels.rng import STREAM_DECISIONS, seed_stream

# The rollouts of a batch, one per (sample, candidate bid): the estimate's seed, and per
# rollout its sample [n], game id (what a Python policy sees) [n], the candidate bid [n] and
# the sample's hands [n, MAX_PLAYERS].
Rollouts = namedtuple("Rollouts", ("seed", "samples", "games", "candidates", "hands"))


@njit(cache=True)
def start_rollout(state, rollouts, i, situation):
    """Position `state` (set up by kernels.game_state.init_state for the estimate's rules and
    seated policies) at rollout i's deal of the situation's round, the seat bidding its
    candidate, and play on to the caller's first decision (returned, as
    kernels.game_state.advance: the seats and decision kinds the caller answers are the
    state's `controlled` bits; the fixed bids are made as they stand)."""
    workspace = state.workspace
    start_sample_round(situation, rollouts.hands[i], workspace.table, workspace.seats)
    state.seed = rollouts.seed
    state.game = rollouts.games[i]
    state.round_sizes[0] = situation.round_size
    state.n_rounds = 1
    state.round_index = 0
    state.rounds_ended = 0
    state.over = 0
    for card in range(N_CARDS):
        state.card_trick[card] = 0
    for seat in range(MAX_PLAYERS):
        workspace.fixed_bids[seat] = situation.bids[seat]
    workspace.fixed_bids[situation.seat] = rollouts.candidates[i]
    seed_stream(workspace.scratch.generator, rollouts.seed, rollouts.samples[i], situation.round_size, STREAM_DECISIONS)
    return advance(state)


@njit(cache=True)
def start_block(states, rollouts, situation, turns, rows):
    """start_rollout for rollouts rows = (first, stop) (situation: a one-record array).
    Returns the first rollout in which a seated policy failed (raised, or answered
    illegally), which ends the block and stays at the failing decision, or NO_FAILURE."""
    block_situation = situation[0]
    for i in range(rows[0], rows[1]):
        try:
            seat = start_rollout(states[i], rollouts, i, block_situation)
        except Exception:  # numba cannot bind it
            return i
        report_turn(states[i], seat, i, turns)
    return NO_FAILURE


@njit(cache=True)
def step_block(states, turns, rows):
    """For every rollout i of rows = (first, stop) that was asked (turns.seats[i] != NO_SEAT):
    apply the caller's answer (turns.answers[i]: a flat action, or DELEGATE) and play on to
    its next decision. Returns the first failed rollout or NO_FAILURE, as start_block."""
    for i in range(rows[0], rows[1]):
        if turns.seats[i] != NO_SEAT:
            try:
                apply_caller_answer(states[i], turns.answers[i])
                seat = advance(states[i])
            except Exception:  # numba cannot bind it
                return i
            report_turn(states[i], seat, i, turns)
    return NO_FAILURE


# Each batch operation comes in two forms, parallel over blocks of rollouts and on the calling
# thread (kernels.blocks.parallel_and_serial). Rollouts are independent, so neither the form
# nor the blocking changes a result. Each returns the first item in which a policy failed, or
# NO_FAILURE.


def start_rollouts(states, rollouts, situation, turns):
    n = states.shape[0]
    failures = new_failures(n)
    for block in prange(n_blocks(n)):
        failures[block] = start_block(states, rollouts, situation, turns, block_rows(block, n))
    return first_failure(failures)


def step_rollouts(states, turns):
    n = states.shape[0]
    failures = new_failures(n)
    for block in prange(n_blocks(n)):
        failures[block] = step_block(states, turns, block_rows(block, n))
    return first_failure(failures)


start_rollouts, start_rollouts_serial = parallel_and_serial(start_rollouts)
step_rollouts, step_rollouts_serial = parallel_and_serial(step_rollouts)
