"""The Python API around the kernels: run_round, GameBatch shapes, ConfigError messages."""
import numpy as np
import pytest

import sim


def test_run_round_is_that_round_of_the_full_game():
    full = sim.run_games(sim.Rules(players=5), "random", seed=11, games=50)
    single = sim.run_round(5, 7, "heuristic", seed=11, games=50)
    k = full.rules.round_sizes.index(7)
    # The cards and the dealer are the same; the decisions differ (other policy).
    np.testing.assert_array_equal(single.seats["hand"][:, 0], full.seats["hand"][:, k])
    np.testing.assert_array_equal(single.rounds[["dealer", "trump_card"]][:, 0], full.rounds[["dealer", "trump_card"]][:, k])


def test_batch_shapes():
    batch = sim.run_games(sim.Rules(players=3, rounds=(1, 2, 20)), "heuristic", seed=1, games=7, log_plays=True)
    assert batch.rounds.shape == (7, 3)
    assert batch.seats.shape == (7, 3, 3)
    assert batch.games.shape == (7, 3)
    assert batch.plays.shape == (7, 3 * (1 + 2 + 20))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: sim.run_games(sim.Rules(), "random", seed=-1, games=1), "seed must be"),
        (lambda: sim.run_games(sim.Rules(), "random", seed=1, games=0), "games must be in 1..1,000,000,000,000"),
        (lambda: sim.run_games(sim.Rules(), "random", seed=1, games=1, threads=99), "threads must be"),
        (lambda: sim.run_round(4, 16, "random", seed=1, games=1), "round size 16 is outside 1..15"),
    ],
)
def test_config_errors(call, message):
    with pytest.raises(sim.ConfigError, match=message):
        call()
