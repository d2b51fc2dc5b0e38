"""The learned policy's cost and bid accuracy (docs/learned.md, Figures).

    python -m benchmarks.bench_learned                       # both, the shipped model
    python -m benchmarks.bench_learned --only cost --games 300 --repeats 5
    python -m benchmarks.bench_learned --only accuracy --model models/m1 --json

1. cost: seconds of one core per full 4-player game of one seat, on one thread: the whole
   table `SEAT,heuristic,heuristic,random` minus `heuristic,heuristic,heuristic,random` (the
   other seats' share), for SEAT = learned and mc:samples=8,play_samples=4, in interleaved runs
   on the same games (benchmarks.harness: ranges over --repeats after --warmup runs, which
   compile each engine), the seat's share taken run by run.
2. accuracy: bid accuracy (exact bids / bids) by round size in self-play at 4 players (every
   seat the same policy), learned beside heuristic, over --accuracy-games games.

The strength figures come from `wizard-sim tournament` (the commands in docs/learned.md).
"""
from __future__ import annotations

import itertools
import time

import numpy as np

from benchmarks.harness import Range, difference, interleave, parser, report, run_seconds
from sim import Rules, run_games
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

OTHERS = ["heuristic", "heuristic", "random"]


def seat_costs(learned: str, games: int, repeats: int, warmup: int, seed: int) -> dict[str, dict[str, Range]]:
    """CPU milliseconds a game of each table, interleaved on the same games, and of its seat
    (the table's time less the all-heuristic table's, run by run)."""
    rules = Rules(players=4)
    tables = {"learned": [learned, *OTHERS], "mc:samples=8,play_samples=4": ["mc:samples=8,play_samples=4", *OTHERS],
              "heuristic": ["heuristic", *OTHERS]}  # fmt: skip

    sides = [run_seconds(rules, policies, games, itertools.repeat(seed), clock=time.process_time, scale=1000 / games)
             for policies in tables.values()]  # fmt: skip
    ranges = dict(zip(tables, interleave(sides, repeats, warmup, 2)))
    return {name: {"table_ms": table, "seat_ms": difference(table, ranges["heuristic"], digits=2)}
            for name, table in ranges.items()}  # fmt: skip


def bid_accuracy(policy: str, games: int, seed: int) -> dict[int, float]:
    rules = Rules(players=4)
    batch = run_games(rules, policy, seed=seed, games=games)
    seats = batch.seats[:, :, :4]
    exact = seats["bid"] == seats["tricks"]
    return {size: float(exact[:, index].mean()) for index, size in enumerate(rules.round_sizes)}


def main() -> None:
    arguments = parser(__doc__.split("\n")[0], repeats=5)
    arguments.add_argument("--only", choices=("cost", "accuracy"))
    arguments.add_argument("--model", help="a model directory (default: the shipped model)")
    arguments.add_argument("--games", type=int, default=300, help="games per timed run")
    arguments.add_argument("--accuracy-games", type=int, default=4000)
    arguments.add_argument("--seed", type=int, default=808)
    args = arguments.parse_args()
    learned = "learned" if args.model is None else f"learned:model={args.model}"
    figures: dict = {"policy": learned}
    if args.only in (None, "cost"):
        figures["cost"] = seat_costs(learned, args.games, args.repeats, args.warmup, args.seed)
    if args.only in (None, "accuracy"):
        figures["accuracy"] = {name: bid_accuracy(policy, args.accuracy_games, args.seed)
                               for name, policy in (("learned", learned), ("heuristic", "heuristic"))}  # fmt: skip
    lines = [f"{name:30s} table {cost['table_ms'].text('6.2f')} ms/game, one seat {cost['seat_ms'].text('6.2f')} ms/game"
             " (one thread)" for name, cost in figures.get("cost", {}).items()]  # fmt: skip
    if "accuracy" in figures:
        sizes = list(figures["accuracy"]["learned"])
        lines.append("round size    " + " ".join(f"{size:5d}" for size in sizes))
        for name, by_size in figures["accuracy"].items():
            lines.append(f"{name:13s} " + " ".join(f"{100 * by_size[size]:5.1f}" for size in sizes))
        for name, by_size in figures["accuracy"].items():
            lines.append(f"{name}: overall {100 * np.mean(list(by_size.values())):.1f}% (mean over round sizes)")
    report(figures, lines, args.json)

if __name__ == "__main__":
    main()
