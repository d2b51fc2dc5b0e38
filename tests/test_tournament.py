"""`wizard-sim tournament`: duplicate deals, random seating, paired statistics recomputed
from the written data, exactness across threads/chunks, resume, and bad input."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import sim.storage.parts
from sim.cli import app
from sim.cli.progress import GameProgress
from sim.config.rules import Rules
from sim.runs.games import run_games
from sim.runs.tables import rounds_table
from sim.runs.table_engine import mirror_balances, rotation_slots
from sim.runs.tournament import TournamentConfig
from sim.runs.tournament import tournament as run_tournament

runner = CliRunner()
POLICIES = "heuristic,random,heuristic:aggression=1.3,random"
BASE = ["--policies", POLICIES, "--games", "30", "--rounds", "1-5", "--seed", "4", "--quiet"]


def tournament(*arguments: str):
    return runner.invoke(app, ["tournament", *arguments])


def read(out, table: str) -> pd.DataFrame:
    return pd.read_parquet(out / table)


@pytest.fixture(scope="module")
def duplicate_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tournament") / "run"
    result = tournament(*BASE, "--chunk-games", "7", "--log-plays", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_duplicate_rotations_share_every_card(duplicate_run):
    rounds = read(duplicate_run, "rounds")
    listed = POLICIES.split(",")
    assert list(rounds.columns[:3]) == ["game_id", "deal_id", "rotation"]
    assert str(rounds["deal_id"].dtype) == "int64" and str(rounds["rotation"].dtype) == "int8"
    assert (rounds["game_id"] == rounds["deal_id"] * 4 + rounds["rotation"]).all()
    assert sorted(rounds["rotation"].unique()) == [0, 1, 2, 3] and rounds["deal_id"].nunique() == 30
    expected_policy = [listed[(s + k) % 4] for s, k in zip(rounds["seat"], rounds["rotation"])]
    assert (rounds["policy"].astype(str).to_numpy() == np.array(expected_policy)).all()
    for _, deal in rounds.groupby("deal_id"):
        cards = deal.pivot_table(index=["round", "seat"], columns="rotation", values=["hand", "trump_card", "dealer"])
        for column in ("hand", "trump_card", "dealer"):
            values = cards[column].to_numpy()
            assert (values == values[:, :1]).all(), column
    games = read(duplicate_run, "games")
    assert list(games.columns) == ["game_id", "deal_id", "rotation", "seat", "policy", "total", "winner"]
    plays = read(duplicate_run, "plays")
    assert len(plays) == 30 * 4 * 4 * (1 + 2 + 3 + 4 + 5)


def test_rotation_zero_is_a_plain_run(duplicate_run):
    rounds = read(duplicate_run, "rounds")
    first = rounds[rounds["rotation"] == 0].drop(columns=["deal_id", "rotation"]).reset_index(drop=True)
    batch = run_games(Rules(players=4, rounds=(1, 2, 3, 4, 5)), POLICIES, seed=4, games=30)
    expected = rounds_table(batch).to_pandas()
    expected["game_id"] *= 4
    pd.testing.assert_frame_equal(first, expected, check_categorical=False)


def test_summary_matches_the_data(duplicate_run):
    games = read(duplicate_run, "games")
    rounds = read(duplicate_run, "rounds")
    summary = json.loads((duplicate_run / "summary.json").read_text())
    per_deal = games.assign(policy=games["policy"].astype(str)).groupby(["deal_id", "policy"])["total"].mean().unstack()
    games["share"] = games["winner"] / games.groupby("game_id")["winner"].transform("sum")
    rows = {row["policy"]: row for row in summary["policies"]}
    assert set(rows) == {"heuristic", "random", "heuristic:aggression=1.3"}
    for label, row in rows.items():
        x = per_deal[label]
        half = 1.959963984540054 * x.std(ddof=1) / math.sqrt(len(x))
        assert row["mean_score"] == pytest.approx(x.mean())
        assert row["mean_score_ci_low"] == pytest.approx(x.mean() - half)
        assert row["mean_score_ci_high"] == pytest.approx(x.mean() + half)
        mine = games["policy"].astype(str) == label
        assert row["win_rate"] == pytest.approx(games.loc[mine, "share"].mean())
        bids = rounds[rounds["policy"].astype(str) == label]
        assert row["bid_accuracy"] == pytest.approx((bids["bid"] == bids["tricks"]).mean())
        assert row["mean_abs_error"] == pytest.approx((bids["bid"] - bids["tricks"]).abs().mean())
    assert sum(row["win_rate"] * row["seat_games"] for row in rows.values()) == pytest.approx(30 * 4)
    pairs = {(row["policy_a"], row["policy_b"]): row for row in summary["pairs"]}
    assert set(pairs) == set(itertools.combinations(["heuristic", "random", "heuristic:aggression=1.3"], 2))
    for (a, b), row in pairs.items():
        d = per_deal[a] - per_deal[b]
        half = 1.959963984540054 * d.std(ddof=1) / math.sqrt(len(d))
        assert row["difference"] == pytest.approx(d.mean())
        assert row["ci_low"] == pytest.approx(d.mean() - half) and row["ci_high"] == pytest.approx(d.mean() + half)
        assert row["significant"] == (not row["ci_low"] <= 0 <= row["ci_high"])
    verdict = pairs[("heuristic", "random")]["verdict"]
    assert verdict.startswith("heuristic beats random by")
    table = pd.read_parquet(duplicate_run / "summary.parquet")
    assert set(table["table"]) == {"policies", "pairs"} and len(table) == 6


def test_summary_parquet_holds_the_pairs_too(duplicate_run):
    """Regression: the table's schema was taken from its first row (a policies row), which
    dropped every column of the pairs rows."""
    summary = json.loads((duplicate_run / "summary.json").read_text())
    table = pd.read_parquet(duplicate_run / "summary.parquet")
    for kind in ("policies", "pairs"):
        rows = table[table["table"] == kind].drop(columns="table").dropna(axis="columns", how="all")
        expected = pd.DataFrame(summary[kind])
        pd.testing.assert_frame_equal(rows.reset_index(drop=True)[expected.columns], expected, check_dtype=False)
    assert table[table["table"] == "pairs"]["verdict"].str.contains("points per game").all()


def test_progress_counts_games_like_the_summary(tmp_path):
    """Regression: a tournament's progress counted deals under a games/s rate."""
    config = TournamentConfig.build(Rules(players=3, rounds=(1, 2)), "heuristic,random,random", seed=2, deals=10, chunk_deals=4)
    calls = []
    result = run_tournament(config, str(tmp_path / "run"), on_progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 30) and calls[-1] == (30, 30) == (result.games_computed, 10 * 3)
    assert [done for done, _ in calls] == [0, 12, 24, 30]
    with GameProgress() as progress:
        for done, total in calls:
            progress.update(done, total)
        (task,) = progress.progress.tasks
    assert task.description == "games" and task.fields["rate"].endswith(" games/s")


