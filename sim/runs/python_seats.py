"""Games with Python seats: a pool of games stepped in the kernels (kernels.python_seats) until
Python seats must decide; each bot is then asked once for all of that step's decisions.

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

import numba
import numpy as np

from kernels import python_seats as seat_driver
from kernels.game_state import GAME_STATE_DTYPE
from kernels.observation import N_ACTIONS, OBSERVATION_SIZE
from kernels.records import MAX_PLAYERS, NO_SEAT
from kernels.results import GameResults
from kernels.vector_env import init_states
from sim.config.limits import check_count
from sim.config.policies import Policy, policy_arrays
from sim.config.python_policy import BotCaller, Decisions
from sim.config.rules import Rules

DEFAULT_BATCH = 8192  # games in play at once (measured: benchmarks/bench_python_bots.py --deals 8000)
MAX_BATCH = 2**15  # about 7 KB of state, observation and mask per game in play: 230 MB
# Below this many games in play per thread a step runs on the calling thread: waking the
# thread pool costs more than the step (as sim.env.vector.VectorEnv).
PARALLEL_MIN_ENVS_PER_THREAD = 32
PIPELINE_MIN_ENVS = 32  # games per half of a pool played as two halves side by side
PARALLEL_CHUNK = 32  # envs a kernel thread takes at a time

KernelCall = Callable[..., None]  # sim.runs.games.call_kernel(kernel, policies, *arguments)


def check_batch(batch: object) -> int:
    """The pool size: games in play at once (None: the default)."""
    return DEFAULT_BATCH if batch is None else check_count(batch, "batch", 1, MAX_BATCH)


@dataclass
class SeatedBot:
    """One Python policy of a batch (its listed entries share one instance)."""

    policy: Policy
    caller: BotCaller
    listed: list[int]  # indices of the listed policies it is


def seat_bots(listed: list[Policy]) -> list[SeatedBot]:
    """An instance of every distinct Python policy among `listed`, created for this batch."""
    bots: dict[tuple, SeatedBot] = {}
    for index, policy in enumerate(listed):
        bot = policy.kind.python
        if bot is None:
            continue
        # By identity: a bot object's own == may compare arrays, or be missing (unhashable).
        key = (policy.label, id(bot.target), policy.params)
        if key not in bots:
            bots[key] = SeatedBot(policy, BotCaller(bot, bot.instantiate(policy.params), policy.label), [])
        bots[key].listed.append(index)
    return list(bots.values())


def asked_kinds(listed: list[Policy]) -> np.ndarray:
    """int64 [MAX_PLAYERS]: per listed policy, the bits of the decision kinds (DECIDE_*) a
    Python policy is asked, its DECISIONS; 0 for a built-in policy."""
    decisions = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for index, policy in enumerate(listed):
        if policy.kind.python is not None:
            decisions[index] = sum(1 << kind for kind in policy.kind.python.decisions)
    return decisions


def listed_arrays(listed: list[Policy]) -> seat_driver.Listed:
    """Policy ids, parameter rows and decisions asked of Python per listed policy: a Python
    policy is seated as its fallback and asked the decision kinds of its DECISIONS."""
    ids, params = policy_arrays(listed)
    return seat_driver.Listed(ids, params, asked_kinds(listed))


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

    listed: list[Policy]
    games: seat_driver.Rows  # the game each row plays and its seating
    seen_ids: np.ndarray  # the game id each row has for the bots [n]
    results: GameResults
    call: KernelCall
    bots: list[SeatedBot]
    seat_bot: np.ndarray  # [n, players]: the bot at each seat of each row, -1 for built-in seats
    arrays: seat_driver.Listed  # listed_arrays(listed)

    @property
    def rows(self) -> int:
        return self.games.game_ids.shape[0]


class Part:
    """Envs first .. first + size - 1 of a pool of `stride` envs (env k plays rows k, k + stride,
    ...): their game states, their rows and the buffers of the decisions they wait for."""

    def __init__(self, shared: RowsToPlay, rules: Rules, seed: int, envs: range, stride: int, threads: int) -> None:
        self.shared = shared
        size = len(envs)
        # Below PARALLEL_MIN_ENVS_PER_THREAD games a thread, waking the thread pool costs more
        # than the step.
        self.threads = threads if size >= PARALLEL_MIN_ENVS_PER_THREAD * threads else 1
        self.states = np.zeros(size, dtype=GAME_STATE_DTYPE)
        init_states(self.states, rules.to_record(), policy_arrays(shared.listed), seed, rules.round_sizes_array(),
                    np.zeros(MAX_PLAYERS, dtype=np.int64), stride)  # fmt: skip
        self.states["records"] = 1
        self.rows = np.arange(envs.start, envs.stop, dtype=np.int64)
        self.schedule = seat_driver.Schedule(self.rows, stride)
        self.exchange = seat_driver.Exchange(
            answers=np.zeros(size, dtype=np.int64),
            seats=np.full(size, NO_SEAT, dtype=np.int64),
            kinds=np.zeros(size, dtype=np.int64),
            round_sizes=np.zeros(size, dtype=np.int64),
            observations=np.zeros((size, OBSERVATION_SIZE), dtype=np.float32),
            masks=np.zeros((size, N_ACTIONS), dtype=np.bool_),
        )
        self.started = False
        self.before = self.rows.copy()

    def advance(self) -> None:
        """One kernel step: start the games, or apply the answers; play until asked."""
        shared = self.shared
        self.before[:] = self.rows
        previous = numba.get_num_threads()
        numba.set_num_threads(self.threads)
        try:
            shared.call(seat_driver.run_envs, shared.listed, self.states, not self.started, self.schedule, shared.games,
                        shared.arrays, shared.results, self.exchange, chunksize=PARALLEL_CHUNK)  # fmt: skip
        finally:
            numba.set_num_threads(previous)
        self.started = True

    def ask(self) -> bool:
        """Tell the bots which of their games ended, then ask each bot once for every decision
        this part waits for; False once every row of the part is played."""
        shared = self.shared
        if any(bot.caller.has_game_over for bot in shared.bots):
            done = finished_rows(self.before, self.rows, self.schedule.stride, shared.rows)
            if done.size:
                for number, bot in enumerate(shared.bots):
                    if bot.caller.has_game_over:
                        notify_game_over(bot.caller, done, shared.seat_bot[done] == number, shared.seen_ids, shared.results)
        exchange = self.exchange
        waiting = np.flatnonzero(exchange.seats != NO_SEAT)
        if waiting.size == 0:
            return False
        bot_of_env = np.full(exchange.seats.shape[0], -1, dtype=np.int64)
        bot_of_env[waiting] = shared.seat_bot[self.rows[waiting], exchange.seats[waiting]]
        context = Decisions(shared.seen_ids[self.rows], exchange.seats, exchange.kinds, exchange.round_sizes)
        batch = (exchange.observations, exchange.masks, context)
        ask_each_bot([bot.caller for bot in shared.bots], bot_of_env, batch, exchange.answers)
        return True


def ask_each_bot(callers: list[BotCaller], bot_of_row: np.ndarray, batch: tuple, answers: np.ndarray) -> None:
    """Ask each bot once for its rows of batch = (observations, masks, Decisions) and write
    its answers to answers[rows]; bot_of_row[i] indexes `callers` (-1: no bot asked). When
    one bot has every row it gets the buffers themselves, no copies."""
    observations, masks, context = batch
    for number, caller in enumerate(callers):
        mine = bot_of_row == number
        if mine.all():
            answers[:] = caller.ask(observations, masks, context)
        elif mine.any():
            rows = np.flatnonzero(mine)
            answers[rows] = caller.ask(observations[rows], masks[rows], context.take(rows))


def play_with_bots(
    rules: Rules,
    listed: list[Policy],
    seed: int,
    games: tuple[np.ndarray, np.ndarray, np.ndarray],
    results: GameResults,
    call: KernelCall,
    batch: int | None = None,
) -> None:
    """Play every row of `games` = (game ids [n], seatings [n, players]: index into `listed`
    of the policy at each seat, the ids bots see [n]) into `results` (the records play_games
    fills, indexed by row) with at most `batch` games in play at once.

    On more than one thread the pool is played as two halves: while the bots decide for one,
    the kernel steps the other (it releases the GIL), so the bots' Python and the kernels run
    side by side."""
    game_ids, seatings, seen_ids = games
    n_rows = game_ids.shape[0]
    pool = min(check_batch(batch), n_rows)
    bots = seat_bots(listed)
    bot_of_listed = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for number, bot in enumerate(bots):
        bot_of_listed[bot.listed] = number
    rows = seat_driver.Rows(game_ids, np.ascontiguousarray(seatings, dtype=np.int64))
    shared = RowsToPlay(listed, rows, seen_ids, results, call, bots, bot_of_listed[seatings], listed_arrays(listed))
    threads = numba.get_num_threads()
    if threads == 1 or pool < 2 * PIPELINE_MIN_ENVS:
        part = Part(shared, rules, seed, range(pool), pool, threads)
        part.advance()
        while part.ask():
            part.advance()
        return
    half = pool // 2
    parts = [Part(shared, rules, seed, envs, pool, threads) for envs in (range(half), range(half, pool))]
    # A kernel thread steps one half while this thread asks the bots for the other.
    with ThreadPoolExecutor(1, "wizard-sim-pool") as kernels:
        stepped = [kernels.submit(part.advance) for part in parts]
        while parts:
            for index, part in enumerate(parts):
                stepped[index].result()
                stepped[index] = kernels.submit(part.advance) if part.ask() else None
            parts = [part for part, step in zip(parts, stepped) if step is not None]
            stepped = [step for step in stepped if step is not None]


def notify_game_over(caller: BotCaller, rows: np.ndarray, seated: np.ndarray, seen_ids: np.ndarray, results: GameResults) -> None:
    """Tell a bot which of its games ended: game ids, its seats and the final totals [m, players]
    of every (game, seat) it played (seated[r, s]: it held seat s in game rows[r])."""
    row_index, seats = np.nonzero(seated)
    if row_index.size == 0:
        return
    finished = rows[row_index]
    totals = results.games["total"][finished].astype(np.int64)
    caller.game_over(seen_ids[finished], seats.astype(np.int64), totals)


def seating_rows(players: int, games: int) -> np.ndarray:
    """[games, players]: every row seats listed policy s at seat s (run_games)."""
    return np.broadcast_to(np.arange(players, dtype=np.int64), (games, players))
