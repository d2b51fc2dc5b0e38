"""Sequential stopping (#23): the SPRT's two error rates on simulated sequences (a tournament's
paired differences and a synthetic league's ratings), real runs that decide within 100
deals, a decided run holds exactly the chunks up to its decision, --resume continues an
undecided run to the same result, and the outcome in summary.json, run.json, verify and the
terminal."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import invoke, one_line

from sim.config.errors import ConfigError
from sim.config.rules import Rules
from sim.runs.league import LeagueConfig, league, resume_league
from sim.runs.tournament import TournamentConfig, resume_tournament, tournament
from sim.stats.design import league_design
from sim.stats.pairs import PairSums
from sim.stats.ratings import RatingSums, deal_stats
from sim.stats.sprt import MIN_DEALS, SequentialTest, Sprt


def read(out: Path, table: str) -> pd.DataFrame:
    return pd.read_parquet(out / table)


# -- the test itself --------------------------------------------------------------------------
def test_the_log_likelihood_ratio_and_wald_bounds():
    sprt = Sprt(0, 10, alpha=0.05, beta=0.1)
    assert sprt.bounds == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    # A normal estimate x with variance V: log N(x; 10, V) - log N(x; 0, V).
    x, variance = 7.0, 4.0
    exact = (-((x - 10) ** 2) + x**2) / (2 * variance)
    assert sprt.llr(x, variance) == pytest.approx(exact)
    assert sprt.llr(x, 0.0) == 0.0 and sprt.llr(x, math.nan) == 0.0
    assert sprt.decision(3.0) == "H1" and sprt.decision(-2.3) == "H0" and sprt.decision(0.0) is None
    for bad, message in (((5, 5), "LOW < HIGH"), ((0, 1, 0.6), "alpha must be in"), ((0, 1, 0.05, 0), "beta must be in"),
                         ((math.nan, 1), "finite"), ((0, 20_000), "sprt high must be in")):  # fmt: skip
        with pytest.raises(ConfigError, match=message):
            Sprt(*bad)


def paired_chunks(mean: float, sd: float, chunk: int, generator: np.random.Generator, heavy: bool) -> dict:
    x = mean + sd * (generator.standard_t(4, chunk) / math.sqrt(2) if heavy else generator.normal(0, 1, chunk))
    return {"deals": chunk, "pairs": {"a\tb": [float(x.sum()), float((x**2).sum())]}}


def decisions(make_chunk, sprt: Sprt, sums, replications: int, cap: int) -> dict:
    counts = {"H0": 0, "H1": 0, None: 0}
    for _ in range(replications):
        test = SequentialTest(sprt, sums(), ("a", "b"))
        for _ in range(cap):
            if test.add(make_chunk()):
                break
        counts[test.decision] += 1
    return {key: value / replications for key, value in counts.items()}


def within(rate: float, nominal: float, replications: int) -> bool:
    """At most the nominal error rate, up to 3 binomial sigmas."""
    return rate <= nominal + 3 * math.sqrt(nominal * (1 - nominal) / replications)


@pytest.mark.statistics
@pytest.mark.parametrize("heavy", [False, True], ids=["normal", "heavy-tailed"])
def test_both_error_rates_hold_on_simulated_paired_sequences(heavy):
    """Paired per-deal differences with sd 60 (a close tournament), looks every 32 deals: when
    the true difference is LOW the test accepts H1 at most alpha of the time, when it is HIGH
    it accepts H0 at most beta of the time."""
    sprt, replications, chunk = Sprt(0, 5, alpha=0.05, beta=0.05), 2000, 32
    generator = np.random.default_rng(17 + heavy)
    at_low = decisions(lambda: paired_chunks(0.0, 60, chunk, generator, heavy), sprt, PairSums, replications, 400)
    at_high = decisions(lambda: paired_chunks(5.0, 60, chunk, generator, heavy), sprt, PairSums, replications, 400)
    assert at_low[None] < 0.01 and at_high[None] < 0.01  # the cap (12,800 deals) is rarely reached
    assert within(at_low["H1"], sprt.alpha, replications), at_low
    assert within(at_high["H0"], sprt.beta, replications), at_high


@pytest.mark.statistics
def test_both_error_rates_hold_on_a_synthetic_league():
    """A synthetic league (4 policies at 3 seats, a deal effect, heavy-tailed noise) whose first
    two policies differ by exactly LOW, then by exactly HIGH, looks every 64 deals on the
    league's own rating difference and its sandwich variance."""
    k, n, chunk, replications = 4, 3, 64, 600
    design = league_design(k, n)
    seats = np.array(design)
    sprt = Sprt(0, 5, alpha=0.05, beta=0.05)
    generator = np.random.default_rng(23)
    rates = {}
    for truth in (sprt.low, sprt.high):
        skills = np.array([truth, 0.0, -3.0, 2.0])
        dealt = {"deal": 0}

        def make_chunk() -> dict:
            table_of_deal = (dealt["deal"] + np.arange(chunk)) % len(design)
            dealt["deal"] += chunk
            values = generator.normal(0, 100, (chunk, 1)) + skills[seats[table_of_deal]] + generator.standard_t(4, (chunk, n)) * 35
            return {"ratings": deal_stats(values, table_of_deal, design, k)}

        rates[truth] = decisions(make_chunk, sprt, lambda: RatingSums(["a", "b", "c", "d"], design), replications, 200)
    assert rates[sprt.low][None] < 0.01 and rates[sprt.high][None] < 0.01
    assert within(rates[sprt.low]["H1"], sprt.alpha, replications), rates
    assert within(rates[sprt.high]["H0"], sprt.beta, replications), rates


