"""The one table engine of tournament and league: listed policies at the tables of a design,
each deal played at one table in every seat rotation, and what both report.

A league is a table design; a tournament is its single-table case (its listed order is the one
table), or plays each deal once at a random seating (--no-duplicate). `TableConfig` is the
configuration both are made of: its checks, its rows and chunks, its stop test; a tournament
and a league say only which lists of policies they take, their design, the sums each chunk
keeps and the summaries they write.

A deal (every card of every round, a pure function of (seed, deal id)) is played at a table,
an ordered list of N of the listed policies. With duplicate deals it is played once per seat
rotation: in rotation k seat s is held by the table's policy at (s + k) mod N and is dealt the
same cards, trump card and dealer in every rotation; row (deal, k) is game deal * R + k, R the
rotations per deal. Mirrored (--mirror), the N rotations are followed by their
mirror images: in rotation N + k seat s is held by the policy at (k - s) mod N, so that every
policy has each other one as often on its left as on its right (R = 2N). The mirror images
seat the policies as the rotations of the reversed list do; when that list is itself a
rotation of the table (A,H,H,H or A,H,B,H: `mirror_balances` is False) they add nothing.
Without duplicates (a tournament's --no-duplicate) each deal is played once, as game `deal`
with rotation -1, by a seating of its own.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa

from sim.config.errors import ConfigError
from sim.policies.registry import Policy
from sim.config.rules import Rules
from sim.config.seeds import check_seed, draw_seed
from sim.engine.seating import Seating
from sim.runs.bot_games import SeatedGames
from sim.runs.executors import FinishedChunk, RunResult
from sim.runs.games import GameBatch, empty_results, play_rows
from sim.runs.run_config import RecordedConfig, check_flags
from sim.runs.simulation import check_run_size
from sim.runs.tables import batch_tables
from sim.stats.sprt import LOOK_DEALS, PairedSums, SequentialTest, Sprt
from sim.stats.sums import policy_figures

NO_ROTATION = -1
# The columns of a pair's row in a summary (sim.stats.pairs.pair_row), before a league's own;
# the verdict ends the row.
PAIR_COLUMNS = [
    ("policy_a", pa.string()),
    ("policy_b", pa.string()),
    ("difference", pa.float64()),
    ("ci_low", pa.float64()),
    ("ci_high", pa.float64()),
    ("significant", pa.bool_()),
]
VERDICT_COLUMN = ("verdict", pa.string())


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


def rotations_per_deal(players: int, duplicate: bool, mirrored: bool) -> int:
    """Games per deal: one per rotation (and its mirror image), or one without duplicates."""
    return (2 * players if mirrored else players) if duplicate else 1


def design_labels(design: tuple[tuple[int, ...], ...], labels: list[str]) -> list[list[str]]:
    """The tables of a design by the labels of the policies they seat."""
    return [[labels[index] for index in table] for table in design]


class TableConfig(RecordedConfig):
    """A tournament's or league's configuration: its data is a pure function of it.

    A subclass is a frozen dataclass of rules, policies, seed, deals, chunk_deals, log_plays,
    sprt and mirrored (a tournament's also of duplicate, before log_plays: the order of the
    fields is the order of run.json's), and fills in the hooks below."""

    duplicate: bool = True  # a league's deals always are; a tournament's field says
    records_tables: ClassVar[bool] = False  # whether the rows carry the design's table ids (a league's)
    result_type: ClassVar[type["TableResult"]]

    # -- the hooks ----------------------------------------------------------------------------
    @classmethod
    def listed_names(cls, policies: str | list, rules: Rules) -> list:
        """The listed policies as given, checked as far as no import is needed."""
        raise NotImplementedError

    @classmethod
    def check_deals(cls, listed: int, rules: Rules, deals: int) -> None:
        """Refuse too few deals for `listed` policies (any number will do by default)."""

    @classmethod
    def parse_listed(cls, names: list, rules: Rules) -> tuple[Policy, ...]:
        """The listed policies, parsed (their modules imported)."""
        raise NotImplementedError

    @classmethod
    def design_of(cls, listed: int, players: int) -> tuple[tuple[int, ...], ...]:
        """The tables: for each, the index of the listed policy at each table position."""
        raise NotImplementedError

    @classmethod
    def paired_sums(cls, recorded: dict) -> PairedSums:
        """Empty sums of the difference its SPRT tests, for a configuration as run.json holds it."""
        raise NotImplementedError

    def chunk_stats(self, batch: GameBatch) -> dict:
        """The additive sums of a chunk that its journal keeps."""
        raise NotImplementedError

    # -- what a tournament and a league share ---------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict) -> "TableConfig":
        # A run.json without "mirrored" was played without mirror images, whatever the
        # default of build is now.
        return super().from_dict({"mirrored": False, **data})

    @classmethod
    def build(
        cls,
        rules: Rules,
        policies: str | list,
        *,
        seed: int | None,
        deals: int,
        chunk_deals: int | None = None,
        duplicate: bool = True,
        log_plays: bool = False,
        sprt: Sprt | tuple | dict | None = None,
        mirrored: bool | None = None,
        imports: bool = True,
    ) -> "TableConfig | None":
        """mirrored=None: the default, mirror images wherever a table's differ from its rotations.
        imports=False: only the checks that need no policy module imported (None)."""
        check_flags(duplicate=duplicate, log_plays=log_plays, mirrored=mirrored, optional=("mirrored",))
        fields = [field.name for field in dataclasses.fields(cls)]
        if not duplicate and "duplicate" not in fields:
            raise ConfigError(f"a {cls.command} plays duplicate deals: it has no --no-duplicate")
        if mirrored and not duplicate:
            raise ConfigError("mirrored seatings need duplicate deals: drop --no-duplicate or --mirror")
        # Every check that needs no import first: the policies named may be modules whose
        # import runs code (issue 61).
        names = cls.listed_names(policies, rules)
        sprt = Sprt.of(sprt)
        if sprt is not None and chunk_deals is None:
            chunk_deals = LOOK_DEALS  # the test looks after every chunk
        # The size with the fewest games a deal can have (mirror images are decided below, by the labels).
        deals, _ = check_run_size(rules, log_plays, deals, chunk_deals, rotations_per_deal(rules.players, duplicate, bool(mirrored)))
        cls.check_deals(len(names), rules, deals)
        seed = draw_seed() if seed is None else check_seed(seed)
        if not imports:
            return None
        parsed = cls.parse_listed(names, rules)
        if mirrored is None:  # the default: mirror images where they balance the neighbours
            tables = design_labels(cls.design_of(len(parsed), rules.players), [policy.label for policy in parsed])
            mirrored = duplicate and any(mirror_balances(table) for table in tables)
        rotations = rotations_per_deal(rules.players, duplicate, mirrored)
        deals, chunk_deals = check_run_size(rules, log_plays, deals, chunk_deals, rotations)
        values = {"rules": rules, "policies": parsed, "seed": seed, "deals": deals, "chunk_deals": chunk_deals,
                  "duplicate": duplicate, "log_plays": log_plays, "sprt": sprt, "mirrored": True if mirrored else None}  # fmt: skip
        return cls(**{name: values[name] for name in fields})

    @property
    def rotations(self) -> int:
        """Games per deal."""
        return rotations_per_deal(self.rules.players, self.duplicate, bool(self.mirrored))

    @property
    def games_per_unit(self) -> int:
        return self.rotations

    @property
    def labels(self) -> list[str]:
        """Distinct policy labels, in listing order."""
        return list(dict.fromkeys(policy.label for policy in self.policies))

    @property
    def design(self) -> tuple[tuple[int, ...], ...]:
        return self.design_of(len(self.policies), self.rules.players)

    def deal_rows(self, deal_ids: np.ndarray) -> DealRows:
        """The games of deals `deal_ids`: deal d at table d mod T of the design, in every rotation."""
        design = np.array(self.design, dtype=np.int64)
        table_ids = deal_ids % design.shape[0]
        return duplicate_rows(deal_ids, design[table_ids], table_ids if self.records_tables else None, bool(self.mirrored))

    def compute_chunk(self, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None) -> GameBatch:
        """Every game of deals first_deal.. first_deal+deals-1, rows ordered (deal, rotation), in
        one batch whatever their seatings; `batch`: games in play at once when Python policies
        play (never changes the data)."""
        rows = self.deal_rows(np.arange(first_deal, first_deal + deals, dtype=np.int64))
        return play_deal_rows(self.rules, self.seating, self.seed, rows, self.log_plays, threads, batch)

    def finish_chunk(self, batch: GameBatch) -> FinishedChunk:
        return FinishedChunk(batch_tables(batch, self.log_plays), self.chunk_stats(batch))

    @classmethod
    def stop_test(cls, recorded: dict) -> SequentialTest | None:
        """The SPRT of a run (its configuration as in run.json): the first two distinct
        policies listed; None without --sprt."""
        sprt = Sprt.of(recorded.get("sprt"))
        if sprt is None:
            return None
        labels = list(dict.fromkeys(recorded["policies"]))
        return SequentialTest(sprt, cls.paired_sums(recorded), (labels[0], labels[1]))

    def result(self, *fields) -> "TableResult":
        return self.result_type(*fields)


@dataclass
class TableResult(RunResult):
    @property
    def deals_computed(self) -> int:
        return self.units_computed


def chunks_in_order(record: dict) -> list[dict]:
    """The statistics of a run's complete chunks in chunk order, whatever order the chunks were
    written in: float sums are then exact to the bit for every executor and every resume."""
    complete = record["chunks"]["complete"]
    return [complete[index] for index in sorted(complete, key=int)]


def label_totals(chunks: list[dict], label: str) -> tuple[dict, dict[str, float]]:
    """A label's sums (seat_figures, as the chunks keep them) over `chunks`, and its rates."""
    totals = {key: sum(chunk["labels"][label][key] for chunk in chunks) for key in chunks[0]["labels"][label]}
    rates = policy_figures(totals["seat_games"], totals["win_share"], totals["bids"], totals["exact_bids"], totals["abs_error_sum"])
    return totals, rates