def test_printed_report(tmp_path):
    result = tournament("--policies", "heuristic,random,random", "--players", "3", "--games", "20", "--rounds", "2-3",
                        "--seed", "1", "--out", str(tmp_path / "run"))  # fmt: skip
    assert result.exit_code == 0, result.output
    for text in ("20 deals (duplicate, 3 rotations per deal)", "heuristic beats random", "Pairwise differences", "95% CI"):
        assert text in result.stdout


def test_identical_whatever_threads_and_chunks(tmp_path, duplicate_run):
    out = tmp_path / "again"
    result = tournament(*BASE, "--chunk-games", "30", "--threads", "1", "--log-plays", "--out", str(out))
    assert result.exit_code == 0
    for table in ("rounds", "games", "plays"):
        pd.testing.assert_frame_equal(read(out, table), read(duplicate_run, table))
    first = json.loads((out / "summary.json").read_text())
    second = json.loads((duplicate_run / "summary.json").read_text())
    for a, b in zip(first["policies"] + first["pairs"], second["policies"] + second["pairs"]):
        assert a.keys() == b.keys()
        for key in a:
            assert a[key] == pytest.approx(b[key]) if isinstance(a[key], float) else a[key] == b[key]


def test_random_seating_without_duplicates(tmp_path):
    out = tmp_path / "plain"
    result = tournament("--policies", "heuristic,random,random", "--players", "3", "--games", "1200", "--rounds", "1",
                        "--no-duplicate", "--seed", "8", "-q", "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    games = read(out, "games")
    assert (games["rotation"] == -1).all() and (games["game_id"] == games["deal_id"]).all()
    heuristic_seat = games[games["policy"].astype(str) == "heuristic"].set_index("game_id")["seat"]
    assert len(heuristic_seat) == 1200
    counts = heuristic_seat.value_counts().reindex(range(3), fill_value=0).to_numpy()
    # Each seat gets the heuristic with probability 1/3: within 4 sigma of 400.
    assert np.all(np.abs(counts - 400) < 4 * math.sqrt(1200 * (1 / 3) * (2 / 3)))
    rounds = read(out, "rounds")
    plain = rounds_table(run_games(Rules(players=3, rounds=(1,)), "random", seed=8, games=1200)).to_pandas()
    for column in ("hand", "trump_card", "dealer"):  # the deals do not depend on the seating
        assert (rounds[column].to_numpy() == plain[column].to_numpy()).all()


@pytest.mark.slow
def test_write_failure_then_resume_gives_the_same_tournament(tmp_path, monkeypatch, duplicate_run):
    out = tmp_path / "run"
    real_write = sim.storage.parts.pq.write_table
    calls = {"n": 0}

    def failing_write(table, where, **options):
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(28, "No space left on device")
        return real_write(table, where, **options)

    monkeypatch.setattr(sim.storage.parts.pq, "write_table", failing_write)
    result = tournament(*BASE, "--chunk-games", "7", "--log-plays", "--out", str(out))
    assert result.exit_code == 1 and "No space left on device" in result.stderr
    assert not (out / "summary.json").exists()
    monkeypatch.setattr(sim.storage.parts.pq, "write_table", real_write)
    conflict = tournament("--resume", "--out", str(out), "--policies", "heuristic,random,random,random")
    assert conflict.exit_code == 2 and "--policies" in conflict.stderr
    resumed = tournament("--resume", "--out", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    for table in ("rounds", "games", "plays"):
        pd.testing.assert_frame_equal(read(out, table), read(duplicate_run, table))
    assert json.loads((out / "summary.json").read_text())["pairs"] == json.loads((duplicate_run / "summary.json").read_text())["pairs"]
    simulate_run = tmp_path / "simulate"
    assert runner.invoke(app, ["simulate", "--games", "2", "--rounds", "1", "-q", "--out", str(simulate_run)]).exit_code == 0
    wrong = tournament("--resume", "--out", str(simulate_run))
    assert wrong.exit_code == 2 and "not a tournament run" in wrong.stderr


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--policies", "heuristic,random"], "got 2 policies for 4 players"),
        (["--policies", "heuristic"], "got 1 policies for 4 players"),
        (["--policies", "random,random,random,random"], "at least two different policies"),
        (["--policies", "heuristic,random,random,nobody"], "unknown policy 'nobody'"),
        (["--games", "0"], "games must be in 1..1,000,000,000,000"),
        (["--players", "9"], "players must be 3..6"),
        (["--rounds", "16"], "round size 16 is outside"),
        (["--bidding", "hidden", "--even-bids", "leader"], "needs a last bidder"),
        (["--chunk-games", "0"], "chunk-games must be in 1.."),
        (["--seed", "-1"], "seed must be"),
    ],
)
def test_bad_input(tmp_path, arguments, message):
    out = tmp_path / "run"
    base = {"--policies": "heuristic,random,random,random", "--games": "5", "--out": str(out)}
    for option in arguments[::2]:
        base.pop(option, None)
    result = tournament(*[item for pair in base.items() for item in pair], *arguments)
    assert result.exit_code == 2, (arguments, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert not out.exists()


def test_missing_policies(tmp_path):
    result = tournament("--games", "5", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and "--policies is required" in result.stderr


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_mirrored_rotations_put_each_neighbour_on_both_sides(players):
    """With the mirror images every table position has each other one as often at clockwise
    distance d as at -d; the plain rotations keep every distance fixed."""
    slots = rotation_slots(players, mirrored=True)
    assert slots.shape == (2 * players, players)
    assert (slots[:players] == rotation_slots(players)).all()
    seat_of = np.argsort(slots, axis=1)  # [rotation, position] -> the seat holding it
    assert all(sorted(row) == list(range(players)) for row in slots.tolist())
    for first, second in itertools.permutations(range(players), 2):
        distances = (seat_of[:, second] - seat_of[:, first]) % players
        counts = np.bincount(distances, minlength=players)
        assert (counts == np.roll(counts[::-1], 1)).all(), (first, second, counts)  # count(d) == count(-d)
        plain = (seat_of[:players, second] - seat_of[:players, first]) % players
        assert len(set(plain.tolist())) == 1


def test_mirror_swaps_two_policies_listed_next_to_each_other():
    """At A,B,H,H each rotation's mirror image (or another rotation of it) is the same seating
    with A and B swapped: two identical players listed next to each other then see exactly the
    same games, so the seating no longer favours either."""
    config = TournamentConfig.build(Rules(players=4), "heuristic,random,mc,mc", seed=1, deals=2, mirrored=True)
    seatings = config.deal_rows(np.array([0]))
    assert seatings.seatings.shape == (8, 4)
    labels = np.array(["A", "B", "H", "H"])  # the listed positions; the two H seats play alike
    rows = {tuple(row) for row in labels[seatings.seatings].tolist()}
    swap = {"A": "B", "B": "A", "H": "H"}
    assert all(tuple(swap[label] for label in row) in rows for row in rows)
    plain = TournamentConfig.build(Rules(players=4), "heuristic,random,mc,mc", seed=1, deals=2, mirrored=False).deal_rows(
        np.array([0])
    )
    plain_rows = {tuple(row) for row in labels[plain.seatings].tolist()}
    assert not any(tuple(swap[label] for label in row) in plain_rows for row in plain_rows)


@pytest.mark.parametrize(("policies", "balances"), [
    ("A,H,H,H", False), ("A,H,B,H", False), ("A,B,H,H", True), ("A,B,C,D", True), ("A,B,A,B", False),
    ("A,B,B", False), ("A,B,C", True), ("A,B", False), ("A,B,H,H,H", True), ("A,H,B,H,H", True), ("A,B,C,B,A", False),
])  # fmt: skip
def test_mirror_images_balance_where_the_reversed_list_is_no_rotation(policies, balances):
    labels = policies.split(",")
    assert mirror_balances(labels) is balances
    # by brute force: the mirror images' seatings (by label) are the rotations' or add new ones
    slots = rotation_slots(len(labels), mirrored=True)
    seatings = [tuple(labels[position] for position in row) for row in slots.tolist()]
    assert (set(seatings[len(labels):]) != set(seatings[: len(labels)])) is balances


def test_mirror_images_are_the_default_where_they_balance():
    rules = Rules(players=4)
    assert TournamentConfig.build(rules, "heuristic,random,mc,mc", seed=1, deals=2).mirrored is True
    assert TournamentConfig.build(rules, "heuristic,mc,random,mc", seed=1, deals=2).mirrored is None
    assert TournamentConfig.build(rules, "heuristic,random,mc,mc", seed=1, deals=2, mirrored=False).mirrored is None
    assert TournamentConfig.build(rules, "heuristic,mc,random,mc", seed=1, deals=2, mirrored=True).mirrored is True
    assert TournamentConfig.build(rules, "heuristic,random,mc,mc", seed=1, deals=2, duplicate=False).mirrored is None
    # a run.json written before the default (no "mirrored") is read as played: without them
    recorded = TournamentConfig.build(rules, "heuristic,random,mc,mc", seed=1, deals=2, mirrored=False).to_dict()
    assert "mirrored" not in recorded and TournamentConfig.from_dict(recorded).mirrored is None
    mirrored = TournamentConfig.build(rules, "heuristic,random,mc,mc", seed=1, deals=2).to_dict()
    assert mirrored["mirrored"] is True and TournamentConfig.from_dict(mirrored).mirrored is True


def test_mirrored_tournament(tmp_path, duplicate_run):
    out = tmp_path / "mirrored"
    result = tournament(*BASE, "--mirror", "--chunk-games", "7", "--out", str(out))
    assert result.exit_code == 0, result.output
    rounds = read(out, "rounds")
    listed = POLICIES.split(",")
    assert (rounds["game_id"] == rounds["deal_id"] * 8 + rounds["rotation"]).all()
    assert sorted(rounds["rotation"].unique()) == list(range(8)) and rounds["deal_id"].nunique() == 30
    expected_policy = [listed[(s + k) % 4] if k < 4 else listed[(k - 4 - s) % 4]
                       for s, k in zip(rounds["seat"], rounds["rotation"])]  # fmt: skip
    assert (rounds["policy"].astype(str).to_numpy() == np.array(expected_policy)).all()
    for _, deal in rounds.groupby("deal_id"):  # every one of the 8 seatings holds the same cards
        cards = deal.pivot_table(index=["round", "seat"], columns="rotation", values=["hand", "trump_card", "dealer"])
        for column in ("hand", "trump_card", "dealer"):
            values = cards[column].to_numpy()
            assert (values == values[:, :1]).all(), column
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["mirrored"] is True
    assert all(row["seat_games"] == 30 * 8 for row in summary["policies"] if row["policy"] == "heuristic")
    # unmirrored (here: the default, as the reversed list is a rotation of it) the recorded
    # configuration, and so the fingerprint, is as before mirror images existed
    assert "mirrored" not in json.loads((duplicate_run / "summary.json").read_text())["config"]
    again = tournament("--resume", "--no-duplicate", "--out", str(out))
    assert again.exit_code == 2
    refused = tournament(*BASE, "--mirror", "--no-duplicate", "--out", str(tmp_path / "refused"))
    assert refused.exit_code == 2 and "mirrored seatings need duplicate deals" in refused.stderr
    assert not (tmp_path / "refused").exists()


def test_mirror_removes_the_seating_bias_of_identical_players(tmp_path):
    """Two players that play alike (`heuristic:crowding=0.1500001` is `heuristic` to every
    decision here), listed next to each other among two others: the plain rotations give them
    different scores (the seating, docs/tournament.md); with the mirror images every deal's
    games are the same with the two swapped, so the difference is exactly zero."""
    policies = "heuristic:crowding=0.1500001,heuristic,heuristic:aggression=1.3,heuristic:aggression=1.3"
    pairs = {}
    for flag in (["--no-mirror"], []):  # the default mirrors this table
        out = tmp_path / ("plain" if flag else "mirror")
        arguments = ["--policies", policies, "--games", "300", "--rounds", "1-6", "--seed", "7", "-q", *flag, "--out", str(out)]
        assert tournament(*arguments).exit_code == 0
        summary = json.loads((out / "summary.json").read_text())
        pairs[not flag] = next(pair for pair in summary["pairs"] if {pair["policy_a"], pair["policy_b"]} ==
                                 {"heuristic:crowding=0.1500001", "heuristic"})  # fmt: skip
    assert pairs[True]["difference"] == 0.0 and pairs[True]["ci_low"] == 0.0 == pairs[True]["ci_high"]
    assert pairs[False]["difference"] != 0.0
