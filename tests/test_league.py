"""`wizard-sim league` (#23): the balanced design, duplicate rotations at each deal's table,
ratings recovered on a synthetic pool with known skills, the ratings and intervals recomputed
from the written data by a slow reference, exactness across threads/chunks, resume, verify,
Python and numba bots, and bad input."""
from __future__ import annotations

import collections
import itertools
import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import invoke, one_line

import sim.storage.parts
from sim.config.rules import Rules
from sim.runs.league import LeagueConfig, league
from sim.runs.tournament import TournamentConfig, tournament
from sim.stats.design import design_balance, league_design
from sim.stats.ratings import RatingSums, deal_stats

Z_95 = 1.959963984540054
POLICIES = "heuristic,random,heuristic:aggression=1.3,heuristic:crowding=0.5,heuristic:side_timing=4"
LABELS = ["heuristic", "random", "heuristic:aggression=1.3", "heuristic:crowding=0.5", "heuristic:side_timing=4"]
BASE = ["--policies", POLICIES, "--games", "23", "--rounds", "1-4", "--seed", "4", "--quiet"]


def read(out: Path, table: str) -> pd.DataFrame:
    return pd.read_parquet(out / table)


@pytest.fixture(scope="module")
def league_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("league") / "run"
    result = invoke("league", *BASE, "--chunk-games", "6", "--log-plays", "--out", out)
    assert result.exit_code == 0, result.output
    return out


# -- the design -------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_policy_sits_equally_often_and_every_pair_meets_nearly_equally(players):
    for policies in range(2, 21):
        tables = league_design(policies, players)
        assert all(len(table) == players for table in tables)
        seats, meetings = design_balance(tables, policies)
        assert seats.min() == seats.max(), (policies, players)
        pairs = meetings[~np.eye(policies, dtype=bool)]
        assert pairs.min() >= 1, (policies, players)  # every pair meets
        assert pairs.max() - pairs.min() <= 1, (policies, players, pairs.min(), pairs.max())
        if policies > players:  # a table seats distinct policies
            assert all(len(set(table)) == players for table in tables)


def test_the_design_is_exactly_balanced_where_a_small_design_exists():
    for policies, players in ((5, 3), (7, 3), (5, 4), (13, 4), (21, 5), (7, 6)):
        _, meetings = design_balance(league_design(policies, players), policies)
        pairs = meetings[~np.eye(policies, dtype=bool)]
        assert pairs.min() == pairs.max(), (policies, players)


def test_each_deal_is_played_at_its_table_in_every_rotation(league_run):
    rounds = read(league_run, "rounds")
    games = read(league_run, "games")
    run = json.loads((league_run / "run.json").read_text())
    design = run["config"]["design"]
    assert design == [[LABELS[i] for i in table] for table in league_design(5, 4)]
    assert list(games.columns) == ["game_id", "deal_id", "rotation", "table_id", "seat", "policy", "total", "winner"]
    assert list(rounds.columns[:4]) == ["game_id", "deal_id", "rotation", "table_id"]
    assert str(rounds["table_id"].dtype) == "int32" and str(games["table_id"].dtype) == "int32"
    assert run["config"]["mirrored"] is True  # the default: each rotation and its mirror image
    assert (games["game_id"] == games["deal_id"] * 8 + games["rotation"]).all()
    assert sorted(games["rotation"].unique()) == list(range(8))
    assert (games["table_id"] == games["deal_id"] % len(design)).all()
    positions = table_positions(games["seat"].to_numpy(), games["rotation"].to_numpy(), 4)
    expected = [design[t][j] for t, j in zip(games["table_id"], positions)]
    assert (games["policy"].astype(str).to_numpy() == np.array(expected)).all()
    # every policy has each other one as often on its left as on its right, deal by deal
    for _, deal in games.groupby("deal_id"):
        by_seat = deal.pivot(index="rotation", columns="seat", values="policy").astype(str).to_numpy()
        counts = collections.Counter(zip(by_seat.ravel(), np.roll(by_seat, -1, axis=1).ravel()))  # (seat s, seat s+1)
        assert all(counts[(b, a)] == count for (a, b), count in counts.items())
    for _, deal in rounds.groupby("deal_id"):
        cards = deal.pivot_table(index=["round", "seat"], columns="rotation", values=["hand", "trump_card", "dealer"])
        for column in ("hand", "trump_card", "dealer"):
            values = cards[column].to_numpy()
            assert (values == values[:, :1]).all(), column
    assert len(read(league_run, "plays")) == 23 * 8 * 4 * (1 + 2 + 3 + 4)


