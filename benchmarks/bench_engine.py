"""Engine throughput: full 4-player games/s and card plays/s, and compile/start-up times.

    python -m benchmarks.bench_engine            # table
    python -m benchmarks.bench_engine --json     # one JSON object

Throughput is measured on the warm (compiled) kernels; the cold and warm start-up times run a
small simulation in a fresh interpreter with an empty and then a filled numba cache.

The machine's own scaling is measured before and after: a register-only arithmetic loop on
1 thread and on all threads. On independent cores it scales by the thread count; on a
shared VM whose virtual CPUs share physical cores it scales less, and the engine's all-thread
figures cannot scale more than that.
"""
from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np
from numba import njit, prange

from benchmarks.harness import Range, measure, parser, rate, report
from sim import Rules, run_games
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

STARTUP_SNIPPET = (
    "import sim; sim.run_games(sim.Rules(players=4), 'random', seed=1, games=100); "
    "sim.run_games(sim.Rules(players=4), 'heuristic', seed=1, games=100)"
)


def throughput(policy: str, games: int, threads: int, repeats: int, warmup: int) -> Range:
    """Full 4-player games per second: `repeats` runs after `warmup`, each of new deals."""
    rules = Rules(players=4)
    seeds = itertools.count()

    def run() -> object:
        return run_games(rules, policy, seed=next(seeds), games=games, threads=threads)

    return measure(lambda: rate(run, games), repeats, warmup)


@njit(parallel=True)
def arithmetic_lanes(steps: int, out: np.ndarray) -> None:
    """A SplitMix64 chain per lane, in registers only: pure core throughput, no memory."""
    for lane in prange(out.shape[0]):
        state = np.uint64(lane)
        mixed = np.uint64(0)
        for _ in range(steps):
            state += np.uint64(0x9E3779B97F4A7C15)
            z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            mixed ^= (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[lane] = mixed


def cpu_scaling(threads: int, repeats: int) -> float:
    """Arithmetic throughput on `threads` threads over that on 1 (best of `repeats` each)."""
    lanes = np.zeros(64, dtype=np.uint64)
    steps = 2_000_000
    rates = {}
    for count in (1, threads):
        numba.set_num_threads(count)
        arithmetic_lanes(10, lanes)
        best = 0.0
        for _ in range(repeats):
            start = time.perf_counter()
            arithmetic_lanes(steps, lanes)
            best = max(best, lanes.size * steps / (time.perf_counter() - start))
        rates[count] = best
    numba.set_num_threads(threads)
    return rates[threads] / rates[1]


def startup_seconds(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP_SNIPPET], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--games", type=int, default=200_000, help="games per timed run (random; heuristic: half)")
    args = arguments.parse_args()

    all_threads = numba.config.NUMBA_NUM_THREADS
    plays_per_game = 4 * sum(range(1, 16))
    figures: dict[str, object] = {"threads": all_threads, "card_plays_per_game": plays_per_game}
    figures["cpu_scaling_before"] = round(cpu_scaling(all_threads, args.repeats), 2)
    for policy, games in (("random", args.games), ("heuristic", args.games // 2)):
        for threads, suffix in ((1, "_1_thread"), (all_threads, "")):
            games_per_s = throughput(policy, games, threads, args.repeats, args.warmup)
            figures[f"{policy}_games_per_s{suffix}"] = games_per_s
            figures[f"{policy}_card_plays_per_s{suffix}"] = round(games_per_s.median * plays_per_game)
    figures["cpu_scaling_after"] = round(cpu_scaling(all_threads, args.repeats), 2)
    with tempfile.TemporaryDirectory() as cache:
        figures["cold_start_s"] = round(startup_seconds(cache), 2)
        figures["warm_start_s"] = round(startup_seconds(cache), 2)

    lines = [f"4 players, full games (15 rounds, {plays_per_game} card plays), {all_threads} threads"]
    for policy in ("random", "heuristic"):
        lines.append(
            f"{policy:>10}: {figures[f'{policy}_games_per_s'].text()} games/s "
            f"({figures[f'{policy}_card_plays_per_s'] / 1e6:.1f}M plays/s at the median) all threads; "
            f"{figures[f'{policy}_games_per_s_1_thread'].text()} games/s on 1 thread"
        )
    lines.append(
        f"machine: an arithmetic loop runs {figures['cpu_scaling_before']}x (before) and "
        f"{figures['cpu_scaling_after']}x (after) faster on {all_threads} threads than on 1 "
        f"(independent cores: {all_threads}x)"
    )
    lines.append(f"start-up of a small run: cold (empty cache) {figures['cold_start_s']} s, warm {figures['warm_start_s']} s")
    report(figures, lines, args.json)


if __name__ == "__main__":
    main()
