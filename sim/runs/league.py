"""`league`: rate any number of policies on duplicate deals, with intervals.

The table engine (sim.runs.table_engine) on a design of many tables.

K >= 2 listed policies (built-in, parameterised, numba or Python bots) and N players: deal d
is played at table d mod T of a balanced design of T tables of N policies (sim.stats.design:
over every T deals each policy sits in each seat equally often and every pair meets nearly
equally often), in all N seat rotations (sim.runs.table_engine): in rotation k seat s is held by the
table's policy at position (s + k) mod N, dealt the same cards. The rotations keep each seat's
neighbours, and the design puts two policies next to each other always in the same order, so
by default each rotation's mirror image is played too (rotation N + k: seat s holds position
(k - s) mod N), and every policy has each other one as often on its left as on its right;
--no-mirror plays the rotations only (the default where no table's mirror image differs).

Rows: game_id = deal_id * R + rotation, R = 2N mirrored or N, with deal_id, rotation and
table_id columns (the design's tables, by id, are in run.json and summary.json under "design").

Ratings (sim.stats.ratings): least squares over deal-and-table effects, in points per game
relative to the pool's mean, with 95% intervals over deals; the pairwise table gives every
difference of ratings with its interval, the deals the pair met at and their head-to-head
difference there. The sums behind them are kept per chunk in the journal, so a resumed run
reports the same figures. With --sprt the run stops after the first chunk where the SPRT on
the first two listed policies' rating difference decides (sim.stats.sprt).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyarrow as pa

from sim.config.errors import ConfigError, cut
from sim.policies.registry import Policy, as_policy, check_policy_texts, split_policy_list
from sim.config.rules import Rules
from sim.runs.executors import resume, run
from sim.runs.games import GameBatch
from sim.runs.table_engine import (
    PAIR_COLUMNS,
    VERDICT_COLUMN,
    TableConfig,
    TableResult,
    chunks_in_order,
    design_labels,
    label_seats,
    label_totals,
    rotation_slots,
    seat_figures,
)
from sim.stats.design import MAX_POLICIES, MIN_POLICIES, deals_to_seat_everyone, league_design
from sim.stats.pairs import pair_row
from sim.stats.ratings import RatingSums, deal_stats
from sim.stats.sprt import Sprt
from sim.stats.sums import Z_95
from sim.storage import OUTPUT_FILES, SIZE_FIELDS, RunDirectory, RunError, config_metadata, write_json, write_parquet

SUMMARY_FILE, RATINGS_FILE, PAIRS_FILE, RATINGS_PLOT, HEAD_TO_HEAD_PLOT = OUTPUT_FILES["league"]

RATINGS_SCHEMA = pa.schema(
    [
        ("policy", pa.string()),
        ("rating", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("games", pa.int64()),
        ("mean_score", pa.float64()),
        ("bid_accuracy", pa.float64()),
        ("win_rate", pa.float64()),
        ("mean_abs_error", pa.float64()),
    ]
)
PAIRS_SCHEMA = pa.schema(
    [
        *PAIR_COLUMNS,
        ("deals_met", pa.int64()),
        ("head_to_head", pa.float64()),
        ("head_to_head_ci_low", pa.float64()),
        ("head_to_head_ci_high", pa.float64()),
        VERDICT_COLUMN,
    ]
)


def league_policy_names(policies: str | list) -> list:
    """The listed policies as given (texts, Policy and Python policy objects), checked as far
    as no import is needed: their count, each text (check_policy_texts), each listed once."""
    names = split_policy_list(policies) if isinstance(policies, str) else list(policies)
    if not MIN_POLICIES <= len(names) <= MAX_POLICIES:
        raise ConfigError(f"a league takes {MIN_POLICIES}..{MAX_POLICIES} policies, got {len(names)}")
    keys = check_policy_texts(names)
    for index, key in enumerate(keys):
        if key in keys[:index]:
            raise ConfigError(f"policy {cut(key)} is listed twice: list each policy of a league once")
    return names


def parse_league_policies(policies: str | list) -> tuple[Policy, ...]:
    """The listed policies: a comma list or a list of texts, Policy and Python policy objects,
    each listed once (by label too: a parameter given at its default names the same policy)."""
    parsed = tuple(as_policy(name) for name in league_policy_names(policies))
    labels = [policy.label for policy in parsed]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ConfigError(f"policy {repeated[0]} is listed twice: list each policy of a league once")
    return parsed


@dataclass
class LeagueResult(TableResult):
    @property
    def summary(self) -> tuple[list[dict], list[dict]]:
        """(ratings best first, pairwise rows)."""
        return summarize_league(self.record)


@dataclass(frozen=True)
class LeagueConfig(TableConfig):
    """A league's data is a pure function of this (its design follows from the counts of
    policies and players)."""

    command: ClassVar[str] = "league"
    size_fields: ClassVar[tuple[str, str]] = SIZE_FIELDS["league"]
    records_tables: ClassVar[bool] = True
    result_type: ClassVar[type[TableResult]] = LeagueResult
    rules: Rules
    policies: tuple[Policy, ...]  # each once; the design seats them by index
    seed: int
    deals: int
    chunk_deals: int
    log_plays: bool = False
    sprt: Sprt | None = None  # stop when the first listed policy's edge over the second is known
    # True: the rotations and their mirror images; None, not False, when off (as tournament's:
    # runs recorded before it keep their configuration and fingerprint).
    mirrored: bool | None = None

    @classmethod
    def listed_names(cls, policies: str | list, rules: Rules) -> list:
        return league_policy_names(policies)

    @classmethod
    def check_deals(cls, listed: int, rules: Rules, deals: int) -> None:
        needed = deals_to_seat_everyone(listed, rules.players)
        if deals < needed:
            raise ConfigError(
                f"a league of {listed} policies at {rules.players}-player tables needs at least {needed:,} deals"
                f" for every policy to play (its design's first {needed:,} tables), got {deals:,}"
            )

    @classmethod
    def parse_listed(cls, names: list, rules: Rules) -> tuple[Policy, ...]:
        return parse_league_policies(names)

    @classmethod
    def design_of(cls, listed: int, players: int) -> tuple[tuple[int, ...], ...]:
        return league_design(listed, players)

    @classmethod
    def paired_sums(cls, recorded: dict) -> RatingSums:
        return rating_sums(recorded)

    def to_dict(self) -> dict:
        # The design follows from the configuration; recorded so that run.json says which
        # policies table_id t seated (and a resume by a wizard-sim with another design refuses).
        return {**super().to_dict(), "design": design_labels(self.design, self.labels)}

    def chunk_stats(self, batch: GameBatch) -> dict:
        """Additive sums for the summary: the ratings' (sim.stats.ratings.deal_stats) and per label."""
        table_ids = batch.table_ids[:: self.rotations].astype(np.int64)
        ratings = deal_stats(position_values(batch, bool(self.mirrored)), table_ids, self.design, len(self.labels))
        figures = seat_figures(label_seats(list(self.policies), self.labels, batch), self.labels, batch)
        return {"deals": ratings["deals"], "ratings": ratings, "labels": figures}

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        write_outputs(directory, record)


