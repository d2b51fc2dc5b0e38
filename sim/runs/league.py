"""`league`: rate any number of policies on duplicate deals, with intervals.

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
from sim.config.policies import Policy, as_policy, check_policy_texts, split_policy_list
from sim.config.rules import Rules
from sim.config.seeds import check_seed, draw_seed
from sim.runs.table_engine import (
    DealRows,
    duplicate_rows,
    label_seats,
    mirror_balances,
    play_deal_rows,
    rotation_slots,
    seat_figures,
)
from sim.runs.executors import FinishedChunk, RunResult, resume, run
from sim.runs.games import GameBatch
from sim.runs.run_config import RecordedConfig, check_flags
from sim.runs.simulation import check_run_size
from sim.runs.tables import batch_tables
from sim.runs.tournament import rotations_per_deal
from sim.stats.design import MAX_POLICIES, MIN_POLICIES, deals_to_seat_everyone, league_design
from sim.stats.pairs import significant, verdict
from sim.stats.ratings import RatingSums, deal_stats
from sim.stats.sprt import LOOK_DEALS, SequentialTest, Sprt
from sim.stats.sums import Z_95, policy_figures
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
        ("policy_a", pa.string()),
        ("policy_b", pa.string()),
        ("difference", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("significant", pa.bool_()),
        ("deals_met", pa.int64()),
        ("head_to_head", pa.float64()),
        ("head_to_head_ci_low", pa.float64()),
        ("head_to_head_ci_high", pa.float64()),
        ("verdict", pa.string()),
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


@dataclass(frozen=True)
class LeagueConfig(RecordedConfig):
    """A league's data is a pure function of this (its design follows from the counts of
    policies and players)."""

    command: ClassVar[str] = "league"
    size_fields: ClassVar[tuple[str, str]] = SIZE_FIELDS["league"]
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
    def from_dict(cls, data: dict) -> "LeagueConfig":
        # A run.json without "mirrored" was played without mirror images.
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
        log_plays: bool = False,
        sprt: Sprt | tuple | dict | None = None,
        mirrored: bool | None = None,
        imports: bool = True,
    ) -> "LeagueConfig | None":
        """mirrored=None: the default, mirror images wherever a table's differ from its rotations.
        imports=False: only the checks that need no policy module imported (None)."""
        check_flags(log_plays=log_plays, mirrored=mirrored, optional=("mirrored",))
        # Every check that needs no import first: the policies named may be modules whose
        # import runs code (issue 61).
        names = league_policy_names(policies)
        sprt = Sprt.of(sprt)
        if sprt is not None and chunk_deals is None:
            chunk_deals = LOOK_DEALS  # the test looks after every chunk
        # The size with the fewest games a deal can have (mirror images are decided below, by the labels).
        deals, _ = check_run_size(rules, log_plays, deals, chunk_deals, rotations_per_deal(rules.players, True, bool(mirrored)))
        needed = deals_to_seat_everyone(len(names), rules.players)
        if deals < needed:
            raise ConfigError(
                f"a league of {len(names)} policies at {rules.players}-player tables needs at least {needed:,} deals"
                f" for every policy to play (its design's first {needed:,} tables), got {deals:,}"
            )
        seed = draw_seed() if seed is None else check_seed(seed)
        if not imports:
            return None
        parsed = parse_league_policies(names)
        if mirrored is None:
            labels = [policy.label for policy in parsed]
            tables = design_labels(league_design(len(parsed), rules.players), labels)
            mirrored = any(mirror_balances(table) for table in tables)
        rotations = rotations_per_deal(rules.players, True, mirrored)
        deals, chunk_deals = check_run_size(rules, log_plays, deals, chunk_deals, rotations)
        return cls(rules, parsed, seed, deals, chunk_deals, log_plays, sprt, True if mirrored else None)

    @property
    def rotations(self) -> int:
        """Games per deal."""
        return rotations_per_deal(self.rules.players, True, bool(self.mirrored))

    @property
    def labels(self) -> list[str]:
        return [policy.label for policy in self.policies]

    @property
    def design(self) -> tuple[tuple[int, ...], ...]:
        """The tables: for each, the index of the listed policy at each table position."""
        return league_design(len(self.policies), self.rules.players)

    def to_dict(self) -> dict:
        # The design follows from the configuration; recorded so that run.json says which
        # policies table_id t seated (and a resume by a wizard-sim with another design refuses).
        return {**super().to_dict(), "design": design_labels(self.design, self.labels)}

    def deal_rows(self, deal_ids: np.ndarray) -> DealRows:
        design = np.array(self.design, dtype=np.int64)
        table_ids = deal_ids % design.shape[0]
        return duplicate_rows(deal_ids, design[table_ids], table_ids, mirrored=bool(self.mirrored))

    def compute_chunk(self, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None) -> GameBatch:
        rows = self.deal_rows(np.arange(first_deal, first_deal + deals, dtype=np.int64))
        return play_deal_rows(self.rules, self.seating, self.seed, rows, self.log_plays, threads, batch)

    def finish_chunk(self, batch: GameBatch) -> FinishedChunk:
        return FinishedChunk(batch_tables(batch, self.log_plays), chunk_stats(self, batch))

    @property
    def games_per_unit(self) -> int:
        return self.rotations

    def stop_test(self, recorded: dict) -> SequentialTest | None:
        return sequential_test(recorded)

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        write_outputs(directory, record)

    def result(self, *fields) -> "LeagueResult":
        return LeagueResult(*fields)


def design_labels(design: tuple[tuple[int, ...], ...], labels: list[str]) -> list[list[str]]:
    return [[labels[index] for index in table] for table in design]


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


def chunk_stats(config: LeagueConfig, batch: GameBatch) -> dict:
    """Additive sums for the summary: the ratings' (sim.stats.ratings.deal_stats) and per label."""
    mirrored = bool(config.mirrored)
    table_ids = batch.table_ids[:: config.rotations].astype(np.int64)
    ratings = deal_stats(position_values(batch, mirrored), table_ids, config.design, len(config.labels))
    figures = seat_figures(label_seats(list(config.policies), config.labels, batch), config.labels, batch)
    return {"deals": ratings["deals"], "ratings": ratings, "labels": figures}