# -- the ratings ------------------------------------------------------------------------------
def reference_fit(values: np.ndarray, table_of_deal: np.ndarray, design: tuple, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ratings by ordinary least squares with a dummy per deal and the constraint sum = 0
    (a row of ones with a huge weight), and their cluster-robust covariance from the residuals
    deal by deal: the model of docs/league.md written out the slow way."""
    deals, n = values.shape
    rows = deals * n
    design_matrix = np.zeros((rows, deals + k))
    for d in range(deals):
        for j in range(n):
            design_matrix[d * n + j, d] = 1
            design_matrix[d * n + j, deals + design[table_of_deal[d]][j]] += 1
    target = values.ravel()
    # Eliminate the deal dummies exactly: project them out, then solve for the ratings.
    deal_part, rating_part = design_matrix[:, :deals], design_matrix[:, deals:]
    projection = np.eye(rows) - deal_part @ np.linalg.pinv(deal_part)
    x = projection @ rating_part
    information = x.T @ x
    inverse = np.linalg.pinv(information)
    ratings = inverse @ x.T @ (projection @ target)
    residuals = projection @ target - x @ ratings
    meat = np.zeros((k, k))
    for d in range(deals):
        score = x[d * n : (d + 1) * n].T @ residuals[d * n : (d + 1) * n]
        meat += np.outer(score, score)
    return ratings, inverse @ meat @ inverse * deals / (deals - 1)


def table_positions(seats: np.ndarray, rotations: np.ndarray, n: int) -> np.ndarray:
    """The table position each seat holds: (seat + k) mod N in rotation k < N, (k - N - seat)
    mod N in its mirror image N + k."""
    return np.where(rotations < n, (seats + rotations) % n, (rotations - n - seats) % n)


def values_of(games: pd.DataFrame, design: list, n: int) -> tuple[np.ndarray, np.ndarray]:
    """y[d, j] from the games table: the mean total of table position j's seats over the rotations."""
    deals = games["deal_id"].nunique()
    per_deal = games["rotation"].nunique()
    values = np.zeros((deals, n))
    position = table_positions(games["seat"].to_numpy(), games["rotation"].to_numpy(), n)
    np.add.at(values, (games["deal_id"].to_numpy(), position), games["total"].to_numpy() / per_deal)
    return values, games.groupby("deal_id")["table_id"].first().to_numpy()


def test_ratings_and_intervals_match_a_slow_reference_on_the_written_data(league_run):
    games = read(league_run, "games")
    summary = json.loads((league_run / "summary.json").read_text())
    design = league_design(5, 4)
    values, tables = values_of(games, design, 4)
    ratings, covariance = reference_fit(values, tables, design, 5)
    by_label = {row["policy"]: row for row in summary["ratings"]}
    for index, label in enumerate(LABELS):
        row = by_label[label]
        half = Z_95 * math.sqrt(covariance[index, index])
        assert row["rating"] == pytest.approx(ratings[index], abs=1e-9)
        assert row["ci_low"] == pytest.approx(ratings[index] - half, abs=1e-7)
        assert row["ci_high"] == pytest.approx(ratings[index] + half, abs=1e-7)
        mine = games[games["policy"].astype(str) == label]
        assert row["games"] == len(mine) and row["mean_score"] == pytest.approx(mine["total"].mean())
    assert abs(sum(row["rating"] for row in summary["ratings"])) < 1e-9  # relative to the pool's mean
    shown = [row["rating"] for row in summary["ratings"]]
    assert shown == sorted(shown, reverse=True)  # best first
    for row in summary["pairs"]:
        a, b = LABELS.index(row["policy_a"]), LABELS.index(row["policy_b"])
        contrast = np.zeros(5)
        contrast[a], contrast[b] = 1, -1
        assert row["difference"] == pytest.approx(ratings[a] - ratings[b], abs=1e-9)
        half = Z_95 * math.sqrt(contrast @ covariance @ contrast)
        assert row["ci_low"] == pytest.approx(ratings[a] - ratings[b] - half, abs=1e-7)
        met = [d for d in range(values.shape[0]) if {a, b} <= set(design[tables[d]])]
        assert row["deals_met"] == len(met)
        direct = [values[d, design[tables[d]].index(a)] - values[d, design[tables[d]].index(b)] for d in met]
        assert row["head_to_head"] == pytest.approx(np.mean(direct))
    parquet = pd.read_parquet(league_run / "ratings.parquet")
    assert list(parquet.columns[:8]) == ["policy", "rating", "ci_low", "ci_high", "games", "mean_score", "bid_accuracy", "win_rate"]
    pd.testing.assert_frame_equal(parquet, pd.DataFrame(summary["ratings"])[parquet.columns], check_dtype=False)
    pairs = pd.read_parquet(league_run / "pairs.parquet")
    assert {"policy_a", "policy_b", "difference", "ci_low", "ci_high", "deals_met"} <= set(pairs.columns) and len(pairs) == 10
    for name in ("ratings.png", "head_to_head.png"):
        assert (league_run / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.statistics
def test_a_synthetic_pool_recovers_its_skills_within_the_intervals_at_the_stated_rate():
    """Known skills, a deal effect (the cards and the table) and heavy-tailed noise: the 95%
    intervals cover the true skill 95% of the time (within 4 binomial sigmas), whatever the
    chunking of the sums."""
    k, n, deals, replications = 7, 4, 400, 300
    design = league_design(k, n)
    seats = np.array(design)
    skills = np.array([-40.0, -10.0, 0.0, 5.0, 10.0, 15.0, 20.0])
    skills -= skills.mean()
    generator = np.random.default_rng(11)
    covered, errors = 0, []
    for _ in range(replications):
        table_of_deal = np.arange(deals) % len(design)
        values = generator.normal(0, 150, (deals, 1)) + skills[seats[table_of_deal]] + generator.standard_t(4, (deals, n)) * 60
        sums = RatingSums([str(policy) for policy in range(k)], design)
        for chunk in np.array_split(np.arange(deals), 7):
            sums.add(deal_stats(values[chunk], table_of_deal[chunk], design, k))
        fit = sums.fit()
        for policy in range(k):
            low, high = fit.interval(policy)
            covered += low <= skills[policy] <= high
        errors.append((fit.ratings - skills) / np.sqrt(np.diag(fit.covariance)))
    rate, count = covered / (replications * k), replications * k
    assert abs(rate - 0.95) < 4 * math.sqrt(0.95 * 0.05 / count), rate
    assert np.abs(np.mean(errors, axis=0)).max() < 4 / math.sqrt(replications)  # unbiased


@pytest.mark.slow
def test_a_league_of_one_table_is_the_tournament_of_that_table(tmp_path):
    rules = Rules(players=3, rounds=(1, 2, 3))
    listed = "heuristic,random,heuristic:aggression=1.2"
    played = league(LeagueConfig.build(rules, listed, seed=9, deals=40, chunk_deals=13), str(tmp_path / "league"))
    compared = tournament(TournamentConfig.build(rules, listed, seed=9, deals=40), str(tmp_path / "tournament"))
    for table in ("rounds", "games"):
        mine = read(tmp_path / "league", table)
        assert (mine["table_id"] == 0).all()
        pd.testing.assert_frame_equal(mine.drop(columns="table_id"), read(tmp_path / "tournament", table), check_categorical=False)
    ratings, pairs = played.summary
    _, tournament_pairs = compared.summary
    for mine, theirs in zip(pairs, tournament_pairs):
        assert (mine["policy_a"], mine["policy_b"]) == (theirs["policy_a"], theirs["policy_b"])
        for key in ("difference", "ci_low", "ci_high"):
            assert mine[key] == pytest.approx(theirs[key], abs=1e-9)
        assert mine["significant"] == theirs["significant"]


# -- a run ------------------------------------------------------------------------------------
@pytest.mark.slow
def test_without_mirror_images_a_league_plays_the_rotations_and_records_as_before(tmp_path, league_run):
    rules = Rules(players=4, rounds=(1, 2))
    plain = LeagueConfig.build(rules, POLICIES, seed=4, deals=6, mirrored=False)
    assert plain.rotations == 4 and "mirrored" not in plain.to_dict()
    assert LeagueConfig.from_dict(plain.to_dict()).mirrored is None  # run.json from before mirror images
    assert LeagueConfig.build(rules, POLICIES, seed=4, deals=6).rotations == 8
    assert LeagueConfig.build(Rules(players=4), "heuristic,random", seed=4, deals=6).mirrored is None  # A,B,A,B
    played = league(plain, str(tmp_path / "plain"))
    games = read(tmp_path / "plain", "games")
    assert (games["game_id"] == games["deal_id"] * 4 + games["rotation"]).all() and games["rotation"].max() == 3
    ratings, _ = played.summary
    values, tables = values_of(games, plain.design, 4)
    fitted, _ = reference_fit(values, tables, plain.design, 5)
    by_label = {row["policy"]: row["rating"] for row in ratings}
    assert [by_label[label] for label in LABELS] == pytest.approx(fitted, abs=1e-9)


@pytest.mark.slow
def test_identical_whatever_threads_and_chunks(tmp_path, league_run):
    out = tmp_path / "again"
    result = invoke("league", *BASE, "--chunk-games", "23", "--threads", "1", "--log-plays", "--out", out)
    assert result.exit_code == 0, result.output
    for table in ("rounds", "games", "plays"):
        pd.testing.assert_frame_equal(read(out, table), read(league_run, table))
    first, second = (json.loads((path / "summary.json").read_text()) for path in (out, league_run))
    for a, b in zip(first["ratings"] + first["pairs"], second["ratings"] + second["pairs"]):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key], abs=1e-9) if isinstance(a[key], float) else a[key] == b[key]


