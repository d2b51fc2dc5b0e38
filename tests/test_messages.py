"""Error messages are bounded and in the project's words (issue 61): a line repeats at most
about 200 characters of one input however long it is (a 120,000-character card was echoed
whole), and no Python repr leaks ("card id True", "--log-plays True differs")."""
from __future__ import annotations

import pytest

import sim
from helpers import invoke, one_line
from sim.config.errors import MAX_ECHO, bounded, echo

LONG = "X" * 120_000


@pytest.mark.parametrize(
    "arguments",
    [
        ["estimate", "--hand", LONG, "--trump", "3H"],
        ["estimate", "--hand", f"AS {LONG} KH", "--trump", "3H"],
        ["estimate", "--hand", "AS", "--trump", LONG],
        ["estimate", "--hand", "AS", "--trump", "3H", "--opponents", LONG],
        ["estimate", "--hand", "AS", "--trump", "3H", "--bids", LONG],
        ["simulate", "--games", "1", "--policy", LONG + ":Bot", "--out", "unused"],
        ["simulate", "--games", "1", "--policy", f"heuristic:{LONG}=1", "--out", "unused"],
        ["simulate", "--games", "1", "--rounds", LONG, "--out", "unused"],
        ["tournament", "--games", "1", "--policies", f"heuristic,random,{LONG},random", "--out", "unused"],
    ],
)
def test_an_error_line_repeats_a_bounded_part_of_a_long_input(arguments):
    result = invoke(*arguments)
    one_line(result, 2)
    assert len(result.stderr) < 3 * MAX_ECHO + 400, len(result.stderr)
    assert "120,000 characters" in result.stderr or "120,00" in result.stderr, result.stderr[:600]


def test_echo_and_bounded():
    assert echo(True) == "true" and echo(None) == "nothing" and echo([1]) == "a list"
    assert echo("AS") == "'AS'" and echo(2**200).endswith("-digit number")
    assert len(echo(LONG)) < MAX_ECHO + 40 and "120,000 characters" in echo(LONG)
    assert bounded("a\nb  c") == "a b c"
    assert len(bounded("card " + LONG + " is unknown")) < MAX_ECHO + 60


@pytest.mark.parametrize("hand, shown", [([True], "got true"), ([1.5], "got 1.5"), ([None], "got nothing"), ([[1]], "got a list")])
def test_no_python_repr_in_a_card_error(hand, shown):
    with pytest.raises(sim.ConfigError) as error:
        sim.estimate(hand=hand, trump="3H", samples=10)
    assert str(error.value).endswith(shown) and "True" not in str(error.value)


def test_a_flag_given_on_resume_is_named_as_a_flag(tmp_path):
    out = tmp_path / "run"
    assert invoke("simulate", "--games", 20, "--chunk-games", 10, "--rounds", "1", "--seed", 1, "--out", out, "--quiet").exit_code == 0
    result = invoke("simulate", "--out", out, "--resume", "--log-plays", "--quiet")
    one_line(result, 2, "--log-plays differs from the run being resumed (recorded without --log-plays)")
    assert "True" not in result.stderr and "False" not in result.stderr
