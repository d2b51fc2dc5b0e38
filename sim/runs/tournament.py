"""`tournament`: compare policies on duplicate deals, with paired confidence intervals.

The table engine's (sim.runs.table_engine) single-table case: its one table is the listed order.

Duplicate format (default): every deal (all the cards of every round of a game, which depend
only on (seed, deal)) is played once per seat rotation. In rotation k seat s is played by the
policy listed at (s + k) mod N, so every listed policy holds every seat's cards of every deal,
cancelling the luck of the deal. The rotations keep each seat's neighbours, so their mirror
images follow (rotation N + k: seat s plays (k - s) mod N) and each policy has every other one
as often on its left as on its right (sim.runs.table_engine). That is the default wherever the mirror
images seat the policies differently (not at A,H,H,H or A,H,B,H); --no-mirror drops them
and --mirror asks for them at any table. Without duplicates
each game is a fresh deal with a uniformly random seating (kernels/seating.py).

Rows: game_id = deal_id * R + rotation (duplicate; R = N, or 2N mirrored) or deal_id (no
duplicate, rotation -1).

Statistics, per deal d and policy P: x[d, P] = mean final score of P's seats in the games of
deal d. Deals are independent, so the mean over deals of x[., P] and of the paired
differences x[., A] - x[., B] have normal 95% intervals from their sums and sums of squares,
which add up chunk by chunk (kept in the chunk journal, so a resumed run reports the same
figures). With --sprt the run stops after the first chunk where the SPRT on the first two
listed policies' difference decides (sim.stats.sprt).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa

from kernels.seating import random_seatings
from sim.config.errors import ConfigError
from sim.policies.registry import Policy, check_policy_texts, parse_policies, split_policy_list
from sim.config.rules import Rules
from sim.engine.startup import start
from sim.runs.executors import resume, run
from sim.runs.games import GameBatch
from sim.runs.table_engine import (
    PAIR_COLUMNS,
    VERDICT_COLUMN,
    DealRows,
    TableConfig,
    TableResult,
    chunks_in_order,
    label_seats,
    label_totals,
    seat_figures,
    single_rows,
)
from sim.stats.pairs import PairSums, pair_row
from sim.stats.sprt import Sprt
from sim.stats.sums import normal_interval
from sim.storage import SIZE_FIELDS, RunDirectory, RunError, config_metadata, write_json, write_parquet

# summary.parquet: one row per policy (table "policies") and one per pair of policies (table
# "pairs"), each with nulls in the columns of the other kind.
SUMMARY_SCHEMA = pa.schema(
    [
        ("table", pa.string()),
        ("policy", pa.string()),
        ("deals", pa.int64()),
        ("seat_games", pa.int64()),
        ("mean_score", pa.float64()),
        ("mean_score_ci_low", pa.float64()),
        ("mean_score_ci_high", pa.float64()),
        ("win_rate", pa.float64()),
        ("bid_accuracy", pa.float64()),
        ("mean_abs_error", pa.float64()),
        *PAIR_COLUMNS,
        VERDICT_COLUMN,
    ]
)


@dataclass
class TournamentResult(TableResult):
    @property
    def summary(self) -> tuple[list[dict], list[dict]]:
        return summarize_tournament(self.record)


@dataclass(frozen=True)
class TournamentConfig(TableConfig):
    """A tournament's data is a pure function of this: the one table of its listed order."""

    command: ClassVar[str] = "tournament"
    size_fields: ClassVar[tuple[str, str]] = SIZE_FIELDS["tournament"]
    result_type: ClassVar[type[TableResult]] = TournamentResult
    rules: Rules
    policies: tuple[Policy, ...]  # the listed policies; seat s of rotation k plays (s + k) mod N
    seed: int
    deals: int
    chunk_deals: int
    duplicate: bool = True
    log_plays: bool = False
    sprt: Sprt | None = None  # stop when the first listed policy's edge over the second is known
    # True: the rotations and their mirror images (sim.runs.table_engine); None, not False, when
    # off, so that the runs without it keep their recorded configuration and fingerprint.
    # (build's mirrored=None asks for the default: mirrored where mirror_balances.)
    mirrored: bool | None = None

    @classmethod
    def listed_names(cls, policies: str | list, rules: Rules) -> list:
        """One policy per seat; texts with one key name one policy."""
        names = split_policy_list(policies) if isinstance(policies, str) else list(policies)
        if len(names) != rules.players:
            raise ConfigError(f"got {len(names)} policies for {rules.players} players: list one per seat")
        if len(set(check_policy_texts(names))) < 2:
            raise ConfigError("a tournament needs at least two different policies")
        return names

    @classmethod
    def parse_listed(cls, names: list, rules: Rules) -> tuple[Policy, ...]:
        parsed = tuple(parse_policies(names, rules.players))
        if len({policy.label for policy in parsed}) < 2:
            raise ConfigError("a tournament needs at least two different policies")
        return parsed

    @classmethod
    def design_of(cls, listed: int, players: int) -> tuple[tuple[int, ...], ...]:
        return (tuple(range(players)),)

    @classmethod
    def paired_sums(cls, recorded: dict) -> PairSums:
        return PairSums()

    def deal_rows(self, deal_ids: np.ndarray) -> DealRows:
        """The games of deals `deal_ids`: every rotation of the listed order, or (without
        duplicates) one game per deal with a uniformly random seating."""
        if self.duplicate:
            return super().deal_rows(deal_ids)
        seatings = np.zeros((deal_ids.shape[0], self.rules.players), dtype=np.int64)
        start()  # before the first kernel of a Dask worker's chunk
        random_seatings(self.seed, deal_ids, seatings)
        return single_rows(deal_ids, seatings)

    def chunk_stats(self, batch: GameBatch) -> dict:
        """Additive sums for the summary: per label, and per ordered pair of labels."""
        labels = self.labels
        x = per_deal_scores(self, batch)
        figures = seat_figures(label_seats(list(self.policies), labels, batch), labels, batch)
        stats: dict = {"deals": x.shape[0], "labels": {}, "pairs": {}}
        for label_index, label in enumerate(labels):
            entry = figures[label]
            del entry["total_sum"]  # the means are per deal (score_sum), as the journal always held them
            entry["score_sum"] = float(x[:, label_index].sum())
            entry["score_sq_sum"] = float((x[:, label_index] ** 2).sum())
            stats["labels"][label] = entry
        for (a, label_a), (b, label_b) in itertools.permutations(enumerate(labels), 2):
            difference = x[:, a] - x[:, b]
            stats["pairs"][f"{label_a}\t{label_b}"] = [float(difference.sum()), float((difference**2).sum())]
        return stats

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        write_summary(directory, record)


