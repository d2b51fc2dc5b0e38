"""`wizard-sim estimate` and sim.estimation: exact 1-card probabilities, common random numbers,
thread-count determinism, legal bids, the JSON shape and one-line errors (exit code 2)."""
import itertools
import json
import math

import numba
import numpy as np
import pytest
from typer.testing import CliRunner

import reference
from helpers import JESTERS, WIZARDS, cards_of, mask
from kernels.estimate import situation as E
from kernels import rules as K
from kernels import records as st
from kernels.cards import NO_CARD
from sim.estimation.calibration import CALIBRATION_CLASSES, in_class, self_play_round_one
from sim.estimation.request import make_situation
from sim.estimation.run import estimate, run_estimate
from sim.cli import app
from sim.config.errors import ConfigError

runner = CliRunner()


# --- exactness: 1-card hands, every other card enumerated -------------------------------


def unseen_cards(situation) -> list[int]:
    """The cards neither in the hand nor turned up."""
    return [c for c in range(60) if c not in situation.hand and c != situation.trump_card]


def exact_win_probability(situation) -> float:
    """P(the seat takes the trick) over every ordered deal of one unseen card to each other
    seat; play order is seat 0 (left of the dealer) .. seat N-1 (the dealer)."""
    players = situation.rules.players
    unseen = unseen_cards(situation)
    (card,) = situation.hand
    wins = total = 0
    for others in itertools.permutations(unseen, players - 1):
        trick = list(others[: situation.position]) + [card] + list(others[situation.position :])
        wins += reference.trick_winner(trick, situation.trump) == situation.position
        total += 1
    return wins / total


ONE_CARD_CASES = [
    dict(hand="KH", trump="3S", players=4, position=1, bids="0"),
    dict(hand="10H", trump="5H", players=3, position=0),
    dict(hand="AC", no_trump=True, players=4, position=3, bids="1,0,0"),
    dict(hand="7D", trump="W", trump_suit="D", players=3, position=2, bids="0,1"),
    dict(hand="W", trump="QS", players=4, position=3, bids="1,1,1"),
    dict(hand="J", trump="QS", players=3, position=0),
]


@pytest.mark.statistics
@pytest.mark.parametrize("case", ONE_CARD_CASES, ids=lambda c: f"{c['hand']}-{c['players']}p-{c['position']}")
def test_one_card_estimate_agrees_with_enumeration(case):
    options = dict(case, opponents="random", policy="random")
    hand = options.pop("hand")
    exact = exact_win_probability(make_situation(hand, **options))
    frame = estimate(hand, samples=20_000, seed=5, **options).set_index("bid")
    exact_scores = {0: 20 * (1 - exact) - 10 * exact, 1: 30 * exact - 10 * (1 - exact)}
    for bid, p_make in ((0, 1 - exact), (1, exact)):
        row = frame.loc[bid]
        assert row.p_make_lo <= p_make <= row.p_make_hi, (bid, p_make, row.p_make)
        assert row.expected_score_lo <= exact_scores[bid] <= row.expected_score_hi, (bid, exact_scores[bid])


def known_memory(situation):
    """The estimate kernel's memory of one thread, with the round as the seat knows it."""
    return E.new_known_memory(situation.rules.to_record()[0], situation.to_record()[0])


def test_pool_leaves_out_the_hand_and_the_turned_up_card():
    jester_out = make_situation("AC J", no_trump=True, players=4)
    assert jester_out.trump_card == JESTERS[1]  # the hand's Jester is the first id
    wizard_out = make_situation("W W", trump_suit="S", players=4)
    assert (wizard_out.trump_card, wizard_out.trump) == (WIZARDS[2], 3)
    last_round = make_situation(list(range(15)), players=4)
    assert last_round.trump_card == NO_CARD
    for situation in (jester_out, wizard_out, last_round):
        memory = known_memory(situation)
        pool = K.unseen_cards(mask(situation.hand), memory[0]["known_table"])
        assert cards_of(pool) == unseen_cards(situation)


