"""`estimate` with Python policies (sim.estimation.bot_rollouts, kernels/estimate/stepped.py): a bot
that delegates everything is the heuristic, sample for sample where the deals are drawn alike
and within sampling error where its bids are inferred by rejection; a bot's own bidding rule
is what inference conditions on (exact posteriors by enumeration, 1-card rounds); the same
estimate whatever the threads and the batching; one-line errors, exit 1 from the command line."""
import importlib
import itertools
import json
import math
from pathlib import Path

import numba
import numpy as np
import pytest
from typer.testing import CliRunner

import reference
from sim.estimation import bot_rollouts as estimate_bots
from sim.estimation.request import make_situation
from sim.estimation.run import estimate, run_estimate
from sim.cli import app
from sim.config.errors import BotError

runner = CliRunner()
HAND = "W AS KH 7H J"


@pytest.fixture(autouse=True)
def bots(monkeypatch):
    """tests/bots/python_bidders.py, importable as `python_bidders` (module:Object)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "bots"))
    return importlib.import_module("python_bidders")


def assert_same(a, b):
    np.testing.assert_array_equal(a.tricks, b.tricks)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.proposals, b.proposals)
    assert a.observed_seats == b.observed_seats


# --- a delegating bot is the heuristic ---------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        dict(position=2, bids="1,0", policy="python_bidders:Delegator"),  # own play, heuristic bidders inferred
        dict(position=0, opponents="python_bidders:Delegator", policy="python_bidders:OneDelegator"),
        dict(position=1, bids="2", opponents="heuristic,python_bidders:Delegator,random"),  # later bidders
        dict(position=2, bids="1,0", opponents="python_bidders:Delegator", infer=False),
        dict(position=2, opponents="python_bidders:Delegator", bidding="hidden"),  # every bid by policy
        dict(trump="W", trump_suit="S", position=1, bids="1", opponents="heuristic,heuristic,python_bidders:Player",
             policy="python_bidders:Delegator"),  # a bot dealer not asked for trump: modelled by its fallback
    ],
    ids=["own-play", "first-bidder", "later-bidders", "no-infer", "hidden", "dealer"],
)
@pytest.mark.slow
def test_a_delegating_bot_is_the_heuristic_sample_for_sample(options):
    """Where the bot's answers are not inferred on (or it is not asked what was shown), its
    deals, weights and every rollout are the built-in ones, draw for draw."""
    options = dict(dict(trump="3H", samples=400, seed=3), **options)
    bots = run_estimate(HAND, **options)
    builtin = {
        key: value.replace("python_bidders:OneDelegator", "heuristic").replace("python_bidders:Delegator", "heuristic")
        if isinstance(value, str) else value
        for key, value in options.items()
    }
    assert_same(bots, run_estimate(HAND, **builtin))


def difference_z(a, b, bid):
    """z of the difference of two independent estimates of P(make) and E(score) of `bid`."""
    sa, sb = a.stats[bid], b.stats[bid]
    z = []
    for value, interval in (("p_make", "p_make_ci"), ("expected_score", "expected_score_ci")):
        se = [max((getattr(s, interval)[1] - getattr(s, interval)[0]) / (2 * 1.96), 1e-9) for s in (sa, sb)]
        z.append(abs(getattr(sa, value) - getattr(sb, value)) / math.hypot(*se))
    return max(z)


@pytest.mark.statistics
@pytest.mark.parametrize("spread", [0.0, 0.7])
def test_a_delegating_bidder_inferred_by_rejection_agrees_with_the_heuristic_model(spread):
    """Earlier bidders whose bids a delegating bot answers: the deals come from rejection on
    the bot's (the heuristic's) answers instead of the kernel's sampler, so the sample streams
    differ; the figures agree within sampling error. One bot and one heuristic bidder: the
    sampler's weights and the rejection compose."""
    options = dict(trump="3H", position=2, bids="1,0", samples=4000, seed=11, spread=spread)
    bots = run_estimate(HAND, opponents="python_bidders:Delegator,heuristic,heuristic", **options)
    builtin = run_estimate(HAND, **options)
    assert bots.observed_seats == builtin.observed_seats == 2 and bots.bot_observed_seats == 1
    assert 0 < bots.acceptance < 1 and bots.effective_samples > 0.8 * 4000
    assert not np.array_equal(bots.tricks, builtin.tricks)
    for bid in bots.candidates:
        assert difference_z(bots, builtin, int(bid)) < 4.5, bid


# --- a bot's own bidding rule is what inference conditions on -----------------------------


def wizard_bid(card: int, legal: list[int]) -> int:
    """python_bidders.WizardBidder's bid with one card."""
    wizards = int(card >= 52 and card < 56)
    return min(legal, key=lambda bid: (abs(bid - wizards), bid))


def wizard_trump(card: int) -> int:
    """python_bidders.WizardBidder's trump choice with one card."""
    return card // 13 if card < 52 else 0


