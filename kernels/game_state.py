"""A whole game driven one decision at a time (the state API and the vector environment).

A GAME_STATE_DTYPE record holds one game: the engine's workspace (table, seats, generator,
seated policies), the rules, the seed and game index, and the public card history of the
round. It moves only through kernels.batch (begin_game, deal_and_seed) and the round core's
transitions (kernels.round_state), so a game played here is the game of the batch engine:
the same first dealer, deals and DECISIONS stream per round. Built-in policies seated at the
seats the caller does not control answer through kernels.policies.dispatch.decide, drawing
the same random numbers as in run_games.

The caller controls decision kinds per seat (`controlled[seat]`: bit DECIDE_* set when the
caller makes that seat's decisions of that kind; the environments control all of a seat's
decisions, the Python-seat driver, kernels.python_seats, those its bots take). With `records` set
(the driver), cards are logged to the workspace's play log as the engine logs them and a
finished round stays at PHASE_DONE until next_round, so that it can be recorded first.
"""
import numpy as np
from numba import njit

from kernels.bits import at
from kernels.cards import N_CARDS
from kernels.batch import begin_game, deal_and_seed, init_workspace, seated_policies
from kernels.observation import answer_of, encode_observation, write_action_mask
from kernels.policies.dispatch import decide
from kernels.round_state import (
    apply_action,
    begin_round,
    checked,
    current_seat,
    legal_actions,
    log_card,
    log_trick_winner,
)
from kernels.rules import dealer_of_round, game_winners, round_score
from kernels.records import (
    DECIDE_BID,
    DECIDE_CARD,
    DECIDE_TRUMP,
    MAX_PLAYERS,
    MAX_ROUND_SIZE,
    NO_BID,
    NO_SEAT,
    PHASE_BID,
    PHASE_DONE,
    PHASE_PLAY,
    RULES_DTYPE,
    WORKSPACE_DTYPE,
)

_i8 = np.int64
_seats = (MAX_PLAYERS,)

# The last finished round, kept after the next one starts (rewards, history, rendering).
ROUND_SUMMARY_DTYPE = np.dtype(
    [
        ("round_size", _i8),
        ("dealer", _i8),
        ("trump_card", _i8),
        ("trump", _i8),
        ("hands", _i8, _seats),  # dealt hands
        ("bids", _i8, _seats),
        ("tricks", _i8, _seats),
        ("scores", _i8, _seats),
        ("totals", _i8, _seats),  # after the round
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

# Why an action was refused (0: applied).
APPLIED = 0
REFUSED_GAME_OVER = 1
REFUSED_ILLEGAL = 2


@njit(cache=True)
def start_round(state):
    """Begin, deal and seed the round round_sizes[round_index] with its full-game dealer."""
    workspace = state.workspace
    table = workspace.table
    round_size = state.round_sizes[at(state.round_index)]
    begin_round(table, workspace.seats, round_size, dealer_of_round(state.first_dealer, round_size, table.n_players))
    for card in range(N_CARDS):
        state.card_trick[card] = 0
    deal_and_seed((state.seed, state.game), workspace)


@njit(cache=True)
def start_game(state, game):
    """Start game `game` of the state's seed: the first-dealer draw, then the first round."""
    state.game = game
    state.round_index = 0
    state.over = 0
    state.rounds_ended = 0
    state.first_dealer = begin_game((state.seed, game), state.rules, state.workspace)
    start_round(state)


@njit(cache=True)
def summarize_round(state):
    workspace = state.workspace
    table = workspace.table
    summary = state.last_round
    summary.round_size = table.round_size
    summary.dealer = table.dealer
    summary.trump_card = table.trump_card
    summary.trump = table.trump
    for seat in range(MAX_PLAYERS):
        me = workspace.seats[seat]
        summary.hands[seat] = me.dealt
        summary.bids[seat] = me.bid
        summary.tricks[seat] = table.tricks[seat]
        summary.scores[seat] = round_score(me.bid, table.tricks[seat]) if seat < table.n_players else 0
        summary.totals[seat] = table.totals[seat]


@njit(cache=True)
def apply_answer(state, answer, legal):
    """Apply the seat to act's legal answer (a suit, bid or card id; `legal`: the mask it was
    chosen from). A round that ends is summarized in state.last_round and the next one starts,
    or the game is over (with `records`: it waits for next_round)."""
    workspace = state.workspace
    table = workspace.table
    if table.phase == PHASE_PLAY:
        state.card_trick[at(answer)] = table.trick + 1
        first_play = table.trick * table.n_players
        if state.records:
            seat = current_seat(table)
            log_card(workspace.plays[at(first_play + table.n_in_trick)], answer, seat, legal)
        apply_action(table, workspace.seats, answer)
        if state.records and table.n_in_trick == 0:  # the trick is complete: its winner leads next
            log_trick_winner(workspace.plays, first_play, table.n_players, table.leader)
    else:
        apply_action(table, workspace.seats, answer)
    if table.phase != PHASE_DONE:
        return
    summarize_round(state)
    if not state.records:
        next_round(state)


@njit(cache=True)
def next_round(state):
    """After a finished round: start the next one, or the game is over."""
    state.rounds_ended += 1
    state.round_index += 1
    if state.round_index < state.n_rounds:
        start_round(state)
    else:
        state.over = 1
        table = state.workspace.table
        game_winners(table.totals, table.n_players, state.winners)


@njit(cache=True)
def apply_flat_action(state, action):
    """Apply a flat action (kernels.observation) if it is legal; returns APPLIED or why not."""
    if state.over:
        return REFUSED_GAME_OVER
    workspace = state.workspace
    table = workspace.table
    answer = answer_of(table.phase, action)
    legal = legal_actions(table, workspace.seats)
    if answer < 0 or (legal >> answer) & 1 == 0:
        return REFUSED_ILLEGAL
    apply_answer(state, answer, legal)
    return APPLIED


@njit(cache=True)
def advance(state):
    """Let the built-in policies make every decision the caller does not control until the
    caller must decide for a seat (returned) or the game is over or a held round ended
    (NO_SEAT). A bid fixed in advance is made as it stands (play_seated), never asked."""
    workspace = state.workspace
    table = workspace.table
    while state.over == 0 and table.phase != PHASE_DONE:
        seat = current_seat(table)
        fixed = table.phase == PHASE_BID and workspace.fixed_bids[at(seat)] != NO_BID
        if not fixed and (state.controlled[at(seat)] >> table.phase) & 1:
            return seat
        play_seated(state)
    return NO_SEAT


@njit(cache=True)
def play_seated(state):
    """The policy seated at the seat to act decides, drawing from the round's DECISIONS stream
    as in run_games, and its answer is applied; a bid fixed in advance (workspace.fixed_bids:
    estimate's rollouts) is made as it stands, as kernels.round_state.play_bidding makes it."""
    workspace = state.workspace
    table = workspace.table
    seats = workspace.seats
    legal = legal_actions(table, seats)
    seat = current_seat(table)
    fixed_bid = workspace.fixed_bids[at(seat)] if table.phase == PHASE_BID else NO_BID
    if fixed_bid != NO_BID:
        apply_answer(state, fixed_bid, legal)
        return
    answer = decide(seated_policies(workspace), table.phase, seats[at(seat)], table, legal, workspace.scratch.generator)
    apply_answer(state, checked(answer, legal), legal)


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
    acting = state.over == 0 and current_seat(table) == seat
    write_action_mask(table.phase, legal_actions(table, workspace.seats) if acting else 0, mask)


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