def test_uniform_deal_deals_the_unseen_cards_disjointly():
    situation = make_situation("W AS KH 7H J", trump="3H", players=4, position=2, bids="1,0")
    record = situation.to_record()
    memory = known_memory(situation)
    assert memory[0]["known_table"]["n_bids"] == 2 and list(memory[0]["known_table"]["bids"][:2]) == [1, 0]
    scratch = np.zeros(1, dtype=st.SCRATCH_DTYPE)
    unseen = mask(unseen_cards(situation))
    for sample in range(50):
        assert E.deal_uniformly(3, sample, record[0], memory[0], scratch[0]) == 1.0
        hands = memory[0]["hands"]
        assert hands[2] == record["hand"][0]
        others = [int(hands[seat]) for seat in (0, 1, 3)]
        assert [bin(h).count("1") for h in others] == [5, 5, 5]
        assert others[0] | others[1] | others[2] == (others[0] ^ others[1] ^ others[2])
        assert all(h & ~unseen == 0 for h in others)


# --- common random numbers and determinism -----------------------------------------------


def test_candidates_share_the_deals_and_decisions():
    """Random play, bids no one reacts to: every candidate bid sees the very same round."""
    result = run_estimate("W AS KH 7H J QD 2C", trump="3H", position=1, bids="2", opponents="random",
                          policy="random", samples=2000, seed=9)
    assert result.tricks.shape == (2000, 8)
    assert (result.tricks == result.tricks[:, :1]).all()
    assert len(set(result.tricks[:, 0].tolist())) > 2


def test_results_do_not_depend_on_threads_or_sample_count():
    assert numba.config.NUMBA_NUM_THREADS >= 2, "the machine runs only one numba thread"
    options = dict(trump="KD", players=5, position=2, bids="1,3", opponents="heuristic,random,heuristic,random",
                   seed=4)
    one = run_estimate("W 10S 9S AH 4D QC J", samples=700, threads=1, **options)
    two = run_estimate("W 10S 9S AH 4D QC J", samples=700, threads=2, **options)
    fewer = run_estimate("W 10S 9S AH 4D QC J", samples=300, threads=2, **options)
    np.testing.assert_array_equal(one.tricks, two.tricks)
    np.testing.assert_array_equal(one.weights, two.weights)
    np.testing.assert_array_equal(one.tricks[:300], fewer.tricks)
    np.testing.assert_array_equal(one.weights[:300], fewer.weights)
    assert one.to_json() == two.to_json()


def test_seed_changes_the_samples():
    a = run_estimate("AS KS", trump="2H", samples=500, seed=1)
    b = run_estimate("AS KS", trump="2H", samples=500, seed=2)
    assert not np.array_equal(a.tricks, b.tricks)


# --- legal bids --------------------------------------------------------------------------


def test_dealer_even_bids_restriction_is_shown_and_never_recommended():
    frame = estimate("W AS KH 7H J", trump="3H", position=3, bids="1,0,1", even_bids="forbidden", samples=500, seed=1)
    assert frame.legal.tolist() == [True, True, True, False, True, True]
    illegal = frame.set_index("bid").loc[3]
    assert np.isnan(illegal.p_make) and np.isnan(illegal.expected_score)
    assert frame.recommended.sum() == 1 and frame.loc[frame.recommended, "legal"].all()
    best = frame[frame.legal].expected_score.max()
    assert frame.loc[frame.recommended, "expected_score"].iloc[0] == best


@pytest.mark.parametrize(
    "options, legal",
    [
        (dict(position=2, bids="1,1", even_bids="forbidden"), [True] * 4),  # not the dealer
        (dict(position=3, bids="2,1,1", even_bids="forbidden"), [True] * 4),  # bids already exceed 3
        (dict(position=3, bids="0,1,1", even_bids="leader"), [True] * 4),  # all totals 0: no sole leader
        (dict(position=3, bids="0,1,1", even_bids="leader", totals="0,10,0,20"), [True, False, True, True]),
        (dict(position=3, bids="0,1,1", even_bids="leader", totals="0,30,0,20"), [True] * 4),
    ],
)
def test_legal_bids_follow_the_even_bids_variant(options, legal):
    situation = make_situation("AS KS QS", trump="2H", **options)
    assert situation.legal_bids().tolist() == legal


