"""The learned policy's cost and bid accuracy (docs/learned.md, Figures).

    python -m benchmarks.bench_learned                       # both, the shipped model
    python -m benchmarks.bench_learned --only cost --games 300 --repeats 5
    python -m benchmarks.bench_learned --only accuracy --model models/m1 --json

1. cost: seconds of one core per full 4-player game of one seat, on one thread: the whole
   table `SEAT,heuristic,heuristic,random` minus `heuristic,heuristic,heuristic,random` (the
   other seats' share), for SEAT = learned and mc:samples=8,play_samples=4, in alternating runs
   (the median over --repeats), on the same games. A first untimed run compiles each engine.
2. accuracy: bid accuracy (exact bids / bids) by round size in self-play at 4 players (every
   seat the same policy), learned beside heuristic, over --accuracy-games games.

The strength figures come from `wizard-sim tournament` (the commands in docs/learned.md).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from sim import Rules, run_games
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

OTHERS = ["heuristic", "heuristic", "random"]


def cpu_seconds_per_game(rules: Rules, policies: list[str], games: int, seed: int) -> float:
    begun = time.process_time()
    run_games(rules, policies, seed=seed, games=games, threads=1)
    return (time.process_time() - begun) / games


def seat_costs(learned: str, games: int, repeats: int, seed: int) -> dict:
    rules = Rules(players=4)
    tables = {"learned": [learned, *OTHERS], "mc:samples=8,play_samples=4": ["mc:samples=8,play_samples=4", *OTHERS],
              "heuristic": ["heuristic", *OTHERS]}  # fmt: skip
    for policies in tables.values():
        run_games(rules, policies, seed=seed, games=2, threads=1)  # compile or load each engine
    times: dict[str, list[float]] = {name: [] for name in tables}
    for _ in range(repeats):
        for name, policies in tables.items():
            times[name].append(cpu_seconds_per_game(rules, policies, games, seed))
    base = statistics.median(times["heuristic"])
    return {name: {"table_ms": 1000 * statistics.median(values), "seat_ms": 1000 * (statistics.median(values) - base)}
            for name, values in times.items()}  # fmt: skip


def bid_accuracy(policy: str, games: int, seed: int) -> dict[int, float]:
    rules = Rules(players=4)
    batch = run_games(rules, policy, seed=seed, games=games)
    seats = batch.seats[:, :, :4]
    exact = seats["bid"] == seats["tricks"]
    return {size: float(exact[:, index].mean()) for index, size in enumerate(rules.round_sizes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("cost", "accuracy"))
    parser.add_argument("--model", help="a model directory (default: the shipped model)")
    parser.add_argument("--games", type=int, default=300, help="games per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--accuracy-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=808)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    learned = "learned" if args.model is None else f"learned:model={args.model}"
    figures: dict = {"policy": learned}
    if args.only in (None, "cost"):
        figures["cost"] = seat_costs(learned, args.games, args.repeats, args.seed)
    if args.only in (None, "accuracy"):
        figures["accuracy"] = {name: bid_accuracy(policy, args.accuracy_games, args.seed)
                               for name, policy in (("learned", learned), ("heuristic", "heuristic"))}  # fmt: skip
    if args.json:
        print(json.dumps(figures))
        return
    for name, cost in figures.get("cost", {}).items():
        print(f"{name:30s} table {cost['table_ms']:6.2f} ms/game, one seat {cost['seat_ms']:6.2f} ms/game (one thread)")
    if "accuracy" in figures:
        sizes = list(figures["accuracy"]["learned"])
        print("round size    " + " ".join(f"{size:5d}" for size in sizes))
        for name, by_size in figures["accuracy"].items():
            print(f"{name:13s} " + " ".join(f"{100 * by_size[size]:5.1f}" for size in sizes))
        for name, by_size in figures["accuracy"].items():
            print(f"{name}: overall {100 * np.mean(list(by_size.values())):.1f}% (mean over round sizes)")


if __name__ == "__main__":
    main()
