"""How long `wizard-sim play`'s bid hint takes (docs/play.md, "Hints").

    python -m benchmarks.bench_play_hint                       # 20,000 samples
    python -m benchmarks.bench_play_hint --samples 50000

One game per opponent kind (heuristic, mc, random at every other seat) of 4 players, the
person at seat 2 answering like the heuristic, rounds of 1, 5, 10 and 15 cards; at each of
the person's bids the bid hint (sim.estimation.hints.bid_hint) is timed on warm kernels (a first,
untimed hint loads them).
"""
from __future__ import annotations

import argparse
import time

import sim
from kernels.records import DECIDE_BID
from sim.estimation.hints import bid_hint
from sim.play.session import PlayConfig, PlaySession
from sim.policies.registry import parse_policy
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

ROUNDS = (1, 5, 10, 15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=5)
    arguments = parser.parse_args()
    heuristic = parse_policy("heuristic")
    warm = PlaySession(PlayConfig.build(sim.Rules(4, (1,)), 0, "heuristic", 0, 0))
    warm.advance()
    bid_hint(warm, heuristic, 100)
    print(f"bid hint, {arguments.samples:,} samples, 4 players, seat 2, seed {arguments.seed}")
    print(f"{'opponents':>10} " + " ".join(f"{size:>4} cards" for size in ROUNDS))
    for opponents in ("heuristic", "mc", "random"):
        session = PlaySession(PlayConfig.build(sim.Rules(4, ROUNDS), 2, opponents, arguments.seed, 0))
        seconds = []
        while True:
            session.advance()
            if session.is_over():
                break
            if session.decision() == DECIDE_BID:
                start = time.perf_counter()
                bid_hint(session, heuristic, arguments.samples)
                seconds.append(time.perf_counter() - start)
            session.answer(session.policy_hint(heuristic))
        print(f"{opponents:>10} " + " ".join(f"{value:>8.2f} s" for value in seconds))


if __name__ == "__main__":
    main()
