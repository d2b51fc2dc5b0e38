"""`tournament`: compare policies on duplicate deals, with paired confidence intervals.

Duplicate format (default): every deal (all the cards of every round of a game, which depend
only on (seed, deal)) is played once per seat rotation. In rotation k seat s is played by the
policy listed at (s + k) mod N, so every listed policy holds every seat's cards of every deal,
cancelling the luck of the deal. Without duplicates each game is a fresh deal with a uniformly
random seating (kernels/seating.py).

Rows: game_id = deal_id * N + rotation (duplicate) or deal_id (no duplicate, rotation -1).

Statistics, per deal d and policy P: x[d, P] = mean final score of P's seats in the games of
deal d. Deals are independent, so the mean over deals of x[., P] and of the paired
differences x[., A] - x[., B] have normal 95% intervals from their sums and sums of squares,
which add up chunk by chunk (kept in run.json, so a resumed run reports the same figures).
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pyarrow as pa

from kernels.seating import random_seatings
from sim.config.errors import BotError, ConfigError
from sim.config.policies import Policy, parse_policies, python_seats, split_policy_list
from sim.config.rules import Rules
from sim.config.seeds import check_seed, draw_seed
from sim.runs.executors import (
    Executor,
    FinishedChunk,
    ProgressCallback,
    RunOptions,
    checked_executor,
    execute,
    reopen_run,
    start_run,
)
from sim.runs.games import GameBatch, GameFailure, call_kernel, empty_results, run_games, set_threads
from sim.runs.python_seats import check_batch, play_with_bots
from sim.runs.simulation import check_run_size
from sim.runs.statistics import normal_interval, policy_figures
from sim.runs.tables import batch_tables, table_names
from sim.storage import RunDirectory, RunError, chunk_range, chunk_ranges, config_metadata, write_json, write_parquet

NO_ROTATION = -1
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
class TournamentConfig:
    """A tournament's data is a pure function of this."""

    command: ClassVar[str] = "tournament"
    rules: Rules
    policies: tuple[Policy, ...]  # the listed policies; seat s of rotation k plays (s + k) mod N
    seed: int
    deals: int
    chunk_deals: int
    duplicate: bool = True
    log_plays: bool = False

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
    ) -> "TournamentConfig":
        names = split_policy_list(policies) if isinstance(policies, str) else list(policies)
        if len(names) != rules.players:
            raise ConfigError(f"got {len(names)} policies for {rules.players} players: list one per seat")
        for name, flag in (("duplicate", duplicate), ("log_plays", log_plays)):
            if not isinstance(flag, bool):
                raise ConfigError(f"{name} must be true or false, got {flag!r}")
        rotations = rules.players if duplicate else 1
        deals, chunk_deals = check_run_size(rules, log_plays, deals, chunk_deals, rotations)
        seed = draw_seed() if seed is None else check_seed(seed)
        parsed = tuple(parse_policies(names, rules.players))
        if len({policy.label for policy in parsed}) < 2:
            raise ConfigError("a tournament needs at least two different policies")
        return cls(rules, parsed, seed, deals, chunk_deals, duplicate, log_plays)

    @property
    def rotations(self) -> int:
        return self.rules.players if self.duplicate else 1

    @property
    def labels(self) -> list[str]:
        """Distinct policy labels, in listing order."""
        return list(dict.fromkeys(policy.label for policy in self.policies))

    @property
    def tables(self) -> tuple[str, ...]:
        return table_names(self.log_plays)

    def chunk_ranges(self) -> list[tuple[int, int]]:
        return chunk_ranges(self.deals, self.chunk_deals)

    @property
    def size(self) -> tuple[int, int]:
        return self.deals, self.chunk_deals

    def chunk_range(self, index: int) -> tuple[int, int]:
        return chunk_range(self.deals, self.chunk_deals, index)

    def compute_chunk(
        self, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None
    ) -> GameBatch:
        return play_chunk(self, first_deal, deals, threads, batch)

    def finish_chunk(self, batch: GameBatch) -> FinishedChunk:
        return FinishedChunk(batch_tables(batch, self.log_plays), chunk_stats(self, batch))

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.to_dict(),
            "policies": [policy.label for policy in self.policies],
            "seed": self.seed,
            "deals": self.deals,
            "chunk_deals": self.chunk_deals,
            "duplicate": self.duplicate,
            "log_plays": self.log_plays,
        }

    @classmethod
    def from_dict(cls, data: dict) -> "TournamentConfig":
        return cls.build(
            Rules.from_dict(data["rules"]),
            list(data["policies"]),
            seed=data["seed"],
            deals=data["deals"],
            chunk_deals=data["chunk_deals"],
            duplicate=data["duplicate"],
            log_plays=data["log_plays"],
        )


