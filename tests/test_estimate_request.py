"""The one options object of estimate (EstimateRequest) and what an estimate says it assumes:
the command line's options are the request's fields, the API takes a request or its fields,
errors name their field, and a 0%/100% that only the exact model makes certain is flagged."""
import json
from dataclasses import fields

import numpy as np
import pytest
from typer.testing import CliRunner

from kernels import rules as K
from kernels.rules import round_scores
from sim.estimation.request import EstimateRequest
from sim.estimation.run import estimate, run_estimate
from sim.cli import app
from sim.cli.estimate import estimate_command
from sim.config.errors import ConfigError

runner = CliRunner()


def test_the_command_lines_options_are_the_requests_fields():
    import inspect

    names = [name for name in inspect.signature(estimate_command).parameters if name != "as_json"]
    assert names == [item.name for item in fields(EstimateRequest)]
    help_text = runner.invoke(app, ["estimate", "--help"], env={"COLUMNS": "200"}).stdout
    for item in fields(EstimateRequest):
        flag = item.metadata["flags"][0].split("/")[0] if item.metadata["flags"] else "--" + item.name.replace("_", "-")
        assert flag in help_text, flag


def test_a_request_a_hand_with_options_and_keywords_are_one_estimate():
    options = dict(trump="3H", position=2, bids=(1, 0), samples=500, seed=4)
    request = EstimateRequest("W AS KH 7H J", **options)
    by_request, by_hand, by_keywords = (run_estimate(request), run_estimate("W AS KH 7H J", **options),
                                        run_estimate(hand="W AS KH 7H J", **options))  # fmt: skip
    for other in (by_hand, by_keywords):
        np.testing.assert_array_equal(by_request.tricks, other.tricks)
        assert by_request.to_json() == other.to_json()
    replaced = run_estimate(request, seed=5)  # options replace the request's fields
    assert replaced.seed == 5 and estimate(request).equals(by_request.to_frame())
    with pytest.raises(ConfigError, match="unknown estimate option"):
        run_estimate("AS", trump="3H", sample=10)


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(hand="AS AS", trump="3H"), "hand"),
        (dict(hand="AS", trump="AS"), "trump"),
        (dict(hand="AS", trump="3H", position=1, bids="3"), "bids"),
        (dict(hand="AS", trump="3H", position=5), "position"),
        (dict(hand="AS", trump="3H", players=9), "players"),
        (dict(hand="AS", trump="3H", totals="1"), "totals"),
        (dict(hand="AS", trump="3H", opponents="nobody"), "opponents"),
        (dict(hand="AS", trump="3H", samples=1), "samples"),
        (dict(hand="AS", trump="3H", floor=1.5), "floor"),
        (dict(hand="AS", trump="3H", spread=-1), "spread"),
    ],
)
def test_an_error_names_the_option_it_is_about(options, field):
    with pytest.raises(ConfigError) as caught:
        EstimateRequest(**options).checked()
    assert caught.value.field == field


def test_a_certainty_only_the_exact_model_makes_is_flagged():
    """The issue's case: a non-trump King, the dealer after bids 0,1,0. The exact model says
    bid 0 makes 100% (the bidder of 1 holds what beats a King); real players could bid 1 on less."""
    exact = run_estimate("KH", trump="5C", position=3, bids="0,1,0", samples=4000, seed=1)
    assert exact.stats[0].p_make == 1.0 and exact.model_certain == (0, 1)
    payload = exact.to_json()
    assert payload["bids"][0]["certain_under_exact_model_only"] is True
    assert payload["assumptions"]["exact_model"] is True
    assert "Certain only under the exact model: bid 0 (100%), bid 1 (0%)" in payload["assumptions"]["summary"]
    tolerant = run_estimate("KH", trump="5C", position=3, bids="0,1,0", samples=4000, seed=1, spread=1, floor=0.2)
    assert 0 < tolerant.stats[0].p_make < 1 and tolerant.model_certain == ()
    assert tolerant.to_json()["assumptions"]["opponent_model"] == "tolerant heuristic (spread 1, 20% random bids)"


def test_a_certainty_of_the_cards_themselves_is_not_flagged():
    """Leading a Wizard takes the trick whoever holds what: 100% under any model, though the
    dealer's trump choice was read."""
    result = run_estimate("W", trump="W", trump_suit="S", position=0, samples=2000, seed=2)
    assert result.observed_seats == 1 and result.stats[1].p_make == 1.0 and result.model_certain == ()


def test_the_terminal_says_what_it_assumes_and_stars_the_model_certainties():
    result = runner.invoke(app, ["estimate", "--hand", "KH", "--trump", "5C", "--position", "3", "--bids", "0,1,0",
                                 "--samples", "2000"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "100.0%*" in result.stdout and "Assumes: the other players bid exactly like the heuristic" in result.stdout
    uniform = runner.invoke(app, ["estimate", "--hand", "KH", "--trump", "5C", "--position", "3", "--bids", "0,1,0",
                                  "--samples", "2000", "--no-infer", "--json"])  # fmt: skip
    assumptions = json.loads(uniform.stdout)["assumptions"]
    assert assumptions["opponent_model"] == "uniform" and "dealt uniformly" in assumptions["summary"]


def test_round_scores_is_round_score_for_every_entry():
    tricks = np.arange(0, 16, dtype=np.int8).reshape(4, 4)
    for bid in range(16):
        expected = [[K.round_score(bid, int(t)) for t in row] for row in tricks]
        np.testing.assert_array_equal(round_scores(bid, tricks), expected)


def test_a_request_is_checked_once_the_certainty_check_included(monkeypatch):
    """run_estimate checks its request once and passes the checked request down (issue #36): the
    uniform run that tests the exact model's certainties reuses it."""
    calls = []
    real = EstimateRequest.checked
    monkeypatch.setattr(EstimateRequest, "checked", lambda self: (calls.append(self), real(self))[1])
    result = run_estimate("KH", trump="5C", position=3, bids="0,1,0", samples=2000, seed=1)
    assert result.model_certain and len(calls) == 1
