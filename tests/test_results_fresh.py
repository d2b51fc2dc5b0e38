"""The published figures in results/ are what today's code gives: each section of
experiments/regenerate_results.py is recomputed on a cheap seeded slice (its first games, deals or samples)
and every published figure must lie within the slice's interval. A change of behaviour that
moves a published figure fails here until `python -m experiments.regenerate_results` is run again."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from experiments import regenerate_results

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
# Many figures are compared at once: a published figure more than Z standard errors of the
# difference from the slice's is a real change, not chance (P(|N| > 4.5) = 7e-6 per figure).
Z = 4.5
Z_95 = 1.959964


REGENERATE = regenerate_results
SLICE = REGENERATE.Sizes(accuracy_games=8_000, tournament_deals=300, estimate_samples=8_000,
                         calibration_games=200_000, calibration_samples=8_000, inference_deals=80,
                         pimc_deals=12, openspiel_deals=2, learned_deals=4, fresh_deals=4, agent_deals=4)  # fmt: skip


def published(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def check(label: str, published_value: float, published_se: float, fresh_value: float, fresh_se: float) -> None:
    """published_value and fresh_value estimate the same figure with these standard errors."""
    spread = math.sqrt(published_se**2 + fresh_se**2)
    assert abs(published_value - fresh_value) <= Z * spread + 1e-12, (
        f"{label}: published {published_value:.4f} (se {published_se:.4f}) but a fresh slice gives {fresh_value:.4f} "
        f"(se {fresh_se:.4f}): regenerate results/ (python -m experiments.regenerate_results)"
    )


def ci_se(low: float, high: float) -> float:
    return (high - low) / (2 * Z_95)


def check_interval(label: str, published_value: float, published_ci: tuple[float, float], fresh_value: float,
                   fresh_ci: tuple[float, float], deals: tuple[int, int]) -> None:
    """check of two figures given with 95% intervals, from (published, slice) deals. The slice's
    standard error is at least what the published run's spread gives for so few deals: a slice
    of 4 deals estimates its own spread badly, and at times far too small."""
    published_se = ci_se(*published_ci)
    fresh_se = max(ci_se(*fresh_ci), published_se * math.sqrt(deals[0] / deals[1]))
    check(label, published_value, published_se, fresh_value, fresh_se)


def check_tournament(name: str, fresh: dict, old: dict | None = None) -> None:
    old = published(name) if old is None else old
    deals = (old["deals"], fresh["deals"])
    for before, now in zip(old["policies"], fresh["policies"], strict=True):
        assert before["policy"] == now["policy"]
        check_interval(f"{name} {now['policy']} mean score",
                       before["mean_score"], (before["mean_score_ci_low"], before["mean_score_ci_high"]),
                       now["mean_score"], (now["mean_score_ci_low"], now["mean_score_ci_high"]), deals)  # fmt: skip
    for before, now in zip(old["pairs"], fresh["pairs"], strict=True):
        assert (before["policy_a"], before["policy_b"]) == (now["policy_a"], now["policy_b"])
        check_interval(f"{name} {now['policy_a']} - {now['policy_b']}", before["difference"],
                       (before["ci_low"], before["ci_high"]), now["difference"], (now["ci_low"], now["ci_high"]), deals)


pytestmark = pytest.mark.figures


def test_accuracy_is_fresh(tmp_path):
    fresh = REGENERATE.accuracy(SLICE, tmp_path, tmp_path / "runs")
    for before, now in zip(published("accuracy.json")["rounds"], fresh["rounds"], strict=True):
        check(f"accuracy.json round {now['round']}", before["heuristic"], before["standard_error"], now["heuristic"],
              now["standard_error"])  # fmt: skip


def test_tournament_is_fresh(tmp_path):
    check_tournament("tournament.json", REGENERATE.tournament_figures(SLICE, tmp_path, tmp_path / "runs"))


def test_inference_tournament_is_fresh(tmp_path):
    check_tournament("inference.json", REGENERATE.inference_figures(SLICE, tmp_path, tmp_path / "runs"))


def check_tables(name: str, fresh: dict) -> None:
    """Every table and comparison of a published JSON of tables (pimc.json, learned_inference.json,
    fresh_deals.json)."""
    old = published(name)
    assert sorted(old["tables"]) == sorted(fresh["tables"])
    for table_name, table in fresh["tables"].items():
        check_tournament(f"{name} {table_name}", table, old["tables"][table_name])
    for before, now in zip(old["comparisons"], fresh["comparisons"], strict=True):
        assert (before["policy_a"], before["policy_b"]) == (now["policy_a"], now["policy_b"])
        check_interval(f"{name} {now['table_a']} - {now['table_b']}", before["difference"],
                       (before["ci_low"], before["ci_high"]), now["difference"], (now["ci_low"], now["ci_high"]),
                       (before["deals"], now["deals"]))  # fmt: skip


def test_pimc_tournaments_are_fresh(tmp_path):
    check_tables("pimc.json", REGENERATE.pimc_figures(SLICE, tmp_path, tmp_path / "runs"))


def test_learned_inference_tournaments_are_fresh(tmp_path):
    check_tables("learned_inference.json", REGENERATE.learned_figures(SLICE, tmp_path, tmp_path / "runs"))


def test_fresh_deal_tournaments_are_fresh(tmp_path):
    check_tables("fresh_deals.json", REGENERATE.fresh_figures(SLICE, tmp_path, tmp_path / "runs"))


def test_estimate_is_fresh(tmp_path):
    old, fresh = published("estimate.json"), REGENERATE.estimate_figures(SLICE, tmp_path)
    assert old["recommended_bid"] == fresh["recommended_bid"]
    for before, now in zip(old["bids"], fresh["bids"], strict=True):
        assert before["legal"] == now["legal"]
        if not now["legal"]:
            continue
        check(f"estimate.json P(make {now['bid']})", before["p_make"], ci_se(before["p_make_lo"], before["p_make_hi"]),
              now["p_make"], ci_se(now["p_make_lo"], now["p_make_hi"]))  # fmt: skip
        check(f"estimate.json E(score | bid {now['bid']})", before["expected_score"],
              ci_se(before["expected_score_lo"], before["expected_score_hi"]), now["expected_score"],
              ci_se(now["expected_score_lo"], now["expected_score_hi"]))  # fmt: skip


def test_calibration_is_fresh(tmp_path):
    old, fresh = published("calibration.json"), REGENERATE.calibration_figures(SLICE, tmp_path)
    for before, now in zip(old["classes"], fresh["classes"], strict=True):
        assert before["situation"] == now["situation"]
        for key in ("self_play", "estimate", "no_infer"):
            if before[key] is None or now[key] is None:
                assert before[key] is None or now["games" if key == "self_play" else key] in (0, None)
                continue
            # A frequency of exactly 0 or 1 has no spread of its own: floor it at one outcome.
            count = now["games"] if key == "self_play" else now.get("effective_samples") or SLICE.calibration_samples
            check(f"calibration.json {now['situation']}: {key}", before[key], before[f"{key}_se"], now[key],
                  max(now[f"{key}_se"], 1 / count))  # fmt: skip


def test_learned_agent_is_fresh(tmp_path):
    """The shipped model's curve is its card's, and a slice of the league rates each policy as
    the published league does, within the intervals."""
    old = published("learned_agent.json")
    fresh = REGENERATE.agent_figures(SLICE, tmp_path, tmp_path / "runs")
    assert fresh["model"] == old["model"], "the shipped model changed: regenerate results/ (--only agent)"
    deals = (old["league"]["deals"], fresh["league"]["deals"])
    before = {row["policy"]: row for row in old["league"]["ratings"]}
    assert sorted(before) == sorted(row["policy"] for row in fresh["league"]["ratings"])
    for now in fresh["league"]["ratings"]:
        then = before[now["policy"]]
        check_interval(f"learned_agent.json {now['policy']} rating", then["rating"], (then["ci_low"], then["ci_high"]),
                       now["rating"], (now["ci_low"], now["ci_high"]), deals)  # fmt: skip
