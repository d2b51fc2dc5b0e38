"""Engine throughput of the working tree next to an older revision, measured side by side.

    python -m experiments.compare_revisions d2e09ff
    python -m experiments.compare_revisions HEAD~3 --policies heuristic --games 50000
    python -m experiments.compare_revisions main --instructions --games 2000
    python -m experiments.compare_revisions c422028 --table --policies mc,heuristic,heuristic,random --games 200

On a shared machine, runs minutes apart differ by more than most optimisations. Here the
baseline (checked out into a temporary git worktree) and the working tree run at the same
time, one thread each, pinned to different cores, then with the cores swapped; two-thread
runs alternate. Each figure is the best of 3 runs of `run_games` (4 players, full games), and
each pair's ratio (working tree / baseline) is printed: both saw the same moments of the machine.

--instructions counts instead of timing: each tree plays the games on one thread under
valgrind's callgrind, once with `--games` games and once with none (the same start-up), and
the difference over the games is the instructions per game, the same whatever else the
machine is doing (not the same as time: cache misses and mispredicted branches are not
counted). It needs valgrind and is slow (minutes per policy).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import os, sys, time
sys.path.insert(0, os.getcwd())
policy, threads, games, core = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if core >= 0:
    os.sched_setaffinity(0, {core})
from sim import Rules, run_games
rules = Rules(players=4)
run_games(rules, policy, seed=0, games=100, threads=threads)
best = 0.0
for repeat in range(3):
    start = time.perf_counter()
    run_games(rules, policy, seed=repeat + 1, games=games, threads=threads)
    best = max(best, games / (time.perf_counter() - start))
print(round(best))
"""


def start(tree: Path, policy: str, threads: int, games: int, core: int) -> subprocess.Popen:
    command = [sys.executable, "-c", CHILD, policy, str(threads), str(games), str(core)]
    return subprocess.Popen(command, cwd=tree, stdout=subprocess.PIPE, text=True)


def result(process: subprocess.Popen) -> int:
    output, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit("a benchmark run failed")
    return int(output.strip().splitlines()[-1])


def compare(trees: dict[str, Path], policy: str, games: int) -> dict[str, dict[str, list[int]]]:
    figures = {name: {"1 thread": [], "2 threads": []} for name in trees}
    names = list(trees)
    cores = sorted(os.sched_getaffinity(0))[:2]
    for swap in (False, True):  # side by side, each on its own core, then swapped
        order = list(reversed(cores)) if swap else cores
        running = {name: start(trees[name], policy, 1, games, core) for name, core in zip(names, order)}
        for name, process in running.items():
            figures[name]["1 thread"].append(result(process))
    for _ in range(2):  # all cores, one after the other
        for name in names:
            figures[name]["2 threads"].append(result(start(trees[name], policy, len(cores), 2 * games, -1)))
    return figures


COUNT_CHILD = """
import os, sys
sys.path.insert(0, os.getcwd())
from sim import Rules, run_games
policy, games = sys.argv[1], int(sys.argv[2])
rules = Rules(players=4)
run_games(rules, policy, seed=0, games=64, threads=1)
if games:
    run_games(rules, policy, seed=1, games=games, threads=1)
"""


def instructions(tree: Path, policy: str, games: int) -> int:
    """Instructions callgrind counts for the child's whole run (one thread)."""
    with tempfile.TemporaryDirectory(prefix="wizard-sim-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", COUNT_CHILD,
                   policy, str(games)]  # fmt: skip
        environment = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}  # the same start-up each run
        subprocess.run(command, cwd=tree, env=environment, check=True, capture_output=True)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no total")


def count(trees: dict[str, Path], policy: str, games: int) -> dict[str, float]:
    """Instructions per game of each tree."""
    return {name: (instructions(tree, policy, games) - instructions(tree, policy, 0)) / games for name, tree in trees.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revision", help="the baseline: any git revision")
    parser.add_argument("--policies", default="random,heuristic", help="policies, each at every seat")
    parser.add_argument("--table", action="store_true", help="--policies is one table: a policy per seat")
    parser.add_argument("--games", type=int, default=100_000, help="games per one-thread run")
    parser.add_argument("--instructions", action="store_true", help="count instructions per game (valgrind) instead")
    arguments = parser.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs at least 2 cores")
    with tempfile.TemporaryDirectory(prefix="wizard-sim-baseline-") as scratch:
        baseline = Path(scratch) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(baseline), arguments.revision], check=True)
        try:
            trees = {arguments.revision: baseline, "working tree": ROOT}
            for name, tree in trees.items():  # compile (or load) each tree's kernels first
                result(start(tree, "random", 1, 10, -1))
            for policy in [arguments.policies] if arguments.table else arguments.policies.split(","):
                if arguments.instructions:
                    counted = count(trees, policy, arguments.games)
                    base, now = counted[arguments.revision], counted["working tree"]
                    print(f"{policy:>10}, instructions per game  {arguments.revision}: {base:,.0f}  working tree: {now:,.0f}"
                          f"  ({100 * (now / base - 1):+.2f}%)")  # fmt: skip
                    continue
                figures = compare(trees, policy, arguments.games)
                for threads in ("1 thread", "2 threads"):
                    cells = "  ".join(f"{name}: {min(runs):>7,}–{max(runs):>7,}" for name, runs in ((n, figures[n][threads]) for n in trees))
                    # each pair ran side by side (or back to back): its ratio is the figure to trust
                    ratios = [now / base for base, now in zip(figures[arguments.revision][threads], figures["working tree"][threads])]
                    print(f"{policy:>10}, {threads:9} games/s  {cells}  ratio per pair: "
                          f"{', '.join(f'{ratio:.2f}x' for ratio in ratios)}")  # fmt: skip
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=True)


if __name__ == "__main__":
    main()
