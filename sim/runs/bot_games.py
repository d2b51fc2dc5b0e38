"""A run's games with Python policies: a pool of games stepped in the kernels (kernels.bot_pool)
until Python seats must decide; each bot is then asked once for all of that step's turns
(sim.engine.bot_caller.BotTable.ask_turns).

The built-in seats, and the decisions a bot does not take (its DECISIONS) or hands back
(DELEGATE), are played inside the kernels by the seat's seated policies, with the random
numbers run_games draws. So a game is a pure function of (seed, game id, seating) and of the
bots' answers: for a deterministic bot, neither the pool's size (`batch`) nor the thread count
changes the data.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from kernels import bot_pool as seat_driver
from kernels.game_state import GAME_STATE_DTYPE, Turns, init_states
from kernels.records import MAX_PLAYERS
from kernels.results import GameResults
from sim.config.limits import check_count
from sim.config.rules import Rules
from sim.engine.bot_caller import BotTable, new_turns
from sim.engine.seating import Seating

DEFAULT_BATCH = 8192  # games in play at once (measured: benchmarks/bench_python_bots.py --deals 8000)
MAX_BATCH = 2**15  # about 7 KB of state, observation and mask per game in play: 230 MB
# On more than one thread the pool is played as PIPELINE_PARTS parts (at least
# PIPELINE_MIN_ENVS games each), each stepped by a single-threaded kernel on one of the run's
# threads while this thread asks the bots for another part.
PIPELINE_PARTS = 4
PIPELINE_MIN_ENVS = 32

KernelCall = Callable[..., None]  # sim.engine.calls.call_kernel(kernel, seating, *arguments)


def check_batch(batch: object) -> int:
    """The pool size: games in play at once (None: the default)."""
    return DEFAULT_BATCH if batch is None else check_count(batch, "batch", 1, MAX_BATCH)


class SeatedGames(NamedTuple):
    """The rows of a batch with a seating per row."""

    game_ids: np.ndarray  # [n] the game (deal) each row plays
    seatings: np.ndarray  # [n, players] the index of the listed policy at each seat
    seen_ids: np.ndarray  # [n] the id the bots see the row's game by (its id in the run's data)


def listed_arrays(listed: Seating) -> seat_driver.Listed:
    """Policy ids, parameter rows and decisions asked of Python per listed policy: a Python
    policy is seated as its fallback and asked the decision kinds of its DECISIONS."""
    return seat_driver.Listed(listed.ids, listed.params, listed.asked)


def finished_rows(before: np.ndarray, after: np.ndarray, stride: int, n_rows: int) -> np.ndarray:
    """Rows finished between two kernel calls: env i plays rows before[i], before[i] + stride,
    ... up to (not including) after[i], or to the end once it is done (NO_ROW)."""
    changed = np.flatnonzero((before != seat_driver.NO_ROW) & (after != before))
    if changed.size == 0:
        return changed
    starts = before[changed]
    ends = np.where(after[changed] == seat_driver.NO_ROW, n_rows, after[changed])
    counts = (ends - starts + stride - 1) // stride
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + stride * offsets


@dataclass
class RowsToPlay:
    """What every part of the pool shares: the rows to play, their bots and where their
    results go."""

    listed: Seating
    games: seat_driver.Rows  # the game each row plays and its seating
    seen_ids: np.ndarray  # the game id each row has for the bots [n]
    results: GameResults
    call: KernelCall
    bots: BotTable
    seat_bot: np.ndarray  # [n, players]: the bot at each seat of each row, -1 for built-in seats
    arrays: seat_driver.Listed  # listed_arrays(listed)

    @property
    def rows(self) -> int:
        return self.games.game_ids.shape[0]


class Part:
    """Envs `envs` of a pool of `stride` envs (env k plays rows k, k + stride, ...), less those
    whose rows are all played (drop_finished): their game states, their rows and the buffers
    of the decisions they wait for."""

    def __init__(self, shared: RowsToPlay, rules: Rules, seed: int, envs: range, stride: int) -> None:
        self.shared = shared
        size = len(envs)
        self.states = np.zeros(size, dtype=GAME_STATE_DTYPE)
        init_states(self.states, rules.to_record(), shared.listed.arrays, seed, rules.round_sizes_array(),
                    np.zeros(MAX_PLAYERS, dtype=np.int64), stride)  # fmt: skip
        self.states["records"] = 1
        self.rows = np.arange(envs.start, envs.stop, dtype=np.int64)
        self.schedule = seat_driver.Schedule(self.rows, stride)
        self.turns = new_turns(size)
        self.started = False
        self.before = self.rows.copy()

    def advance(self) -> None:
        """One kernel step: start the games, or apply the answers; play until asked."""
        shared = self.shared
        self.before[:] = self.rows
        shared.call(seat_driver.run_envs, shared.listed, self.states, not self.started, self.schedule,
                    shared.games, shared.arrays, shared.results, self.turns)  # fmt: skip
        self.started = True

    def ask(self) -> bool:
        """Tell the bots which of their games ended, then ask each bot once for every decision
        this part waits for; False once every row of the part is played."""
        shared = self.shared
        if shared.bots.has_game_over:
            done = finished_rows(self.before, self.rows, self.schedule.stride, shared.rows)
            if done.size:
                notify_game_over(shared, done)
        if (self.rows == seat_driver.NO_ROW).any():
            self.drop_finished()
        turns = self.turns
        if turns.seats.shape[0] == 0:
            return False
        shared.bots.ask_turns(shared.seat_bot[self.rows, turns.seats], shared.seen_ids[self.rows], turns)
        return True

    def drop_finished(self) -> None:
        """Keep only the envs with rows left to play (every one of them waits for a decision),
        so that a bot holding every seat asked gets the buffers themselves, never a copy of
        the rows still in play, and no step visits a finished env again."""
        live = self.rows != seat_driver.NO_ROW
        self.states = self.states[live]
        self.rows = self.rows[live]
        self.before = self.rows.copy()
        self.schedule = seat_driver.Schedule(self.rows, self.schedule.stride)
        self.turns = Turns(*(field[live] for field in self.turns))


def play_with_bots(
    rules: Rules,
    listed: Seating,
    seed: int,
    games: SeatedGames,
    results: GameResults,
    call: KernelCall,
    batch: int | None = None,
) -> None:
    """Play every row of `games` (seatings: indices into `listed`) into `results` (the
    records play_games fills, indexed by row) with at most `batch` games in play at once.

    On more than one thread the pool is played in parts (pipeline_parts): the run's threads
    each step a part at a time (a single-threaded kernel that releases the GIL) while this
    thread asks the bots for a part already stepped, so the bots' Python and the kernels run
    side by side, with no thread waiting at a parallel loop's barrier."""
    game_ids, seatings, seen_ids = games.game_ids, games.seatings, games.seen_ids
    n_rows = game_ids.shape[0]
    pool = min(check_batch(batch), n_rows)
    bots = BotTable(listed)
    rows = seat_driver.Rows(game_ids, np.ascontiguousarray(seatings, dtype=np.int64))
    shared = RowsToPlay(listed, rows, seen_ids, results, call, bots, bots.bot_of_listed[seatings], listed_arrays(listed))
    threads = numba.get_num_threads()
    parts = [Part(shared, rules, seed, envs, pool) for envs in pipeline_parts(pool, threads)]
    if len(parts) == 1:
        part = parts[0]
        part.advance()
        while part.ask():
            part.advance()
        return
    kernels = ThreadPoolExecutor(threads, "wizard-sim-pool")
    try:
        # Round robin: while this thread asks for part k, the kernel threads step the others.
        stepped = [kernels.submit(part.advance) for part in parts]
        while parts:
            for index, part in enumerate(parts):
                stepped[index].result()
                stepped[index] = kernels.submit(part.advance) if part.ask() else None
            parts = [part for part, step in zip(parts, stepped) if step is not None]
            stepped = [step for step in stepped if step is not None]
    finally:
        # On an error or Ctrl-C: no queued step starts; the running ones (milliseconds) end.
        kernels.shutdown(wait=True, cancel_futures=True)


