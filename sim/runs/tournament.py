"""`tournament`: compare policies on duplicate deals, with paired confidence intervals.

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
from sim.config.policies import Policy, check_policy_texts, parse_policies, split_policy_list
from sim.config.rules import Rules
from sim.config.seeds import check_seed, draw_seed
from sim.engine.startup import start
from sim.runs.table_engine import (
    DealRows,
    duplicate_rows,
    label_seats,
    mirror_balances,
    play_deal_rows,
    seat_figures,
    single_rows,
)
from sim.runs.executors import FinishedChunk, RunResult, resume, run
from sim.runs.games import GameBatch
from sim.runs.run_config import RecordedConfig, check_flags
from sim.runs.simulation import check_run_size
from sim.runs.tables import batch_tables
from sim.stats.pairs import PairSums, significant, verdict
from sim.stats.sprt import LOOK_DEALS, SequentialTest, Sprt
from sim.stats.sums import normal_interval, policy_figures
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
        ("policy_a", pa.string()),
        ("policy_b", pa.string()),
        ("difference", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("significant", pa.bool_()),
        ("verdict", pa.string()),
    ]
)


@dataclass(frozen=True)
class TournamentConfig(RecordedConfig):
    """A tournament's data is a pure function of this."""

    command: ClassVar[str] = "tournament"
    size_fields: ClassVar[tuple[str, str]] = SIZE_FIELDS["tournament"]
    rules: Rules
    policies: tuple[Policy, ...]  # the listed policies; seat s of rotation k plays (s + k) mod N
    seed: int
    deals: int
    chunk_deals: int
    duplicate: bool = True
    log_plays: bool = False
    sprt: Sprt | None = None  # stop when the first listed policy's edge over the second is known
    # True: the rotations and their mirror images (sim.runs.table_engine); None, not False, when off,
    # so that the runs without it keep their recorded configuration and fingerprint. (build's
    # mirrored=None asks for the default: mirrored where mirror_balances.)
    mirrored: bool | None = None

    @classmethod
    def from_dict(cls, data: dict) -> "TournamentConfig":
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
    ) -> "TournamentConfig | None":
        """imports=False: only the checks that need no policy module imported (None)."""
        names = split_policy_list(policies) if isinstance(policies, str) else list(policies)
        if len(names) != rules.players:
            raise ConfigError(f"got {len(names)} policies for {rules.players} players: list one per seat")
        check_flags(duplicate=duplicate, log_plays=log_plays, mirrored=mirrored, optional=("mirrored",))
        if mirrored and not duplicate:
            raise ConfigError("mirrored seatings need duplicate deals: drop --no-duplicate or --mirror")
        # Every check that needs no import first: the policies named may be modules whose
        # import runs code (issue 61). Texts with one key name one policy.
        if len(set(check_policy_texts(names))) < 2:
            raise ConfigError("a tournament needs at least two different policies")
        sprt = Sprt.of(sprt)
        if sprt is not None and chunk_deals is None:
            chunk_deals = LOOK_DEALS  # the test looks after every chunk
        # The size with the fewest games a deal can have (mirror images are decided below, by the labels).
        check_run_size(rules, log_plays, deals, chunk_deals, rotations_per_deal(rules.players, duplicate, bool(mirrored)))
        seed = draw_seed() if seed is None else check_seed(seed)
        if not imports:
            return None
        parsed = tuple(parse_policies(names, rules.players))
        labels = [policy.label for policy in parsed]
        if len(set(labels)) < 2:
            raise ConfigError("a tournament needs at least two different policies")
        if mirrored is None:  # the default: mirror images where they balance the neighbours
            mirrored = duplicate and mirror_balances(labels)
        rotations = rotations_per_deal(rules.players, duplicate, mirrored)
        deals, chunk_deals = check_run_size(rules, log_plays, deals, chunk_deals, rotations)
        return cls(rules, parsed, seed, deals, chunk_deals, duplicate, log_plays, sprt, True if mirrored else None)

    @property
    def rotations(self) -> int:
        return rotations_per_deal(self.rules.players, self.duplicate, bool(self.mirrored))

    @property
    def labels(self) -> list[str]:
        """Distinct policy labels, in listing order."""
        return list(dict.fromkeys(policy.label for policy in self.policies))

    def compute_chunk(
        self, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None
    ) -> GameBatch:
        return play_chunk(self, first_deal, deals, threads, batch)

    def finish_chunk(self, batch: GameBatch) -> FinishedChunk:
        return FinishedChunk(batch_tables(batch, self.log_plays), chunk_stats(self, batch))

    @property
    def games_per_unit(self) -> int:
        return self.rotations

    def stop_test(self, recorded: dict) -> SequentialTest | None:
        return sequential_test(recorded)

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        write_summary(directory, record)

    def result(self, *fields) -> "TournamentResult":
        return TournamentResult(*fields)