def rating_sums(config: dict) -> RatingSums:
    """Empty sums for a league's configuration as run.json holds it (no policy imported)."""
    labels = list(config["policies"])
    return RatingSums(labels, league_design(len(labels), config["rules"]["players"]))


def sequential_test(config: dict) -> SequentialTest | None:
    """The SPRT of a league (its configuration as in run.json): the first two listed policies,
    on their rating difference; None without --sprt."""
    sprt = Sprt.of(config.get("sprt"))
    if sprt is None:
        return None
    labels = list(config["policies"])
    return SequentialTest(sprt, rating_sums(config), (labels[0], labels[1]))


def summarize_league(record: dict) -> tuple[list[dict], list[dict]]:
    """Ratings (best first) and pairwise rows of a (possibly partial) league."""
    config = record["config"]
    complete = record["chunks"]["complete"]
    chunks = [complete[index] for index in sorted(complete, key=int)]  # in chunk order: exact sums
    labels = list(config["policies"])
    sums = rating_sums(config)
    for chunk in chunks:
        sums.add(chunk)
    fit = sums.fit()
    ratings = []
    for index, label in enumerate(labels):
        totals = {key: sum(chunk["labels"][label][key] for chunk in chunks) for key in chunks[0]["labels"][label]}
        figures = policy_figures(totals["seat_games"], totals["win_share"], totals["bids"], totals["exact_bids"],
                                 totals["abs_error_sum"])  # fmt: skip
        low, high = fit.interval(index)
        ratings.append(
            {
                "policy": label,
                "rating": float(fit.ratings[index]),
                "ci_low": low,
                "ci_high": high,
                "games": totals["seat_games"],
                "mean_score": totals["total_sum"] / totals["seat_games"],
                "bid_accuracy": figures["bid_accuracy"],
                "win_rate": figures["win_rate"],
                "mean_abs_error": figures["mean_abs_error"],
            }
        )
    pairs = []
    for (a, label_a), (b, label_b) in itertools.combinations(enumerate(labels), 2):
        difference, variance = fit.difference(a, b)
        half = Z_95 * math.sqrt(variance) if variance >= 0 else math.nan
        low, high = difference - half, difference + half
        met, head, head_low, head_high = sums.head_to_head(a, b)
        pairs.append(
            {
                "policy_a": label_a,
                "policy_b": label_b,
                "difference": difference,
                "ci_low": low,
                "ci_high": high,
                "significant": significant(low, high),
                "deals_met": met,
                "head_to_head": head,
                "head_to_head_ci_low": head_low,
                "head_to_head_ci_high": head_high,
                "verdict": verdict(label_a, label_b, difference, low, high),
            }
        )
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


# -- running ----------------------------------------------------------------------------------
@dataclass
class LeagueResult(RunResult):
    @property
    def deals_computed(self) -> int:
        return self.units_computed

    @property
    def summary(self) -> tuple[list[dict], list[dict]]:
        """(ratings best first, pairwise rows)."""
        return summarize_league(self.record)


# The one start and resume of every run (sim.runs.executors), under the command's names.
league = run


def resume_league(out: str, **options) -> LeagueResult:
    """Finish the interrupted league in `out`: sim.runs.executors.resume for a LeagueConfig
    (its options: threads, batch, on_progress, executor, policies)."""
    return resume(out=out, kind=LeagueConfig, **options)