# -- statistics -------------------------------------------------------------------------------
def per_deal_scores(config: TournamentConfig, batch: GameBatch) -> np.ndarray:
    """x[d, P]: mean final score of label P's seats in all games of deal d (rows of a chunk
    are ordered deal, rotation)."""
    seat_labels = label_seats(list(config.policies), config.labels, batch)
    deals = batch.games.shape[0] // config.rotations
    totals = batch.games["total"].astype(np.float64)
    deal_row = np.repeat(np.arange(deals), config.rotations)
    per_deal_sum = np.zeros((deals, len(config.labels)))
    per_deal_count = np.zeros((deals, len(config.labels)))
    for label_index in range(len(config.labels)):
        seated = seat_labels == label_index
        np.add.at(per_deal_sum[:, label_index], deal_row, (totals * seated).sum(axis=1))
        np.add.at(per_deal_count[:, label_index], deal_row, seated.sum(axis=1))
    return per_deal_sum / per_deal_count


def summarize_tournament(record: dict) -> tuple[list[dict], list[dict]]:
    """Per-policy rows and pairwise-difference rows of a (possibly partial) tournament."""
    chunks = chunks_in_order(record)
    deals = sum(chunk["deals"] for chunk in chunks)
    labels = list(dict.fromkeys(record["config"]["policies"]))
    policies = []
    for label in labels:
        sums, rates = label_totals(chunks, label)
        mean, low, high = normal_interval(sums["score_sum"], sums["score_sq_sum"], deals)
        policies.append({"policy": label, "deals": deals, "seat_games": sums["seat_games"], "mean_score": mean,
                         "mean_score_ci_low": low, "mean_score_ci_high": high, **rates})  # fmt: skip
    pairs = []
    for label_a, label_b in itertools.combinations(labels, 2):
        key = f"{label_a}\t{label_b}"
        total, squares = (sum(chunk["pairs"][key][k] for chunk in chunks) for k in (0, 1))
        pairs.append(pair_row(label_a, label_b, *normal_interval(total, squares, deals)))
    return policies, pairs


# -- running ----------------------------------------------------------------------------------
def write_summary(directory: RunDirectory, record: dict) -> None:
    policies, pairs = summarize_tournament(record)
    summary = {"config": record["config"], "policies": policies, "pairs": pairs}
    if "sprt" in record["config"]:
        summary["sprt"] = record["sprt"]
    try:
        write_json(directory.path / "summary.json", summary)
        rows = [{"table": "policies", **row} for row in policies] + [{"table": "pairs", **row} for row in pairs]
        table = pa.Table.from_pylist(rows, schema=SUMMARY_SCHEMA)
        write_parquet(directory.path / "summary.parquet", table, config_metadata(record["config"]))
    except OSError as error:
        raise RunError(f"writing the summary failed: {error.strerror or error}") from None


# The one start and resume of every run (sim.runs.executors), under the command's names.
tournament = run


def resume_tournament(out: str, **options) -> TournamentResult:
    """Finish the interrupted tournament in `out`: sim.runs.executors.resume for a TournamentConfig
    (its options: threads, batch, on_progress, executor, policies)."""
    return resume(out=out, kind=TournamentConfig, **options)
