"""The games `wizard-sim train` learns from and measures with (sim.learn.train).

`teacher_rounds` plays single rounds at which some seats play a teacher (mc, kernels.search.mc)
and the others the heuristic, and records every decision of a teacher seat: its features
(kernels.policies.learned.encode), its legal answers, the teacher's choice, the teacher's
mean rollout score of every legal answer (mc's own search, read from its working memory), and
the tricks the seat took in the end (the bid network's target). `duplicate_margins` plays
whole games of one learned seat against heuristic seats, in every rotation of the seats, and
returns the learned seat's margin: the running strength figure of training.

Every episode and game is a pure function of (seed, its id) and of the model: the blocks of
the parallel loop change no result.
"""
from collections import namedtuple

import numpy as np
from numba import njit, prange

from kernels.bits import at, lowest_bit, popcount
from kernels.blocks import block_rows, n_blocks
from kernels.cards import N_CARDS
from kernels.game_loop import begin_game, deal_and_seed, new_workspace, seated_policies
from kernels.policies import heuristic, learned
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC
from kernels.rng import below, seed_stream
from kernels.round_state import NO_PLAY_LOG, begin_round, decided, next_decision, play_out, take_decision
from kernels.rules import dealer_of_round
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PARAMS, MAX_PLAYERS, MAX_PLAYS_PER_ROUND, NO_SEAT
from kernels.search import mc
from kernels.search.equivalence import distinct_cards, in_play_for_seat, representative

# An episode's setup (round size, dealer, teacher seats) comes from its own stream: kernels.rng
# numbers the engine's streams 1 to 8.
STREAM_EPISODE = 16
ROWS_PER_EPISODE = MAX_PLAYS_PER_ROUND + MAX_PLAYERS  # at most every card and every bid of a round
LEARNER = -1  # the learned seat's policy id in duplicate_margins (no engine policy has it)

# What teacher_rounds records, one row per decision (rows of an episode that fewer decisions
# fill keep kind -1).
TeacherSamples = namedtuple(
    "TeacherSamples", ("features", "kind", "legal", "choice", "values", "searched", "seat", "tricks", "round_size")
)


def new_samples(episodes: int) -> TeacherSamples:
    rows = episodes * ROWS_PER_EPISODE
    return TeacherSamples(
        np.zeros((rows, learned.FEATURE_COUNT), dtype=np.uint8),
        np.full(rows, -1, dtype=np.int8),
        np.zeros(rows, dtype=np.int64),
        np.zeros(rows, dtype=np.int8),
        np.zeros((rows, N_CARDS), dtype=np.float32),  # per answer (a bid 0..20 or a card id)
        np.zeros(rows, dtype=np.uint8),  # 1: the teacher searched (values set); 0: one choice, or its heuristic's
        np.zeros(rows, dtype=np.int8),
        np.zeros(rows, dtype=np.int8),
        np.zeros(rows, dtype=np.int8),
    )


@njit(cache=True)
def teacher_values(decision, policies, me, table, legal, generator, values):
    """The teacher's (mc's) answer to `decision`, as mc.decide answers it, and its mean
    rollout score of every legal answer into values (by bid or card id); returns (answer,
    whether it searched: with one choice, or no samples, it does not)."""
    params = policies.params
    if decision == DECIDE_BID:
        preferred = heuristic.choose_bid(mc.ROLLOUT_PARAMS, me, table, legal)
        samples = int(params[at(me.seat), mc.P_SAMPLES])
        if samples == 0 or popcount(legal) == 1:
            return preferred, False
        storage = mc.new_decision_memory()
        answer = mc.sampled_bid(storage, policies, me, table, legal, preferred, generator)
        write_means(storage, legal, legal, False, samples, values)
        return answer, True
    preferred = heuristic.choose_card(me, table, legal)
    samples = int(params[at(me.seat), mc.P_PLAY_SAMPLES])
    choices = distinct_cards(legal, in_play_for_seat(me, table))
    if samples == 0 or popcount(choices) == 1:
        return preferred, False
    preferred_choice = representative(preferred, choices)
    storage = mc.new_decision_memory()
    best = mc.sampled_card(storage, policies, me, table, choices, preferred_choice, generator)
    write_means(storage, legal, choices, True, samples, values)
    return (preferred if best == preferred_choice else best), True


