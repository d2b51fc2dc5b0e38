"""The native entry points driven with hostile arguments (issue 61): the state API, VectorEnv,
OpenSpiel's resampler and the estimate kernels' Python entry, given out-of-range integers,
wrong types and dtypes and extreme values. Each answer is a valid result or one of the
project's errors (a ValueError: ConfigError, ActionError) of one bounded line: never another
exception, never a crash of the process (this process: a crash fails the whole run)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sim
import sim.env as env
from sim.config.errors import MAX_ECHO

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
EXTREMES = [0, 1, 2, 3, 59, 60, 84, 85, -1, -7, 2**31, 2**63 - 1, 2**63, 2**64 - 1, 2**70, -(2**63) - 1]
NUMPY = [np.uint64(2**64 - 1), np.int8(-1), np.uint8(200), np.int64(2**63 - 1), np.float32(1.5), np.float64("nan"),
         np.bool_(True), np.array(3), np.array([1, 2])]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(EXTREMES + NUMPY),
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.booleans(),
    st.none(),
    st.lists(st.integers(-3, 100), max_size=3),
)
ARRAYS = st.one_of(
    st.sampled_from([np.int64, np.int8, np.uint64, np.uint8, np.float64, np.bool_, object]).flatmap(
        lambda dtype: st.lists(st.sampled_from(EXTREMES[:12]), min_size=0, max_size=4).map(
            lambda values: np.array(values, dtype=object).astype(dtype) if dtype is object
            else np.array(np.array(values, dtype=object) % 256 if dtype in (np.int8, np.uint8) else values).astype(dtype)
        )
    ),
    VALUES,
)


def clean(call) -> object:
    """The call's result, or None when it raised one of the project's errors (checked)."""
    try:
        return call()
    except ValueError as error:  # ConfigError and ActionError are ValueErrors
        message = str(error)
        assert message and "\n" not in message and len(message) < 3 * MAX_ECHO + 300, message
        assert "Traceback" not in message
        return None


@settings(SETTINGS, max_examples=15)  # a new game per example: the slowest of these
@given(seed=VALUES, game_index=VALUES, actions=st.lists(VALUES, max_size=4), seat=VALUES)
def test_the_state_api(seed, game_index, actions, seat):
    game = env.WizardGame(sim.Rules(players=3, rounds=(1, 2)))
    state = clean(lambda: game.new_state(seed, game_index))
    if state is None:
        state = game.new_state(1, 0)
    for action in actions:
        clean(lambda: state.apply_action(action))
        clean(lambda: state.apply_action(state.legal_actions()[0]) if not state.is_terminal() else None)
    clean(lambda: state.observation(seat))


@SETTINGS
@given(num_envs=st.sampled_from([1, 2, 0, -1, 2**70, 1.0, True, "2", None]), first_game=VALUES, seats=VALUES,
       actions=ARRAYS)  # fmt: skip
def test_vector_env(num_envs, first_game, seats, actions):
    vector = clean(lambda: env.VectorEnv(sim.Rules(players=3, rounds=(1,)), num_envs, first_game=first_game,
                                         controlled_seats=seats))  # fmt: skip
    if vector is None:
        vector = env.VectorEnv(sim.Rules(players=3, rounds=(1,)), 2)
    _, masks, _ = vector.reset()
    clean(lambda: vector.step(actions))
    legal = np.array([np.flatnonzero(mask)[0] for mask in masks])
    vector.step(legal)  # still steps after whatever was refused


@SETTINGS
@given(player=VALUES, generator=ARRAYS, sampled=VALUES)
def test_openspiel_resample(player, generator, sampled):
    pyspiel = pytest.importorskip("pyspiel")
    import sim.openspiel  # noqa: F401  (registers python_wizard)

    state = pyspiel.load_game("python_wizard(players=3,rounds=3)").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for sample in (clean(lambda: state.resample(player, generator)),
                   clean(lambda: state.resample_from_infostate(player, lambda: sampled))):  # fmt: skip
        if sample is not None:
            hands = sample.record["workspace"]["seats"]["hand"][:3]
            assert [bin(int(hand)).count("1") for hand in hands] == [3, 3, 3]


@SETTINGS
@given(hand=st.one_of(st.sampled_from(["W AS KH", "AS", "W W W W W"]), VALUES), trump=st.one_of(st.just("3H"), VALUES),
       position=VALUES, bids=st.one_of(st.just(()), VALUES), totals=st.one_of(st.just(()), VALUES),
       samples=st.sampled_from([2, 20, 1, 0, -1, 2**70, 20.0, True, "20"]), seed=VALUES, threads=VALUES)  # fmt: skip
def test_the_estimate_kernels_python_entry(hand, trump, position, bids, totals, samples, seed, threads):
    result = clean(lambda: sim.estimate(hand=hand, trump=trump, position=position, bids=bids, totals=totals,
                                        samples=samples, seed=seed, threads=threads))  # fmt: skip
    if result is not None:
        assert len(result) >= 2
