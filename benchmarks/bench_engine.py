"""Engine throughput: full 4-player games/s and card plays/s, and compile/start-up times.

    python benchmarks/bench_engine.py            # table
    python benchmarks/bench_engine.py --json     # one JSON object

Throughput is measured on the warm (compiled) kernels; the cold and warm start-up times run a
small simulation in a fresh interpreter with an empty and then a filled numba cache.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numba

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sim import Rules, run_games  # noqa: E402

STARTUP_SNIPPET = (
    "import sim; sim.run_games(sim.Rules(players=4), 'random', seed=1, games=100); "
    "sim.run_games(sim.Rules(players=4), 'heuristic', seed=1, games=100)"
)


def throughput(policy: str, games: int, threads: int, repeats: int) -> float:
    """Best-of-`repeats` full 4-player games per second."""
    rules = Rules(players=4)
    run_games(rules, policy, seed=0, games=100, threads=threads)
    best = 0.0
    for repeat in range(repeats):
        start = time.perf_counter()
        run_games(rules, policy, seed=repeat + 1, games=games, threads=threads)
        best = max(best, games / (time.perf_counter() - start))
    return best


def startup_seconds(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP_SNIPPET], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200_000, help="games per timed run (random)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    all_threads = numba.config.NUMBA_NUM_THREADS
    plays_per_game = 4 * sum(range(1, 16))
    figures: dict[str, float] = {"threads": all_threads, "card_plays_per_game": plays_per_game}
    for policy, games in (("random", args.games), ("heuristic", args.games // 2)):
        for threads, suffix in ((1, "_1_thread"), (all_threads, "")):
            rate = throughput(policy, games, threads, args.repeats)
            figures[f"{policy}_games_per_s{suffix}"] = round(rate)
            figures[f"{policy}_card_plays_per_s{suffix}"] = round(rate * plays_per_game)
    with tempfile.TemporaryDirectory() as cache:
        figures["cold_start_s"] = round(startup_seconds(cache), 2)
        figures["warm_start_s"] = round(startup_seconds(cache), 2)

    if args.json:
        print(json.dumps(figures))
        return
    print(f"4 players, full games (15 rounds, {plays_per_game} card plays), {all_threads} threads")
    for policy in ("random", "heuristic"):
        print(
            f"{policy:>10}: {figures[f'{policy}_games_per_s']:>10,} games/s "
            f"({figures[f'{policy}_card_plays_per_s'] / 1e6:.1f}M plays/s) all threads; "
            f"{figures[f'{policy}_games_per_s_1_thread']:>10,} games/s on 1 thread"
        )
    print(f"start-up of a small run: cold (empty cache) {figures['cold_start_s']} s, warm {figures['warm_start_s']} s")


if __name__ == "__main__":
    main()
