"""Duplicate comparison of policies on a 4-player table: every deal is played in the 4
rotations of the seat list (seat s gets policy (s + k) mod 4 in rotation k), and in their
mirror images where those seat the policies differently (a tournament's default,
sim.runs.table_engine), so every policy plays every seat of the same deals; the deals depend only on
(seed, game id).

    python -m experiments.strength_mc --deals 2000                       # mc vs heuristic vs random
    python -m experiments.strength_mc --deals 2000 --seats mc:samples=8,heuristic,heuristic,random
    python -m experiments.strength_mc --deals 2000 --json

Reports each policy's mean final total per game and, for each pair of policies, the mean
per-deal difference with its paired 95% confidence interval (1.96 standard errors over deals).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from sim import Rules, TournamentConfig
from sim.policies.registry import parse_policy, split_policy_list
from sim.runs.tournament import per_deal_scores

Z_95 = 1.96


def seatings_config(seats: list[str], seed: int, deals: int) -> TournamentConfig:
    return TournamentConfig.build(Rules(players=len(seats)), seats, seed=seed, deals=deals)


def per_deal_means(seats: list[str], seed: int, game_ids: np.ndarray, threads: int | None) -> dict[str, np.ndarray]:
    """Mean final total per deal of each distinct policy over all seatings and its seats:
    the duplicate tournament's own rotation and per-deal scores (sim.runs.tournament)."""
    first, deals = int(game_ids[0]), int(game_ids.shape[0])
    config = seatings_config(seats, seed, first + deals)
    scores = per_deal_scores(config, config.compute_chunk(first, deals, threads))
    return {name: scores[:, config.labels.index(parse_policy(name).label)] for name in dict.fromkeys(seats)}


def compare(means: dict[str, np.ndarray]) -> dict:
    names = list(means)
    report = {"mean_total": {name: float(means[name].mean()) for name in names}, "pairs": {}}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            diff = means[a] - means[b]
            half = Z_95 * diff.std(ddof=1) / np.sqrt(diff.shape[0])
            report["pairs"][f"{a} - {b}"] = {
                "mean": float(diff.mean()),
                "ci95": [float(diff.mean() - half), float(diff.mean() + half)],
                "z": float(diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.shape[0]))),
            }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", default="mc,heuristic,heuristic,random", help="one policy per seat")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    seats = split_policy_list(args.seats)
    game_ids = np.arange(args.first_deal, args.first_deal + args.deals, dtype=np.int64)
    start = time.perf_counter()
    report = compare(per_deal_means(seats, args.seed, game_ids, args.threads))
    seconds = time.perf_counter() - start
    rotations = seatings_config(seats, args.seed, args.deals).rotations
    report.update(seats=seats, deals=args.deals, seed=args.seed, games=args.deals * rotations)
    report["seconds"] = round(seconds, 1)
    if args.json:
        print(json.dumps(report))
        return
    print(f"{args.deals} deals x {rotations} seatings of {','.join(seats)} (seed {args.seed}), {seconds:.0f} s")
    for name, value in report["mean_total"].items():
        print(f"  {name:>40}: mean final total {value:8.2f}")
    for pair, figures in report["pairs"].items():
        low, high = figures["ci95"]
        print(f"  {pair:>60}: {figures['mean']:+8.2f}  95% CI [{low:+.2f}, {high:+.2f}]  z = {figures['z']:.1f}")


if __name__ == "__main__":
    main()
