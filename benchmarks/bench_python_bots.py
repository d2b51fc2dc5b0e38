"""A Python (numpy) policy at the table: a 4-player duplicate tournament with one numpy seat
deciding every decision and three heuristic seats, in games/s per batch size (games in play
at once), next to the all-heuristic tournament on the same deals (heuristic:aggression=1.1
where the numpy policy sits: a tournament compares two policies at least).

    python -m benchmarks.bench_python_bots                          # 8,000 deals = 32,000 games, best of 3
    python -m benchmarks.bench_python_bots --batches 256,4096 --deals 4000 --profile
    python -m benchmarks.bench_python_bots --json

Every figure is a whole tournament written to a temporary directory (rounds + games, kernels
warm), like benchmarks/bench_tournament.py. --profile splits the Python seat's steps: the
kernel threads' time (the built-in seats' decisions, applying answers, recording, and
encoding observations and masks; wall time of the part steps, summed over the threads), of
which the encoding alone (timed again on one thread on a snapshot of a part), and the main
thread's (asking the bot): its act (numpy), checking its answers and the rest of the driver's
Python. Every figure also comes per second of the process's CPU time (all threads), which a
busy machine distorts less than the wall clock.
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections import defaultdict

import numpy as np
from numba import njit

from kernels.game_state import observe
from kernels.observation import N_ACTIONS, OBSERVATION_SIZE
from sim.engine.bot_caller import BotCaller
from sim.config.rules import Rules
from sim.runs import bot_games
from sim.runs.tournament import TournamentConfig, tournament
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)


class PreferenceBot:
    """A trivial but real batched numpy policy that makes every decision: the legal action it
    prefers most, by a fixed preference per action (seeded)."""

    def __init__(self) -> None:
        self.preference = np.random.default_rng(0).random(N_ACTIONS).astype(np.float32)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.where(masks, self.preference, -1.0).argmax(axis=1)


def run(rules: Rules, policies: list, deals: int, batch: int | None) -> tuple[float, float]:
    """games/s of a whole duplicate tournament written to a temporary directory, and games per
    second of this process's CPU time (every thread's; a busy machine slows it less)."""
    out = tempfile.mkdtemp(prefix="bench-python-bots-")
    try:
        config = TournamentConfig.build(rules, policies, seed=1, deals=deals)
        began = time.process_time()
        result = tournament(config, f"{out}/t", overwrite=True, batch=batch)
        return result.games_per_second, result.games_computed / (time.process_time() - began)
    finally:
        shutil.rmtree(out)


@njit(cache=True)
def observe_all(states, seats, observations, masks):
    for i in range(states.shape[0]):
        if seats[i] >= 0:
            observe(states[i], seats[i], observations[i], masks[i])


class Profile:
    """Seconds per part of the Python seat's steps. The pool's parts overlap (the run's threads
    step parts while the main thread asks the bot for another), so the kernels' time (summed
    over their threads) and the main thread's are each a total of their own."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.steps = 0
        self.decisions = 0
        self.snapshot = None
        self.saved: list = []

    def _wrap(self, owner, name: str, key: str, after=None) -> None:
        original = getattr(owner, name)
        self.saved.append((owner, name, original))
        seconds = self.seconds

        def timed(*arguments):
            began = time.perf_counter()
            result = original(*arguments)
            seconds[key] += time.perf_counter() - began
            if after is not None:
                after(*arguments)
            return result

        setattr(owner, name, timed)

    def _after_step(self, part) -> None:
        self.steps += 1
        asked = part.turns.seats
        if self.snapshot is None and (asked >= 0).all() and asked.shape[0] > 1:
            self.snapshot = (part.states.copy(), asked.copy())

    def _after_ask(self, caller, observations, masks, context) -> None:
        self.decisions += observations.shape[0]

    def __enter__(self) -> "Profile":
        self._wrap(bot_games.Part, "advance", "kernel", self._after_step)
        self._wrap(bot_games.Part, "ask", "main_thread")
        self._wrap(BotCaller, "ask", "ask", self._after_ask)
        self._wrap(BotCaller, "check", "check")
        self._wrap(PreferenceBot, "act", "act")
        return self

    def __exit__(self, *exception) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)

    def encoding_seconds(self) -> float:
        """The encoding's share of the kernel time: observe every env of a snapshot again, on
        one thread, and scale to the run's decisions."""
        states, asked = self.snapshot
        observations = np.zeros((states.shape[0], OBSERVATION_SIZE), dtype=np.float32)
        masks = np.zeros((states.shape[0], N_ACTIONS), dtype=np.bool_)
        observe_all(states, asked, observations, masks)
        repeats = 20
        began = time.perf_counter()
        for _ in range(repeats):
            observe_all(states, asked, observations, masks)
        per_row = (time.perf_counter() - began) / repeats / states.shape[0]
        return per_row * self.decisions

    def report(self) -> dict:
        seconds = self.seconds
        return {
            "kernel_steps": self.steps,
            "decisions": self.decisions,
            "kernel_thread_s": round(seconds["kernel"], 3),
            "of_which_encoding_s": round(self.encoding_seconds(), 3),
            "main_thread_s": round(seconds["main_thread"], 3),
            "of_which_act_s": round(seconds["act"], 3),
            "of_which_check_s": round(seconds["check"], 3),
            "of_which_driver_s": round(seconds["main_thread"] - seconds["ask"], 3),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8000)  # 32,000 games: more than the largest batch
    parser.add_argument("--batches", default="64,256,1024,2048,4096,8192,16384")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each figure; the best is reported")
    parser.add_argument("--profile", action="store_true", help="split the steps' time (one more run per batch size)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    rules = Rules(players=4)
    # A tournament compares at least two policies: the baseline's first seat is heuristic with
    # a changed parameter, where the numpy policy sits in the other.
    heuristic = ["heuristic:aggression=1.1", "heuristic", "heuristic", "heuristic"]
    with_bot = [PreferenceBot, "heuristic", "heuristic", "heuristic"]
    run(rules, heuristic, 4, None)  # load or compile the kernels
    run(rules, with_bot, 4, 64)
    figures = {"deals": arguments.deals, "games": arguments.deals * 4, "batches": {}}
    for batch in (int(b) for b in arguments.batches.split(",")):
        # Side by side, alternating: the all-heuristic tournament right before each Python-seat
        # run; the best of --repeat runs of each (a busy machine only ever slows a run down).
        baselines, bots, baseline_cpu, bot_cpu = [], [], [], []
        for _ in range(arguments.repeat):
            for rates, cpu_rates, policies, size in ((baselines, baseline_cpu, heuristic, None), (bots, bot_cpu, with_bot, batch)):
                wall, cpu = run(rules, policies, arguments.deals, size)
                rates.append(wall)
                cpu_rates.append(cpu)
        baseline, bot = max(baselines), max(bots)
        entry = {"numpy_seat_games_per_s": round(bot), "heuristic_games_per_s": round(baseline),
                 "ratio": round(bot / baseline, 3),
                 "numpy_seat_range": [round(min(bots)), round(bot)],
                 "heuristic_range": [round(min(baselines)), round(baseline)],
                 "per_cpu_second": {"numpy_seat": round(max(bot_cpu)), "heuristic": round(max(baseline_cpu)),
                                    "ratio": round(max(bot_cpu) / max(baseline_cpu), 3)}}  # fmt: skip
        if arguments.profile:
            with Profile() as profile:
                run(rules, with_bot, arguments.deals, batch)
            entry["profile"] = profile.report()
        figures["batches"][batch] = entry
        if not arguments.json:
            print(f"batch {batch:>6,}: numpy seat {entry['numpy_seat_games_per_s']:>7,} games/s, all heuristic "
                  f"{entry['heuristic_games_per_s']:>7,} games/s ({entry['ratio']:.0%}; ranges "
                  f"{entry['numpy_seat_range']} and {entry['heuristic_range']}; per CPU second "
                  f"{entry['per_cpu_second']['numpy_seat']:,} and {entry['per_cpu_second']['heuristic']:,}, "
                  f"{entry['per_cpu_second']['ratio']:.0%})"
                  + (f"  profile {entry['profile']}" if arguments.profile else ""))  # fmt: skip
    if arguments.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