def test_later_opponents_see_the_candidate_bid_under_open_bidding():
    """Heuristic opponents after the seat bid less when it bids more (crowding), so their
    play and the seat's tricks differ across candidates on some samples."""
    result = run_estimate("W W AS", trump="2H", position=0, opponents="heuristic", policy="random",
                          samples=2000, seed=3)
    assert not (result.tricks == result.tricks[:, :1]).all()


# --- API, JSON and CLI ---------------------------------------------------------------------


def test_frame_columns_and_attrs():
    frame = estimate("W AS KH", trump="3H", players=3, samples=300, seed=2)
    assert frame.bid.tolist() == [0, 1, 2, 3]
    expected = ["bid", "legal", "recommended", "p_make", "p_make_lo", "p_make_hi", "expected_score",
                "expected_score_lo", "expected_score_hi", "effective_samples", "acceptance", "tricks_0", "tricks_1",
                "tricks_2", "tricks_3"]
    assert frame.columns.tolist() == expected
    np.testing.assert_allclose(frame[["tricks_0", "tricks_1", "tricks_2", "tricks_3"]].sum(axis=1), 1.0)
    assert (frame.p_make_lo <= frame.p_make).all() and (frame.p_make <= frame.p_make_hi).all()
    assert frame.attrs["samples"] == 300 and frame.attrs["hand"] == "W AS KH"


