"""The SPRT's error rates, measured on simulated sequences (docs/league.md, "Sequential stopping").

    python -m experiments.sprt_error_rates                     # 10,000 runs per case
    python -m experiments.sprt_error_rates --replications 2000 --json
    python -m experiments.sprt_error_rates --look 1 --min-deals 2 --only paired --replications 1000   # why MIN_DEALS

Cases: a tournament's paired per-deal differences (normal, and heavy-tailed: Student t with 4
degrees of freedom, sd 60 points) and a synthetic league (4 policies at 3 seats, a deal effect,
t-distributed noise), each with the true difference of the first two policies at LOW (the
rate of accepting H1 is the test's alpha) and at HIGH (the rate of accepting H0 is its beta),
looking every --look deals as a run does after every chunk.
"""
from __future__ import annotations

import argparse
import json
import math

import numpy as np

import sim.stats.sprt
from sim.stats.design import league_design
from sim.stats.pairs import PairSums
from sim.stats.ratings import RatingSums, deal_stats
from sim.stats.sprt import SequentialTest, Sprt


def paired(mean: float, heavy: bool, look: int, generator: np.random.Generator):
    def chunk() -> dict:
        noise = generator.standard_t(4, look) / math.sqrt(2) if heavy else generator.normal(0, 1, look)
        x = mean + 60 * noise
        return {"deals": look, "pairs": {"a\tb": [float(x.sum()), float((x**2).sum())]}}

    return chunk, PairSums


def synthetic_league(mean: float, look: int, generator: np.random.Generator):
    design = league_design(4, 3)
    seats = np.array(design)
    skills = np.array([mean, 0.0, -3.0, 2.0])
    dealt = {"deal": 0}

    def chunk() -> dict:
        table_of_deal = (dealt["deal"] + np.arange(look)) % len(design)
        dealt["deal"] += look
        values = generator.normal(0, 100, (look, 1)) + skills[seats[table_of_deal]] + generator.standard_t(4, (look, 3)) * 35
        return {"ratings": deal_stats(values, table_of_deal, design, 4)}

    return chunk, lambda: RatingSums(["a", "b", "c", "d"], design)


def rates(case, sprt: Sprt, replications: int, cap: int) -> dict:
    counts = {"H0": 0, "H1": 0, "undecided": 0}
    deals = 0
    for _ in range(replications):
        chunk, sums = case()
        test = SequentialTest(sprt, sums(), ("a", "b"))
        for _ in range(cap):
            if test.add(chunk()):
                break
        counts[test.decision or "undecided"] += 1
        deals += test.deals
    return {**{key: value / replications for key, value in counts.items()}, "mean_deals": deals / replications}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=10_000)
    parser.add_argument("--look", type=int, default=64, help="deals between two looks (a run's chunk)")
    parser.add_argument("--min-deals", type=int, default=sim.stats.sprt.MIN_DEALS, help="deals before the test may decide")
    parser.add_argument("--only", choices=("paired", "league"), help="only these cases")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    sim.stats.sprt.MIN_DEALS = arguments.min_deals
    sprt = Sprt(0, 5)
    generator = np.random.default_rng(2024)
    cases = {
        "paired, normal": lambda mean: paired(mean, False, arguments.look, generator),
        "paired, t(4)": lambda mean: paired(mean, True, arguments.look, generator),
        "synthetic league": lambda mean: synthetic_league(mean, arguments.look, generator),
    }
    if arguments.only:
        cases = {name: make for name, make in cases.items() if arguments.only in name}
    results = {}
    for name, make in cases.items():
        cap = 20_000 // arguments.look
        at_low = rates(lambda: make(sprt.low), sprt, arguments.replications, cap)
        at_high = rates(lambda: make(sprt.high), sprt, arguments.replications, cap)
        results[name] = {"alpha": at_low["H1"], "beta": at_high["H0"], "at_low": at_low, "at_high": at_high}
    sigma = math.sqrt(0.05 * 0.95 / arguments.replications)
    if arguments.json:
        print(json.dumps({"replications": arguments.replications, "look": arguments.look, "min_deals": arguments.min_deals,
                          "results": results}))  # fmt: skip
        return
    print(f"SPRT(0, 5), alpha = beta = 0.05, a look every {arguments.look} deals from {arguments.min_deals} on,"
          f" {arguments.replications:,} runs per case (binomial sd of a rate near 0.05: {sigma:.4f})")  # fmt: skip
    for name, result in results.items():
        low, high = result["at_low"], result["at_high"]
        print(f"  {name}: alpha {result['alpha']:.4f}, beta {result['beta']:.4f}; mean deals {low['mean_deals']:,.0f}"
              f" and {high['mean_deals']:,.0f}; undecided {low['undecided']:.4f}, {high['undecided']:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
