"""The engine next to the bare prototype (../shared/bench/proto_wizard.py), measured side by side.

    python -m benchmarks.bench_vs_prototype                  # table
    python -m benchmarks.bench_vs_prototype --runs 5 --json  # one JSON object

Full 4-player games (15 rounds): our `random` against the prototype's uniform random play
(policy 0), our `heuristic` against the prototype's much simpler bot (policy 1), on 1 thread and
on all threads. Within a run the two engines alternate, timed one after the other `--repeats`
times each, and the run's figure is the ratio of their best rates: both saw the same machine
within seconds, which matters on a shared one whose speed swings 2x in an hour. The ranges over
`--runs` runs are what to report.

The prototype keeps less (bids, tricks and totals; we also keep dealt hands, dealer, turned-up
card, trump, round scores, running totals and winners) and draws from one xorshift64* stream per
block of games (we key every round's deal and decisions by (seed, game, round), docs/randomness.md).
It is a yardstick of what the machine can do, not a second engine.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from pathlib import Path

import numba

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


def ours(policy: str, games: int, seed: int, threads: int | None = None) -> float:
    """Seconds for `games` full games of the engine on `threads` threads (None: all; the public
    run_games, results allocated). run_games sets numba's thread count itself, so the count
    must be passed: without it every "1 thread" figure before this fix ran on all threads, for
    the prototype too (timed after it)."""
    start = time.perf_counter()
    run_games(Rules(players=PLAYERS), policy, seed=seed, games=games, threads=threads)
    return time.perf_counter() - start


def prototype(proto, policy: str, games: int, seed: int) -> float:
    """Seconds for `games` full games of the prototype (its outputs allocated)."""
    start = time.perf_counter()
    bids, tricks, totals = proto.alloc_games(games, PLAYERS)
    proto.run_games(games // BLOCK, BLOCK, PLAYERS, seed, PROTOTYPE_POLICY[policy], bids, tricks, totals)
    return time.perf_counter() - start


def one_run(proto, policy: str, games: int, threads: int, repeats: int, run: int) -> dict[str, float]:
    """Best games/s of each engine over `repeats` alternating timings, and their ratio."""
    best = {"ours": 0.0, "prototype": 0.0}
    for repeat in range(repeats):
        seed = 1000 * run + repeat + 1
        best["ours"] = max(best["ours"], games / ours(policy, games, seed, threads))
        numba.set_num_threads(threads)  # the prototype's parallel loop
        best["prototype"] = max(best["prototype"], games / prototype(proto, policy, games, seed))
    return {**{name: round(rate) for name, rate in best.items()}, "ratio": round(best["ours"] / best["prototype"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200_000, help="random games per timing (heuristic: half)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating timings per engine in a run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--policies", default="random,heuristic")
    parser.add_argument("--prototype", type=Path, default=DEFAULT_PROTOTYPE)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    arguments = parser.parse_args()
    proto = load_prototype(arguments.prototype)
    all_threads = numba.config.NUMBA_NUM_THREADS
    thread_counts = sorted({1, all_threads})
    policies = arguments.policies.split(",")
    for policy in policies:  # compile or load both engines first
        if policy not in PROTOTYPE_POLICY:
            raise SystemExit(f"--policies: {policy!r} is not one of {', '.join(PROTOTYPE_POLICY)}")
        ours(policy, 2 * BLOCK, 0)
        prototype(proto, policy, 2 * BLOCK, 0)
    figures: dict[str, list[dict[str, float]]] = {}
    for run in range(arguments.runs):
        for policy in policies:
            games = arguments.games if policy == "random" else arguments.games // 2
            games = max(BLOCK, games // BLOCK * BLOCK)
            for threads in thread_counts:
                key = f"{policy}_{threads}_thread{'s' if threads > 1 else ''}"
                figures.setdefault(key, []).append(one_run(proto, policy, games, threads, arguments.repeats, run))
    if arguments.json:
        print(json.dumps({"players": PLAYERS, "threads": all_threads, "runs": figures}))
        return
    print(f"{PLAYERS} players, full games; best of {arguments.repeats} alternating timings per run, "
          f"{arguments.runs} runs")  # fmt: skip
    for key, runs in figures.items():
        ratios = [run["ratio"] for run in runs]
        ranges = {name: f"{min(run[name] for run in runs):,}-{max(run[name] for run in runs):,}"
                  for name in ("ours", "prototype")}  # fmt: skip
        print(f"{key:>20}: {min(ratios):.2f}x-{max(ratios):.2f}x the prototype "
              f"(ours {ranges['ours']}, prototype {ranges['prototype']} games/s)")  # fmt: skip

if __name__ == "__main__":
    main()
