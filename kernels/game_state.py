"""A whole game driven one decision at a time: the record and transitions every driver that
steps games from Python shares (the environments, the Python-seat pool, estimate's stepped
rollouts, `play` through the state API), the turns the batched ones exchange with the bots
(Turns, report_turn), and one game held in a one-record array (the *_single kernels).

A GAME_STATE_DTYPE record holds one game: the engine's workspace (table, seats, generator,
seated policies), the rules, the seed and game index, and the public card history of the
round. It moves only through kernels.game_loop (begin_game, deal_and_seed) and the round core's
decision step (kernels.round_state.next_decision / take_decision, which the batch's play_out
loops), so a game played here is the game of the batch engine: the same first dealer, deals,
fixed bids, play log and DECISIONS stream per round. Built-in policies seated at the seats
the caller does not control answer through kernels.policy_calls.decide (policy_answer), drawing
the same random numbers as in run_games.

The caller controls decision kinds per seat (`controlled[seat]`: bit DECIDE_* set when the
caller makes that seat's decisions of that kind; the environments control all of a seat's
decisions, the Python-seat driver, kernels.bot_pool, those its bots take). With `records` set
(the driver), cards are logged to the workspace's play log as the engine logs them and a
finished round stays at PHASE_DONE until next_round, so that it can be recorded first.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from kernels.bits import at
from kernels.cards import N_CARDS
from kernels.game_loop import begin_game, deal_and_seed, init_workspace, seated_policies
from kernels.observation import N_ACTIONS, OBSERVATION_SIZE, answer_of, encode_observation, flat_action, write_action_mask
from kernels.policy_calls import decide, round_finished
from kernels.records import (
    DECIDE_BID,
    DECIDE_CARD,
    DECIDE_TRUMP,
    DELEGATE,
    MAX_PLAYERS,
    MAX_PLAYS_PER_ROUND,
    MAX_ROUND_SIZE,
    NO_SEAT,
    PHASE_DONE,
    PHASE_PLAY,
    ROUND_RESULT_DTYPE,
    RULES_DTYPE,
    SEAT_RESULT_DTYPE,
    WORKSPACE_DTYPE,
    SeatedPolicies,
)
from kernels.results import write_round_result, write_seat_result
from kernels.round_state import (
    begin_round,
    checked,
    current_seat,
    decided,
    next_decision,
    pending_decision,
    take_decision,
)
from kernels.rules import dealer_of_round, game_winners

_i8 = np.int64
_seats = (MAX_PLAYERS,)

# The last finished round, kept after the next one starts (rewards, history, rendering).
# In the records of the batch's results (kernels.results), written by the same functions.
ROUND_SUMMARY_DTYPE = np.dtype(
    [
        ("round_size", _i8),
        ("round", ROUND_RESULT_DTYPE),  # dealer, turned-up card, trump
        ("seats", SEAT_RESULT_DTYPE, _seats),  # dealt hand, bid, tricks, score, total after the round
    ]
)

GAME_STATE_DTYPE = np.dtype(
    [
        ("workspace", WORKSPACE_DTYPE),
        ("rules", RULES_DTYPE),
        ("seed", _i8),
        ("game", _i8),  # game index in the run: the game is a pure function of (seed, game)
        ("game_stride", _i8),  # a vector env's next game index is game + game_stride
        ("round_sizes", _i8, (MAX_ROUND_SIZE,)),
        ("n_rounds", _i8),
        ("round_index", _i8),  # index into round_sizes of the round in play
        ("first_dealer", _i8),
        ("controlled", _i8, _seats),  # bit DECIDE_* set: the caller makes this seat's decisions of that kind
        ("card_trick", _i8, (N_CARDS,)),  # 1 + the trick each card was played to this round
        ("rounds_ended", _i8),
        ("over", _i8),  # 1 once the last round is scored
        ("winners", _i8, _seats),  # game winners once over (ties share)
        ("last_round", ROUND_SUMMARY_DTYPE),
        ("records", _i8),  # 1: log cards and hold a finished round for the driver to record (next_round)
    ]
)

ALL_DECISIONS = (1 << DECIDE_TRUMP) | (1 << DECIDE_BID) | (1 << DECIDE_CARD)  # a controlled seat of the environments

# The turns of a batch of games stepped for Python callers (the Python-seat pool,
# kernels.bot_pool; estimate's stepped rollouts, kernels.estimate.stepped), per game: the
# answer applied next (a flat action, or DELEGATE), and the seat asked (NO_SEAT: none), its
# decision kind, round size, observation and mask (report_turn).
Turns = namedtuple("Turns", ("answers", "seats", "kinds", "round_sizes", "observations", "masks"))
# A game's observation and mask, each held in a record: a step writes them through the
# record's nested array, which carries no reference count (a row view of a 2-D array costs two
# atomic updates a decision). The field of an array of them, observations["values"], is the
# C-contiguous float32 [n, OBSERVATION_SIZE] array the bots get; a mask is held as uint8 (numba
# nests no bool arrays in records) and the bots get masks["legal"].view(bool).
OBSERVATION_DTYPE = np.dtype([("values", np.float32, (OBSERVATION_SIZE,))])
MASK_DTYPE = np.dtype([("legal", np.uint8, (N_ACTIONS,))])

# Why an action was refused (0: applied).
APPLIED = 0
REFUSED_GAME_OVER = 1
REFUSED_ILLEGAL = 2


@njit(cache=True)
def begin_state_round(state):
    """Begin the round round_sizes[round_index] with its full-game dealer (not dealt yet)."""
    workspace = state.workspace
    table = workspace.table
    round_size = state.round_sizes[at(state.round_index)]
    begin_round(table, workspace.seats, round_size, dealer_of_round(state.first_dealer, round_size, table.n_players))
    for card in range(N_CARDS):
        state.card_trick[card] = 0


@njit(cache=True)
def start_round(state):
    """Begin, deal and seed the round round_sizes[round_index] with its full-game dealer."""
    begin_state_round(state)
    deal_and_seed((state.seed, state.game), state.workspace)


@njit(cache=True)
def begin_first_round(state, first_dealer):
    """The game's first round begun (not dealt) with `first_dealer` dealing the first round
    of a full game; the score pad is the caller's (begin_game clears it)."""
    state.round_index = 0
    state.over = 0
    state.rounds_ended = 0
    state.first_dealer = first_dealer
    begin_state_round(state)


