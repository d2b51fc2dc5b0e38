"""Deals played at tables: the rows of a tournament's or league's chunk, the games they play,
and the per-policy figures both report.

A deal (every card of every round, a pure function of (seed, deal id)) is played at a table,
an ordered list of N of the listed policies. With duplicate deals it is played once per seat
rotation: in rotation k seat s is held by the table's policy at (s + k) mod N and is dealt the
same cards, trump card and dealer in every rotation; row (deal, k) is game deal * R + k, R the
rotations per deal. Mirrored (a tournament's --mirror), the N rotations are followed by their
mirror images: in rotation N + k seat s is held by the policy at (k - s) mod N, so that every
policy has each other one as often on its left as on its right (R = 2N). The mirror images
seat the policies as the rotations of the reversed list do; when that list is itself a
rotation of the table (A,H,H,H or A,H,B,H: `mirror_balances` is False) they add nothing.
Without duplicates (a tournament's --no-duplicate) each deal is played once, as game `deal`
with rotation -1, by a seating of its own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.config.policies import Policy
from sim.config.rules import Rules
from sim.engine.seating import Seating
from sim.runs.games import GameBatch, empty_results, play_rows
from sim.runs.bot_games import SeatedGames

NO_ROTATION = -1


@dataclass(frozen=True)
class DealRows:
    """The games of a chunk, one per row, ordered (deal, rotation)."""

    deal_ids: np.ndarray  # [rows] the deal each row plays
    rotations: np.ndarray  # int8 [rows]: its seat rotation, NO_ROTATION without duplicates
    game_ids: np.ndarray  # [rows] its game id in the run's data
    seatings: np.ndarray  # [rows, players] the index of the listed policy at each seat
    table_ids: np.ndarray | None = None  # int32 [rows] the table of a league's design

    def place(self, row: int) -> str:
        """Row `row`'s game in a failure message."""
        deal, game = int(self.deal_ids[row]), int(self.game_ids[row])
        if self.table_ids is not None:
            return f"game {game} (deal {deal}, table {int(self.table_ids[row])})"
        return f"game {game} (deal {deal})" if self.rotations[row] != NO_ROTATION else f"game {game}"


def rotation_slots(players: int, mirrored: bool = False) -> np.ndarray:
    """[rotation, seat]: the table position whose policy holds the seat, (seat + rotation) mod N,
    and when `mirrored` then (rotation - N - seat) mod N for rotations N..2N-1."""
    seats, rotations = np.arange(players)[None, :], np.arange(players)[:, None]
    cyclic = (seats + rotations) % players
    return np.concatenate([cyclic, (rotations - seats) % players]) if mirrored else cyclic


def mirror_balances(labels: list[str]) -> bool:
    """Whether a table's mirror images seat its policies in ways its rotations do not: False
    when the reversed list of labels is one of the list's rotations (then each mirror image
    repeats a rotation, policy for policy, and every policy already has each other one as
    often on its left as on its right)."""
    reversed_labels = labels[::-1]
    return not any(reversed_labels == labels[k:] + labels[:k] for k in range(len(labels)))


def duplicate_rows(
    deal_ids: np.ndarray, tables: np.ndarray, table_ids: np.ndarray | None = None, mirrored: bool = False
) -> DealRows:
    """Every rotation of every deal (and its mirror image when `mirrored`): deal_ids[d] is
    played at the table tables[d] (the listed policy at each table position), rows ordered
    (deal, rotation)."""
    deals, players = tables.shape
    slots = rotation_slots(players, mirrored)
    per_deal = slots.shape[0]
    seatings = tables[:, slots].reshape(deals * per_deal, players)
    deal_of_row = np.repeat(deal_ids, per_deal)
    rotations = np.tile(np.arange(per_deal, dtype=np.int8), deals)
    rows_table = None if table_ids is None else np.repeat(table_ids.astype(np.int32), per_deal)
    return DealRows(deal_of_row, rotations, deal_of_row * per_deal + rotations, seatings, rows_table)


def single_rows(deal_ids: np.ndarray, seatings: np.ndarray) -> DealRows:
    """Each deal played once, by its own seating, as game `deal`."""
    return DealRows(deal_ids, np.full(deal_ids.shape[0], NO_ROTATION, dtype=np.int8), deal_ids, seatings)


def play_deal_rows(
    rules: Rules, listed: Seating, seed: int, rows: DealRows, log_plays: bool, threads: int | None, batch: int | None
) -> GameBatch:
    """Play every row (sim.runs.games.play_rows): the chunk's games, with its deal, rotation
    and table columns."""
    results = empty_results(rules, rows.game_ids.shape[0], log_plays)
    play_rows(rules, listed, seed, SeatedGames(rows.deal_ids, rows.seatings, rows.game_ids), results, rows.place, threads, batch)
    return GameBatch(rules, list(listed.policies), seed, rows.game_ids, *results, rows.seatings, rows.deal_ids, rows.rotations,
                     rows.table_ids)  # fmt: skip


def label_seats(listed: list[Policy], labels: list[str], batch: GameBatch) -> np.ndarray:
    """[games, seats] index into `labels` of the policy at each seat."""
    label_of_listed = np.array([labels.index(policy.label) for policy in listed])
    return label_of_listed[batch.seating]


def seat_figures(seat_labels: np.ndarray, labels: list[str], batch: GameBatch) -> dict[str, dict]:
    """Additive sums per label over its seat-games: games, final totals, win shares (ties
    share a win), bids, exact bids and the sum of |bid - tricks|."""
    winners = batch.games["winner"]
    win_share = winners / winners.sum(axis=1, keepdims=True)
    totals = batch.games["total"].astype(np.int64)
    bids = batch.seats["bid"].astype(np.int16)
    errors = np.abs(bids - batch.seats["tricks"]).transpose(0, 2, 1)  # [games, seats, rounds]
    figures = {}
    for index, label in enumerate(labels):
        seated = seat_labels == index
        seat_errors = errors[seated]  # [seat-games, rounds]
        figures[label] = {
            "seat_games": int(seated.sum()),
            "total_sum": int(totals[seated].sum()),
            "win_share": float(win_share[seated].sum()),
            "bids": int(seat_errors.size),
            "exact_bids": int((seat_errors == 0).sum()),
            "abs_error_sum": int(seat_errors.sum(dtype=np.int64)),
        }
    return figures
