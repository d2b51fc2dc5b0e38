"""sim.env: the action space and observation layout, the state API (reproduces run_games with
mc's decisions; its rendering), what an observation may read, VectorEnv determinism and
rewards, and the PettingZoo / Gymnasium interfaces (their own API checkers). What every driver
must do alike (legal and illegal actions, clone, run_games' games replayed, observations) is
tests/test_driver_conformance.py."""
import os
import sys

import numba
import numpy as np
import pytest

import sim
import sim.env as env
from kernels import observation as kobs
from kernels import records as st
from sim.policies.registry import parse_policies
from sim.engine.seating import Seating
from sim.env.state_api import policy_action

# ------------------------------------------------------------------------------ layout


def test_action_space_constants():
    assert (env.ACTION_CARD0, env.ACTION_BID0, env.ACTION_SUIT0, env.N_ACTIONS) == (0, 60, 81, 85)
    assert env.action_name(0) == "play 2C" and env.action_name(60 + 3) == "bid 3"
    assert env.action_name(81 + 2) == "trump hearts" and env.action_name(52) == "play W"
    with pytest.raises(ValueError, match="outside"):
        env.action_name(85)


def test_observation_layout_is_generated_from_the_field_list():
    offset = 0
    for name, size, low, high, meaning in env.OBSERVATION_FIELDS:
        assert env.OBSERVATION_OFFSETS[name] == offset
        assert getattr(kobs, "OBS_" + name.upper()) == offset
        assert size > 0 and low < high and meaning
        offset += size
    assert offset == env.OBSERVATION_SIZE
    low, high = env.observation_bounds()
    assert low.shape == high.shape == (env.OBSERVATION_SIZE,)
    table = env.observation_layout_table()
    assert all(f"`{name}`" in table for name, *_ in env.OBSERVATION_FIELDS)
    docs = open(os.path.join(os.path.dirname(__file__), "..", "docs", "env.md"), encoding="utf-8").read()
    assert table in docs, "docs/env.md's layout table is stale: paste sim.env.observation_layout_table()"


# ------------------------------------------------------------------------------ state API


def play_state_like_engine(rules, spec, seed, game):
    """Play game `game` through the state API with the built-in policies' answers (asked as
    run_games asks them: sim.env.state_api.policy_action, on the round's DECISIONS stream);
    returns the finished state and the cards in play order as (seat, card)."""
    seating = Seating.of(parse_policies(spec, rules.players))
    state = env.WizardGame(rules).new_state(seed, game)
    plays = []
    while not state.is_terminal():
        action = policy_action(state, seating)
        if state.decision() == st.DECIDE_CARD:
            plays.append((state.current_player(), action))
        assert state.legal_action_mask()[action]
        state.apply_action(action)
    return state, plays


def test_state_api_reproduces_mc_games():
    """mc asked through the state API (as `play` and PolicyBot ask a built-in policy) draws
    what it draws in run_games: its own search on the round's DECISIONS stream. (Every driver's
    replay of run_games, with random and heuristic seats: tests/test_driver_conformance.py.)"""
    rules = sim.Rules(players=4, rounds=(1, 3, 6))
    spec = "mc:samples=2,play_samples=2,heuristic,random,mc:samples=3,play_samples=1"
    batch = sim.run_games(rules, spec, seed=5, games=2, log_plays=True)
    for g in range(2):
        state, plays = play_state_like_engine(rules, spec, 5, g)
        assert [r["bids"] for r in state.history] == batch.seats["bid"][g].tolist()
        assert plays == list(zip(batch.plays["seat"][g].tolist(), batch.plays["card"][g].tolist()))
        assert state.returns() == batch.games["total"][g].astype(float).tolist()


def some_states(rules, seed=3, game=0, every=7):
    """States of one random game, every `every` decisions."""
    rng = np.random.default_rng(seed)
    state = env.WizardGame(rules).new_state(seed, game)
    step = 0
    while not state.is_terminal():
        if step % every == 0:
            yield state
        state.apply_action(int(rng.choice(state.legal_actions())))
        step += 1


