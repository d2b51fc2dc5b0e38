"""python_wizard (sim/openspiel): OpenSpiel's own checks, resampling and the openspiel:ismcts
policy. What it does as every driver does (run_games' games replayed, illegal actions, clone,
observations): tests/test_driver_conformance.py."""
import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import sim.openspiel  # noqa: E402,F401  (registers python_wizard)
from sim.config.errors import ConfigError  # noqa: E402
from sim.policies.registry import parse_policy  # noqa: E402
from sim.config.rules import Rules  # noqa: E402
from sim.env import CHANCE_PLAYER, TERMINAL_PLAYER  # noqa: E402
from sim.runs.games import run_games  # noqa: E402


def test_load_game_and_parameters():
    # the state API's player ids, which python_wizard's states return, are OpenSpiel's
    assert (CHANCE_PLAYER, TERMINAL_PLAYER) == (pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL)
    game = pyspiel.load_game("python_wizard(players=4)")
    assert game.num_players() == 4 and game.num_distinct_actions() == 85
    assert game.rules.round_sizes == tuple(range(1, 16))
    one = pyspiel.load_game("python_wizard(players=4,rounds=1)")
    assert one.rules.round_sizes == (1,)
    listed = pyspiel.load_game("python_wizard", {"players": 3, "round_list": "1-3,7"})
    assert listed.rules.round_sizes == (1, 2, 3, 7)
    assert str(listed) == "python_wizard(bidding=open,even_bids=allowed,first_dealer=-1,players=3,round_list=1;2;3;7,rounds=0)"
    assert pyspiel.load_game(str(listed)).rules == listed.rules  # the game string reads back
    fixed = pyspiel.load_game("python_wizard(players=5,rounds=2,first_dealer=3)")
    assert fixed.new_initial_state().is_chance_node()  # the deal; no first-dealer draw
    assert fixed.rules.first_dealer == 3
    with pytest.raises(Exception, match="round size 16"):
        pyspiel.load_game("python_wizard(players=4,rounds=16)")


