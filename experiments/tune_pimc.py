"""Compare pimc settings on the same deals: each setting plays the duplicate table
SETTING,OPPONENT,OPPONENT,OPPONENT (4 players, the 4 rotations; `mc` at its defaults unless
--opponent says otherwise). Per deal, the setting's mean final total over its seats, minus
the opponents' mean on the same games, and minus the first setting's per-deal mean (paired
over deals, the same deals for every setting).

    python -m experiments.tune_pimc --deals 300 pimc pimc:depth=2 pimc:playout=1
    python -m experiments.tune_pimc --deals 300 --opponent heuristic --json pimc pimc:posterior=0

How wizard-sim 0.1's defaults were chosen (docs/pimc.md, "Tuning"; tuning deals start at game
1,000,000 of seed 26, apart from the published tournaments' deals). 0.2's defaults were
chosen on duplicate tournaments (docs/pimc.md).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from experiments.strength_mc import Z_95, per_deal_means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("settings", nargs="+", help="policies; the first is the baseline")
    parser.add_argument("--opponent", default="mc", help="the policy of the other three seats")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--first-deal", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    game_ids = np.arange(args.first_deal, args.first_deal + args.deals, dtype=np.int64)
    sqrt_n = np.sqrt(args.deals)
    rows = []
    baseline = None
    for setting in args.settings:
        start = time.perf_counter()
        means = per_deal_means([setting] + [args.opponent] * 3, args.seed, game_ids, args.threads)
        elapsed = time.perf_counter() - start
        total = means[setting]
        edge = total - means[args.opponent]
        baseline = total if baseline is None else baseline
        versus = total - baseline
        rows.append(
            {
                "setting": setting,
                "total": float(total.mean()),
                "minus_opponent": float(edge.mean()),
                "minus_opponent_ci95": float(Z_95 * edge.std(ddof=1) / sqrt_n),
                "versus_baseline": float(versus.mean()),
                "versus_baseline_ci95": float(Z_95 * versus.std(ddof=1) / sqrt_n) if versus.any() else 0.0,
                "seconds": round(elapsed, 1),
            }
        )
        if not args.json:
            row = rows[-1]
            print(
                f"{setting:>50}: {row['total']:7.1f}, - {args.opponent} {row['minus_opponent']:+7.1f}"
                f" +- {row['minus_opponent_ci95']:.1f}, vs baseline {row['versus_baseline']:+6.1f}"
                f" +- {row['versus_baseline_ci95']:.1f} (95%), {elapsed:.0f} s",
                flush=True,
            )
    if args.json:
        print(json.dumps({"deals": args.deals, "seed": args.seed, "opponent": args.opponent, "rows": rows}))


if __name__ == "__main__":
    main()