def seatings_of(config: TournamentConfig, deal_ids: np.ndarray) -> np.ndarray:
    """[games, seats] index of the listed policy at each seat, games in row order."""
    n = config.rules.players
    if config.duplicate:
        rotation = np.arange(n)[:, None]
        per_rotation = (np.arange(n)[None, :] + rotation) % n  # [rotation, seat]
        return np.tile(per_rotation, (deal_ids.shape[0], 1))
    seatings = np.zeros((deal_ids.shape[0], n), dtype=np.int64)
    random_seatings(config.seed, deal_ids, seatings)
    return seatings


def play_chunk(
    config: TournamentConfig, first_deal: int, deals: int, threads: int | None = None, batch: int | None = None
) -> GameBatch:
    """Every game of deals first_deal.. first_deal+deals-1, rows ordered (deal, rotation);
    `batch`: games in play at once when Python policies play (never changes the data)."""
    deal_ids = np.arange(first_deal, first_deal + deals, dtype=np.int64)
    rotations = config.rotations
    deal_of_row = np.repeat(deal_ids, rotations)
    seating = seatings_of(config, deal_ids)
    if config.duplicate:
        game_ids = deal_of_row * rotations + np.tile(np.arange(rotations), deals)
        rotation_column = np.tile(np.arange(rotations, dtype=np.int8), deals)
    else:
        game_ids = deal_of_row
        rotation_column = np.full(deals, NO_ROTATION, dtype=np.int8)
    results = empty_results(config.rules, deals * rotations, config.log_plays)
    listed = list(config.policies)
    if python_seats(listed):
        # Every row in one pool, whatever its seating: each bot is asked for all its rows at
        # once, and sees each game by its game_id.
        check_batch(batch)
        set_threads(threads)
        play_with_bots(config.rules, listed, config.seed, (deal_of_row, seating, game_ids), results, call_kernel, batch)
    else:
        play_seatings(config, deal_of_row, seating, results, threads)
    return GameBatch(config.rules, listed, config.seed, game_ids, *results, seating, deal_of_row, rotation_column)


def play_seatings(
    config: TournamentConfig, deal_of_row: np.ndarray, seating: np.ndarray, results: tuple, threads: int | None
) -> None:
    """Built-in policies only: one kernel batch per distinct seating. Rotation k is rows k::N;
    random seatings are grouped (at most N! groups). The deals depend only on the deal id, so
    each game is the same whichever batch plays it."""
    rotations = config.rotations
    if config.duplicate:
        groups = [(seating[k], slice(k, None, rotations)) for k in range(rotations)]
    else:
        unique_seatings, group_of_row = np.unique(seating, axis=0, return_inverse=True)
        groups = [(order, np.flatnonzero(group_of_row.ravel() == g)) for g, order in enumerate(unique_seatings)]
    for group, (order, rows) in enumerate(groups):
        try:
            batch = run_games(
                config.rules,
                [config.policies[index] for index in order],
                seed=config.seed,
                game_ids=deal_of_row[rows],
                log_plays=config.log_plays,
                threads=threads,
            )
        except GameFailure as failure:  # its game is the deal: name the tournament's game too
            deal = failure.game
            place = f"game {deal * rotations + group} (deal {deal})" if config.duplicate else f"game {deal}"
            raise BotError(failure.at(place)) from None
        for target, source in zip(results, (batch.rounds, batch.seats, batch.games, batch.plays)):
            target[rows] = source


# -- statistics -------------------------------------------------------------------------------
def seat_labels_of(config: TournamentConfig, batch: GameBatch) -> np.ndarray:
    """[games, seats] index into config.labels of the policy at each seat."""
    labels = config.labels
    label_of_policy = np.array([labels.index(policy.label) for policy in config.policies])
    return label_of_policy[batch.seating]