def bid_likelihood(shown: int, answer: int, legal: list[int], spread: float) -> float:
    """P(bid shown | the bot answers `answer`): 0/1 exactly, or docs/inference.md's tolerant
    model written out independently here."""
    if spread == 0:
        return float(shown == answer)
    g = [math.exp(-((b - answer) ** 2) / (2 * spread * spread)) for b in legal]
    return math.exp(-((shown - answer) ** 2) / (2 * spread * spread)) / sum(g)


def exact_win(situation, bot_seats, spread):
    """P(the seat takes the one trick | what it saw): every deal of one unseen card to each
    other seat, weighted by the bots' likelihood of the bids shown (bot_seats: the earlier
    bidders played by WizardBidder) and, after a turned-up Wizard, of the bot dealer's trump."""
    players = situation.rules.players
    unseen = [c for c in range(60) if c not in situation.hand and c != situation.trump_card]
    others = [seat for seat in range(players) if seat != situation.position]
    dealer = players - 1
    wizard_turned = 52 <= situation.trump_card < 56
    wins = total = 0.0
    for cards in itertools.permutations(unseen, players - 1):
        card_of = dict(zip(others, cards))
        weight = 1.0
        for seat in (seat for seat in bot_seats if seat < situation.position):
            bid = situation.earlier_bids[seat]
            weight *= bid_likelihood(bid, wizard_bid(card_of[seat], [0, 1]), [0, 1], spread)
        if wizard_turned and dealer in bot_seats and dealer != situation.position:
            shown = wizard_trump(card_of[dealer]) == situation.trump
            weight *= (1.0 if shown else 0.0) if spread == 0 else (0.9 if shown else 0.1 / 3)
        if weight:
            trick = [card_of.get(seat, situation.hand[0]) for seat in range(players)]
            wins += weight * (reference.trick_winner(trick, situation.trump) == situation.position)
            total += weight
    return wins / total


EXACT_CASES = [
    # a first bidder's 0 says it holds no Wizard, its 1 that it holds one
    (dict(hand="KH", trump="5H", players=3, position=1, bids="0"), [0], 0.0),
    (dict(hand="KH", trump="5H", players=3, position=1, bids="0"), [0], 0.7),
    (dict(hand="KH", trump="5H", players=3, position=1, bids="1"), [0], 0.0),
    (dict(hand="AS", trump="5H", players=4, position=2, bids="1,0"), [0, 1], 0.0),  # two bot bidders
    (dict(hand="KH", trump="5H", players=4, position=2, bids="0,1"), [0, 1], 0.5),
    # the bot dealer named spades: it holds a spade, which beats the 2
    (dict(hand="2S", trump="W", trump_suit="S", players=3, position=0), [2], 0.0),
    (dict(hand="5S", trump="W", trump_suit="S", players=3, position=1, bids="1"), [0, 2], 0.7),
]


@pytest.mark.parametrize("case, bot_seats, spread", EXACT_CASES,
                         ids=lambda v: v if not isinstance(v, dict) else f"{v['hand']}-{v['players']}p-{v['position']}")
@pytest.mark.statistics
def test_inference_conditions_on_the_bots_own_rule(case, bot_seats, spread):
    options = dict(case, opponents="python_bidders:WizardBidder")
    hand = options.pop("hand")
    situation = make_situation(hand, **options)
    exact = exact_win(situation, bot_seats, spread)
    uniform = exact_win(situation, [], spread)
    result = run_estimate(hand, samples=20_000, seed=7, spread=spread, **options)
    assert result.observed_seats == result.bot_observed_seats == len(bot_seats)
    p_win = result.stats[1].p_make
    effective = result.effective_samples
    sigma = math.sqrt(max(exact * (1 - exact), 1 / effective) / effective)
    assert abs(p_win - exact) < 5 * sigma, (p_win, exact, sigma)
    if exact == 0.0:
        assert p_win == 0.0
    # The bot's rule moves the answer away from the uniform deal's, as enumeration says.
    assert abs(exact - uniform) > 10 * sigma, (exact, uniform)


def test_a_bot_asked_for_bids_only_is_modelled_by_its_bids():
    """DECISIONS = ("bid",): the bot's bids are inferred on; its cards are its fallback's."""
    options = dict(trump="5H", players=3, position=1, bids="0", samples=4000, seed=2)
    full = run_estimate("KH", opponents="python_bidders:WizardBidder", **options)
    bids_only = run_estimate("KH", opponents="python_bidders:WizardBidderCards", **options)
    assert full.observed_seats == bids_only.observed_seats == 1
    np.testing.assert_array_equal(full.weights, bids_only.weights)  # one card: the same deals and play


# --- reproducibility ---------------------------------------------------------------------


