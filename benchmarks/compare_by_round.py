"""Where two tournaments differ, round by round: `wizard-sim compare`'s paired difference split
by round size (docs/pimc.md, "Learned inference").

    python benchmarks/compare_by_round.py runs/random_learned runs/random_base

The two runs are duplicate tournaments that `wizard-sim compare` accepts (the same rules, seed
and seatings; A lists policy X where B lists Y). For each round size, X's round score minus
Y's in the same game, seat and round, averaged over each deal's games, then over the deals:
the mean, its 95% interval (deals as the unit, as compare pairs them) and the deals.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import sys

import pandas as pd

from sim.config.errors import ConfigError
from sim.runs.comparison import compare_tournaments
from sim.storage import StorageError, read_table

Z_95 = 1.959964


def compared_rounds(run_a: Path, run_b: Path) -> pd.DataFrame:
    """Per round size: the mean paired difference of the compared policies' round scores, its
    95% interval over deals, and the number of deals."""
    compared = compare_tournaments(run_a, run_b).to_dict()  # checks the runs pair, names the policies
    # Only the parts each run's journal vouches for (read_table), as compare reads its games.
    columns = ["game_id", "deal_id", "round", "seat", "policy", "score"]
    rounds_a = read_table(run_a, "rounds", columns=columns).to_pandas()
    rounds_b = read_table(run_b, "rounds", columns=columns).to_pandas().drop(columns="deal_id")
    mine_a = rounds_a[rounds_a["policy"] == compared["policy_a"]]
    mine_b = rounds_b[rounds_b["policy"] == compared["policy_b"]]
    paired = mine_a.merge(mine_b, on=["game_id", "round", "seat"], suffixes=("_a", "_b"), validate="one_to_one")
    paired["difference"] = paired["score_a"] - paired["score_b"]
    by_deal = paired.groupby(["round", "deal_id"])["difference"].mean().groupby("round")
    table = pd.DataFrame({"mean": by_deal.mean(), "se": by_deal.sem(), "deals": by_deal.size()})
    table["ci_low"] = table["mean"] - Z_95 * table["se"]
    table["ci_high"] = table["mean"] + Z_95 * table["se"]
    return table.drop(columns="se").reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_a", type=Path)
    parser.add_argument("run_b", type=Path)
    parser.add_argument("--json", action="store_true", help="print one JSON list of rows")
    arguments = parser.parse_args()
    try:
        table = compared_rounds(arguments.run_a, arguments.run_b)
    except (ConfigError, StorageError) as error:  # runs that do not pair or read: one line, as compare says it
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if arguments.json:
        print(json.dumps(table.round(3).to_dict(orient="records")))
    else:
        print(table.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