def per_deal_scores(config: TournamentConfig, batch: GameBatch) -> np.ndarray:
    """x[d, P]: mean final score of label P's seats in all games of deal d (rows of a chunk
    are ordered deal, rotation)."""
    seat_labels = seat_labels_of(config, batch)
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
    seat_labels = seat_labels_of(config, batch)
    x = per_deal_scores(config, batch)
    winners = batch.games["winner"]
    win_share = winners / winners.sum(axis=1, keepdims=True)
    bids = batch.seats["bid"].astype(np.int16)
    errors = np.abs(bids - batch.seats["tricks"])  # [games, rounds, seats]
    stats: dict = {"deals": x.shape[0], "labels": {}, "pairs": {}}
    for label_index, label in enumerate(labels):
        seated = seat_labels == label_index
        seat_errors = errors.transpose(0, 2, 1)[seated]  # [seat-games, rounds]
        stats["labels"][label] = {
            "seat_games": int(seated.sum()),
            "win_share": float(win_share[seated].sum()),
            "bids": int(seat_errors.size),
            "exact_bids": int((seat_errors == 0).sum()),
            "abs_error_sum": int(seat_errors.sum(dtype=np.int64)),
        }
    for label_index, label in enumerate(labels):
        stats["labels"][label]["score_sum"] = float(x[:, label_index].sum())
        stats["labels"][label]["score_sq_sum"] = float((x[:, label_index] ** 2).sum())
    for (a, label_a), (b, label_b) in itertools.permutations(enumerate(labels), 2):
        difference = x[:, a] - x[:, b]
        stats["pairs"][f"{label_a}\t{label_b}"] = [float(difference.sum()), float((difference**2).sum())]
    return stats


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
        significant = bool(low > 0 or high < 0)
        pairs.append(
            {
                "policy_a": label_a,
                "policy_b": label_b,
                "difference": mean,
                "ci_low": low,
                "ci_high": high,
                "significant": significant,
                "verdict": verdict(label_a, label_b, mean, low, high, significant),
            }
        )
    return policies, pairs


def verdict(label_a: str, label_b: str, mean: float, low: float, high: float, significant: bool) -> str:
    if not significant:
        return (
            f"no significant difference between {label_a} and {label_b}"
            f" ({label_a} - {label_b}: {mean:+.1f} points per game, 95% CI {low:+.1f} to {high:+.1f})"
        )
    if mean > 0:
        return f"{label_a} beats {label_b} by {mean:.1f} points per game (95% CI {low:.1f} to {high:.1f})"
    return f"{label_b} beats {label_a} by {-mean:.1f} points per game (95% CI {-high:.1f} to {-low:.1f})"


# -- running ----------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    out: str
    record: dict
    deals_computed: int
    games_computed: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games_computed / self.seconds if self.seconds > 0 else float("nan")

    @property
    def summary(self) -> tuple[list[dict], list[dict]]:
        return summarize_tournament(self.record)


def write_summary(directory: RunDirectory, record: dict) -> None:
    policies, pairs = summarize_tournament(record)
    summary = {"config": record["config"], "policies": policies, "pairs": pairs}
    try:
        write_json(directory.path / "summary.json", summary)
        rows = [{"table": "policies", **row} for row in policies] + [{"table": "pairs", **row} for row in pairs]
        table = pa.Table.from_pylist(rows, schema=SUMMARY_SCHEMA)
        write_parquet(directory.path / "summary.parquet", table, config_metadata(record["config"]))
    except OSError as error:
        raise RunError(f"writing the summary failed: {error.strerror or error}") from None


def _run(config: TournamentConfig, directory: RunDirectory, record: dict, options: RunOptions) -> TournamentResult:
    on_progress = options.on_progress

    def games_progress(deals_done: int, deals_total: int) -> None:
        # A run's chunks count deals; its callers count games, as its summary does.
        on_progress(deals_done * config.rotations, deals_total * config.rotations)

    start = time.perf_counter()
    try:
        progress = games_progress if on_progress else None
        deals = execute(config, directory, record, replace(options, on_progress=progress))
        write_summary(directory, record)
    finally:
        directory.release()
    seconds = time.perf_counter() - start
    return TournamentResult(str(directory.path), record, deals, deals * config.rotations, seconds)


def tournament(
    config: TournamentConfig,
    out: str,
    *,
    overwrite: bool = False,
    threads: int | None = None,
    batch: int | None = None,
    on_progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> TournamentResult:
    """Play the tournament `config` into `out` (refused when not empty, unless overwrite) on
    `executor` (default: LocalExecutor, this process); `threads` kernel threads per chunk,
    `batch` games in play at once with Python policies (neither changes the data).
    `on_progress` is called with games done and games in all."""
    executor = checked_executor(executor, threads, config)
    check_batch(batch)
    directory, record = start_run(config, out, overwrite, config.deals, config.chunk_deals)
    return _run(config, directory, record, RunOptions(executor, threads, batch, on_progress))


def resume_tournament(
    out: str,
    *,
    threads: int | None = None,
    batch: int | None = None,
    on_progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> TournamentResult:
    """Finish the interrupted tournament in `out`; the result equals an uninterrupted one."""
    executor = checked_executor(executor, threads)
    check_batch(batch)
    config, directory, record = reopen_run(TournamentConfig, out)
    return _run(config, directory, record, RunOptions(executor, threads, batch, on_progress))
