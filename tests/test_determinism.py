"""Reproducibility (docs/randomness.md): a game is a pure function of (seed, game id), whatever
the thread count, the batch split, the policies at the table (for the cards) or the round
sizes played."""
import numba
import numpy as np
import pytest

import sim
from helpers import mixed_policy

RESULT_ARRAYS = ("rounds", "seats", "games", "plays")
MIXED4 = "heuristic,random,heuristic,random"


def assert_same_games(a, b, rows_a=slice(None), rows_b=slice(None)):
    """Every result array of batch a (rows rows_a) equals batch b (rows rows_b)."""
    for name in RESULT_ARRAYS:
        left, right = getattr(a, name)[rows_a], getattr(b, name)[rows_b]
        assert left.shape == right.shape, name
        assert np.array_equal(left, right), f"{name} differ"


def concat(*batches):
    return {name: np.concatenate([getattr(b, name) for b in batches]) for name in RESULT_ARRAYS}


@pytest.fixture(scope="module")
def thousand_games():
    """Games 0..999 of a mixed 4-player table in one call (default threads)."""
    return sim.run_games(sim.Rules(players=4), MIXED4, seed=2024, games=1000, log_plays=True)


def test_threads_1_and_2_give_identical_results(thousand_games):
    assert numba.config.NUMBA_NUM_THREADS >= 2, "the machine runs only one numba thread"
    rules = sim.Rules(players=4)
    one = sim.run_games(rules, MIXED4, seed=2024, games=1000, log_plays=True, threads=1)
    two = sim.run_games(rules, MIXED4, seed=2024, games=1000, log_plays=True, threads=2)
    assert_same_games(one, two)
    assert_same_games(one, thousand_games)


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_threads_do_not_change_other_configurations(policy):
    rules = sim.Rules(players=5, bidding="delayed", first_dealer=3)
    one = sim.run_games(rules, policy, seed=7, games=333, threads=1)
    two = sim.run_games(rules, policy, seed=7, games=333, threads=2)
    assert_same_games(one, two)


def test_batch_split_gives_the_same_games(thousand_games):
    rules = sim.Rules(players=4)
    first = sim.run_games(rules, MIXED4, seed=2024, first_game=0, games=300, log_plays=True)
    second = sim.run_games(rules, MIXED4, seed=2024, first_game=300, games=700, log_plays=True)
    joined = concat(first, second)
    for name in RESULT_ARRAYS:
        assert np.array_equal(joined[name], getattr(thousand_games, name)), name
    assert np.array_equal(np.concatenate([first.game_ids, second.game_ids]), thousand_games.game_ids)


def test_game_ids_in_any_order_give_the_same_games(thousand_games):
    rules = sim.Rules(players=4)
    order = np.random.default_rng(0).permutation(1000)
    shuffled = sim.run_games(rules, MIXED4, seed=2024, game_ids=order, log_plays=True)
    assert np.array_equal(shuffled.game_ids, order)
    assert_same_games(shuffled, thousand_games, rows_b=order)
    some = np.array([999, 5, 5, 17, 640])
    picked = sim.run_games(rules, MIXED4, seed=2024, game_ids=some, log_plays=True)
    assert_same_games(picked, thousand_games, rows_b=some)


def test_one_game_alone_equals_the_same_game_in_a_batch(thousand_games):
    rules = sim.Rules(players=4)
    for game in (0, 63, 64, 65, 999):  # around a block of games boundary as well
        alone = sim.run_games(rules, MIXED4, seed=2024, first_game=game, games=1, log_plays=True)
        assert_same_games(alone, thousand_games, rows_b=slice(game, game + 1))


def test_same_seed_same_game_repeatedly():
    rules = sim.Rules(players=6, even_bids="leader")
    a = sim.run_games(rules, "random", seed=123, games=50, log_plays=True)
    b = sim.run_games(rules, "random", seed=123, games=50, log_plays=True)
    assert_same_games(a, b)
    other_seed = sim.run_games(rules, "random", seed=124, games=50, log_plays=True)
    assert not np.array_equal(a.seats["hand"], other_seed.seats["hand"])
    # Different games of one run differ.
    assert not np.array_equal(a.seats["hand"][0], a.seats["hand"][1])


def test_logging_plays_does_not_change_the_games():
    rules = sim.Rules(players=3)
    logged = sim.run_games(rules, "heuristic,random,random", seed=9, games=100, log_plays=True)
    plain = sim.run_games(rules, "heuristic,random,random", seed=9, games=100)
    for name in ("rounds", "seats", "games"):
        assert np.array_equal(getattr(logged, name), getattr(plain, name)), name


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_cards_do_not_depend_on_the_policies(players):
    """Same hands, turned-up cards and dealers with random, heuristic and mixed tables; the
    trump differs at most where a Wizard was turned up (the dealer chooses)."""
    rules = sim.Rules(players=players)
    batches = [
        sim.run_games(rules, policy, seed=55, games=200)
        for policy in ("random", "heuristic", mixed_policy(players), "heuristic:aggression=1.5")
    ]
    base = batches[0]
    for other in batches[1:]:
        assert np.array_equal(base.seats["hand"], other.seats["hand"])
        assert np.array_equal(base.rounds["trump_card"], other.rounds["trump_card"])
        assert np.array_equal(base.rounds["dealer"], other.rounds["dealer"])
        turned = base.rounds["trump_card"]
        not_wizard = (turned < 52) | (turned >= 56)
        assert np.array_equal(base.rounds["trump"][not_wizard], other.rounds["trump"][not_wizard])
    # ... while the play did change (the check above is not vacuous).
    assert not np.array_equal(base.seats["bid"], batches[1].seats["bid"])


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_round_dealt_the_same_when_played_alone(players):
    """Round r of a full game and the one-round game rounds=(r,) have the same deal, dealer and,
    since each round has its own DECISIONS stream and these policies ignore the score pad,
    the same trump, bids, plays, tricks and scores."""
    full_rules = sim.Rules(players=players)
    for policy in ("random", mixed_policy(players)):
        full = sim.run_games(full_rules, policy, seed=808, games=40, log_plays=True)
        offset = 0
        for k, r in enumerate(full_rules.round_sizes):
            alone = sim.run_games(sim.Rules(players=players, rounds=(r,)), policy, seed=808, games=40, log_plays=True)
            assert np.array_equal(alone.rounds[:, 0], full.rounds[:, k]), f"round {r}"
            for field in ("hand", "bid", "tricks", "score"):
                assert np.array_equal(alone.seats[field][:, 0], full.seats[field][:, k]), f"round {r} {field}"
            n_plays = players * r
            assert np.array_equal(alone.plays, full.plays[:, offset : offset + n_plays]), f"round {r} plays"
            offset += n_plays


def test_subset_of_rounds_keeps_each_rounds_deal():
    rules = sim.Rules(players=4, rounds=(3, 9, 15))
    subset = sim.run_games(rules, "heuristic", seed=1, games=64)
    full = sim.run_games(sim.Rules(players=4), "heuristic", seed=1, games=64)
    for k, r in enumerate(rules.round_sizes):
        assert np.array_equal(subset.rounds[:, k], full.rounds[:, r - 1])
        assert np.array_equal(subset.seats["hand"][:, k], full.seats["hand"][:, r - 1])
