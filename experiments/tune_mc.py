"""Compare mc settings on the same deals: each setting plays the duplicate table of
experiments/strength_mc.py (SETTING,heuristic,heuristic,random in the 4 rotations and their
mirror images), and every setting's per-deal mean final total is compared with the first
setting's, paired over deals.

    python -m experiments.tune_mc --deals 2000 mc:samples=8 mc:samples=16 mc:samples=32
    python -m experiments.tune_mc --deals 2000 --json mc mc:play_samples=4

How the defaults of docs/mc.md were chosen.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from experiments.strength_mc import Z_95, per_deal_means

OPPONENTS = ["heuristic", "heuristic", "random"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("settings", nargs="+", help="mc policies; the first is the baseline")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    game_ids = np.arange(args.first_deal, args.first_deal + args.deals, dtype=np.int64)
    rows = []
    baseline = None
    for setting in args.settings:
        start = time.perf_counter()
        means = per_deal_means([setting] + OPPONENTS, args.seed, game_ids, args.threads)
        elapsed = time.perf_counter() - start
        mc_total = means[setting]
        edge = mc_total - means["heuristic"]
        baseline = mc_total if baseline is None else baseline
        versus = mc_total - baseline
        sqrt_n = np.sqrt(args.deals)
        rows.append(
            {
                "setting": setting,
                "mc_total": float(mc_total.mean()),
                "mc_minus_heuristic": float(edge.mean()),
                "mc_minus_heuristic_se": float(edge.std(ddof=1) / sqrt_n),
                "versus_baseline": float(versus.mean()),
                "versus_baseline_se": float(versus.std(ddof=1) / sqrt_n) if versus.any() else 0.0,
                "seconds": round(elapsed, 1),
            }
        )
        if not args.json:
            row = rows[-1]
            print(
                f"{setting:>45}: mc {row['mc_total']:7.1f}, mc - heuristic {row['mc_minus_heuristic']:+7.1f}"
                f" +- {Z_95 * row['mc_minus_heuristic_se']:.1f}, vs baseline {row['versus_baseline']:+6.1f}"
                f" +- {Z_95 * row['versus_baseline_se']:.1f} (95%), {elapsed:.0f} s",
                flush=True,
            )
    if args.json:
        print(json.dumps({"deals": args.deals, "seed": args.seed, "rows": rows}))


if __name__ == "__main__":
    main()
