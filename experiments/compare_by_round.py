"""Where two tournaments differ, round by round: `wizard-sim compare`'s paired difference split
by round size (docs/pimc.md, "Learned inference"); or, with --within, two policies of one
tournament (docs/pimc.md, "Rounds by size at equal time").

    python -m experiments.compare_by_round runs/random_learned runs/random_base
    python -m experiments.compare_by_round runs/equal_time --within pimc mc:samples=128,play_samples=256

The two runs are duplicate tournaments that `wizard-sim compare` accepts (the same rules, seed
and seatings; A lists policy X where B lists Y). For each round size, X's round score minus
Y's in the same game, seat and round, averaged over each deal's games, then over the deals:
the mean, its 95% interval (deals as the unit, as compare pairs them) and the deals.
Within one finished duplicate tournament, per round size: the mean round score of policy A's
seats minus that of policy B's seats over each deal's games, then over the deals; the rounds
add up to the difference of the two policies' per-deal mean totals.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import sys

import pandas as pd

from sim.config.errors import ConfigError
from sim.policies.registry import is_external, parse_policy
from sim.runs.comparison import compare_tournaments, tournament_config
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
    return interval_by_round(paired.groupby(["round", "deal_id"])["difference"].mean().groupby("round"))


def interval_by_round(by_deal) -> pd.DataFrame:
    """The mean of per-deal values grouped by round, its 95% interval over the deals, the deals."""
    table = pd.DataFrame({"mean": by_deal.mean(), "se": by_deal.sem(), "deals": by_deal.size()})
    table["ci_low"] = table["mean"] - Z_95 * table["se"]
    table["ci_high"] = table["mean"] + Z_95 * table["se"]
    return table.drop(columns="se").reset_index()


def within_rounds(run: Path, policy_a: str, policy_b: str) -> pd.DataFrame:
    """Per round size, within one tournament: policy A's seats' mean round score minus policy
    B's in each deal's games, its mean over the deals, 95% interval and deals."""
    listed = tournament_config(run)["policies"]
    # Built-in labels as run.json writes them (parameters in their order, defaults left out);
    # a bot's label is compared as given (parsing it would import the bot).
    policy_a, policy_b = (label if is_external(label) else parse_policy(label).label for label in (policy_a, policy_b))
    for label in (policy_a, policy_b):
        if label not in listed:
            raise ConfigError(f"{run} seats no {label!r}: its policies are {', '.join(listed)}")
    if policy_a == policy_b:
        raise ConfigError("--within needs two different policies of the run")
    rounds = read_table(run, "rounds", columns=["deal_id", "round", "policy", "score"]).to_pandas()
    rounds["policy"] = rounds["policy"].astype(str)
    means = rounds.groupby(["round", "deal_id", "policy"])["score"].mean().unstack("policy")
    return interval_by_round((means[policy_a] - means[policy_b]).groupby("round"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN", help="two runs to pair, or one with --within")
    parser.add_argument("--within", nargs=2, metavar=("A", "B"), help="two policy labels of one run: A minus B")
    parser.add_argument("--json", action="store_true", help="print one JSON list of rows")
    arguments = parser.parse_args()
    if len(arguments.runs) != (1 if arguments.within else 2):
        print("error: give two runs, or one run and --within A B", file=sys.stderr)
        sys.exit(2)
    try:
        if arguments.within:
            table = within_rounds(arguments.runs[0], *arguments.within)
        else:
            table = compared_rounds(*arguments.runs)
    except (ConfigError, StorageError) as error:  # runs that do not pair or read: one line, as compare says it
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if arguments.json:
        print(json.dumps(table.round(3).to_dict(orient="records")))
    else:
        print(table.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