def test_no_decision_before_the_minimum_of_deals():
    test = SequentialTest(Sprt(0, 10), PairSums(), ("a", "b"))
    assert not test.add({"deals": MIN_DEALS - 1, "pairs": {"a\tb": [500.0 * (MIN_DEALS - 1), 250_000.0 * (MIN_DEALS - 1) + 1]}})
    assert test.llr == 0.0 and test.decision is None


# -- real runs --------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["tournament", pytest.param("league", marks=pytest.mark.slow)])
def test_heuristic_against_random_decides_within_100_deals(tmp_path, command):
    league = "heuristic,random,heuristic:crowding=0.3,mc:samples=2,play_samples=2"
    policies = "heuristic,random,random,random" if command == "tournament" else league
    out = tmp_path / "run"
    result = invoke(command, "--policies", policies, "--games", "100000", "--sprt", "0,10", "--seed", "1", "--out", out)
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    record = json.loads((out / "run.json").read_text())
    assert summary["sprt"] == record["sprt"]
    outcome = summary["sprt"]
    assert outcome["decision"] == "H1" and outcome["deals"] <= 100 and outcome["policies"] == ["heuristic", "random"]
    assert set(outcome) >= {"decision", "deals", "llr", "bounds"} and outcome["llr"] >= outcome["bounds"][1]
    assert "SPRT accepts H1 (heuristic - random >= 10)" in result.stdout
    games = read(out, "games")
    assert games["deal_id"].nunique() == outcome["deals"]
    verified = invoke("verify", out)
    assert verified.exit_code == 0 and "stopped by its SPRT (H1)" in verified.stdout, verified.stdout


CLOSE = (Rules(players=3, rounds=(1, 2, 3)), "heuristic,heuristic:aggression=1.2,random")