def rotations_per_deal(players: int, duplicate: bool, mirrored: bool) -> int:
    """Games per deal: one per rotation (and its mirror image), or one without duplicates."""
    return (2 * players if mirrored else players) if duplicate else 1


def deal_rows(config: TournamentConfig, deal_ids: np.ndarray) -> DealRows:
    """The games of deals `deal_ids`: every rotation of the listed order, or (without
    duplicates) one game per deal with a uniformly random seating."""
    n = config.rules.players
    if config.duplicate:
        return duplicate_rows(deal_ids, np.broadcast_to(np.arange(n), (deal_ids.shape[0], n)), mirrored=bool(config.mirrored))
    seatings = np.zeros((deal_ids.shape[0], n), dtype=np.int64)
    start()  # before the first kernel of a Dask worker's chunk
    random_seatings(config.seed, deal_ids, seatings)
    return single_rows(deal_ids, seatings)


def play_chunk(
    config: TournamentConfig, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None
) -> GameBatch:
    """Every game of deals first_deal.. first_deal+deals-1, rows ordered (deal, rotation), in
    one batch whatever their seatings; `batch`: games in play at once when Python policies
    play (never changes the data)."""
    rows = deal_rows(config, np.arange(first_deal, first_deal + deals, dtype=np.int64))
    return play_deal_rows(config.rules, config.seating, config.seed, rows, config.log_plays, threads, batch)


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


def chunk_stats(config: TournamentConfig, batch: GameBatch) -> dict:
    """Additive sums for the summary: per label, and per ordered pair of labels."""
    labels = config.labels
    x = per_deal_scores(config, batch)
    figures = seat_figures(label_seats(list(config.policies), labels, batch), labels, batch)
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


def sequential_test(config: dict) -> SequentialTest | None:
    """The SPRT of a tournament (its configuration as in run.json): the first two distinct
    policies listed, on their paired per-deal difference; None without --sprt."""
    sprt = Sprt.of(config.get("sprt"))
    if sprt is None:
        return None
    labels = list(dict.fromkeys(config["policies"]))
    return SequentialTest(sprt, PairSums(), (labels[0], labels[1]))


def summarize_tournament(record: dict) -> tuple[list[dict], list[dict]]:
    """Per-policy rows and pairwise-difference rows of a (possibly partial) tournament."""
    # In chunk order, whatever order the chunks were written in: float sums are then exact to
    # the bit for every executor and every resume.
    complete = record["chunks"]["complete"]
    chunks = [complete[index] for index in sorted(complete, key=int)]
    deals = sum(chunk["deals"] for chunk in chunks)
    labels = list(dict.fromkeys(record["config"]["policies"]))
    policies = []
    for label in labels:
        sums = {key: sum(chunk["labels"][label][key] for chunk in chunks) for key in chunks[0]["labels"][label]}
        mean, low, high = normal_interval(sums["score_sum"], sums["score_sq_sum"], deals)
        policies.append(
            {
                "policy": label,
                "deals": deals,
                "seat_games": sums["seat_games"],
                "mean_score": mean,
                "mean_score_ci_low": low,
                "mean_score_ci_high": high,
                **policy_figures(
                    sums["seat_games"], sums["win_share"], sums["bids"], sums["exact_bids"], sums["abs_error_sum"]
                ),
            }
        )
    pairs = []
    for label_a, label_b in itertools.combinations(labels, 2):
        key = f"{label_a}\t{label_b}"
        total, squares = (sum(chunk["pairs"][key][k] for chunk in chunks) for k in (0, 1))
        mean, low, high = normal_interval(total, squares, deals)
        pairs.append(
            {
                "policy_a": label_a,
                "policy_b": label_b,
                "difference": mean,
                "ci_low": low,
                "ci_high": high,
                "significant": significant(low, high),
                "verdict": verdict(label_a, label_b, mean, low, high),
            }
        )
    return policies, pairs


# -- running ----------------------------------------------------------------------------------
@dataclass
class TournamentResult(RunResult):
    @property
    def deals_computed(self) -> int:
        return self.units_computed

    @property
    def summary(self) -> tuple[list[dict], list[dict]]:
        return summarize_tournament(self.record)


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