# -- statistics -------------------------------------------------------------------------------
def position_values(batch: GameBatch, mirrored: bool) -> np.ndarray:
    """y[d, j]: the mean final score, over the deal's rotations (and their mirror images when
    `mirrored`), of the seat that table position j's policy holds (rows of a chunk are ordered
    deal, rotation)."""
    n = batch.rules.players
    slots = rotation_slots(n, mirrored)
    totals = batch.games["total"].astype(np.float64).reshape(-1, slots.shape[0], n)  # [deal, rotation, seat]
    values = np.zeros((totals.shape[0], n))
    for rotation, positions in enumerate(slots):
        values[:, positions] += totals[:, rotation, :]
    return values / slots.shape[0]


def rating_sums(config: dict) -> RatingSums:
    """Empty sums for a league's configuration as run.json holds it (no policy imported)."""
    labels = list(config["policies"])
    return RatingSums(labels, league_design(len(labels), config["rules"]["players"]))


def summarize_league(record: dict) -> tuple[list[dict], list[dict]]:
    """Ratings (best first) and pairwise rows of a (possibly partial) league."""
    config = record["config"]
    chunks = chunks_in_order(record)
    labels = list(config["policies"])
    sums = rating_sums(config)
    for chunk in chunks:
        sums.add(chunk)
    fit = sums.fit()
    ratings = []
    for index, label in enumerate(labels):
        totals, rates = label_totals(chunks, label)
        low, high = fit.interval(index)
        ratings.append({"policy": label, "rating": float(fit.ratings[index]), "ci_low": low, "ci_high": high,
                        "games": totals["seat_games"], "mean_score": totals["total_sum"] / totals["seat_games"],
                        "bid_accuracy": rates["bid_accuracy"], "win_rate": rates["win_rate"],
                        "mean_abs_error": rates["mean_abs_error"]})  # fmt: skip
    pairs = []
    for (a, label_a), (b, label_b) in itertools.combinations(enumerate(labels), 2):
        difference, variance = fit.difference(a, b)
        half = Z_95 * math.sqrt(variance) if variance >= 0 else math.nan
        met, head, head_low, head_high = sums.head_to_head(a, b)
        pairs.append(pair_row(label_a, label_b, difference, difference - half, difference + half, deals_met=met,
                              head_to_head=head, head_to_head_ci_low=head_low, head_to_head_ci_high=head_high))  # fmt: skip
    ratings.sort(key=lambda row: -row["rating"])
    return ratings, pairs


