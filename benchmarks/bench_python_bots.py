"""A Python (numpy) policy at the table: a 4-player duplicate tournament with one numpy seat
deciding every decision and three heuristic seats, in games/s per batch size (games in play
at once), next to the all-heuristic tournament on the same deals (heuristic:aggression=1.1
where the numpy policy sits: a tournament compares two policies at least).

    python -m benchmarks.bench_python_bots                          # 8,000 deals = 32,000 games, 3 pairs
    python -m benchmarks.bench_python_bots --batches 256,4096 --deals 4000 --profile
    python -m benchmarks.bench_python_bots --json

Every figure is a whole tournament written to a temporary directory (rounds + games, kernels
warm), like benchmarks/bench_tournament.py. --profile splits the Python seat's steps: the
kernel threads' time (the built-in seats' decisions, applying answers, recording, and
encoding observations and masks; wall time of the part steps, summed over the threads), of
which the encoding alone (timed again on one thread on a snapshot of a part), and the main
thread's (asking the bot): its act (numpy), checking its answers and the rest of the driver's
Python. Every figure also comes per second of the process's CPU time (all threads), which a
busy machine distorts less than the wall clock. The two tournaments go in --repeats
alternating pairs (benchmarks.harness, after --warmup before the first batch size), every
figure a range and the ratios pair by pair.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from collections import defaultdict

import numpy as np
from numba import njit

from benchmarks.harness import Range, Rate, alternate, parser, ratio, report
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


def tournament_rate(rules: Rules, policies: list, deals: int, batch: int | None, cpu_rates: list[float]) -> Rate:
    """games/s of a whole duplicate tournament written to a temporary directory; games per
    second of this process's CPU time (every thread's; a busy machine slows it less) go to
    `cpu_rates`."""

    def one_run() -> float:
        out = tempfile.mkdtemp(prefix="bench-python-bots-")
        try:
            config = TournamentConfig.build(rules, policies, seed=1, deals=deals)
            began = time.process_time()
            result = tournament(config, f"{out}/t", overwrite=True, batch=batch)
            cpu_rates.append(result.games_computed / (time.process_time() - began))
            return result.games_per_second
        finally:
            shutil.rmtree(out)

    return one_run


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
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--deals", type=int, default=8000)  # 32,000 games: more than the largest batch
    arguments.add_argument("--batches", default="64,256,1024,2048,4096,8192,16384")
    arguments.add_argument("--profile", action="store_true", help="split the steps' time (one more run per batch size)")
    options = arguments.parse_args()
    rules = Rules(players=4)
    # A tournament compares at least two policies: the baseline's first seat is heuristic with
    # a changed parameter, where the numpy policy sits in the other.
    heuristic = ["heuristic:aggression=1.1", "heuristic", "heuristic", "heuristic"]
    with_bot = [PreferenceBot, "heuristic", "heuristic", "heuristic"]
    figures = {"deals": options.deals, "games": options.deals * 4, "batches": {}}
    lines = []
    for index, batch in enumerate(int(b) for b in options.batches.split(",")):
        # Side by side in alternating pairs, the warm-up (loading the kernels) before the first.
        bot_cpu: list[float] = []
        baseline_cpu: list[float] = []
        warmup = options.warmup if index == 0 else 0
        bot, baseline, bot_over_baseline = alternate(tournament_rate(rules, with_bot, options.deals, batch, bot_cpu),
                                         tournament_rate(rules, heuristic, options.deals, None, baseline_cpu),
                                         options.repeats, warmup)  # fmt: skip
        bot_per_cpu, baseline_per_cpu = Range(tuple(bot_cpu[warmup:])), Range(tuple(baseline_cpu[warmup:]))
        entry = {"numpy_seat_games_per_s": bot, "heuristic_games_per_s": baseline, "ratio": bot_over_baseline,
                 "per_cpu_second": {"numpy_seat": bot_per_cpu, "heuristic": baseline_per_cpu,
                                    "ratio": ratio(bot_per_cpu, baseline_per_cpu)}}  # fmt: skip
        if options.profile:
            with Profile() as profile:
                tournament_rate(rules, with_bot, options.deals, batch, [])()
            entry["profile"] = profile.report()
        figures["batches"][batch] = entry
        lines.append(f"batch {batch:>6,}: numpy seat {bot.text()} games/s, all heuristic {baseline.text()} games/s "
                     f"(ratio {bot_over_baseline.text('.0%')}; per CPU second {bot_per_cpu.text()} and {baseline_per_cpu.text()}, "
                     f"{entry['per_cpu_second']['ratio'].text('.0%')})"
                     + (f"  profile {entry['profile']}" if options.profile else ""))  # fmt: skip
    report(figures, lines, options.json)


if __name__ == "__main__":
    main()
