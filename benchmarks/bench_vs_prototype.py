"""The engine next to the bare prototype (../shared/bench/proto_wizard.py), measured side by side.

    python -m benchmarks.bench_vs_prototype                  # table
    python -m benchmarks.bench_vs_prototype --runs 5 --json  # one JSON object

Full 4-player games (15 rounds): our `random` against the prototype's uniform random play
(policy 0), our `heuristic` against the prototype's much simpler bot (policy 1), on 1 thread and
on all threads. Within a run the two engines go in `--repeats` alternating pairs
(benchmarks.harness, after `--warmup` in the first run), and each pair's ratio is a figure:
both saw the same machine within seconds, which matters on a shared one whose speed swings 2x
in an hour. The ranges over every pair of `--runs` runs are what to report.

The prototype keeps less (bids, tricks and totals; we also keep dealt hands, dealer, turned-up
card, trump, round scores, running totals and winners) and draws from one xorshift64* stream per
block of games (we key every round's deal and decisions by (seed, game, round), docs/randomness.md).
It is a yardstick of what the machine can do, not a second engine.
"""
from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
from pathlib import Path

import numba

from benchmarks.harness import Range, Rate, alternate, parser, rate, report
from sim import Rules, run_games
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

DEFAULT_PROTOTYPE = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "proto_wizard.py"
PLAYERS = 4
BLOCK = 64  # games per prange block, as kernels.blocks.ITEMS_PER_BLOCK
PROTOTYPE_POLICY = {"random": 0, "heuristic": 1}


def load_prototype(path: Path):
    """The prototype, compiled afresh: it lives in a shared directory (its numba cache would be
    written there), and its parallel kernel's cache does not load back when imported by path."""
    if not path.is_file():
        raise SystemExit(f"no prototype at {path} (--prototype PATH)")
    os.environ["PROTO_CACHE"] = "0"
    spec = importlib.util.spec_from_file_location("proto_wizard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ours(policy: str, games: int, threads: int) -> Rate:
    """Games/s of the engine on `threads` threads (the public run_games, results allocated),
    call n on the deals of seed n. run_games sets numba's thread count itself, so the count
    must be passed: without it every "1 thread" figure before this fix ran on all threads, for
    the prototype too (timed after it)."""
    seeds = itertools.count()
    return lambda: rate(lambda: run_games(Rules(players=PLAYERS), policy, seed=next(seeds), games=games,
                                          threads=threads), games)  # fmt: skip


def prototype(proto, policy: str, games: int, threads: int) -> Rate:
    """Games/s of the prototype on `threads` threads (its outputs allocated), call n on seed n."""
    seeds = itertools.count()

    def one_run() -> None:
        numba.set_num_threads(threads)  # the prototype's parallel loop
        bids, tricks, totals = proto.alloc_games(games, PLAYERS)
        proto.run_games(games // BLOCK, BLOCK, PLAYERS, next(seeds), PROTOTYPE_POLICY[policy], bids, tricks, totals)

    return lambda: rate(one_run, games)


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--games", type=int, default=200_000, help="random games per timing (heuristic: half)")
    arguments.add_argument("--runs", type=int, default=3, help="runs over every cell, each of --repeats pairs")
    arguments.add_argument("--policies", default="random,heuristic")
    arguments.add_argument("--prototype", type=Path, default=DEFAULT_PROTOTYPE)
    options = arguments.parse_args()
    proto = load_prototype(options.prototype)
    all_threads = numba.config.NUMBA_NUM_THREADS
    thread_counts = sorted({1, all_threads})
    policies = options.policies.split(",")
    for policy in policies:
        if policy not in PROTOTYPE_POLICY:
            raise SystemExit(f"--policies: {policy!r} is not one of {', '.join(PROTOTYPE_POLICY)}")
    sides: dict[str, tuple[Rate, Rate]] = {}
    for policy in policies:
        games = options.games if policy == "random" else options.games // 2
        games = max(BLOCK, games // BLOCK * BLOCK)
        for threads in thread_counts:
            key = f"{policy}_{threads}_thread{'s' if threads > 1 else ''}"
            sides[key] = (ours(policy, games, threads), prototype(proto, policy, games, threads))
    runs: dict[str, list[tuple[Range, Range, Range]]] = {key: [] for key in sides}
    for run in range(options.runs):  # every cell once a run, so each run sees the machine as it is then
        for key, (engine, bare) in sides.items():
            runs[key].append(alternate(engine, bare, options.repeats, options.warmup if run == 0 else 0))
    figures = {key: dict(zip(("ours", "prototype", "ratio"), map(Range.joined, zip(*cell)))) for key, cell in runs.items()}
    lines = [f"{PLAYERS} players, full games; {options.runs} runs of {options.repeats} alternating pairs"]
    lines += [f"{key:>20}: {cell['ratio'].text('.2f')}x the prototype "
              f"(ours {cell['ours'].text()}, prototype {cell['prototype'].text()} games/s)" for key, cell in figures.items()]  # fmt: skip
    report({"players": PLAYERS, "threads": all_threads, "figures": figures}, lines, options.json)


if __name__ == "__main__":
    main()
