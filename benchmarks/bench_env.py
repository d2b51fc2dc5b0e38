"""Environment throughput: caller decisions per second through sim.env.VectorEnv.

    python -m benchmarks.bench_env            # table
    python -m benchmarks.bench_env --json     # one JSON object; decisions_per_s = B=4096, all threads

4 players; the caller controls seat 0 and picks a uniformly random legal action from the
mask in numpy (included in the time: that is the caller's side of every step), `heuristic`
plays seats 1-3 inside the kernels. Figures for B = 1, 64, 4096 on 1 and on all threads;
for reference the same table played entirely inside the kernels (run_games with
random,heuristic,heuristic,heuristic: seat 0's decisions per second), and the state API's
single-game steps per second (every seat chosen in Python).
"""
from __future__ import annotations

import argparse
import json
import time

import numba
import numpy as np

from sim import Rules, run_games
from sim.env import VectorEnv, WizardGame

RULES = Rules(players=4)
DECISIONS_PER_SEAT = len(RULES.round_sizes) + sum(RULES.round_sizes)  # bids + cards (trump choices aside)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a bool mask [B, A]."""
    running = np.cumsum(masks, axis=1, dtype=np.uint8)  # legal actions up to each action
    picks = (rng.random(masks.shape[0], dtype=np.float32) * running[:, -1]).astype(np.uint8)
    return (running > picks[:, None]).argmax(axis=1)  # the first action past `pick` legal ones


def vector_rate(num_envs: int, threads: int, seconds: float) -> dict:
    """Caller decisions/s (and games/s) of a VectorEnv over about `seconds`."""
    rng = np.random.default_rng(0)
    vector = VectorEnv(RULES, num_envs, controlled_seats=(0,), opponents="heuristic", seed=1, threads=threads)
    _, masks, _ = vector.reset()
    for _ in range(3):  # warm up
        _, masks, *_ = vector.step(random_legal(masks, rng))
    steps = games = 0
    step_time = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = random_legal(masks, rng)
        before = time.perf_counter()
        _, masks, _, terminated, _, _ = vector.step(actions)
        step_time += time.perf_counter() - before
        steps += 1
        games += int(terminated.sum())
    elapsed = time.perf_counter() - start
    return {
        "num_envs": num_envs,
        "threads": threads,
        "decisions_per_s": steps * num_envs / elapsed,
        "decisions_per_s_step_only": steps * num_envs / step_time,
        "games_per_s": games / elapsed,
    }


def reference_rate(threads: int, games: int) -> dict:
    """The same table inside the kernels: games/s and seat 0's decisions/s."""
    run_games(RULES, "random,heuristic,heuristic,heuristic", seed=0, games=100, threads=threads)
    best = 0.0
    for repeat in range(3):
        start = time.perf_counter()
        run_games(RULES, "random,heuristic,heuristic,heuristic", seed=repeat + 1, games=games, threads=threads)
        best = max(best, games / (time.perf_counter() - start))
    return {"threads": threads, "games_per_s": best, "seat_decisions_per_s": best * DECISIONS_PER_SEAT}


def random_step(state, rng: np.random.Generator) -> None:
    """One state API step: legal_actions, a random pick, apply_action."""
    legal = state.legal_actions()
    state.apply_action(legal[int(rng.integers(len(legal)))])


def state_api_rate(seconds: float) -> float:
    """Single-game state API steps/s, after one whole game untimed (it loads the kernels)."""
    rng = np.random.default_rng(0)
    game = WizardGame(RULES)
    state = game.new_state(1, 0)
    while not state.is_terminal():
        random_step(state, rng)
    steps, index = 0, 1
    state = game.new_state(1, index)
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if state.is_terminal():
            index += 1
            state = game.new_state(1, index)
        random_step(state, rng)
        steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per VectorEnv measurement")
    parser.add_argument("--sizes", default="1,64,4096")
    parser.add_argument("--reference-games", type=int, default=20000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    all_threads = numba.config.NUMBA_NUM_THREADS
    thread_counts = sorted({1, all_threads})
    vector = [vector_rate(int(b), t, args.seconds) for b in args.sizes.split(",") for t in thread_counts]
    reference = [reference_rate(t, args.reference_games) for t in thread_counts]
    state_api = state_api_rate(args.seconds)
    headline = next((r["decisions_per_s"] for r in vector if r["num_envs"] == 4096 and r["threads"] == all_threads), None)
    result = {
        "decisions_per_s": headline,
        "vector_env": vector,
        "run_games_reference": reference,
        "state_api_steps_per_s": state_api,
        "threads": all_threads,
    }
    if args.json:
        print(json.dumps(result))
        return
    print("VectorEnv, 4 players, caller = seat 0 (random legal, numpy), heuristic seats 1-3")
    print(f"{'B':>6} {'threads':>7} {'decisions/s':>14} {'(step only)':>14} {'games/s':>10}")
    for r in vector:
        print(
            f"{r['num_envs']:>6} {r['threads']:>7} {r['decisions_per_s']:>14,.0f} "
            f"{r['decisions_per_s_step_only']:>14,.0f} {r['games_per_s']:>10,.0f}"
        )
    for r in reference:
        print(
            f"run_games random,heuristic x3, {r['threads']} thread(s): {r['games_per_s']:,.0f} games/s "
            f"= {r['seat_decisions_per_s']:,.0f} seat-0 decisions/s"
        )
    print(f"state API, one game: {state_api:,.0f} steps/s")


if __name__ == "__main__":
    main()