@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
def test_observation_never_reads_other_hands_or_hidden_bids(bidding):
    """Replacing the other seats' hands (and their own bid records, which hidden and delayed
    bidding keep off the table) leaves a seat's observation unchanged; changing its own hand
    changes it (the check is not vacuous)."""
    rules = sim.Rules(players=4, bidding=bidding, rounds=(1, 2, 5, 9))
    rng = np.random.default_rng(1)
    checked = 0
    for state in some_states(rules):
        _, seats, _ = state.records()
        for seat in range(4):
            before = state.observation(seat)
            probe = state.clone()
            _, probe_seats, _ = probe.records()
            for other in range(4):
                if other != seat:
                    probe_seats[other]["hand"] = int(rng.integers(0, 2**60))
                    probe_seats[other]["dealt"] = int(rng.integers(0, 2**60))
                    probe_seats[other]["bid"] = int(rng.integers(0, 10))
            assert np.array_equal(probe.observation(seat), before)
            if int(seats[seat]["hand"]):
                probe_seats[seat]["hand"] = int(seats[seat]["hand"]) ^ 1 << int(rng.integers(0, 60))
                assert not np.array_equal(probe.observation(seat), before)
            checked += 1
    assert checked > 20


def test_observation_agrees_with_the_state():
    rules = sim.Rules(players=5, rounds=(4, 8))
    for state in some_states(rules, every=5):
        table, seats, _ = state.records()
        n = 5
        for seat in range(n):
            view = state.observation_dict(seat)
            assert view["seat"] == seat and view["players"] == n
            assert view["hand"] == sim.format_hand(int(seats[seat]["hand"]))
            assert view["round_size"] == int(table["round_size"])
            assert view["dealer"] == (int(table["dealer"]) - seat) % n
            assert view["totals"] == [int(table["totals"][(seat + k) % n]) for k in range(n)]
            assert view["tricks"] == [int(table["tricks"][(seat + k) % n]) for k in range(n)]
            for k in range(n):
                assert view["played_by"][k] == sim.format_hand(int(table["played_by"][(seat + k) % n]))
            acting = state.current_player() == seat
            assert (view["decision"] is not None) == acting
            assert state.legal_action_mask().any()
            history = view["trick_history"]
            assert sum(len(t) for t in history) == bin(int(table["played"])).count("1")


def test_state_api_rendering_and_the_end_of_a_game():
    state = env.WizardGame(sim.Rules(players=3, rounds=(1,))).new_state(2, 0)
    text = str(state)
    assert "seat 0: hand [" in text and "to act" in text
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.legal_actions() == [] and "game over" in str(state)
    with pytest.raises(ValueError, match="game is over"):
        state.apply_action(0)


def test_explicit_chance_gives_the_deal_to_the_caller():
    """With explicit chance the first dealer and every card of the deal are chance events:
    their outcomes are what may come, and an outcome that cannot come is refused."""
    state = env.WizardGame(sim.Rules(players=3, rounds=(1, 20)), explicit_chance=True).new_state(2, 0)
    assert state.is_chance_node() and state.current_player() == env.CHANCE_PLAYER and state.decision() is None
    assert state.chance_outcomes() == [(seat, 1 / 3) for seat in range(3)] and state.legal_actions() == [0, 1, 2]
    with pytest.raises(ValueError, match="first dealer 3 is not a seat 0..2"):
        state.apply_action(3)
    state.apply_action(1)
    assert len(state.chance_outcomes()) == 60 and "chance to act" in str(state)
    state.apply_action(7)  # seat 0's card
    with pytest.raises(ValueError, match="card 7 is not in the deck"):
        state.apply_action(7)
    for card in (8, 9, 10):  # seat 1's and seat 2's cards, then the turned-up card
        state.apply_action(card)
    assert not state.is_chance_node() and state.decision() in (st.DECIDE_TRUMP, st.DECIDE_BID)
    undealt = env.WizardGame(sim.Rules(players=3), explicit_chance=True).new_state()
    with pytest.raises(ValueError, match="no policy acts"):
        policy_action(undealt, Seating.of(parse_policies("random", 3)))


# ------------------------------------------------------------------------------ VectorEnv