@pytest.mark.slow
def test_same_estimate_whatever_threads_and_batches(monkeypatch):
    assert numba.config.NUMBA_NUM_THREADS >= 2, "the machine runs only one numba thread"
    options = dict(trump="3H", position=2, bids="1,0", spread=0.7, seed=5,
                   opponents="python_bidders:WizardBidder,heuristic,python_bidders:WizardBidder",
                   policy="python_bidders:WizardBidder")  # fmt: skip
    one = run_estimate(HAND, samples=300, threads=1, **options)
    monkeypatch.setattr(estimate_bots, "ROLLOUTS_PER_BATCH", 40)
    monkeypatch.setattr(estimate_bots, "PROPOSALS_PER_PASS", 37)
    two = run_estimate(HAND, samples=300, threads=2, **options)
    fewer = run_estimate(HAND, samples=120, threads=2, **options)
    assert_same(one, two)
    np.testing.assert_array_equal(one.tricks[:120], fewer.tricks)
    np.testing.assert_array_equal(one.weights[:120], fewer.weights)
    assert one.to_json() == two.to_json()
    assert 0 < one.acceptance < 1 and one.observed_seats == 2


def test_bots_see_rollout_games_and_hear_when_they_end(bots):
    recorder = bots.Recorder()
    result = run_estimate("AS KS", trump="2H", players=3, position=1, bids="1", opponents=[recorder, "heuristic"],
                          samples=50, seed=1, infer=False)  # fmt: skip
    contexts = recorder.contexts
    games = np.concatenate([c.games for c in contexts])
    assert set(np.concatenate([c.seats for c in contexts]).tolist()) == {0}
    # Seat 0 bid 1 (fixed) and plays 2 cards in each of 50 samples x 3 candidate bids.
    assert sorted(games.tolist()) == sorted(list(range(150)) * 2)
    assert set(np.concatenate([c.kinds for c in contexts]).tolist()) == {2}
    over = np.concatenate([games for games, _, _ in recorder.over])
    assert sorted(over.tolist()) == list(range(150))
    # As in run_games: one row per game and seat, with that game's score pad (3 players).
    assert all(totals.shape == (games.shape[0], 3) for games, _, totals in recorder.over)
    assert result.samples == 50
    # With inference the bot is also asked for its first bid on proposed deals: games of one decision.
    recorder = bots.Recorder()
    run_estimate("AS KS", trump="2H", players=3, position=1, bids="1", opponents=[recorder, "heuristic"],
                 samples=50, seed=1)  # fmt: skip
    questions = [c for c in recorder.contexts if (c.games < 0).all()]
    asked = np.concatenate([c.games for c in questions])
    assert len(set(asked.tolist())) == asked.size and set(np.concatenate([c.kinds for c in questions]).tolist()) == {1}
    over = np.concatenate([games for games, _, _ in recorder.over])
    assert set(asked.tolist()) <= set(over.tolist())


def test_policy_objects_in_the_python_api(bots):
    frame = estimate("AS KS", trump="2H", players=3, opponents=[bots.WizardBidder(), "heuristic"],
                     policy=bots.Delegator, samples=200, seed=1)  # fmt: skip
    assert frame.attrs["policy"] == "python_bidders:Delegator"
    assert frame.attrs["opponents"] == ["python_bidders:WizardBidder", "heuristic"]


def test_cli_with_a_python_opponent_model():
    arguments = ["estimate", "--hand", "KH", "--trump", "5H", "--players", "3", "--position", "1", "--bids", "0",
                 "--opponents", "python_bidders:WizardBidder,heuristic", "--samples", "500"]  # fmt: skip
    payload = json.loads(runner.invoke(app, [*arguments, "--json"]).stdout)
    assert payload["opponents"] == ["python_bidders:WizardBidder", "heuristic"]
    assert payload["observed_seats"] == payload["bot_observed_seats"] == 1
    table = runner.invoke(app, arguments)
    assert table.exit_code == 0 and "1 of them through a Python policy's own answers" in table.stdout


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opponents, message",
    [
        ("python_bidders:Crasher", "policy python_bidders:Crasher raised RuntimeError: out of cheese (python_bidders.py"),
        ("python_bidders:Cheater", "policy python_bidders:Cheater chose 88 (not an action) (seat 0, bid decision, game -1"),
    ],
)
def test_a_failing_bot_is_one_line_and_exit_1(opponents, message):
    arguments = ["estimate", "--hand", "AS KS", "--trump", "2H", "--players", "3", "--samples", "50",
                 "--opponents", opponents, "--bids", "1", "--position", "1"]  # fmt: skip
    result = runner.invoke(app, arguments)
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    with pytest.raises(BotError, match="policy python_bidders"):
        run_estimate("AS KS", trump="2H", players=3, opponents=opponents, samples=50, position=1, bids="1")


@pytest.mark.slow
def test_a_failing_built_in_seat_among_bots_is_one_line_and_exit_1(monkeypatch):
    """A numba bot next to a Python policy answers illegally inside the rollout kernels: the
    failure is reported from whichever thread met it, naming the policy, seat and decision."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "bots"))
    arguments = ["estimate", "--hand", "AS KS", "--trump", "2H", "--players", "3", "--samples", "300",
                 "--opponents", "broken_bots:IllegalPlayer,python_bidders:Delegator", "--threads", "2"]  # fmt: skip
    result = runner.invoke(app, arguments)
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert "a policy failed: broken_bots:IllegalPlayer (seat 1, card decision) in sample " in result.stderr


def test_help_shows_the_python_policy_form():
    result = runner.invoke(app, ["estimate", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert result.stdout.count("module:Object") >= 2
