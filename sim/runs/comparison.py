"""Two duplicate tournaments on the same deals that differ in one policy, compared paired over
deals (`wizard-sim compare`).

A tournament pairs the policies of one table. Across two runs, the same comparison is exact
too when they share everything but one policy: the same rules, seed, deals and seatings, with
policy A listed in run A exactly where run B lists policy B. Each deal is then played twice
with the same cards and the same other players, and the per-deal difference of A's and B's
mean scores is a paired sample, as in a tournament (fishtest's "test against base"). This is
how a policy is measured against itself at a table of others, for instance pimc with and
without inference against three heuristic seats, where no single table can hold both.

Only the run records and the parts their journals vouch for are read (sim.storage.read_table);
no bot is imported, since the policies are compared by their recorded labels.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from sim.config.errors import ConfigError
from sim.policies.registry import parameter_changes
from sim.stats.pairs import significant, verdict
from sim.stats.sums import normal_interval
from sim.storage import read_run, read_table

# Configuration fields two runs must share for their games to be the same deals and seatings.
SHARED_FIELDS = ("rules", "seed", "duplicate", "mirrored")


@dataclass(frozen=True)
class Comparison:
    """policy_a's mean score per game in run_a minus policy_b's in run_b, paired over deals."""

    run_a: str
    run_b: str
    policy_a: str
    policy_b: str
    positions: tuple[int, ...]  # where the two lists differ (0-based listing positions)
    policies: tuple[str, ...]  # run A's listed policies
    deals: int  # deals played in both runs
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float

    @property
    def significant(self) -> bool:
        return significant(self.ci_low, self.ci_high)

    @property
    def verdict(self) -> str:
        return verdict(self.policy_a, self.policy_b, self.difference, self.ci_low, self.ci_high)

    def to_dict(self) -> dict:
        return {**asdict(self), "positions": list(self.positions), "policies": list(self.policies),
                "significant": self.significant, "verdict": self.verdict}


def tournament_config(path: str | Path) -> dict:
    """The recorded configuration of the finished duplicate tournament in `path` (ConfigError
    otherwise)."""
    record = read_run(path, statistics=False)
    where = str(path)
    if record.get("command") != "tournament":
        raise ConfigError(f"{where} is a {record.get('command')} run, not a tournament: compare pairs two tournaments")
    if not record.get("finished"):
        raise ConfigError(f"{where} is a tournament that has not finished: finish it with --resume first")
    config = dict(record["config"])
    policies = config.get("policies")
    if not (isinstance(policies, list) and all(isinstance(label, str) for label in policies)):
        raise ConfigError(f"{where}: its run.json's config.policies is not a list of policy labels")
    if not config.get("duplicate"):
        raise ConfigError(
            f"{where} was played without duplicate deals (--no-duplicate): its seats are drawn game by game,"
            " so its games do not pair with another run's"
        )
    config["mirrored"] = bool(config.get("mirrored"))  # absent: played without mirror images
    config["policy_parameters"] = record.get("policy_parameters")  # absent: a run from before that record
    return config


def check_same_meaning(run_a: str | Path, run_b: str | Path, config_a: dict, config_b: dict, labels: set[str]) -> None:
    """The policies both runs list must have been the same policies: a label names only the
    parameters that differ from the defaults of its day (runs that record no parameters are
    taken at their word)."""
    recorded_a, recorded_b = config_a["policy_parameters"] or {}, config_b["policy_parameters"] or {}
    for label in sorted(labels):
        if label in recorded_a and label in recorded_b and recorded_a[label] != recorded_b[label]:
            changed = parameter_changes(recorded_a[label], recorded_b[label], f"in {run_a}", f"in {run_b}")
            raise ConfigError(
                f"{label} is not the same policy in {run_a} and {run_b} ({changed}): its defaults changed between"
                " the two runs, so their seats of it do not pair"
            )


def changed_policy(where: str, listed: list[str], positions: list[int]) -> str:
    """The one policy a run lists at `positions` (and nowhere else)."""
    changed = {listed[position] for position in positions}
    if len(changed) > 1:
        raise ConfigError(
            f"the two runs differ in more than one policy: where they differ, {where} lists"
            f" {', '.join(sorted(changed))}; compare needs one policy replaced by one other"
        )
    label = changed.pop()
    if any(listed[position] == label for position in range(len(listed)) if position not in positions):
        raise ConfigError(
            f"{where} also lists {label} where the other run lists it too: its seats would mix the changed and"
            " the unchanged positions"
        )
    return label


def per_deal_means(path: str | Path, label: str) -> tuple[np.ndarray, np.ndarray]:
    """(deal ids, mean final score of `label`'s seats in the games of each deal), read from
    the parts the run's journal vouches for."""
    try:
        games = read_table(path, "games", columns=["deal_id", "policy", "total"])
        policy = games.column("policy").to_numpy().astype(str)
        deals = games.column("deal_id").to_numpy()
        totals = games.column("total").to_numpy().astype(np.float64)
    except ConfigError:
        raise
    except (pa.ArrowException, ValueError, TypeError) as error:  # parts of foreign columns
        raise ConfigError(f"cannot read the games of {path}: {str(error).strip().splitlines()[0]}") from None
    seated = policy == label
    deals, totals = deals[seated], totals[seated]
    ids, inverse = np.unique(deals, return_inverse=True)
    sums = np.bincount(inverse, weights=totals, minlength=ids.size)
    counts = np.bincount(inverse, minlength=ids.size)
    return ids, sums / counts


def compare_tournaments(run_a: str | Path, run_b: str | Path) -> Comparison:
    """Compare the policy that run A lists where run B lists another (both finished duplicate
    tournaments of the same rules, seed and seatings), paired over the deals both played."""
    config_a, config_b = tournament_config(run_a), tournament_config(run_b)
    for field in SHARED_FIELDS:
        if config_a.get(field) != config_b.get(field):
            raise ConfigError(
                f"{run_a} and {run_b} differ in their {field}: compare needs two runs of the same deals and seatings"
            )
    listed_a, listed_b = list(config_a["policies"]), list(config_b["policies"])
    if len(listed_a) != len(listed_b):
        raise ConfigError(f"{run_a} and {run_b} seat different numbers of players")
    positions = [position for position in range(len(listed_a)) if listed_a[position] != listed_b[position]]
    check_same_meaning(run_a, run_b, config_a, config_b, set(listed_a) & set(listed_b))
    if not positions:
        raise ConfigError(f"{run_a} and {run_b} list the same policies: there is no changed policy to compare")
    policy_a = changed_policy(str(run_a), listed_a, positions)
    policy_b = changed_policy(str(run_b), listed_b, positions)
    deals_a, means_a = per_deal_means(run_a, policy_a)
    deals_b, means_b = per_deal_means(run_b, policy_b)
    common, in_a, in_b = np.intersect1d(deals_a, deals_b, assume_unique=True, return_indices=True)
    if common.size < 2:
        raise ConfigError(f"{run_a} and {run_b} have {common.size} deal(s) in common: too few to compare")
    difference = means_a[in_a] - means_b[in_b]
    mean, low, high = normal_interval(float(difference.sum()), float((difference**2).sum()), common.size)
    return Comparison(
        str(run_a), str(run_b), policy_a, policy_b, tuple(positions), tuple(listed_a), int(common.size),
        float(means_a[in_a].mean()), float(means_b[in_b].mean()), mean, low, high,
    )