def chosen_action(observation, mask):
    """A deterministic legal action that depends on the observation (so trajectories of the
    same game compare exactly, whichever env plays it)."""
    legal = np.flatnonzero(mask)
    return legal[int(observation.sum() * 7 + observation[env.OBSERVATION_OFFSETS["hand"] :].argmax()) % legal.size]


def vector_trajectories(rules, num_envs, games, threads, seed=9, opponents="heuristic,random,random,heuristic"):
    """{game index: [(seat, observation digest, action, reward), ...]} of at least games
    0..games-1, each game's trajectory in order."""
    vector = env.VectorEnv(rules, num_envs, controlled_seats=(0, 2), opponents=opponents, seed=seed, threads=threads)
    observations, masks, info = vector.reset()
    current = {i: [] for i in range(num_envs)}
    finished = {}
    while not all(game in finished for game in range(games)):
        actions = np.array([chosen_action(observations[i], masks[i]) for i in range(num_envs)])
        games_before = info["game"].copy()  # the env's buffers: overwritten by the next step
        seats_before = info["seat"].copy()
        digests = [hash(observations[i].tobytes()) for i in range(num_envs)]
        observations, masks, rewards, terminated, truncated, info = vector.step(actions)
        assert not truncated.any()
        for i in range(num_envs):
            current[i].append((int(seats_before[i]), digests[i], int(actions[i]), float(rewards[i])))
            if terminated[i]:
                finished[int(games_before[i])] = (current[i], info["final_totals"][i].tolist())
                current[i] = []
                assert info["game"][i] == games_before[i] + num_envs
    return finished


def test_vector_env_games_do_not_depend_on_batch_size_or_threads():
    assert numba.config.NUMBA_NUM_THREADS >= 2
    rules = sim.Rules(players=4, rounds=(1, 2, 3, 6))
    one = vector_trajectories(rules, 1, 7, threads=1)
    seven = vector_trajectories(rules, 7, 7, threads=2)
    seven_one_thread = vector_trajectories(rules, 7, 7, threads=1)
    for game in range(7):
        assert one[game] == seven[game] == seven_one_thread[game]
    # 64 envs on 2 threads take the parallel kernels (fewer per thread run serially).
    parallel = vector_trajectories(rules, 64, 7, threads=2)
    assert env.vector.PARALLEL_MIN_ENVS_PER_THREAD * 2 <= 64
    for game in range(7):
        assert parallel[game] == one[game]


@pytest.mark.parametrize("reward", ["round", "game", "win"])
def test_vector_env_rewards(reward):
    rules = sim.Rules(players=3, rounds=(1, 2, 4))
    vector = env.VectorEnv(rules, 5, controlled_seats=1, opponents="heuristic", seed=4, reward=reward)
    observations, masks, info = vector.reset()
    returns = np.zeros(5)
    done = 0
    while done < 10:
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        observations, masks, rewards, terminated, _, info = vector.step(actions)
        assert (info["seat"] == 1).all()
        returns += rewards
        for i in np.flatnonzero(terminated):
            totals = info["final_totals"][i]
            expected = {"round": totals[1], "game": totals[1], "win": float(totals[1] == totals.max())}[reward]
            assert returns[i] == expected
            returns[i] = 0
            done += 1


def test_vector_env_controlled_seat_sees_its_own_observation():
    rules = sim.Rules(players=4)
    vector = env.VectorEnv(rules, 3, controlled_seats=(1, 3), seed=1)
    observations, masks, info = vector.reset()
    for _ in range(30):
        for i in range(3):
            view = env.decode_observation(observations[i])
            assert view["seat"] == info["seat"][i] and view["decision"] is not None
            assert masks[i].any()
        observations, masks, *_, info = vector.step(np.array([np.flatnonzero(m)[0] for m in masks]))


