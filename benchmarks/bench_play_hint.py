"""How long `wizard-sim play`'s bid hint takes (docs/play.md, "Hints").

    python -m benchmarks.bench_play_hint                       # 20,000 samples
    python -m benchmarks.bench_play_hint --samples 50000

One game per opponent kind (heuristic, mc, random at every other seat) of 4 players, the
person at seat 2 answering like the heuristic, rounds of 1, 5, 10 and 15 cards; at each of
the person's bids the bid hint (sim.estimation.hints.bid_hint) is timed --repeats times after
--warmup untimed hints (benchmarks.harness; the first loads the kernels), each a range.
"""
from __future__ import annotations

import sim
from benchmarks.harness import Range, measure, parser, report, seconds
from kernels.records import DECIDE_BID
from sim.estimation.hints import bid_hint
from sim.play.session import PlayConfig, PlaySession
from sim.policies.registry import parse_policy
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

ROUNDS = (1, 5, 10, 15)


def main() -> None:
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--samples", type=int, default=20_000)
    arguments.add_argument("--seed", type=int, default=5)
    options = arguments.parse_args()
    heuristic = parse_policy("heuristic")
    figures: dict[str, object] = {"samples": options.samples, "seed": options.seed, "round_sizes": list(ROUNDS)}
    for opponents in ("heuristic", "mc", "random"):
        session = PlaySession(PlayConfig.build(sim.Rules(4, ROUNDS), 2, opponents, options.seed, 0))
        hints: list[Range] = []  # one a round: the hint reads the session and changes nothing
        while True:
            session.advance()
            if session.is_over():
                break
            if session.decision() == DECIDE_BID:
                hints.append(measure(lambda: seconds(lambda: bid_hint(session, heuristic, options.samples)),
                                     options.repeats, options.warmup, digits=3))
            session.answer(session.policy_hint(heuristic))
        figures[opponents] = hints
    lines = [f"bid hint, {options.samples:,} samples, 4 players, seat 2, seed {options.seed}; seconds a hint"]
    lines += [f"{opponents:>10}: " + "; ".join(f"{size} cards {hint.text('.2f')}" for size, hint in zip(ROUNDS, figures[opponents]))
              for opponents in ("heuristic", "mc", "random")]  # fmt: skip
    report(figures, lines, options.json)


if __name__ == "__main__":
    main()
