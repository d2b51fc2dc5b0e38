"""`simulate`: many games to a Parquet dataset, streamed in chunks, atomic and resumable."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from sim.config.errors import ConfigError
from sim.config.limits import MAX_CHUNK_BYTES, MAX_CHUNKS, MAX_GAMES, check_count
from sim.policies.registry import Policy, check_policy_texts, parse_policies, policy_list
from sim.config.rules import Rules
from sim.config.seeds import check_seed, draw_seed
from sim.runs.executors import FinishedChunk, RunResult, run
from sim.runs.executors import resume as resume_run
from sim.runs.games import GameBatch, run_games
from sim.runs.run_config import RecordedConfig, check_flags
from sim.runs.tables import batch_tables
from sim.stats.sums import policy_figures
from sim.storage import SIZE_FIELDS

CHUNK_BYTES = 128 * 2**20  # memory per chunk in flight (two at most); bounds peak memory
BYTES_PER_ROUND_ROW = 50  # kernel record, Arrow columns and conversion temporaries
BYTES_PER_PLAY_ROW = 40
MAX_CHUNK_GAMES = 100_000


def bytes_per_game(rules: Rules, log_plays: bool) -> int:
    """Estimated memory of one game's results while its chunk is computed and written."""
    per_game = BYTES_PER_ROUND_ROW * rules.players * len(rules.round_sizes)
    if log_plays:
        per_game += BYTES_PER_PLAY_ROW * rules.plays_per_game()
    return per_game


def default_chunk_games(rules: Rules, log_plays: bool) -> int:
    """Games per chunk such that a chunk takes about CHUNK_BYTES of memory."""
    return int(max(1, min(MAX_CHUNK_GAMES, CHUNK_BYTES // bytes_per_game(rules, log_plays))))


def check_run_size(rules: Rules, log_plays: bool, games: object, chunk: object, games_per_unit: int = 1) -> tuple[int, int]:
    """Check a run of `games` units (games, or deals of `games_per_unit` games) in chunks of
    `chunk` units (None: the default) against the limits (docs/runs.md, Options), before
    anything is allocated or written; the run's (units, units per chunk)."""
    games = check_count(games, "games", 1, MAX_GAMES)
    largest = max(1, MAX_CHUNK_BYTES // (bytes_per_game(rules, log_plays) * games_per_unit))
    if chunk is None:
        chunk = max(1, default_chunk_games(rules, log_plays) // games_per_unit)
    chunk = min(check_count(chunk, "chunk-games", 1, largest), games)
    chunks = -(-games // chunk)
    if chunks > MAX_CHUNKS:
        raise ConfigError(
            f"{games:,} games in chunks of {chunk:,} make {chunks:,} chunks, more than {MAX_CHUNKS:,}: raise --chunk-games"
            f" (up to {largest:,} for these rules)"
        )
    return games, chunk


@dataclass(frozen=True)
class SimulationConfig(RecordedConfig):
    """Everything that defines a simulate run's data: the dataset is a pure function of it."""

    command: ClassVar[str] = "simulate"
    size_fields: ClassVar[tuple[str, str]] = SIZE_FIELDS["simulate"]
    rules: Rules
    policies: tuple[Policy, ...]
    seed: int
    games: int
    chunk_games: int
    log_plays: bool = False

    @classmethod
    def build(
        cls,
        rules: Rules,
        policies: str | list,
        *,
        seed: int | None,
        games: int,
        chunk_games: int | None = None,
        log_plays: bool = False,
        imports: bool = True,
    ) -> "SimulationConfig | None":
        """imports=False: only the checks that need no policy module imported (None)."""
        check_flags(log_plays=log_plays)
        games, chunk_games = check_run_size(rules, log_plays, games, chunk_games)
        seed = draw_seed() if seed is None else check_seed(seed)
        if not imports:
            check_policy_texts(policy_list(policies, rules.players))
            return None
        return cls(rules, tuple(parse_policies(policies, rules.players)), seed, games, chunk_games, log_plays)

    def compute_chunk(self, first: int, games: int, threads: int | None = None, batch: int | None = None) -> GameBatch:
        return run_games(
            self.rules, self.seating, seed=self.seed, games=games, first_game=first,
            log_plays=self.log_plays, threads=threads, batch=batch,
        )  # fmt: skip

    def finish_chunk(self, batch: GameBatch) -> FinishedChunk:
        return FinishedChunk(batch_tables(batch, self.log_plays), batch_stats(batch))

    def result(self, *fields) -> "SimulationResult":
        return SimulationResult(*fields)


def batch_stats(batch: GameBatch) -> dict:
    """Per policy label: seat-games, sum of final totals, wins, bids, exact bids, sum |bid - tricks|."""
    stats: dict[str, list[int]] = {}
    bids = batch.seats["bid"].astype(np.int16)
    errors = np.abs(bids - batch.seats["tricks"])
    for seat, policy in enumerate(batch.policies):
        entry = stats.setdefault(policy.label, [0, 0, 0, 0, 0, 0])
        seat_errors = errors[:, :, seat]
        entry[0] += batch.games.shape[0]
        entry[1] += int(batch.games["total"][:, seat].sum(dtype=np.int64))
        entry[2] += int(batch.games["winner"][:, seat].sum())
        entry[3] += seat_errors.size
        entry[4] += int((seat_errors == 0).sum())
        entry[5] += int(seat_errors.sum(dtype=np.int64))
    return stats


STAT_FIELDS = ("seat_games", "total_sum", "wins", "bids", "exact_bids", "abs_error_sum")


def summarize_simulation(record: dict) -> list[dict]:
    """Per policy: mean final score, win rate, bid accuracy, mean |bid - tricks| (whole run)."""
    sums: dict[str, np.ndarray] = {}
    for chunk in record["chunks"]["complete"].values():
        for label, values in chunk.items():
            sums[label] = sums.get(label, np.zeros(len(STAT_FIELDS), dtype=np.int64)) + np.array(values, np.int64)
    rows = []
    for label, values in sums.items():
        entry = dict(zip(STAT_FIELDS, (int(value) for value in values)))
        rows.append(
            {
                "policy": label,
                "seat_games": entry["seat_games"],
                "mean_score": entry["total_sum"] / entry["seat_games"],
                **policy_figures(
                    entry["seat_games"], entry["wins"], entry["bids"], entry["exact_bids"], entry["abs_error_sum"]
                ),
            }
        )
    return rows


@dataclass
class SimulationResult(RunResult):
    @property
    def summary(self) -> list[dict]:
        return summarize_simulation(self.record)


# The one start and resume of every run (sim.runs.executors), under simulate's names.
simulate = run


def resume(out: str, **options) -> SimulationResult:
    """Finish the interrupted simulate run in `out`: sim.runs.executors.resume for a
    SimulationConfig (its options: threads, batch, on_progress, executor, policies)."""
    return resume_run(SimulationConfig, out, **options)