@njit(cache=True)
def start_game(state, game):
    """Start game `game` of the state's seed: the first-dealer draw, then the first round."""
    state.game = game
    begin_first_round(state, begin_game((state.seed, game), state.rules, state.workspace))
    deal_and_seed((state.seed, game), state.workspace)


@njit(cache=True)
def summarize_round(state):
    """Keep the finished round in state.last_round (rewards, history, rendering)."""
    workspace = state.workspace
    table = workspace.table
    summary = state.last_round
    summary.round_size = table.round_size
    write_round_result(summary.round, table)
    for seat in range(table.n_players):
        write_seat_result(summary.seats[seat], table, workspace.seats, seat)


@njit(cache=True, inline="always")
def play_log(state):
    """The play log the state's cards go to: the workspace's with `records`, else none."""
    return state.workspace.plays[: MAX_PLAYS_PER_ROUND if state.records else 0]


@njit(cache=True)
def apply_answer(state, decision, answer):
    """Apply the legal `answer` to `decision` (the round's pending decision, round_state's
    take_decision), keeping the round's card history. A round that ends is summarized in
    state.last_round and the next one starts, or the game is over (with `records`: it waits
    for next_round)."""
    workspace = state.workspace
    table = workspace.table
    if decision.kind == PHASE_PLAY:
        state.card_trick[at(answer)] = table.trick + 1
    take_decision(table, workspace.seats, decision, answer, play_log(state))
    if table.phase != PHASE_DONE:
        return
    round_finished(seated_policies(workspace), table)
    summarize_round(state)
    if not state.records:
        next_round(state)


@njit(cache=True)
def close_round(state):
    """After a finished round: count it and begin the next one, not dealt yet (True), or the
    game is over (False)."""
    state.rounds_ended += 1
    state.round_index += 1
    if state.round_index < state.n_rounds:
        begin_state_round(state)
        return True
    state.over = 1
    table = state.workspace.table
    game_winners(table.totals, table.n_players, state.winners)
    return False


@njit(cache=True)
def next_round(state):
    """After a finished round: deal and seed the next one, or the game is over."""
    if close_round(state):
        deal_and_seed((state.seed, state.game), state.workspace)


@njit(cache=True)
def apply_flat_action(state, action):
    """Apply a flat action (kernels.observation) if it is legal; returns APPLIED or why not."""
    if state.over:
        return REFUSED_GAME_OVER
    workspace = state.workspace
    decision = pending_decision(workspace.table, workspace.seats)
    answer = answer_of(decision.kind, action)
    if answer < 0 or (decision.legal >> answer) & 1 == 0:
        return REFUSED_ILLEGAL
    apply_answer(state, decision, answer)
    return APPLIED


@njit(cache=True)
def advance(state):
    """Let the built-in policies make every decision the caller does not control (and the
    bids fixed in advance be made) until the caller must decide for a seat (returned) or the
    game is over or a held round ended (NO_SEAT)."""
    workspace = state.workspace
    table = workspace.table
    while state.over == 0:
        decision = next_decision(table, workspace.seats, workspace.fixed_bids)
        if decision.seat == NO_SEAT:  # a round held for the driver (records)
            return NO_SEAT
        if (state.controlled[at(decision.seat)] >> decision.kind) & 1:
            return decision.seat
        play_seated(state, decision)
    return NO_SEAT