@pytest.mark.slow
def test_a_decided_run_holds_exactly_the_deals_up_to_its_deciding_chunk(tmp_path):
    rules, policies = CLOSE
    stopped = tournament(TournamentConfig.build(rules, policies, seed=5, deals=5000, chunk_deals=20, sprt=(0, 3)),
                         str(tmp_path / "sprt"))  # fmt: skip
    outcome = stopped.record["sprt"]
    assert outcome["decision"] is not None and outcome["deals"] >= 100 and outcome["deals"] % 20 == 0
    plain = tournament(TournamentConfig.build(rules, policies, seed=5, deals=outcome["deals"], chunk_deals=20),
                       str(tmp_path / "plain"))  # fmt: skip
    for table in ("rounds", "games"):
        pd.testing.assert_frame_equal(read(tmp_path / "sprt", table), read(tmp_path / "plain", table))
        assert len(list((tmp_path / "sprt" / table).iterdir())) == outcome["deals"] // 20  # nothing computed ahead
    assert stopped.summary == plain.summary
    # The test recomputed from the plain run's chunks decides at its last one, as recorded.
    again = SequentialTest(Sprt(0, 3), PairSums(), ("heuristic", "heuristic:aggression=1.2"))
    complete = plain.record["chunks"]["complete"]
    looks = [again.add(complete[str(index)]) for index in range(len(complete))]
    assert looks == [False] * (len(looks) - 1) + [True] and again.record() == outcome
    assert invoke("verify", tmp_path / "sprt").exit_code == 0


class Interrupt(KeyboardInterrupt):
    pass


def interrupt_after(chunks: int):
    calls = {"n": 0}

    def on_progress(done: int, total: int) -> None:
        calls["n"] += 1
        if calls["n"] > chunks:
            raise Interrupt

    return on_progress


@pytest.mark.slow
@pytest.mark.parametrize("command", ["tournament", "league"])
def test_resume_continues_an_undecided_run_to_the_same_result(tmp_path, command):
    rules, policies = CLOSE
    if command == "tournament":
        config = TournamentConfig.build(rules, policies, seed=5, deals=5000, chunk_deals=20, sprt=(0, 3))
        start, resume = tournament, resume_tournament
    else:
        config = LeagueConfig.build(rules, policies + ",heuristic:side_timing=4", seed=5, deals=5000, chunk_deals=20,
                                    sprt=(0, 3))  # fmt: skip
        start, resume = league, resume_league
    whole = start(config, str(tmp_path / "whole"))
    assert whole.record["sprt"]["deals"] >= 6 * 20  # decided after six chunks or more: the interruption is in time
    with pytest.raises(Interrupt):
        start(config, str(tmp_path / "cut"), on_progress=interrupt_after(4))
    cut = json.loads((tmp_path / "cut" / "run.json").read_text())
    assert cut["sprt"]["decision"] is None and not cut["finished"]
    assert "chunks to compute" in invoke("verify", tmp_path / "cut").stdout
    resumed = resume(str(tmp_path / "cut"), threads=1)
    assert resumed.record["sprt"] == whole.record["sprt"]
    for table in ("rounds", "games"):
        pd.testing.assert_frame_equal(read(tmp_path / "cut", table), read(tmp_path / "whole", table))
    summaries = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("cut", "whole")]
    assert summaries[0] == summaries[1]
    assert resume(str(tmp_path / "cut")).deals_computed == 0  # a decided run stays as it is
    assert invoke("verify", tmp_path / "cut").exit_code == 0


@pytest.mark.slow
def test_a_run_that_reaches_its_cap_undecided(tmp_path):
    rules, policies = CLOSE
    out = tmp_path / "run"
    result = invoke("tournament", "--policies", policies, "--players", "3", "--rounds", "1-3", "--games", "40",
                    "--chunk-games", "20", "--seed", "5", "--sprt", "0,3", "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    outcome = json.loads((out / "summary.json").read_text())["sprt"]
    assert outcome["decision"] is None and outcome["deals"] == 40
    assert "SPRT undecided after 40 deals" in result.stdout
    assert invoke("verify", out).exit_code == 0
    # Resuming with other test settings is refused; the same ones are accepted.
    one_line(invoke("tournament", "--resume", "--out", out, "--sprt", "0,4"), 2, "--sprt 0,4 differs")
    assert invoke("tournament", "--resume", "--out", out, "--sprt", "0,3", "--alpha", "0.05", "-q").exit_code == 0


def test_without_sprt_the_records_are_as_before(tmp_path):
    rules, policies = CLOSE
    played = tournament(TournamentConfig.build(rules, policies, seed=5, deals=10), str(tmp_path / "run"))
    assert "sprt" not in played.record["config"] and "sprt" not in played.record
    assert "sprt" not in json.loads((tmp_path / "run" / "summary.json").read_text())
