"""Seat 0's real decisions in one round of every game, captured with the state the seat saw:
what experiments/profile_pimc.py takes again stage by stage and experiments/pimc_bid_calibration.py
values again on fresh deals.

Each game is dealt as in a full game (its first dealer, the round's dealer and DEAL stream),
and the table plays it with kernels.dispatch's own decisions; seat 0's bid and card decisions
are stored on the way, and after the round its bid and the tricks it took.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.game_loop import begin_game, deal_and_seed, new_workspace, seated_policies
from kernels.dispatch import decide
from kernels.records import DECIDE_BID, DECIDE_CARD, SEAT_DTYPE, TABLE_DTYPE
from kernels.round_state import NO_PLAY_LOG, begin_round, play_out
from kernels.rules import dealer_of_round
from sim import Rules


class Decisions(NamedTuple):
    """Seat 0's decisions (one row each: the table and its own record as it saw them, the
    kind of decision, the legal mask) and, per game, the bid it made and the tricks it took."""

    tables: np.ndarray
    seat_records: np.ndarray
    kinds: np.ndarray
    legals: np.ndarray
    bids: np.ndarray
    tricks: np.ndarray


@njit(cache=True)
def capturing_decide(context, decision, me, table, legal, generator):
    """The table's own decision (kernels.dispatch), after storing seat 0's bid and card
    decisions."""
    policies, tables, seat_records, kinds, legals, count = context
    if me.seat == 0 and (decision == DECIDE_BID or decision == DECIDE_CARD):
        i = count[0]
        tables[i] = table
        seat_records[i] = me
        kinds[i] = decision
        legals[i] = legal
        count[0] = i + 1
    return decide(policies, decision, me, table, legal, generator)


@njit(cache=True)
def capture_rounds(seed, game_ids, rules, round_size, policies, tables, seat_records, kinds, legals, bids, tricks):
    """Play one round of `round_size` of every game; returns the number of decisions stored."""
    storage = new_workspace(rules, policies)
    workspace = storage[0]
    count = np.zeros(1, dtype=np.int64)
    context = (seated_policies(workspace), tables, seat_records, kinds, legals, count)
    for index, game in enumerate(game_ids):
        first = begin_game((seed, game), rules, workspace)
        begin_round(workspace.table, workspace.seats, round_size, dealer_of_round(first, round_size, rules.n_players))
        deal_and_seed((seed, game), workspace)
        play_out(capturing_decide, context, workspace.table, workspace.seats, workspace.scratch.generator,
                 workspace.fixed_bids, NO_PLAY_LOG)  # fmt: skip
        bids[index] = workspace.seats[0].bid
        tricks[index] = workspace.table.tricks[0]
    return count[0]


def capture(rules: Rules, policies, round_size: int, games: int, seed: int) -> Decisions:
    """Seat 0's decisions in one round of `round_size` of games 0..games-1 of run `seed`
    (policies: sim.policies.registry.policy_arrays of the table)."""
    rows = games * (round_size + 1)  # a bid and round_size cards a game
    tables = np.zeros(rows, dtype=TABLE_DTYPE)
    seat_records = np.zeros(rows, dtype=SEAT_DTYPE)
    kinds = np.zeros(rows, dtype=np.int64)
    legals = np.zeros(rows, dtype=np.int64)
    bids = np.zeros(games, dtype=np.int64)
    tricks = np.zeros(games, dtype=np.int64)
    count = capture_rounds(seed, np.arange(games, dtype=np.int64), rules.to_record()[0], round_size, policies,
                           tables, seat_records, kinds, legals, bids, tricks)  # fmt: skip
    return Decisions(tables[:count], seat_records[:count], kinds[:count], legals[:count], bids, tricks)