def test_cli_json_is_one_object_of_the_documented_shape():
    result = runner.invoke(app, ["estimate", "--hand", "W AS KH 7H J", "--trump", "3H", "--players", "4",
                                 "--position", "3", "--bids", "1,0,1", "--even-bids", "forbidden",
                                 "--samples", "400", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert {"bids", "tricks_distribution", "recommended_bid", "samples"} <= payload.keys()
    assert payload["samples"] == 400 and len(payload["bids"]) == 6
    for entry in payload["bids"]:
        assert {"bid", "p_make", "p_make_ci", "expected_score", "expected_score_ci"} <= entry.keys()
    assert payload["bids"][3]["legal"] is False and payload["bids"][3]["p_make"] is None
    recommended = payload["bids"][payload["recommended_bid"]]
    assert recommended["legal"] and payload["tricks_distribution"] == recommended["tricks_distribution"]
    assert abs(sum(payload["tricks_distribution"]) - 1) < 1e-9
    assert recommended["expected_score"] == max(e["expected_score"] for e in payload["bids"] if e["legal"])


def test_cli_table():
    result = runner.invoke(app, ["estimate", "--hand", "AS KS", "--trump", "2H", "--samples", "200"])
    assert result.exit_code == 0, result.output
    assert "recommended" in result.stdout and "Tricks taken when bidding" in result.stdout


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--hand", "AS AS", "--trump", "3H"], "card 'AS' appears twice"),
        (["--hand", "AS KH", "--trump", "AS"], "the trump card AS is also in the hand"),
        (["--hand", " ".join(f"{r}{s}" for s in "CD" for r in "23456789") + " W", "--trump", "3H"],
         "a hand of 17 cards is impossible with 4 players"),
        (["--hand", "AS XX", "--trump", "3H"], "unknown card 'XX'"),
        (["--hand", "AS", "--trump", "ZZ"], "unknown card 'ZZ'"),
        (["--hand", "AS", "--trump", "3H", "--position", "4"], "bidding position 4 is outside 0..3"),
        (["--hand", "AS", "--trump", "3H", "--position", "2", "--bids", "1"], "got 1 bid"),
        (["--hand", "AS", "--trump", "3H", "--bids", "1"], "bidding position 0 bids first"),
        (["--hand", "AS", "--trump", "3H", "--position", "1", "--bids", "2"],
         "earlier bid 2 (position 0) is outside 0..1"),
        (["--hand", "AS", "--trump", "3H", "--position", "1", "--bids", "x"], "bids must be whole numbers"),
        (["--hand", "AS"], "say what was turned up"),
        (["--hand", "AS", "--trump", "W"], "give the suit the dealer chose with --trump-suit"),
        (["--hand", "AS", "--trump", "3H", "--trump-suit", "S"], "--trump-suit is only for a turned-up Wizard"),
        (["--hand", "AS", "--trump", "J", "--trump-suit", "S"], "a turned-up Jester means no trump"),
        (["--hand", "AS", "--no-trump", "--trump", "3H"], "conflicts with --trump"),
        (["--hand", "AS", "--trump-suit", "X"], "unknown trump suit 'X'"),
        (["--hand", "W W W W", "--trump", "W", "--trump-suit", "S"], "the hand holds all four Wizards"),
        (["--hand", "J J J J", "--no-trump"], "the hand holds all four Jesters"),
        (["--hand", "W W W W W", "--trump", "3H"], "more than four Wizards"),
        (["--hand", "2C 3C 4C 5C 6C 7C 8C 9C 2D 3D 4D 5D 6D 7D 8D", "--trump", "3H", "--players", "4"],
         "15 cards x 4 players is the last round"),
        (["--hand", "AS", "--trump", "3H", "--players", "7"], "players must be 3..6"),
        (["--hand", "AS", "--trump", "3H", "--samples", "1"], "samples must be a whole number in 2.."),
        (["--hand", "AS", "--trump", "3H", "--seed", "-1"], "seed must be"),
        (["--hand", "AS", "--trump", "3H", "--opponents", "random,random"], "got 2 opponent policies for 3 opponents"),
        (["--hand", "AS", "--trump", "3H", "--policy", "nobody"], "unknown policy 'nobody'"),
        (["--hand", "AS", "--trump", "3H", "--bidding", "hidden", "--position", "1", "--bids", "0"],
         "with hidden bidding no earlier bid is seen"),
        (["--hand", "AS", "--trump", "3H", "--bidding", "hidden", "--even-bids", "forbidden"], "needs a last bidder"),
        (["--hand", "AS", "--trump", "3H", "--totals", "1,2"], "totals: give one per bidding position (4), got 2"),
    ],
)
@pytest.mark.slow
def test_bad_input_is_one_line_and_exit_2(arguments, message):
    result = runner.invoke(app, ["estimate", *arguments])
    assert result.exit_code == 2, (arguments, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], (arguments, result.stderr)
    assert lines[0].startswith("wizard-sim: error: ")


def test_api_raises_config_error():
    with pytest.raises(ConfigError, match="appears twice"):
        estimate([12, 12], trump="3H")
    with pytest.raises(ConfigError, match="hand mask 0"):
        estimate(0, trump="3H")


# --- inference: the earlier bids and the dealer's trump choice ---------------------------


@pytest.mark.statistics
def test_estimate_is_calibrated_against_self_play_after_informative_bids():
    """Round 1, heuristic everywhere: a Wizard or a non-trump King held by the second bidder
    (a 5 of another suit turned up; suits are symmetric, so every such game counts), after
    a first bid of 0 or 1, and a non-trump King bidding first: the self-play frequency of
    taking the trick equals estimate's P(make 1) within statistical error. Without
    inference the Wizard after a bid of 1 is far off (sim.estimation.calibration holds these
    classes; `python -m benchmarks.bench_estimate --calibration` runs the large version)."""
    play = self_play_round_one(400_000, seed=11)
    cases = [situation for situation in CALIBRATION_CLASSES
             if (situation.hand, situation.bids) in {("W", (1,)), ("W", (0,)), ("KS", (0,)), ("KS", (1,)), ("KS", ())}]
    assert len(cases) == 5
    for situation in cases:
        selected = in_class(play, situation)
        games = int(selected.sum())
        observed = float(play.won[selected, situation.position].mean())
        result = run_estimate(situation.hand, trump="5H", players=4, position=situation.position, bids=situation.bids,
                              samples=20_000, seed=3)  # fmt: skip
        predicted = result.stats[1].p_make
        sigma = math.sqrt(observed * (1 - observed) / games + predicted * (1 - predicted) / result.effective_samples)
        assert games > 250 and abs(observed - predicted) <= 4 * sigma + 1e-9, (situation.label, games, observed, predicted)
    wizard = next(situation for situation in cases if situation.hand == "W" and situation.bids == (1,))
    uniform = run_estimate("W", trump="5H", players=4, position=1, bids="1", samples=20_000, seed=3, infer=False)
    wizard_after_one = float(play.won[in_class(play, wizard), 1].mean())
    assert uniform.stats[1].p_make - wizard_after_one > 0.15


