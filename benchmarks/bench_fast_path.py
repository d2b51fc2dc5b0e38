"""The fast path (kernels.fast_games) against the decision step it twins (kernels.batch), in
one process, alternating.

    python -m benchmarks.bench_fast_path                         # random and heuristic, 1 thread
    python -m benchmarks.bench_fast_path --policy heuristic --games 20000 --repeats 8 --json

Full 4-player games of one policy at every seat. Each pair times games on the decision step
and on the fast path (benchmarks.harness: alternating, each first every other pair, after
--warmup pairs), into the same (reused) result arrays, so allocation and page faults stay out
of both; the figure is CPU time a game (time.process_time) and each pair's ratio, whose range
is what to report on a shared machine. Both kernels give the same
records (tests/test_fast_path.py).
"""
from __future__ import annotations

import itertools
import time
from types import ModuleType
from typing import Callable

import numba
import numpy as np

from benchmarks.harness import Range, alternate, parser, report
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

from kernels import batch, fast_games  # noqa: E402
from sim import Rules  # noqa: E402
from sim.policies.registry import parse_policies, policy_arrays  # noqa: E402
from sim.runs.games import empty_results  # noqa: E402

PLAYERS = 4


def compared(policy: str, games: int, repeats: int, warmup: int) -> tuple[Range, Range, Range]:
    """CPU microseconds a game of the decision step and of the fast path, in alternating pairs,
    and the fast path's speedup (the decision step's cost over its own), pair by pair."""
    rules = Rules(players=PLAYERS)
    arrays = policy_arrays(parse_policies(policy, PLAYERS))
    record, sizes = rules.to_record(), rules.round_sizes_array()
    game_ids = np.arange(games, dtype=np.int64)
    results = empty_results(rules, games, False)
    seeds = itertools.count(1)

    def cost(engine: ModuleType) -> Callable[[], float]:
        def run() -> float:
            started = time.process_time()
            engine.play_games(next(seeds), game_ids, record, sizes, arrays, results)
            return (time.process_time() - started) / games * 1e6

        return run

    return alternate(cost(batch), cost(fast_games), repeats, warmup, digits=2)


def main() -> None:
    arguments = parser(__doc__.splitlines()[0], repeats=6)
    arguments.add_argument("--policy", action="append", help="policy of every seat (repeatable; default random and heuristic)")
    arguments.add_argument("--games", type=int, default=50_000, help="games per timing (heuristic: a fifth)")
    arguments.add_argument("--threads", type=int, default=1)
    options = arguments.parse_args()
    numba.set_num_threads(options.threads)
    figures: dict[str, object] = {"players": PLAYERS, "threads": options.threads}
    lines = []
    for policy in options.policy or ["random", "heuristic"]:
        games = options.games if policy == "random" else max(64, options.games // 5)
        decision_step, fast_path, speedup = compared(policy, games, options.repeats, options.warmup)
        figures[policy] = {"games": games, "decision_step_us": decision_step, "fast_path_us": fast_path, "speedup": speedup}
        lines.append(f"{policy:>10}: fast path {speedup.text('.2f')}x the decision step ({options.repeats} pairs; CPU a game"
                     f" {fast_path.text('.2f')} against {decision_step.text('.2f')} us, {games:,} games,"
                     f" {options.threads} thread(s))")  # fmt: skip
    report(figures, lines, options.json)


if __name__ == "__main__":
    main()
