"""`wizard-sim compare`: one changed policy across two tournaments of the same deals, paired
over deals; checked against a slow per-deal computation from the written games, and its bad
input."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config.errors import ConfigError
from sim.runs.comparison import compare_tournaments, per_deal_means
from sim.stats.sums import Z_95
from helpers import move_heuristic_default

runner = CliRunner()
TABLE = ["--players", "3", "--games", "40", "--rounds", "1-4", "--seed", "11", "--quiet"]


def tournament(out, policies: str, *extra: str) -> str:
    result = runner.invoke(app, ["tournament", "--policies", policies, *TABLE, *extra, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return str(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    return {
        "heuristic": tournament(root / "heuristic", "heuristic,random,random"),
        "aggressive": tournament(root / "aggressive", "heuristic:aggression=1.3,random,random", "--chunk-games", "9"),
        # the same player as the heuristic under another label (tests/test_tournament.py)
        "same": tournament(root / "same", "heuristic:crowding=0.1500001,random,random"),
        "mirrored": tournament(root / "mirrored", "heuristic,random,mc:samples=2,play_samples=2"),
        "mirrored_b": tournament(root / "mirrored_b", "heuristic:aggression=1.3,random,mc:samples=2,play_samples=2"),
    }


def reference(run_a: str, label_a: str, run_b: str, label_b: str) -> tuple[float, float, float]:
    """The paired difference deal by deal, from every game row (slow and plain)."""
    differences = []
    games_a, games_b = pd.read_parquet(f"{run_a}/games"), pd.read_parquet(f"{run_b}/games")
    for deal in sorted(set(games_a.deal_id)):
        a = games_a[(games_a.deal_id == deal) & (games_a.policy.astype(str) == label_a)].total.mean()
        b = games_b[(games_b.deal_id == deal) & (games_b.policy.astype(str) == label_b)].total.mean()
        differences.append(a - b)
    n = len(differences)
    mean = sum(differences) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in differences) / (n - 1))
    return mean, mean - Z_95 * sd / math.sqrt(n), mean + Z_95 * sd / math.sqrt(n)


def test_matches_the_per_deal_reference(runs):
    comparison = compare_tournaments(runs["aggressive"], runs["heuristic"])
    assert (comparison.policy_a, comparison.policy_b) == ("heuristic:aggression=1.3", "heuristic")
    assert comparison.positions == (0,) and comparison.deals == 40
    expected = reference(runs["aggressive"], "heuristic:aggression=1.3", runs["heuristic"], "heuristic")
    assert (comparison.difference, comparison.ci_low, comparison.ci_high) == pytest.approx(expected, abs=1e-9)
    swapped = compare_tournaments(runs["heuristic"], runs["aggressive"])
    assert swapped.difference == pytest.approx(-comparison.difference)
    assert (swapped.ci_low, swapped.ci_high) == pytest.approx((-comparison.ci_high, -comparison.ci_low))


def test_mirrored_runs_pair_over_all_their_seatings(runs):
    label = "heuristic:aggression=1.3"
    comparison = compare_tournaments(runs["mirrored_b"], runs["mirrored"])
    assert comparison.deals == 40
    expected = reference(runs["mirrored_b"], label, runs["mirrored"], "heuristic")
    assert (comparison.difference, comparison.ci_low, comparison.ci_high) == pytest.approx(expected, abs=1e-9)
    assert len(pd.read_parquet(f"{runs['mirrored']}/games")) == 40 * 6 * 3  # 3 rotations and 3 mirror images


def test_the_same_player_under_another_label_differs_by_nothing(runs):
    comparison = compare_tournaments(runs["same"], runs["heuristic"])
    assert comparison.difference == 0 and comparison.ci_low == 0 and comparison.ci_high == 0
    assert not comparison.significant
    assert comparison.verdict.startswith("no significant difference")


def test_command_prints_the_difference_and_json(runs):
    result = runner.invoke(app, ["compare", runs["aggressive"], runs["heuristic"]])
    assert result.exit_code == 0, result.output
    comparison = compare_tournaments(runs["aggressive"], runs["heuristic"])
    assert f"A - B: {comparison.difference:+.1f} points per game" in result.output
    assert "40 deals played in both runs" in result.output
    as_json = runner.invoke(app, ["compare", runs["aggressive"], runs["heuristic"], "--json"])
    assert json.loads(as_json.output) == comparison.to_dict()  # floats survive JSON exactly


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda runs, tmp: (runs["heuristic"], runs["heuristic"]), "list the same policies"),
        (lambda runs, tmp: (runs["heuristic"], str(tmp / "nothing")), "is not a run directory"),
        (lambda runs, tmp: (runs["heuristic"], runs["mirrored"]), "differ in their mirrored"),
        (
            lambda runs, tmp: (runs["heuristic"], tournament(tmp / "seed", "heuristic:aggression=1.3,random,random",
                                                             "--seed", "12")),
            "differ in their seed",
        ),
        (
            lambda runs, tmp: (
                tournament(tmp / "a", "heuristic,heuristic,random"),
                tournament(tmp / "b", "heuristic:aggression=1.3,heuristic,random", "--no-mirror"),
            ),
            "also lists heuristic",
        ),
        (
            lambda runs, tmp: (runs["heuristic"], tournament(tmp / "two", "random,heuristic,heuristic")),
            "differ in more than one policy",
        ),
        (
            lambda runs, tmp: (runs["heuristic"], tournament(tmp / "random", "heuristic:aggression=1.3,random,random",
                                                             "--no-duplicate")),
            "without duplicate deals",
        ),
        (
            lambda runs, tmp: (runs["heuristic"], simulated(tmp / "simulate")),
            "is a simulate run, not a tournament",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runs, tmp_path, setup, message):
    run_a, run_b = setup(runs, tmp_path)
    result = runner.invoke(app, ["compare", run_a, run_b])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wizard-sim: error:") and message in lines[0], result.output


def test_a_policy_whose_defaults_changed_between_the_runs_is_refused(tmp_path, monkeypatch):
    """Both runs list `heuristic`, but it named other parameters when the second was played:
    their seats of it do not pair (run.json's policy_parameters)."""
    run_a = tournament(tmp_path / "a", "heuristic:aggression=1.3,heuristic,random")
    move_heuristic_default(monkeypatch)
    run_b = tournament(tmp_path / "b", "heuristic:aggression=1.2,heuristic,random")
    result = runner.invoke(app, ["compare", run_a, run_b])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "heuristic is not the same policy in" in result.output, result.output
    assert f"aggression 1.0 in {run_a}, 1.1 in {run_b}" in result.output


def simulated(out) -> str:
    result = runner.invoke(app, ["simulate", "--games", "5", "--players", "3", "--rounds", "1-2", "--quiet",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    return str(out)


def load_compare_by_round():
    path = Path(__file__).resolve().parent.parent / "experiments" / "compare_by_round.py"
    spec = importlib.util.spec_from_file_location("compare_by_round", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("pair", [("aggressive", "heuristic"), ("mirrored_b", "mirrored")])
def test_the_split_by_round_adds_up_to_the_comparison(runs, pair):
    """experiments/compare_by_round.py: a game's score is the sum of its round scores, so the
    per-round mean differences add up to compare's difference, over the same deals."""
    table = load_compare_by_round().compared_rounds(*(Path(runs[name]) for name in pair))
    compared = compare_tournaments(runs[pair[0]], runs[pair[1]])
    assert table["round"].tolist() == [1, 2, 3, 4] and (table["deals"] == compared.deals).all()
    assert math.isclose(table["mean"].sum(), compared.difference, abs_tol=1e-9)
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()


@pytest.mark.parametrize("pair", [("heuristic", "random"), ("mc:samples=2,play_samples=2", "heuristic")])
def test_the_split_by_round_within_one_run_adds_up_to_the_per_deal_difference(runs, pair):
    """compare_by_round.py --within: the per-round differences of two policies of one run add
    up to the difference of their per-deal mean totals, the deals as the unit."""
    table = load_compare_by_round().within_rounds(Path(runs["mirrored"]), *pair)
    deals_a, means_a = per_deal_means(runs["mirrored"], pair[0])
    deals_b, means_b = per_deal_means(runs["mirrored"], pair[1])
    assert np.array_equal(deals_a, deals_b) and (table["deals"] == deals_a.size).all()
    assert math.isclose(table["mean"].sum(), float((means_a - means_b).mean()), abs_tol=1e-9)
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()


def test_the_split_within_one_run_reads_labels_as_run_json_writes_them(runs):
    """A built-in policy's label is read canonically (its parameters in any order, defaults
    written or not); one the run does not seat is one clear error."""
    split = load_compare_by_round().within_rounds
    canonical = split(Path(runs["mirrored"]), "mc:samples=2,play_samples=2", "heuristic")
    assert split(Path(runs["mirrored"]), "mc:play_samples=2,samples=2,infer=0", "heuristic").equals(canonical)
    with pytest.raises(ConfigError, match="seats no 'pimc'"):
        split(Path(runs["mirrored"]), "pimc", "heuristic")