@njit(cache=True)
def write_means(storage, legal, choices, cards, samples, values):
    """values[a] = the teacher's mean rollout score of every legal answer a: the total mc kept
    for it in its decision memory `storage` (for a card, that of its representative among the
    distinct `choices`). The caller holds `storage`; its record is taken here
    (tests/test_record_lifetimes.py)."""
    totals = storage[0].totals
    rest = legal
    while rest:
        answer = lowest_bit(rest)
        rest &= rest - 1
        values[answer] = totals[representative(answer, choices) if cards else answer] / samples


@njit(cache=True)
def set_episode(workspace, seed, episode, n_players, teacher_params):
    """Begin episode `episode`'s round: its size (1 to the most cards each seat can get), its
    dealer and its teacher seats (each seat with chance 1/2, at least one) from the episode's
    own stream; the teacher seats play mc with `teacher_params`, the others the heuristic."""
    generator = workspace.scratch.generator
    seed_stream(generator, seed, episode, 0, STREAM_EPISODE)
    round_size = 1 + below(generator, N_CARDS // n_players)
    dealer = below(generator, n_players)
    teachers = 0
    for seat in range(n_players):
        teachers |= below(generator, 2) << seat
    if teachers == 0:
        teachers = 1 << below(generator, n_players)
    for seat in range(MAX_PLAYERS):
        teacher = (teachers >> seat) & 1 == 1
        workspace.policy_ids[seat] = POLICY_MC if teacher else POLICY_HEURISTIC
        for k in range(MAX_PARAMS):
            workspace.params[seat, k] = teacher_params[k] if teacher else 0.0
        if not teacher:
            for k in range(heuristic.DEFAULT_PARAMS.shape[0]):
                workspace.params[seat, k] = heuristic.DEFAULT_PARAMS[k]
    workspace.table.totals[:] = 0
    begin_round(workspace.table, workspace.seats, round_size, dealer)
    deal_and_seed((seed, episode), workspace)
    return teachers


@njit(cache=True)
def play_episode(workspace_storage, seed, episode, n_players, teacher_params, samples, first_row):
    """Play episode `episode`'s round on the one-record workspace array `workspace_storage`
    (its record is taken here, where the caller holds the array: kernels/blocks.py), recording
    each teacher decision into samples' rows first_row, first_row + 1, ... (ROWS_PER_EPISODE at
    most)."""
    workspace = workspace_storage[0]
    teachers = set_episode(workspace, seed, episode, n_players, teacher_params)
    table = workspace.table
    seats = workspace.seats
    generator = workspace.scratch.generator
    policies = seated_policies(workspace)
    row = first_row
    while True:
        decision = next_decision(table, seats, workspace.fixed_bids)
        if decision.seat == NO_SEAT:
            break
        if (teachers >> decision.seat) & 1 == 0 or decision.kind not in (DECIDE_BID, DECIDE_CARD):
            answer = decided(mc_or_heuristic, policies, decision, table, seats, generator)
        else:
            me = seats[decision.seat]
            learned.encode(me, table, samples.features[row])
            answer, searched = teacher_values(decision.kind, policies, me, table, decision.legal, generator,
                                              samples.values[row])  # fmt: skip
            samples.kind[row] = decision.kind
            samples.legal[row] = decision.legal
            samples.choice[row] = answer
            samples.searched[row] = searched
            samples.seat[row] = decision.seat
            samples.round_size[row] = table.round_size
            row += 1
        take_decision(table, seats, decision, answer, NO_PLAY_LOG)
    for k in range(first_row, row):  # the tricks the deciding seat took in the end
        samples.tricks[k] = table.tricks[samples.seat[k]]
    return row


@njit(cache=True, inline="always")
def mc_or_heuristic(policies, decision, me, table, legal, generator):
    if policies.ids[at(me.seat)] == POLICY_MC:
        return mc.decide(decision, policies, me, table, legal, generator)
    return heuristic.decide(decision, policies.params, me, table, legal, generator)


@njit(cache=True)
def teacher_block(block, seed, episodes, rules, teacher_params, samples):
    """Episodes episodes[first:stop] of block `block`, each into its ROWS_PER_EPISODE rows."""
    first, stop = block_rows(block, episodes.shape[0])
    workspace = new_workspace(rules[0], (np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros((MAX_PLAYERS, MAX_PARAMS))))
    for i in range(first, stop):
        play_episode(workspace, seed, episodes[i], rules[0].n_players, teacher_params, samples, i * ROWS_PER_EPISODE)


@njit(cache=True, parallel=True, nogil=True)
def teacher_rounds(seed, episodes, rules, teacher_params, samples):
    """Play the rounds of `episodes` (ids) under `rules` (a one-record RULES_DTYPE array) with
    teacher seats playing mc with the parameter row `teacher_params`, recording into
    `samples` (new_samples(len(episodes))): episode i's decisions fill rows
    i * ROWS_PER_EPISODE onwards."""
    for block in prange(n_blocks(episodes.shape[0])):
        teacher_block(block, seed, episodes, rules, teacher_params, samples)


# --- the running strength figure ----------------------------------------------------------


@njit(cache=True, inline="always")
def learner_or_heuristic(policies, decision, me, table, legal, generator):
    """The learned seat (policy id LEARNER) decides with the model's weights, every other
    seat plays the heuristic: policies = (ids, parameter rows, weights)."""
    policy_ids, params, weights = policies
    if policy_ids[at(me.seat)] == LEARNER:
        return learned.decide(decision, me, table, legal, weights)
    return heuristic.decide(decision, params, me, table, legal, generator)


@njit(cache=True)
def learner_margin(storage, seed, deal, rules, round_sizes, weights, learner):
    """The game of `deal` with the learned seat at `learner`, heuristic seats elsewhere, on the
    workspace in `storage` (its record is taken here, where the array is held: kernels/blocks.py);
    returns the learned seat's final score minus the mean of the others'."""
    workspace = storage[0]
    table = workspace.table
    n_players = rules.n_players
    for seat in range(MAX_PLAYERS):
        workspace.policy_ids[seat] = LEARNER if seat == learner else POLICY_HEURISTIC
        for k in range(heuristic.DEFAULT_PARAMS.shape[0]):
            workspace.params[seat, k] = heuristic.DEFAULT_PARAMS[k]
    policies = (workspace.policy_ids, workspace.params, weights)
    game_key = (seed, deal)
    first_dealer = begin_game(game_key, rules, workspace)
    for index in range(round_sizes.shape[0]):
        round_size = round_sizes[index]
        begin_round(table, workspace.seats, round_size, dealer_of_round(first_dealer, round_size, n_players))
        deal_and_seed(game_key, workspace)
        play_out(learner_or_heuristic, policies, table, workspace.seats, workspace.scratch.generator,
                 workspace.fixed_bids, NO_PLAY_LOG)  # fmt: skip
    others = 0.0
    for seat in range(n_players):
        if seat != learner:
            others += table.totals[seat]
    return table.totals[learner] - others / (n_players - 1)


@njit(cache=True)
def margin_block(block, seed, deals, rules, round_sizes, weights, margins):
    first, stop = block_rows(block, deals.shape[0])
    storage = new_workspace(rules[0], (np.zeros(MAX_PLAYERS, dtype=np.int64), np.zeros((MAX_PLAYERS, MAX_PARAMS))))
    for i in range(first, stop):
        for learner in range(rules[0].n_players):
            margins[i, learner] = learner_margin(storage, seed, deals[i], rules[0], round_sizes, weights, learner)


@njit(cache=True, parallel=True, nogil=True)
def duplicate_margins(seed, deals, rules, round_sizes, weights, margins):
    """For each deal (a game id: its cards are the engine's for (seed, id), whoever plays
    them) and each seat s, the whole game of `round_sizes` with the learned model (`weights`,
    learned.WEIGHT_NAMES order) at seat s and the heuristic at the others: margins[i, s] = the
    learned seat's final score minus the mean of the others' (a tournament's margin)."""
    for block in prange(n_blocks(deals.shape[0])):
        margin_block(block, seed, deals, rules, round_sizes, weights, margins)
