"""Environment throughput: caller decisions per second through sim.env.VectorEnv.

    python -m benchmarks.bench_env            # table
    python -m benchmarks.bench_env --json     # one JSON object; decisions_per_s = B=4096, all threads

4 players; the caller controls seat 0 and picks a uniformly random legal action from the
mask in numpy (included in the time: that is the caller's side of every step), `heuristic`
plays seats 1-3 inside the kernels. Figures for B = 1, 64, 4096 on 1 and on all threads;
for reference the same table played entirely inside the kernels (run_games with
random,heuristic,heuristic,heuristic: seat 0's decisions per second), and the state API's
single-game steps per second (every seat chosen in Python). Every figure is a range over
--repeats measurements (windows of --seconds, or runs) after --warmup (benchmarks.harness).
"""
from __future__ import annotations

import itertools
import time

import numba
import numpy as np

from benchmarks.harness import Range, measure, parser, rate, report
from sim import Rules, run_games
from sim.env import VectorEnv, WizardGame

RULES = Rules(players=4)
DECISIONS_PER_SEAT = len(RULES.round_sizes) + sum(RULES.round_sizes)  # bids + cards (trump choices aside)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a bool mask [B, A]."""
    running = np.cumsum(masks, axis=1, dtype=np.uint8)  # legal actions up to each action
    picks = (rng.random(masks.shape[0], dtype=np.float32) * running[:, -1]).astype(np.uint8)
    return (running > picks[:, None]).argmax(axis=1)  # the first action past `pick` legal ones


def vector_rates(num_envs: int, threads: int, window: float, repeats: int, warmup: int) -> dict:
    """Caller decisions/s (also of the steps alone) and games/s of a VectorEnv, each a range
    over `repeats` windows of about `window` seconds after `warmup` windows."""
    rng = np.random.default_rng(0)
    vector = VectorEnv(RULES, num_envs, controlled_seats=(0,), opponents="heuristic", seed=1, threads=threads)
    _, masks, _ = vector.reset()
    windows: list[dict[str, float]] = []  # every window's figures, the warm-up's first

    def one_window() -> float:
        nonlocal masks
        steps = games = 0
        step_time = 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < window:
            actions = random_legal(masks, rng)
            before = time.perf_counter()
            _, masks, _, terminated, _, _ = vector.step(actions)
            step_time += time.perf_counter() - before
            steps += 1
            games += int(terminated.sum())
        elapsed = time.perf_counter() - start
        windows.append({"step_only": steps * num_envs / step_time, "games": games / elapsed})
        return steps * num_envs / elapsed

    decisions = measure(one_window, repeats, warmup)
    measured = windows[warmup:]
    return {
        "num_envs": num_envs,
        "threads": threads,
        "decisions_per_s": decisions,
        "decisions_per_s_step_only": Range(tuple(figures["step_only"] for figures in measured)),
        "games_per_s": Range(tuple(figures["games"] for figures in measured)),
    }


def reference_rate(threads: int, games: int, repeats: int, warmup: int) -> dict:
    """The same table inside the kernels: games/s and seat 0's decisions/s (at the median)."""
    seeds = itertools.count()
    games_per_s = measure(lambda: rate(lambda: run_games(RULES, "random,heuristic,heuristic,heuristic", seed=next(seeds),
                                                         games=games, threads=threads), games), repeats, warmup)  # fmt: skip
    return {"threads": threads, "games_per_s": games_per_s,
            "seat_decisions_per_s": round(games_per_s.median * DECISIONS_PER_SEAT)}  # fmt: skip


def random_step(state, rng: np.random.Generator) -> None:
    """One state API step: legal_actions, a random pick, apply_action."""
    legal = state.legal_actions()
    state.apply_action(legal[int(rng.integers(len(legal)))])


def state_api_rate(window: float, repeats: int, warmup: int) -> Range:
    """Single-game state API steps/s, a range over `repeats` windows of about `window` seconds
    after one whole game untimed (it loads the kernels) and `warmup` windows."""
    rng = np.random.default_rng(0)
    game = WizardGame(RULES)
    state = game.new_state(1, 0)
    while not state.is_terminal():
        random_step(state, rng)
    index = 1
    state = game.new_state(1, index)

    def one_window() -> float:
        nonlocal state, index
        steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < window:
            if state.is_terminal():
                index += 1
                state = game.new_state(1, index)
            random_step(state, rng)
            steps += 1
        return steps / (time.perf_counter() - start)

    return measure(one_window, repeats, warmup)


def main() -> None:
    arguments = parser(__doc__.split("\n")[0])
    arguments.add_argument("--seconds", type=float, default=3.0, help="time per VectorEnv measurement")
    arguments.add_argument("--sizes", default="1,64,4096")
    arguments.add_argument("--reference-games", type=int, default=20000)
    args = arguments.parse_args()
    all_threads = numba.config.NUMBA_NUM_THREADS
    thread_counts = sorted({1, all_threads})
    vector = [vector_rates(int(b), t, args.seconds, args.repeats, args.warmup)
              for b in args.sizes.split(",") for t in thread_counts]  # fmt: skip
    reference = [reference_rate(t, args.reference_games, args.repeats, args.warmup) for t in thread_counts]
    state_api = state_api_rate(args.seconds, args.repeats, args.warmup)
    headline = next((r["decisions_per_s"] for r in vector if r["num_envs"] == 4096 and r["threads"] == all_threads), None)
    result = {
        "decisions_per_s": headline,
        "vector_env": vector,
        "run_games_reference": reference,
        "state_api_steps_per_s": state_api,
        "threads": all_threads,
    }
    lines = ["VectorEnv, 4 players, caller = seat 0 (random legal, numpy), heuristic seats 1-3",
             f"{'B':>6} {'threads':>7}  decisions/s | (step only) | games/s"]  # fmt: skip
    lines += [f"{r['num_envs']:>6} {r['threads']:>7}  {r['decisions_per_s'].text()} | "
              f"{r['decisions_per_s_step_only'].text()} | {r['games_per_s'].text()}" for r in vector]  # fmt: skip
    lines += [f"run_games random,heuristic x3, {r['threads']} thread(s): {r['games_per_s'].text()} games/s "
              f"= {r['seat_decisions_per_s']:,} seat-0 decisions/s at the median" for r in reference]  # fmt: skip
    lines.append(f"state API, one game: {state_api.text()} steps/s")
    report(result, lines, args.json)


if __name__ == "__main__":
    main()
