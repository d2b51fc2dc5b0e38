"""`simulate` throughput on a local Dask cluster next to the local engine, and the first task's
cost on a fresh worker (kernels loaded from the numba cache, or compiled with --cold).

    python -m benchmarks.bench_dask                        # 200k random 4-player games, 2 workers
    python -m benchmarks.bench_dask --chunk-games 10000    # more, smaller tasks
    python -m benchmarks.bench_dask --cold --json          # also time workers with an empty cache

The Dask run goes through the same path as `wizard-sim simulate --engine dask --workers N`:
a LocalCluster of N one-thread worker processes sharing the cores, tasks writing their parts.
The workers load the kernels before the timed runs; that first task is timed on its own,
as is the cluster start-up. The local engine and the cluster then go in --repeats
alternating pairs after --warmup runs of each (benchmarks.harness), every figure a range.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import distributed

from benchmarks.harness import Rate, alternate, parser, rate, report
from sim.config.rules import Rules
from sim.runs.cluster import connect
from sim.runs.executors import Executor
from sim.runs.games import run_games
from sim.runs.simulation import SimulationConfig, simulate


def first_task_seconds() -> float:
    """On a fresh worker: import the simulator and play one game (loads or compiles the kernels)."""
    start = time.perf_counter()
    from sim.config.rules import Rules
    from sim.runs.games import run_games

    run_games(Rules(players=4), "random", seed=0, games=1)
    return time.perf_counter() - start


def first_tasks(client) -> list[float]:
    """first_task_seconds as one task on each worker (a task thread, as chunks run)."""
    futures = [client.submit(first_task_seconds, workers=[worker], pure=False) for worker in client.nthreads()]
    return sorted(round(seconds, 2) for seconds in client.gather(futures))


def simulate_rate(config: SimulationConfig, executor: Executor | None = None) -> Rate:
    """Games/s of a whole simulate run written to a temporary directory."""

    def one_run() -> float:
        out = Path(tempfile.mkdtemp(prefix="bench-dask-"))
        try:
            return rate(lambda: simulate(config, str(out / "run"), executor=executor), config.games)
        finally:
            shutil.rmtree(out)

    return one_run


def cold_first_task(workers: int) -> list[float]:
    """First-task seconds on workers whose NUMBA_CACHE_DIR is empty: each compiles the kernels."""
    cache = tempfile.mkdtemp(prefix="bench-dask-cache-")
    # In this process's environment, which the spawned workers inherit: LocalCluster(env=...)
    # is applied only after a worker has re-imported this script, and numba with it.
    os.environ["NUMBA_CACHE_DIR"] = cache
    try:
        with distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, dashboard_address=":0"
        ) as cluster, distributed.Client(cluster) as client:  # fmt: skip
            return first_tasks(client)
    finally:
        del os.environ["NUMBA_CACHE_DIR"]
        shutil.rmtree(cache)


def main() -> None:
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--games", type=int, default=200_000)
    arguments.add_argument("--policy", default="random")
    arguments.add_argument("--workers", type=int, default=2)
    arguments.add_argument("--chunk-games", type=int, default=None, help="default: simulate's default")
    arguments.add_argument("--cold", action="store_true", help="also time the first task with an empty numba cache")
    options = arguments.parse_args()
    config = SimulationConfig.build(
        Rules(players=4), options.policy, seed=1, games=options.games, chunk_games=options.chunk_games
    )
    # Into the numba cache before the workers start, so that their first task loads the kernels.
    run_games(config.rules, options.policy, seed=0, games=10)
    figures: dict[str, object] = {
        "games": options.games, "policy": options.policy, "chunk_games": config.chunk_games,
        "chunks": len(config.chunk_ranges()), "cores": os.cpu_count(), "workers": options.workers,
    }  # fmt: skip
    start = time.perf_counter()
    with connect(None, options.workers) as executor:
        figures["cluster_start_s"] = round(time.perf_counter() - start, 2)
        figures["warm_first_task_s"] = first_tasks(executor.client)
        # The cluster and the local engine in alternating pairs, after --warmup runs of each.
        figures["dask_games_per_s"], figures["local_games_per_s"], figures["dask_over_local"] = alternate(
            simulate_rate(config, executor), simulate_rate(config), options.repeats, options.warmup)
    if options.cold:
        figures["cold_first_task_s"] = cold_first_task(options.workers)
    lines = [f"{options.games:,} {options.policy} games, {figures['chunks']} chunks of {config.chunk_games:,}, "
             f"{figures['cores']} cores",
             f"local engine          : {figures['local_games_per_s'].text()} games/s",
             f"dask, {options.workers} local workers: {figures['dask_games_per_s'].text()} games/s "
             f"(cluster start {figures['cluster_start_s']} s, not included; "
             f"{figures['dask_over_local'].text('.2f')}x the local engine)",
             f"first task on a fresh worker, warm numba cache: {figures['warm_first_task_s']} s"]  # fmt: skip
    if options.cold:
        lines.append(f"first task on a fresh worker, empty numba cache: {figures['cold_first_task_s']} s")
    report(figures, lines, options.json)


if __name__ == "__main__":
    main()
