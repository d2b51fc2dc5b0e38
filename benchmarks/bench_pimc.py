"""pimc's time budget (docs/pimc.md, "Costs"): what one game costs at the defaults and at the
largest allowed setting, and how long a run at that setting takes to stop after Ctrl-C.

    python -m benchmarks.bench_pimc                     # all three measurements
    python -m benchmarks.bench_pimc --games 40 --trials 5 --json

1. Ctrl-C: `wizard-sim simulate` at the largest allowed setting (LARGEST: every count at its
   cap, inference on (infer=4: every seat read, a decision taken again on uniform deals when
   too few weighted ones are effective), the face-up playout, which costs the most, in every
   round (mc_from=0: none played as mc); every seat; 4 players, 2 threads), SIGINT sent at a
   random moment after its first chunk is journalled; the seconds until the process has exited.
2. Seconds of one core per full game, one pimc seat at its defaults (pimc,heuristic,heuristic,
   random: what bench_mc.py times), next to mc at its defaults, interleaved runs (`--seat`
   times other policies in that seat instead, e.g. pimc against mc at equal time:
   `--only one_seat --seat pimc --seat mc:samples=128,play_samples=256`; `--others` seats
   other policies beside it, e.g. three mc:samples=128,play_samples=256 seats: the seat's cost
   at that table is then the difference of two seats' whole-table figures).
3. Seconds of one core per full game with every seat at LARGEST, 3, 4 and 6 players: a kernel
   call holds at least one game, so this bounds how long a run takes to see a Ctrl-C. One run
   each after --warmup runs of the same size.

2 and 3 run on the harness (benchmarks.harness): ranges over --repeats after --warmup.
"""
from __future__ import annotations

import argparse
import itertools
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Range, interleave, measure, parser, report, run_seconds
from kernels.search import pimc
from sim import Rules
from sim.policies.registry import split_policy_list
from sim.storage import JOURNAL_FILE
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

LARGEST = (f"pimc:samples={pimc.MAX_SAMPLES},play_samples={pimc.MAX_PLAY_SAMPLES},depth={pimc.MAX_DEPTH},"
           "uniform_when_all_dealt=0,uniform_when_most_dealt=0,"  # inference in every round
           f"playout={pimc.PLAYOUT_FACEUP},bidding={pimc.BIDDING_FACEUP},mc_from=0")  # fmt: skip
OPPONENTS = ("heuristic", "heuristic", "random")


def one_seat_costs(games: int, repeats: int, warmup: int, seats: tuple[str, ...] = ("pimc", "mc"),
                   others: tuple[str, ...] = OPPONENTS) -> dict[str, Range]:  # fmt: skip
    """Each seat's table interleaved `repeats` times after `warmup` (benchmarks.harness)."""
    rules = Rules(players=4)
    # One thread's process time per game (the process does nothing else meanwhile).
    sides = [run_seconds(rules, [name, *others], games, itertools.count(), clock=time.process_time, scale=1 / games)
             for name in seats]  # fmt: skip
    return dict(zip(seats, interleave(sides, repeats, warmup, digits=4)))


def largest_setting_costs(games: int, warmup: int) -> dict[str, Range]:
    """One run a player count after `warmup` (each run at LARGEST costs seconds a game)."""
    return {str(players): measure(run_seconds(Rules(players=players), [LARGEST] * players, games, itertools.count(),
                                              clock=time.process_time, scale=1 / games), 1, warmup, 3)
            for players in (3, 4, 6)}  # fmt: skip


STOP_TIMEOUT = 60.0


def ctrl_c_seconds(trials: int) -> list[float | None]:
    """Seconds from SIGINT to exit of a simulate run at LARGEST, one per trial (None: it had not
    stopped after STOP_TIMEOUT and was killed)."""
    elapsed = []
    generator = random.Random(26)
    for trial in range(trials):
        with tempfile.TemporaryDirectory() as directory:
            out = Path(directory) / "run"
            command = [sys.executable, "-m", "sim.cli", "simulate", "--games", "100000", "--chunk-games", "2",
                       "--policy", LARGEST, "--seed", str(trial), "--threads", "2", "--quiet", "--out", str(out)]  # fmt: skip
            process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
            journal = out / JOURNAL_FILE
            while process.poll() is None and not (journal.exists() and journal.read_bytes().count(b"\n") >= 1):
                time.sleep(0.02)
            time.sleep(generator.uniform(0.0, 2.0))  # somewhere inside a later kernel call
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            try:
                _, stderr = process.communicate(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                elapsed.append(None)  # not stopped within STOP_TIMEOUT
                continue
            elapsed.append(round(time.monotonic() - sent, 2))
            if process.returncode != 130:
                raise SystemExit(f"simulate exited {process.returncode}, not 130 (interrupted): {stderr.strip()}")
    return elapsed


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--games", type=int, default=40, help="games per timed run of the defaults")
    arguments.add_argument("--largest-games", type=int, default=4, help="games per timed run at the largest setting")
    arguments.add_argument("--trials", type=int, default=5, help="Ctrl-C trials")
    arguments.add_argument("--seat", action="append", metavar="POLICY",
                           help="one_seat: time this policy in the first seat (repeatable, interleaved; "
                                "default pimc and mc at their defaults)")  # fmt: skip
    arguments.add_argument("--others", default=",".join(OPPONENTS), metavar="POLICIES",
                           help="one_seat: the other three seats (default %(default)s)")
    arguments.add_argument("--only", choices=("one_seat", "largest", "ctrl_c"), action="append",
                           help="run only this measurement (repeatable)")
    args = arguments.parse_args()
    others = tuple(split_policy_list(args.others))
    if len(others) != 3:
        arguments.error(f"--others names {len(others)} policies; a 4-player table needs 3 beside the timed seat")

    only = args.only or ("one_seat", "largest", "ctrl_c")
    figures: dict = {"largest": LARGEST}
    lines = []
    if "ctrl_c" in only:
        # First, as before: a child's Ctrl-C waited for its kernel slice (several seconds under
        # load) until slices ran off the main thread (#40, docs/pimc.md).
        figures["ctrl_c_s"] = stops = ctrl_c_seconds(args.trials)
        lines.append(f"Ctrl-C at that setting (4 players, 2 threads): stopped after {stops} s "
                     f"(None: not within {STOP_TIMEOUT:g} s)")  # fmt: skip
    if "one_seat" in only:
        costs = one_seat_costs(args.games, args.repeats, args.warmup, tuple(args.seat or ("pimc", "mc")), others)
        figures["one_seat_cpu_s_per_game"] = costs
        lines += [f"{name},{','.join(others)}: {runs.text('.3f')} s of one core per 4-player game"
                  for name, runs in costs.items()]  # fmt: skip
    if "largest" in only:
        figures["every_seat_largest_cpu_s_per_game"] = costs = largest_setting_costs(args.largest_games, args.warmup)
        lines += [f"every seat {LARGEST}, {players} players: {cost.median:.2f} s of one core per game"
                  for players, cost in costs.items()]  # fmt: skip
    report(figures, lines, args.json)


if __name__ == "__main__":
    main()