@pytest.mark.slow
def test_verified_and_printed(tmp_path, league_run):
    verified = invoke("verify", league_run)
    assert verified.exit_code == 0 and "league run" in verified.stdout and "complete and sound" in verified.stdout
    shown = invoke("league", "--policies", "heuristic,random,heuristic:aggression=1.2,heuristic:crowding=0.3", "--players", "3",
                   "--games", "12", "--rounds", "1-2", "--seed", "1", "--out", tmp_path / "shown")  # fmt: skip
    assert shown.exit_code == 0, shown.output
    for text in ("League of 4 policies: 12 deals x 3 rotations and their 3 mirror images at 4 tables of 3", "rating", "95% CI", "head to head",
                 "ratings.parquet"):  # fmt: skip
        assert text in shown.stdout, text


@pytest.mark.slow
def test_write_failure_then_resume_gives_the_same_league(tmp_path, monkeypatch, league_run):
    out = tmp_path / "run"
    real_write = sim.storage.parts.pq.write_table
    calls = {"n": 0}

    def failing_write(table, where, **options):
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(28, "No space left on device")
        return real_write(table, where, **options)

    monkeypatch.setattr(sim.storage.parts.pq, "write_table", failing_write)
    result = invoke("league", *BASE, "--chunk-games", "6", "--log-plays", "--out", out)
    one_line(result, 1, "No space left on device", "--resume")
    assert not (out / "summary.json").exists()
    monkeypatch.setattr(sim.storage.parts.pq, "write_table", real_write)
    conflict = invoke("league", "--resume", "--out", out, "--policies", "heuristic,random")
    one_line(conflict, 2, "--policies")
    assert invoke("league", "--resume", "--out", out, "-q").exit_code == 0
    for table in ("rounds", "games", "plays"):
        pd.testing.assert_frame_equal(read(out, table), read(league_run, table))
    assert json.loads((out / "summary.json").read_text())["ratings"] == json.loads((league_run / "summary.json").read_text())["ratings"]
    assert invoke("verify", out).exit_code == 0
    wrong = invoke("tournament", "--resume", "--out", out)
    one_line(wrong, 2, "not a tournament run")