@pytest.mark.parametrize(
    "parameters",
    [
        {"players": 3, "rounds": 3},
        {"players": 4, "round_list": "1-2", "bidding": "hidden"},
        {"players": 6, "rounds": 2, "bidding": "delayed"},
        {"players": 4, "rounds": 3, "even_bids": "forbidden", "first_dealer": 1},
        {"players": 5, "round_list": "1;3", "even_bids": "leader"},
    ],
)
def test_openspiel_random_sim_test(parameters):
    """OpenSpiel's own consistency checks, with serialization (Python games pickle their state)."""
    game = pyspiel.load_game("python_wizard", parameters)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _random_play(game, rng, visit):
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        visit(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.slow
@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
def test_resampling_keeps_the_information_state(bidding):
    game = pyspiel.load_game("python_wizard", {"players": 4, "round_list": "2;3", "bidding": bidding})
    rng = np.random.default_rng(7)
    generator = np.array([12345], dtype=np.uint64)
    checked = []

    def visit(state):
        for player in range(4):
            before = state.information_state_string(player)
            tensor = state.information_state_tensor(player)
            hands = [int(h) for h in state.record["workspace"]["seats"]["hand"][:4]]
            changed = False
            for _ in range(3):
                sample = state.resample(player, generator)
                assert sample.information_state_string(player) == before
                assert sample.information_state_tensor(player) == tensor
                assert sample.legal_actions() == state.legal_actions() or sample.current_player() != player
                new_hands = [int(h) for h in sample.record["workspace"]["seats"]["hand"][:4]]
                assert new_hands[player] == hands[player]
                assert sum(bin(h).count("1") for h in new_hands) == sum(bin(h).count("1") for h in hands)
                changed |= new_hands != hands
            checked.append(changed)

    for _ in range(3):
        _random_play(game, rng, visit)
    assert len(checked) > 50 and any(checked)


@pytest.mark.parametrize("bidding", ["open", "delayed"])
def test_the_bot_rebuilds_the_round_its_observation_describes(bidding):
    """openspiel:ismcts's root state (sim.openspiel.bots.round_from_observation) shows the
    deciding seat exactly the observation it was given, with the same legal actions."""
    from sim.openspiel.bots import round_from_observation

    game = pyspiel.load_game("python_wizard", {"players": 4, "round_list": "1;3;5", "bidding": bidding})
    rng = np.random.default_rng(5)
    generator = np.array([99], dtype=np.uint64)
    count = [0]

    def visit(state):
        player = state.current_player()
        observation = np.array(state.observation_tensor(player), dtype=np.float32)
        rebuilt = round_from_observation(observation, generator)
        assert rebuilt.current_player() == player
        assert np.array_equal(np.array(rebuilt.observation_tensor(player), dtype=np.float32), observation)
        assert rebuilt.legal_actions() == state.legal_actions()
        count[0] += 1

    _random_play(game, rng, visit)
    assert count[0] > 30


def test_openspiel_policy_spec():
    policy = parse_policy("openspiel:ismcts:simulations=20,uct_c=5")
    assert policy.label == "openspiel:ismcts:simulations=20,uct_c=5"
    assert parse_policy(policy.label) == policy
    with pytest.raises(ConfigError, match="known: ismcts"):
        parse_policy("openspiel:nosuch")
    # Fewer than one simulation or rollout is refused (one line, exit 2), not clamped to one.
    for bad in ("simulations=0", "rollouts=0", "simulations=2.5"):
        with pytest.raises(ConfigError, match="^policy parameter (simulations|rollouts) must be"):
            parse_policy(f"openspiel:ismcts:{bad}")


def test_without_the_extra_an_openspiel_policy_is_one_line(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspiel" else real(name, *a))
    with pytest.raises(ConfigError, match=r"^openspiel: policies need OpenSpiel: pip install 'wizard-sim\[openspiel\]'$"):
        parse_policy("openspiel:ismcts")


@pytest.mark.slow
def test_ismcts_plays_reproducibly():
    rules = Rules(4, (1, 2))
    policies = "openspiel:ismcts:simulations=10,heuristic,heuristic,heuristic"
    first = run_games(rules, policies, seed=3, games=2, threads=1)
    second = run_games(rules, policies, seed=3, games=2, threads=1)
    assert np.array_equal(first.seats, second.seats) and np.array_equal(first.games, second.games)


# ------------------------------------------------------------------ inputs checked first (issue 61)


def dealt_state():
    state = pyspiel.load_game("python_wizard(players=3,rounds=5)").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("player", [7, 3, -1, -7, 2**70, 1.0, True, "1"])
def test_resampling_for_a_player_outside_the_table_is_refused(player):
    """A seat outside 0..players-1 went unchecked into the kernel: a segfault at 7, an empty
    hand of seat 0 at 3, -1 and -7."""
    state = dealt_state()
    with pytest.raises(ValueError, match="^player must be a seat 0..2, got"):
        state.resample(player, np.array([7], dtype=np.uint64))


@pytest.mark.parametrize(
    "generator", [np.array([7], dtype=np.int64), np.array([7, 8], dtype=np.uint64), [7], np.array([[7]], dtype=np.uint64)]
)
def test_resampling_needs_a_one_element_uint64_generator(generator):
    with pytest.raises(ValueError, match="^generator must be a one-element uint64 array"):
        dealt_state().resample(0, generator)


@pytest.mark.parametrize("sampled", [1.0, -0.5, float("nan"), "0.5", None])
def test_resample_from_infostate_checks_the_sampler(sampled):
    state = dealt_state()
    with pytest.raises(ValueError, match=r"^probability_sampler must return a number in \[0, 1\)"):
        state.resample_from_infostate(0, lambda: sampled)
    with pytest.raises(ValueError, match="^player must be a seat"):
        state.resample_from_infostate(5, lambda: 0.5)


def test_a_valid_resample_keeps_every_hand():
    state = dealt_state()
    sample = state.resample(1, np.array([7], dtype=np.uint64))
    sizes = [bin(int(hand)).count("1") for hand in sample.record["workspace"]["seats"]["hand"][:3]]
    assert sizes == [5, 5, 5]
