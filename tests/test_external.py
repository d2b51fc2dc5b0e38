"""Bots from outside the package (`--policy module:Object`): the example bot in a tournament,
parameters, reproducibility, and clear errors for broken bots."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.runs.games import run_games
from sim.config.errors import BotError, ConfigError
from sim.policies.registry import parse_policies, parse_policy
from sim.config.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


@pytest.fixture(autouse=True)
def importable_bots(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "bots"))


def test_example_bot_plays_a_tournament(tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(app, ["tournament", "--policies", "greedy_bot:GreedyBot,heuristic,random,random", "--games", "60",
                                 "--rounds", "1-6", "--seed", "3", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    scores = {row["policy"]: row["mean_score"] for row in summary["policies"]}
    assert set(scores) == {"greedy_bot:GreedyBot", "heuristic", "random"}
    assert scores["greedy_bot:GreedyBot"] > scores["random"]  # it plays to its bids
    rounds = pd.read_parquet(out / "rounds")
    assert (rounds.groupby(["game_id", "round"])["tricks"].sum() == rounds.groupby(["game_id", "round"])["round"].first()).all()


@pytest.mark.slow
def test_parameters_and_reproducibility():
    rules = Rules(players=3, rounds=(3, 4, 5))
    policies = "greedy_bot:GreedyBot:margin=1,heuristic,greedy_bot:GreedyBot"
    parsed = parse_policies(policies, 3)
    assert [p.label for p in parsed] == ["greedy_bot:GreedyBot:margin=1", "heuristic", "greedy_bot:GreedyBot"]
    assert parsed[0].params == (1.0,) and parsed[2].params == (0.5,)
    first = run_games(rules, policies, seed=5, games=200)
    second = run_games(rules, policies, seed=5, games=200, threads=1)
    assert (first.seats == second.seats).all()
    bids = first.seats["bid"].astype(int)
    assert bids[:, :, 0].mean() >= bids[:, :, 2].mean()  # a larger margin never bids less


def test_same_deals_as_built_in_runs():
    rules = Rules(players=4, rounds=(2, 7))
    external = run_games(rules, "greedy_bot:GreedyBot,random,random,random", seed=9, games=50)
    built_in = run_games(rules, "random", seed=9, games=50)
    assert (external.seats["hand"] == built_in.seats["hand"]).all()
    assert (external.rounds["trump_card"] == built_in.rounds["trump_card"]).all()


@pytest.mark.parametrize(
    "policy, message",
    [
        ("no_such_module:Bot", "cannot import policy module 'no_such_module'"),
        ("greedy_bot:Missing", "module 'greedy_bot' has no 'Missing'"),
        ("broken_bots:NotJitted", "broken_bots:NotJitted must be a Python policy or a numba bot"),
        ("greedy_bot:GreedyBot:speed=3", "has no parameter 'speed=3'"),
    ],
)
def test_broken_bots_are_one_line_errors(tmp_path, policy, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_policy(policy)
    result = runner.invoke(app, ["simulate", "--games", "3", "--policy", policy, "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_illegal_action_is_reported(tmp_path):
    with pytest.raises(BotError, match="policy broken_bots:IllegalPlayer chose card 2C for seat 0"):
        run_games(Rules(players=3, rounds=(5,)), "broken_bots:IllegalPlayer,random,random", seed=1, games=20)


@pytest.mark.parametrize(
    "policy, message",
    [
        ("stateful_bots:TooMuchState", "stateful_bots:TooMuchState: STATE_SIZE must be a whole number 0..32"),
        ("stateful_bots:StateWithoutDecide", "keeps state (STATE_SIZE) but has no decide to read it with"),
    ],
)
def test_a_bots_state_is_checked(policy, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_policy(policy)


STATEFUL = "stateful_bots:RoundCounter,heuristic,stateful_bots:RoundCounter,stateful_bots:ForgetsNothing"


@pytest.mark.slow
def test_a_bot_in_the_built_in_form_keeps_state_per_seat_across_rounds():
    """A bot written as a built-in policy is (decide, round_finished, STATE_SIZE): each of its
    seats keeps its own state, which its hook updates after every round, once per seat, and
    which is clear when each game begins, on any thread count; without a hook it stays clear."""
    rules = Rules(players=4, rounds=(3, 4, 5, 6))
    played = run_games(rules, STATEFUL, seed=2, games=30)
    bids = played.seats["bid"].astype(int)  # [game, round, seat]
    for seat in (0, 2):  # the rounds this seat finished before each round of every game
        assert (bids[:, :, seat] == range(4)).all(), bids[:3, :, seat]
    assert (bids[:, :, 3] == 0).all()
    again = run_games(rules, STATEFUL, seed=2, games=30, threads=1)
    assert (again.seats == played.seats).all() and (again.rounds == played.rounds).all()


@pytest.mark.slow
def test_a_bots_failing_round_finished_is_named():
    # The same bots as above (one compiled engine), the first seat's hook failing after a round.
    with pytest.raises(BotError, match=r"policy stateful_bots:RoundCounter raised ValueError: nowhere to keep the "
                                       r"round in its round_finished \(stateful_bots.py:\d+\) in game 0, round of 3 cards"):
        run_games(Rules(players=4, rounds=(3, 4)), STATEFUL.replace("Counter,", "Counter:fails_after=1,", 1), seed=1, games=5)


@pytest.mark.slow
def test_estimate_with_an_external_bot():
    import sim

    frame = sim.estimate("W AS KH", trump="3H", players=3, position=0, opponents="greedy_bot:GreedyBot",
                         policy="greedy_bot:GreedyBot", samples=300, seed=2)  # fmt: skip
    assert frame["legal"].all() and frame["p_make"].between(0, 1).all()
    again = sim.estimate("W AS KH", trump="3H", players=3, position=0, opponents="greedy_bot:GreedyBot",
                         policy="greedy_bot:GreedyBot", samples=300, seed=2)  # fmt: skip
    pd.testing.assert_frame_equal(frame, again)


@pytest.mark.parametrize("command, options", [("simulate", ["--policy"]), ("tournament", ["--policies"]),
                                              ("estimate", ["--opponents", "--policy"]), ("demo", ["--policy"])])  # fmt: skip
def test_help_shows_the_module_object_form(command, options):
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    for option in options:
        line = next(line for line in result.output.splitlines() if line.lstrip("│ ").startswith(f"{option} "))
        assert "module:Object" in line and "numba bot" in line and "Python policy" in line, line


def search_functions_reached(policies: str) -> set[str]:
    """The functions of mc, pimc's decision, the solver and the face-up playout that the play_games
    engine of `policies` (with a numba bot) reaches: what it compiles in."""
    from kernels.batch import play_games
    from sim.engine.policy_engine import reached_functions
    from sim.engine.seating import Seating

    engine = Seating.of(parse_policies(policies, 4)).kernel(play_games)
    searching = ("kernels.search.mc", "kernels.search.solver", "kernels.search.faceup")
    found = set()
    for function in reached_functions([engine]):
        module, name = function.py_func.__module__, function.py_func.__name__
        if module in searching or (module == "kernels.search.pimc" and name != "learns_bids"):
            found.add(f"{module}.{name}")
    return found


def test_an_engine_with_a_bot_compiles_only_the_built_in_policies_it_seats():
    """A bot beside heuristic and random seats reaches no search (only batch's check whether
    a pimc seat reads the finished rounds, pimc.learns_bids, remains); beside mc it reaches mc
    and not pimc's own decision."""
    assert search_functions_reached("greedy_bot:GreedyBot,heuristic,random,heuristic") == set()
    with_mc = search_functions_reached("greedy_bot:GreedyBot,mc,random,heuristic")
    assert "kernels.search.mc.choose_card" in with_mc
    assert not any(name.startswith("kernels.search.pimc") for name in with_mc)
    assert any(name.startswith("kernels.search.pimc") for name in search_functions_reached("greedy_bot:GreedyBot,pimc,random,heuristic"))