@pytest.mark.slow
def test_overwrite_replaces_a_league_with_a_simulate_run_and_its_outputs_go(tmp_path, league_run):
    out = tmp_path / "run"
    assert invoke("league", *BASE, "--out", out).exit_code == 0
    assert (out / "ratings.png").exists()
    assert invoke("simulate", "--games", "3", "--rounds", "1", "-q", "--overwrite", "--out", out).exit_code == 0
    assert sorted(path.name for path in out.iterdir()) == [".wizard-sim.lock", "chunks.jsonl", "games", "rounds", "run.json"]


@pytest.mark.slow
def test_python_policies_play_in_a_league_of_more_than_six(tmp_path, monkeypatch):
    """A Python policy that hands every decision to the heuristic plays the heuristic's games,
    in the Python-seat driver, seated by row among seven listed policies."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "bots"))
    rules = Rules(players=4, rounds=(1, 2, 3))
    others = ["random", "heuristic:aggression=1.2", "heuristic:crowding=0.3", "mc:samples=2,play_samples=2",
              "heuristic:wizard_win=0.8", "heuristic:side_timing=4"]  # fmt: skip
    with_bot = league(LeagueConfig.build(rules, ["python_bots:DelegatingHeuristic", *others], seed=3, deals=20),
                      str(tmp_path / "bot"), batch=7)  # fmt: skip
    plain = league(LeagueConfig.build(rules, ["heuristic", *others], seed=3, deals=20), str(tmp_path / "plain"))
    for table in ("rounds", "games"):
        mine, theirs = read(tmp_path / "bot", table), read(tmp_path / "plain", table)
        mine["policy"] = mine["policy"].astype(str).replace("python_bots:DelegatingHeuristic", "heuristic")
        theirs["policy"] = theirs["policy"].astype(str)
        pd.testing.assert_frame_equal(mine, theirs)
    assert [row["rating"] for row in with_bot.summary[0]] == [row["rating"] for row in plain.summary[0]]


@pytest.mark.slow
def test_a_numba_bot_plays_in_a_league(tmp_path, monkeypatch):
    """An external numba bot compiled into the seated engine (compiles once, then cached)."""
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "examples"))
    monkeypatch.chdir(tmp_path)
    result = invoke("league", "--policies", "greedy_bot:GreedyBot,heuristic,random,heuristic:aggression=1.2,mc",
                    "--games", "10", "--rounds", "1-3", "--seed", "2", "-q", "--out", tmp_path / "run")  # fmt: skip
    assert result.exit_code == 0, result.output
    games = read(tmp_path / "run", "games")
    assert (games["policy"].astype(str) == "greedy_bot:GreedyBot").sum() == 10 * 8 * 4 // 5  # at 4 of the 5 tables, in 8 seatings
    assert invoke("verify", tmp_path / "run").exit_code == 0


@pytest.mark.processes
def test_ctrl_c_stops_a_league_within_two_seconds(tmp_path):
    """The costliest built-in setting (mc at its largest sample counts, as tests/test_robustness.py
    for simulate) in a league's seated batch."""
    out = tmp_path / "mc"
    policies = ",".join(f"mc:samples={256 - index},play_samples=256" for index in range(4)) + ",heuristic"
    command = [sys.executable, "-m", "sim.cli", "league", "--policies", policies, "--games", "1000", "--chunk-games", "1",
               "--seed", "1", "--quiet", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None:
        if (out / "chunks.jsonl").exists() and (out / "chunks.jsonl").read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.02)
    time.sleep(0.3)  # inside the next chunk's kernel call
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    elapsed = time.monotonic() - sent
    assert process.returncode == 130, stderr
    assert elapsed < 2.0, f"Ctrl-C took {elapsed:.1f} s"
    assert "wizard-sim league --out" in stderr and "--resume" in stderr
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "incomplete" in verified.stdout and "damaged" not in verified.stdout


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--policies", "heuristic"], "a league takes 2..32 policies, got 1"),
        (["--policies", ",".join(f"heuristic:aggression={1 + i / 100}" for i in range(33))], "a league takes 2..32 policies, got 33"),
        (["--policies", "heuristic,random,heuristic"], "policy heuristic is listed twice"),
        (["--policies", "heuristic,heuristic:aggression=1"], "policy heuristic is listed twice"),
        (["--policies", "heuristic,nobody"], "unknown policy 'nobody'"),
        (["--games", "0"], "games must be in 1..1,000,000,000,000"),
        (["--players", "9"], "players must be 3..6"),
        (["--rounds", "16"], "round size 16 is outside"),
        (["--chunk-games", "0"], "chunk-games must be in 1.."),
        (["--seed", "-1"], "seed must be"),
        (["--sprt", "10,0"], "sprt needs LOW < HIGH"),
        (["--sprt", "x"], "--sprt needs LOW,HIGH"),
        (["--sprt", "0,10", "--alpha", "0.5"], "alpha must be in"),
        (["--sprt", "0,1e9"], "sprt high must be in"),
        (["--beta", "0.1"], "--alpha and --beta need --sprt"),
    ],
)
def test_bad_input(tmp_path, arguments, message):
    out = tmp_path / "run"
    base = {"--policies": "heuristic,random,mc", "--games": "5", "--out": str(out)}
    for option in arguments[::2]:
        base.pop(option, None)
    result = invoke("league", *[item for pair in base.items() for item in pair], *arguments)
    one_line(result, 2, message)
    assert not out.exists()


def test_missing_policies(tmp_path):
    one_line(invoke("league", "--games", "5", "--out", tmp_path / "run"), 2, "--policies is required")


@pytest.mark.slow
def test_help_shows_the_defaults_of_simulate_tournament_and_league():
    """Regression (#21): "[default: ...]" in a help text was read as rich markup and vanished."""
    from typer.testing import CliRunner

    from sim.cli import app

    def shown(command: str) -> str:
        return CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400", "TERMINAL_WIDTH": "400"}).stdout

    for command in ("simulate", "tournament", "league"):
        for text in ("[default: 4]", "[default: open]", "[default: drawn at random and recorded]", "[default: 8,192]"):
            assert text in shown(command), (command, text)
    assert "[default: 0.05]" in shown("league") and "[default: heuristic]" in shown("simulate")


def test_league_pairs_cover_every_pair(league_run):
    pairs = pd.read_parquet(league_run / "pairs.parquet")
    assert set(zip(pairs["policy_a"], pairs["policy_b"])) == set(itertools.combinations(LABELS, 2))