# Inlined into play_seated, which every built-in decision of a stepped game goes through.
@njit(cache=True, inline="always")
def policy_answer(state, policies, decision):
    """The answer the policy `policies` (a SeatedPolicies) seat at the deciding seat gives
    to `decision`, drawing from the round's DECISIONS stream as in run_games."""
    workspace = state.workspace
    return decided(decide, policies, decision, workspace.table, workspace.seats, workspace.scratch.generator)


@njit(cache=True)
def play_seated(state, decision):
    """The policy seated at the deciding seat answers `decision` and its answer is applied."""
    apply_answer(state, decision, policy_answer(state, seated_policies(state.workspace), decision))


@njit(cache=True)
def apply_caller_answer(state, action):
    """Apply a caller's flat action to the decision the state waits for (checked again: an
    illegal one raises IllegalAction), or let the seat's seated policy decide (DELEGATE)."""
    workspace = state.workspace
    decision = pending_decision(workspace.table, workspace.seats)
    if action == DELEGATE:
        play_seated(state, decision)
    else:
        apply_answer(state, decision, checked(answer_of(decision.kind, action), decision.legal))


@njit(cache=True)
def to_act(state):
    """The seat to act, NO_SEAT once the game is over."""
    return NO_SEAT if state.over else current_seat(state.workspace.table)


# Inlined (with the encoder and the mask writer) into the steps that call it for every
# decision: a Python seat's game ran 5-7% faster (docs/bots.md, Performance).
@njit(cache=True, inline="always")
def observe(state, seat, observation, mask):
    """Seat `seat`'s observation, and its legal-action mask (all False unless it acts)."""
    workspace = state.workspace
    table = workspace.table
    encode_observation(table, workspace.seats[at(seat)], state.card_trick, observation)
    decision = pending_decision(table, workspace.seats)
    write_action_mask(decision.kind, decision.legal if state.over == 0 and decision.seat == seat else 0, mask)


# Inlined into the steps' loops: a call would take the turns' arrays across it (two atomic
# reference-count updates each, per decision).
@njit(cache=True, inline="always")
def report_turn(state, seat, i, turns):
    """Game i's turn in `turns` (a Turns): the seat asked (NO_SEAT: none) and, when there is
    one, its decision kind, round size, observation and mask."""
    turns.seats[i] = seat
    if seat != NO_SEAT:
        # Read through `state` (with a record variable for the table assigned here, numba's
        # parallel loop, when the pool's was one, lost these two writes).
        turns.kinds[i] = state.workspace.table.phase
        turns.round_sizes[i] = state.workspace.table.round_size
        observe(state, seat, turns.observations[i].values, turns.masks[i].legal)


@njit(cache=True)
def init_state(state, rules, policies, seed, round_sizes, controlled, game_stride):
    """Set a zeroed state record up (rules: a RULES_DTYPE record; policies: (ids, params))."""
    init_workspace(state.workspace, rules, policies)
    state.rules.n_players = rules.n_players
    state.rules.bidding = rules.bidding
    state.rules.even_bids = rules.even_bids
    state.rules.first_dealer = rules.first_dealer
    state.seed = seed
    state.game_stride = game_stride
    state.n_rounds = round_sizes.shape[0]
    for index in range(round_sizes.shape[0]):
        state.round_sizes[index] = round_sizes[index]
    for seat in range(MAX_PLAYERS):
        state.controlled[seat] = controlled[seat]


@njit(cache=True)
def init_states(states, rules, policies, seed, round_sizes, controlled, game_stride):
    """Set every zeroed record of `states` up (rules: a one-record RULES_DTYPE array)."""
    for i in range(states.shape[0]):
        init_state(states[i], rules[0], policies, seed, round_sizes, controlled, game_stride)


# --- one game held in a one-record array (the state API, OpenSpiel's game) ----------------
# A record is taken from its array inside the kernel the array is passed to (kernels.blocks).


@njit(cache=True)
def start_single(storage, game):
    start_game(storage[0], game)


@njit(cache=True)
def apply_single(storage, action):
    return apply_flat_action(storage[0], action)


@njit(cache=True)
def observe_single(storage, seat, observation, mask):
    observe(storage[0], seat, observation, mask)


@njit(cache=True)
def to_act_single(storage):
    return to_act(storage[0])


@njit(cache=True)
def policy_action_single(storage, policies):
    """The flat action the policy `policies` (ids, parameter rows; each seat's state is the
    workspace's) seat at the seat to act would choose (not applied; the round's DECISIONS
    stream moves on as if it were: `play`'s built-in seats, and its hints on a copy)."""
    state = storage[0]
    workspace = state.workspace
    decision = pending_decision(workspace.table, workspace.seats)
    listed_ids, listed_params = policies
    seated = SeatedPolicies(listed_ids, listed_params, workspace.seat_state)
    return flat_action(decision.kind, policy_answer(state, seated, decision))