def test_vector_env_errors():
    vector = env.VectorEnv(sim.Rules(players=4), 2, seed=1)
    with pytest.raises(RuntimeError, match="reset"):
        vector.step(np.zeros(2, dtype=np.int64))
    _, masks, _ = vector.reset()
    illegal = int(np.flatnonzero(~masks[1])[0])
    actions = np.array([np.flatnonzero(masks[0])[0], illegal])
    with pytest.raises(ValueError, match=f"illegal action {illegal} .* in env 1"):
        vector.step(actions)
    with pytest.raises(sim.ConfigError, match="controlled_seats"):
        env.VectorEnv(sim.Rules(players=4), 2, controlled_seats=(4,))
    with pytest.raises(sim.ConfigError, match="reward"):
        env.VectorEnv(sim.Rules(players=4), 2, reward="points")


# ------------------------------------------------------------------------------ interfaces


def test_pettingzoo_api_and_seed():
    from pettingzoo.test import api_test, seed_test

    api_test(env.aec_env(players=3, rounds=(1, 2, 3)), num_cycles=200)
    seed_test(lambda: env.aec_env(players=4, rounds=(1, 2)), num_cycles=100)


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    check_env(env.gym_env(players=4, rounds=(1, 2, 3), opponents="heuristic"), skip_render_check=True)


@pytest.mark.processes
def test_sim_imports_without_rl_packages():
    """`import sim` and `import sim.env` must not import pettingzoo or gymnasium."""
    import subprocess

    code = "import sys, sim, sim.env; assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------ inputs checked first (issue 61)

NOT_ACTIONS = [60.0, "60", 60.5, True, np.bool_(True), np.uint64(2**64 - 1), 2**70, -1, 85, None, [60]]


def test_gymnasium_replaces_an_illegal_action_but_refuses_a_non_action():
    """illegal_action="replace" (the default): an action of the space that is not legal is
    replaced by the lowest legal one; what is not an action is refused in either mode, as by
    every driver (tests/test_driver_conformance.py checks "raise")."""
    from sim.config.actions import ActionError

    gym = env.gym_env(players=3, rounds=(1, 2))
    observation, _ = gym.reset(seed=2)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, _, _, _, info = gym.step(illegal)
    assert info["illegal_action"]
    for action in NOT_ACTIONS:
        with pytest.raises(ActionError):
            gym.step(action)


@pytest.mark.parametrize("index", [2**70, -1, 10**13, 1.0, True])
def test_a_game_index_out_of_range_is_the_projects_error(index):
    with pytest.raises(sim.ConfigError, match="game_index must be"):
        env.WizardGame(sim.Rules(players=3)).new_state(0, index)


def test_vector_env_checks_actions_against_its_own_masks():
    """A caller writing into the masks handed out made any action legal (and no game ended)."""
    vector = env.VectorEnv(sim.Rules(players=4), 8, seed=1)
    _, masks, _ = vector.reset()
    bidding = np.flatnonzero(masks[:, env.ACTION_BID0])
    assert bidding.size
    masks[:, :60] = True
    actions = np.array([env.ACTION_BID0 if m[env.ACTION_BID0] else np.flatnonzero(m)[0] for m in masks])
    actions[bidding[0]] = 0  # a card, at a bid
    with pytest.raises(ValueError, match=f"illegal action 0 .* in env {bidding[0]}"):
        vector.step(actions)


@pytest.mark.parametrize("seat", [True, 1.0, "1", 4])
def test_gymnasium_seat_is_a_whole_number(seat):
    with pytest.raises(sim.ConfigError, match="seat must be 0..3"):
        env.gym_env(players=4, seat=seat)


@pytest.mark.parametrize("seed", [2**70, -1, "5", 1.5])
def test_every_environment_checks_its_seed(seed):
    """Gymnasium's reset(seed=2**70) raised OverflowError writing it into the state."""
    with pytest.raises(sim.ConfigError, match="seed must be"):
        env.gym_env(players=4).reset(seed=seed)
    with pytest.raises(sim.ConfigError, match="seed must be"):
        env.aec_env(players=4).reset(seed=seed)
    with pytest.raises(sim.ConfigError, match="seed must be"):
        env.VectorEnv(sim.Rules(players=4), 1).reset(seed=seed)


@pytest.mark.parametrize("game", [2**70, -1, 1.0, True])
def test_draw_first_dealer_checks_its_game_index(game):
    with pytest.raises(sim.ConfigError, match="^game must be"):
        sim.draw_first_dealer(1, game, 4)