def pipeline_parts(pool: int, threads: int) -> list[range]:
    """The envs of each part of a pool of `pool` games on `threads` threads: one part on one
    thread (or for a small pool), else PIPELINE_PARTS (one more than the threads at least,
    so that one is asked while every thread steps another) of at least PIPELINE_MIN_ENVS."""
    wanted = 1 if threads == 1 else max(PIPELINE_PARTS, threads + 1)
    count = max(1, min(wanted, pool // PIPELINE_MIN_ENVS))
    bounds = [pool * k // count for k in range(count + 1)]
    return [range(bounds[k], bounds[k + 1]) for k in range(count)]


def notify_game_over(shared: RowsToPlay, rows: np.ndarray) -> None:
    """Tell the bots which of their games ended (rows: their rows of the batch): game ids,
    their seats and the final totals [m, players] of every (game, seat) a bot held."""
    row_index, seats = np.nonzero(shared.seat_bot[rows] >= 0)
    if row_index.size == 0:
        return
    finished = rows[row_index]
    totals = shared.results.games["total"][finished].astype(np.int64)
    shared.bots.games_over(shared.seat_bot[finished, seats], shared.seen_ids[finished], seats.astype(np.int64), totals)


def seating_rows(players: int, games: int) -> np.ndarray:
    """[games, players]: every row seats listed policy s at seat s (run_games)."""
    return np.broadcast_to(np.arange(players, dtype=np.int64), (games, players))
