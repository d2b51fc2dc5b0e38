"""Games with Python seats: a pool of games stepped in the kernels (kernels.bot_pool) until
Python seats must decide; each bot is then asked once for all of that step's decisions.

The built-in seats, and the decisions a bot does not take (its DECISIONS) or hands back
(DELEGATE), are played inside the kernels by the seat's seated policies, with the random
numbers run_games draws. So a game is a pure function of (seed, game id, seating) and of the
bots' answers: for a deterministic bot, neither the pool's size (`batch`) nor the thread count
changes the data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from kernels import bot_pool
from kernels.game_state import GAME_STATE_DTYPE
from kernels.observation import N_ACTIONS, OBSERVATION_SIZE
from kernels.state import MAX_PLAYERS, NO_SEAT
from kernels.vector_env import init_states
from sim.config.limits import check_count
from sim.config.policies import Policy, policy_arrays
from sim.config.python_policy import BotCaller, Decisions
from sim.config.rules import Rules

DEFAULT_BATCH = 4096  # games in play at once: each bot is asked for up to this many decisions per call
MAX_BATCH = 2**16  # about 6 KB of state, observation and mask per game in play
# Below this many games in play per thread a step runs on the calling thread: waking the
# thread pool costs more than the step (as sim.env.vector.VectorEnv).
PARALLEL_MIN_ENVS_PER_THREAD = 32

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


def listed_arrays(listed: list[Policy]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(policy ids, parameter rows, decisions asked of Python) per listed policy: a Python
    policy is seated as its fallback and asked the decision kinds of its DECISIONS."""
    ids, params = policy_arrays(listed)
    decisions = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for index, policy in enumerate(listed):
        if policy.kind.python is not None:
            decisions[index] = sum(1 << kind for kind in policy.kind.python.decisions)
    return ids, params, decisions


def finished_rows(before: np.ndarray, after: np.ndarray, n_rows: int) -> np.ndarray:
    """Rows finished between two kernel calls: env i plays rows before[i], before[i] + B, ...
    up to (not including) after[i], or to the end once it is done (NO_ROW)."""
    stride = before.shape[0]
    changed = np.flatnonzero((before != bot_pool.NO_ROW) & (after != before))
    if changed.size == 0:
        return changed
    starts = before[changed]
    ends = np.where(after[changed] == bot_pool.NO_ROW, n_rows, after[changed])
    counts = (ends - starts + stride - 1) // stride
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + stride * offsets


def play_with_bots(
    rules: Rules,
    listed: list[Policy],
    seed: int,
    games: tuple[np.ndarray, np.ndarray, np.ndarray],
    results: tuple[np.ndarray, ...],
    call: KernelCall,
    batch: int | None = None,
) -> None:
    """Play every row of `games` = (game ids [n], seatings [n, players]: index into `listed`
    of the policy at each seat, the ids bots see [n]) into `results` (the records play_games
    fills, indexed by row) with at most `batch` games in play at once."""
    game_ids, seatings, seen_ids = games
    n_rows = game_ids.shape[0]
    pool = min(check_batch(batch), n_rows)
    bots = seat_bots(listed)
    bot_of_listed = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    for number, bot in enumerate(bots):
        bot_of_listed[bot.listed] = number
    seat_bot = bot_of_listed[seatings]  # [n, players]: the bot at each seat, -1 for built-in seats
    with_game_over = [number for number, bot in enumerate(bots) if bot.caller.has_game_over]

    states = np.zeros(pool, dtype=GAME_STATE_DTYPE)
    init_states(states, rules.to_record(), policy_arrays(listed), seed, rules.round_sizes_array(),
                np.zeros(MAX_PLAYERS, dtype=np.int64), pool)  # fmt: skip
    states["records"] = 1
    rows = np.arange(pool, dtype=np.int64)
    answers = np.zeros(pool, dtype=np.int64)
    observations = np.zeros((pool, OBSERVATION_SIZE), dtype=np.float32)
    masks = np.zeros((pool, N_ACTIONS), dtype=np.bool_)
    asked = np.full(pool, NO_SEAT, dtype=np.int64)
    kinds = np.zeros(pool, dtype=np.int64)
    round_sizes = np.zeros(pool, dtype=np.int64)
    outputs = (observations, masks, asked, kinds, round_sizes)
    kernel_games = (game_ids, np.ascontiguousarray(seatings, dtype=np.int64))
    arrays = listed_arrays(listed)
    threads = numba.get_num_threads()
    kernel = bot_pool.run_envs if threads > 1 and pool >= PARALLEL_MIN_ENVS_PER_THREAD * threads else bot_pool.run_envs_serial

    starting = True
    while True:
        before = rows.copy()
        call(kernel, listed, states, starting, rows, answers, kernel_games, arrays, results, outputs)
        starting = False
        if with_game_over:
            done = finished_rows(before, rows, n_rows)
            if done.size:
                for number in with_game_over:
                    notify_game_over(bots[number].caller, done, seat_bot[done] == number, seen_ids, results)
        waiting = np.flatnonzero(asked != NO_SEAT)
        if waiting.size == 0:
            return
        bot_of_env = seat_bot[rows[waiting], asked[waiting]]
        for number, bot in enumerate(bots):
            envs = waiting if len(bots) == 1 else waiting[bot_of_env == number]
            if envs.size == 0:
                continue
            whole = envs.size == pool  # every env: the buffers themselves, no copy
            context = Decisions(seen_ids[rows[envs]], asked[envs], kinds[envs], round_sizes[envs])
            answers[envs] = bot.caller.ask(
                observations if whole else observations[envs], masks if whole else masks[envs], context
            )


def notify_game_over(caller: BotCaller, rows: np.ndarray, seated: np.ndarray, seen_ids: np.ndarray, results: tuple) -> None:
    """Tell a bot which of its games ended: game ids, its seats and the final totals [m, players]
    of every (game, seat) it played (seated[r, s]: it held seat s in game rows[r])."""
    row_index, seats = np.nonzero(seated)
    if row_index.size == 0:
        return
    finished = rows[row_index]
    totals = results[2]["total"][finished].astype(np.int64)
    caller.game_over(seen_ids[finished], seats.astype(np.int64), totals)


def seating_rows(players: int, games: int) -> np.ndarray:
    """[games, players]: every row seats listed policy s at seat s (run_games)."""
    return np.broadcast_to(np.arange(players, dtype=np.int64), (games, players))
