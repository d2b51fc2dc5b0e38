"""Statistical tests of the deal, the turned-up card, the first-dealer draw and the random
policy, with tolerances in sigmas or chi-square p-values (fixed seeds: the tests are
deterministic; the thresholds say how unlucky a correct engine would have to be to fail).

scipy is not a dependency: the chi-square survival function is computed exactly for integer
degrees of freedom (chi2_sf below), and checked against textbook quantiles.
"""
import math

import numpy as np
import pytest

import sim

SIGMAS = 4.0
P_THRESHOLD = 1e-4


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X ~ chi-square(dof), integer dof >= 1 (closed forms of the regularised
    upper incomplete gamma function at integer and half-integer order, summed term by term)."""
    if x <= 0:
        return 1.0
    half = x / 2.0
    if dof % 2 == 0:
        term = math.exp(-half)
        total = term
        for i in range(1, dof // 2):
            term *= half / i
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(half))
    term = math.exp(-half) * math.sqrt(half) / math.gamma(1.5)  # i = 1: half^(1/2) / Gamma(3/2)
    for i in range(1, (dof - 1) // 2 + 1):
        total += term
        term *= half / (i + 0.5)
    return min(1.0, total)


def wilson_hilferty_sf(x: float, dof: float) -> float:
    """Normal approximation of the chi-square tail (used only to cross-check chi2_sf)."""
    z = ((x / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


@pytest.mark.parametrize(
    "x, dof, p",
    [(3.841459, 1, 0.05), (5.991465, 2, 0.05), (11.0705, 5, 0.05), (124.3421, 100, 0.05), (135.8067, 100, 0.01),
     (0.0, 7, 1.0), (2.0, 2, math.exp(-1.0)), (16.2662, 3, 0.001)],
)
def test_chi2_sf_matches_known_quantiles(x, dof, p):
    assert chi2_sf(x, dof) == pytest.approx(p, rel=2e-4, abs=1e-12)


@pytest.mark.parametrize("dof", [59, 177, 295])
def test_chi2_sf_agrees_with_wilson_hilferty(dof):
    for quantile in (0.8, 1.0, 1.3):
        x = quantile * dof
        assert chi2_sf(x, dof) == pytest.approx(wilson_hilferty_sf(x, dof), abs=2e-3)


def within_sigmas(count: int, trials: int, p: float) -> tuple[bool, float]:
    sigma = math.sqrt(trials * p * (1 - p))
    z = (count - trials * p) / sigma
    return abs(z) < SIGMAS, z


def hand_counts(hands: np.ndarray, n_players: int) -> np.ndarray:
    """counts[s, c]: how often seat s was dealt card c over the rounds (hands: [games, seats])."""
    counts = np.zeros((n_players, 60), dtype=np.int64)
    for c in range(60):
        counts[:, c] = ((hands >> c) & 1).sum(axis=0)
    return counts


@pytest.fixture(scope="module")
def one_card_rounds():
    """200k one-card rounds of a 4-player random table."""
    return sim.run_games(sim.Rules(players=4, rounds=(1,)), "random", seed=2718, games=200_000)


def test_turned_up_wizards_and_jesters(one_card_rounds):
    turned = one_card_rounds.rounds["trump_card"][:, 0].astype(np.int64)
    trials = turned.shape[0]
    for name, low in (("Wizard", 52), ("Jester", 56)):
        ok, z = within_sigmas(int(((turned >= low) & (turned < low + 4)).sum()), trials, 4 / 60)
        assert ok, f"turned-up {name} frequency is {z:+.1f} sigma from 4/60"
    counts = np.bincount(turned, minlength=60)
    expected = trials / 60
    p = chi2_sf(float(((counts - expected) ** 2 / expected).sum()), 59)
    assert p > P_THRESHOLD, f"turned-up card not uniform over the 60 cards: p = {p:.2e}"


def test_trump_follows_the_turned_up_card_frequencies(one_card_rounds):
    """Each suit is trump with probability 13/60 + (4/60)/4 (random dealer on a Wizard); no
    trump with probability 4/60."""
    trump = one_card_rounds.rounds["trump"][:, 0].astype(np.int64)
    trials = trump.shape[0]
    for suit in range(4):
        ok, z = within_sigmas(int((trump == suit).sum()), trials, 13 / 60 + 1 / 60)
        assert ok, f"suit {suit} is trump {z:+.1f} sigma off"
    ok, z = within_sigmas(int((trump == -1).sum()), trials, 4 / 60)
    assert ok, f"no trump {z:+.1f} sigma off"


@pytest.mark.parametrize(
    "players, round_size, games",
    [(4, 1, 200_000), (3, 7, 30_000), (6, 3, 40_000), (5, 12, 20_000), (3, 20, 15_000)],
)
def test_each_card_equally_likely_in_each_seat(players, round_size, games, one_card_rounds):
    """Chi-square over the N x 60 (seat, card) counts of many deals of one round size.

    The deal is without replacement, so X = sum (O - E)^2 / E is not chi-square(N*60 - 1):
    it splits exactly into B = sum_c (T_c - N E)^2 / (N E) over the card totals T_c, with
    B * 59 / (60 - N r) ~ chi-square(59) (nothing when all 60 cards are dealt), and
    A = X - B (the spread of each card over the seats), with A * 59 / 60 ~ chi-square(59 (N-1)).
    Both must have p > 1e-4."""
    if (players, round_size) == (4, 1):
        batch = one_card_rounds
    else:
        rules = sim.Rules(players=players, rounds=(round_size,))
        batch = sim.run_games(rules, "random", seed=round_size, games=games)
    hands = batch.seats["hand"][:, 0, :].astype(np.int64)
    counts = hand_counts(hands, players)
    assert (counts.sum(axis=1) == games * round_size).all()
    expected = games * round_size / 60
    x = float(((counts - expected) ** 2 / expected).sum())
    totals = counts.sum(axis=0)
    b = float(((totals - players * expected) ** 2 / (players * expected)).sum())
    a = x - b
    p_spread = chi2_sf(a * 59 / 60, 59 * (players - 1))
    assert p_spread > P_THRESHOLD, f"cards not spread evenly over the seats: p = {p_spread:.2e}"
    if players * round_size == 60:
        assert (totals == games).all()  # every card dealt in the last round
    else:
        p_cards = chi2_sf(b * 59 / (60 - players * round_size), 59)
        assert p_cards > P_THRESHOLD, f"some cards dealt more often than others: p = {p_cards:.2e}"


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_first_dealer_draw_uniform_over_seats(players, one_card_rounds):
    """Round 1's dealer is the first dealer; the draw is symmetric, so every seat deals first
    with probability 1/N (chi-square with N-1 degrees of freedom)."""
    if players == 4:
        batch = one_card_rounds
    else:
        batch = sim.run_games(sim.Rules(players=players, rounds=(1,)), "random", seed=players, games=100_000)
    dealers = batch.rounds["dealer"][:, 0].astype(np.int64)
    counts = np.bincount(dealers, minlength=players)
    assert counts.shape == (players,)
    expected = dealers.shape[0] / players
    p = chi2_sf(float(((counts - expected) ** 2 / expected).sum()), players - 1)
    assert p > P_THRESHOLD, f"first dealer not uniform: counts {counts}, p = {p:.2e}"


def test_random_policy_bids_uniform_over_legal_bids():
    """The random policy picks each legal bid with equal probability (docs/randomness.md)."""
    batch = sim.run_games(sim.Rules(players=4, rounds=(3,), first_dealer=3), "random", seed=99, games=80_000)
    bids = batch.seats["bid"][:, 0, 0].astype(np.int64)  # seat 0 bids first (dealer is seat 3)
    counts = np.bincount(bids, minlength=4)
    assert counts.shape == (4,)
    p = chi2_sf(float(((counts - 20_000) ** 2 / 20_000).sum()), 3)
    assert p > P_THRESHOLD, f"random bids not uniform: {counts}, p = {p:.2e}"


def test_random_dealer_chooses_each_suit_on_a_turned_up_wizard(one_card_rounds):
    turned = one_card_rounds.rounds["trump_card"][:, 0]
    trump = one_card_rounds.rounds["trump"][:, 0].astype(np.int64)[(turned >= 52) & (turned < 56)]
    assert ((trump >= 0) & (trump < 4)).all()
    counts = np.bincount(trump, minlength=4)
    expected = trump.shape[0] / 4
    p = chi2_sf(float(((counts - expected) ** 2 / expected).sum()), 3)
    assert p > P_THRESHOLD, f"trump choice on a Wizard not uniform: {counts}, p = {p:.2e}"


def test_one_card_rounds_won_by_a_wizard_holder(one_card_rounds):
    """In a 4-player one-card round the trick goes to a Wizard holder exactly when a Wizard is
    dealt, which happens with probability 1 - C(56,4)/C(60,4)."""
    hands = one_card_rounds.seats["hand"][:, 0, :].astype(np.int64)
    tricks = one_card_rounds.seats["tricks"][:, 0, :]
    holds_wizard = ((hands >> 52) & 0xF) != 0
    winner_holds = holds_wizard[np.arange(hands.shape[0]), tricks.argmax(axis=1)]
    assert (winner_holds == holds_wizard.any(axis=1)).all()
    p = 1 - math.comb(56, 4) / math.comb(60, 4)
    ok, z = within_sigmas(int(winner_holds.sum()), hands.shape[0], p)
    assert ok, f"Wizard dealt in a 4-player one-card round {z:+.1f} sigma off"