# -- outputs ----------------------------------------------------------------------------------
def write_outputs(directory: RunDirectory, record: dict) -> None:
    """summary.json, ratings.parquet, pairs.parquet, ratings.png and head_to_head.png."""
    # Imported here: matplotlib adds about 0.6 s to every command's start-up, and only a finished
    # league draws.
    from sim.runs.league_figures import head_to_head_figure, ratings_figure, save_figure

    ratings, pairs = summarize_league(record)
    config = record["config"]
    summary = {"config": config, "deals": sum(chunk["deals"] for chunk in record["chunks"]["complete"].values()),
               "ratings": ratings, "pairs": pairs, "design": config["design"]}  # fmt: skip
    if "sprt" in config:
        summary["sprt"] = record["sprt"]
    metadata = config_metadata(config)
    try:
        write_json(directory.path / SUMMARY_FILE, json_safe(summary))
        write_parquet(directory.path / RATINGS_FILE, pa.Table.from_pylist(ratings, schema=RATINGS_SCHEMA), metadata)
        write_parquet(directory.path / PAIRS_FILE, pa.Table.from_pylist(pairs, schema=PAIRS_SCHEMA), metadata)
        save_figure(ratings_figure(ratings, summary["deals"]), directory.path / RATINGS_PLOT)
        save_figure(head_to_head_figure(pairs, [row["policy"] for row in ratings]), directory.path / HEAD_TO_HEAD_PLOT)
    except OSError as error:
        raise RunError(f"writing the league's summary failed: {error.strerror or error}") from None


def json_safe(value: object) -> object:
    """NaN (an interval of one deal, a pair that never met) as null: JSON has no NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_safe(item) for item in value]
    return value


# The one start and resume of every run (sim.runs.executors), under the command's names.
league = run


def resume_league(out: str, **options) -> LeagueResult:
    """Finish the interrupted league in `out`: sim.runs.executors.resume for a LeagueConfig
    (its options: threads, batch, on_progress, executor, policies)."""
    return resume(out=out, kind=LeagueConfig, **options)
