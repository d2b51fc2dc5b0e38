"""Bid estimation speed: 100k samples of a 10-card, 4-player hand on the warm kernels.

    python benchmarks/bench_estimate.py            # table
    python benchmarks/bench_estimate.py --json     # one JSON object

Every sample deals the unseen cards once and plays the round for each of the 11 candidate
bids (0..10), so 100k samples are 1.1M rounds and 44M card plays. The seat bids first
(position 0), the costliest position: all three opponents bid after it, again for every
candidate. Target (issue): under 2 s warm on this 2-core machine.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numba

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sim.analysis.estimate import run_estimate  # noqa: E402

HAND = "W AS KH 7H JD 10D 4C 9S 2S J"
SITUATION = dict(trump="3H", players=4, position=0)
PLAYERS = 4


def best_seconds(samples: int, threads: int, repeats: int, opponents: str, policy: str) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest of `repeats` estimates, after a warm-up call. The CPU
    time (all threads) tells how much of the wall time other processes took on a shared box."""
    run_estimate(HAND, samples=1000, seed=0, threads=threads, opponents=opponents, policy=policy, **SITUATION)
    best = (float("inf"), float("inf"))
    for repeat in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run_estimate(HAND, samples=samples, seed=repeat + 1, threads=threads, opponents=opponents, policy=policy,
                     **SITUATION)
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    all_threads = numba.config.NUMBA_NUM_THREADS
    round_size = len(HAND.split())
    rounds = args.samples * (round_size + 1)
    figures: dict[str, float] = {"samples": args.samples, "threads": all_threads, "rounds": rounds,
                                 "card_plays": rounds * round_size * PLAYERS}
    for name, (opponents, policy) in (("heuristic", ("heuristic", "heuristic")), ("random", ("random", "random"))):
        for threads, suffix in ((1, "_1_thread"), (all_threads, "")):
            seconds, cpu_seconds = best_seconds(args.samples, threads, args.repeats, opponents, policy)
            figures[f"{name}_seconds{suffix}"] = round(seconds, 3)
            figures[f"{name}_cpu_seconds{suffix}"] = round(cpu_seconds, 3)
            figures[f"{name}_card_plays_per_s{suffix}"] = round(figures["card_plays"] / seconds)

    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.samples:,} samples of a {round_size}-card hand, 4 players, {round_size + 1} candidate bids "
          f"({rounds:,} rounds, {figures['card_plays'] / 1e6:.0f}M card plays); best of {args.repeats}")
    for name in ("heuristic", "random"):
        print(
            f"{name:>10} table: {figures[f'{name}_seconds']:.2f} s on {all_threads} threads "
            f"({figures[f'{name}_card_plays_per_s'] / 1e6:.1f}M plays/s, {figures[f'{name}_cpu_seconds']:.2f} s CPU), "
            f"{figures[f'{name}_seconds_1_thread']:.2f} s on 1 thread "
            f"({figures[f'{name}_cpu_seconds_1_thread']:.2f} s CPU)"
        )


if __name__ == "__main__":
    main()
