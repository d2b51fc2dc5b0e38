"""The fast path (kernels.fast_games) against the decision step it twins (kernels.batch), in
one process, alternating.

    python -m benchmarks.bench_fast_path                         # random and heuristic, 1 thread
    python -m benchmarks.bench_fast_path --policy heuristic --games 20000 --pairs 8 --json

Full 4-player games of one policy at every seat. Each pair times the same games on the
decision step, then on the fast path, into the same (reused) result arrays, so allocation and
page faults stay out of both; the figure is CPU time a game (time.process_time) and each
pair's ratio, whose range is what to report on a shared machine. Both kernels give the same
records (tests/test_fast_path.py).
"""
from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np

from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

from kernels import batch, fast_games  # noqa: E402
from sim import Rules  # noqa: E402
from sim.config.policies import parse_policies, policy_arrays  # noqa: E402
from sim.runs.games import empty_results  # noqa: E402

PLAYERS = 4


def pairs(policy: str, games: int, count: int) -> list[dict[str, float]]:
    """`count` alternating pairs: CPU microseconds a game of the decision step and the fast path."""
    rules = Rules(players=PLAYERS)
    arrays = policy_arrays(parse_policies(policy, PLAYERS))
    record, sizes = rules.to_record(), rules.round_sizes_array()
    game_ids = np.arange(games, dtype=np.int64)
    results = empty_results(rules, games, False)
    for engine in (batch, fast_games):  # load (or compile) both
        engine.play_games(0, game_ids[:64], record, sizes, arrays, results)
    figures = []
    for pair in range(count):
        cost = {}
        for name, engine in (("decision_step", batch), ("fast_path", fast_games)):
            started = time.process_time()
            engine.play_games(pair + 1, game_ids, record, sizes, arrays, results)
            cost[name] = (time.process_time() - started) / games * 1e6
        figures.append({**{f"{name}_us": round(value, 2) for name, value in cost.items()},
                        "speedup": round(cost["decision_step"] / cost["fast_path"], 3)})  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", action="append", help="policy of every seat (repeatable; default random and heuristic)")
    parser.add_argument("--games", type=int, default=50_000, help="games per timing (heuristic: a fifth)")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    arguments = parser.parse_args()
    numba.set_num_threads(arguments.threads)
    out = {}
    for policy in arguments.policy or ["random", "heuristic"]:
        games = arguments.games if policy == "random" else max(64, arguments.games // 5)
        out[policy] = {"games": games, "pairs": pairs(policy, games, arguments.pairs)}
    if arguments.json:
        print(json.dumps({"players": PLAYERS, "threads": arguments.threads, "policies": out}))
        return
    for policy, figures in out.items():
        runs = figures["pairs"]

        def span(key: str) -> str:
            return f"{min(run[key] for run in runs)}-{max(run[key] for run in runs)}"

        print(f"{policy:>10}: fast path {span('speedup')}x the decision step ({len(runs)} pairs; CPU a game "
              f"{span('fast_path_us')} against {span('decision_step_us')} us, {figures['games']:,} games, "
              f"{arguments.threads} thread(s))")  # fmt: skip


if __name__ == "__main__":
    main()