def test_hidden_and_delayed_bidding_infer_nothing_from_bids():
    for bidding in ("hidden", "delayed"):
        result = run_estimate("AS KH 7H", trump="3H", players=4, position=2, bidding=bidding, samples=3000, seed=1)
        assert result.observed_seats == 0 and (result.weights == 1.0).all()
        assert result.effective_samples == 3000 and result.acceptance == 1.0
        uniform = run_estimate("AS KH 7H", trump="3H", players=4, position=2, bidding=bidding, samples=3000, seed=1,
                               infer=False)
        for ours, theirs in zip(result.stats, uniform.stats):
            sigma = math.sqrt(max(ours.p_make * (1 - ours.p_make), 1e-4) * 2 / 3000)
            assert abs(ours.p_make - theirs.p_make) < 5 * sigma


def test_dealer_trump_choice_is_evidence_even_without_visible_bids():
    """A Wizard turned up and the dealer chose spades: the heuristic dealer holds spades."""
    result = run_estimate("AH KH", trump="W", trump_suit="S", players=4, position=0, bidding="hidden", samples=500,
                          seed=2)
    assert result.observed_seats == 1


def test_impossible_bids_are_an_error_for_the_exact_model_and_fine_for_the_tolerant_one():
    options = dict(trump="2H", players=4, position=1, bids="2", opponents="heuristic:aggression=0", samples=100, seed=1)
    with pytest.raises(ConfigError, match="tolerant model"):
        run_estimate("AS KS", **options)
    tolerant = run_estimate("AS KS", spread=1.0, **options)
    assert tolerant.effective_samples > 10 and tolerant.observed_seats == 1


def test_weighted_figures_reduce_to_the_plain_ones_with_equal_weights():
    result = run_estimate("W AS KH 7H", trump="3H", position=1, bids="1", samples=2000, seed=4, infer=False)
    tricks = result.tricks[:, list(result.candidates).index(2)].astype(np.int64)
    stats = result.stats[2]
    assert stats.p_make == pytest.approx(float(np.mean(tricks == 2)))
    scores = np.where(tricks == 2, 20 + 10 * tricks, -10 * np.abs(tricks - 2))
    half = 1.959963984540054 * scores.std(ddof=1) / math.sqrt(len(scores))
    assert stats.expected_score_ci[1] - stats.expected_score == pytest.approx(half)


def test_cli_reports_effective_samples_and_warns_when_few():
    arguments = ["estimate", "--hand", "W AS KH 7H J", "--trump", "3H", "--position", "2", "--bids", "1,0"]
    result = runner.invoke(app, [*arguments, "--samples", "300", "--json"])
    payload = json.loads(result.stdout)
    assert payload["infer"] is True and payload["observed_seats"] == 2
    assert 0 < payload["effective_samples"] <= 300 and 0 < payload["acceptance"] <= 1
    assert payload["few_effective_samples"] is True
    table = runner.invoke(app, [*arguments, "--samples", "300"])
    assert "effective samples" in table.stdout and "warning" in table.stdout
    uniform = runner.invoke(app, [*arguments, "--samples", "300", "--no-infer", "--json"])
    assert json.loads(uniform.stdout)["infer"] is False
