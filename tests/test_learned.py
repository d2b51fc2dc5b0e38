"""The learned policy (issue 59): a model directory is data, checked before any game; the policy
is legal, deterministic (any thread count, batch or driver) and seated everywhere; `wizard-sim
train` refuses bad options with one line, writes a model that loads, and resumes."""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import invoke, one_line

import sim
from kernels.policies import learned
from sim.config.errors import ConfigError
from sim.policies.learned_models import CARD_FILE, MODEL_FORMAT, WEIGHTS_FILE, load_model
from sim.policies.registry import parse_policy

HIDDEN = 8  # a tiny model: every test's engine compiles the same weights (one cached engine)


def tiny_weights(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {name: (rng.standard_normal(shape) * 0.3).astype(np.float32)
            for name, shape in learned.weight_shapes(HIDDEN, HIDDEN).items()}  # fmt: skip


def write_model(directory, weights=None, card=None, **card_changes):
    directory.mkdir(parents=True, exist_ok=True)
    card = card if card is not None else {
        "format": MODEL_FORMAT, "feature_version": learned.FEATURE_VERSION,
        "architecture": {"bid_hidden": HIDDEN, "play_hidden": HIDDEN},
    }  # fmt: skip
    card.update(card_changes)
    (directory / CARD_FILE).write_text(json.dumps(card))
    np.savez(directory / WEIGHTS_FILE, **(tiny_weights() if weights is None else weights))
    return directory


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return write_model(tmp_path_factory.mktemp("model") / "tiny")


def test_a_model_loads_with_its_digest(model_dir):
    model = load_model(model_dir)
    assert model.bid_hidden == HIDDEN and len(model.weights) == len(learned.WEIGHT_NAMES)
    assert all(array.dtype == np.float32 and not array.flags.writeable for array in model.weights)
    assert model.digest == load_model(model_dir).digest
    policy = parse_policy(f"learned:model={model_dir}")
    assert policy.label == f"learned:model={model_dir.resolve()}"
    assert policy.parameter_record() == {"model_sha256": model.digest}


def _weights_with(name, value):
    weights = tiny_weights()
    weights[name] = value
    return weights


BAD_MODELS = {
    "no card": (lambda d: (write_model(d), (d / CARD_FILE).unlink()), "has no model.json"),
    "no weights": (lambda d: (write_model(d), (d / WEIGHTS_FILE).unlink()), "has no weights.npz"),
    "bad json": (lambda d: (write_model(d), (d / CARD_FILE).write_text("{not json")), "is not JSON"),
    "not an object": (lambda d: (write_model(d), (d / CARD_FILE).write_text("[1]")), "must hold a JSON object"),
    "wrong format": (lambda d: write_model(d, format="something else"), "not a wizard-sim model card"),
    "feature version": (lambda d: write_model(d, feature_version=learned.FEATURE_VERSION + 1), "feature version"),
    "architecture": (lambda d: write_model(d, architecture={"bid_hidden": 0, "play_hidden": HIDDEN}), "bid_hidden"),
    "shape": (lambda d: write_model(d, _weights_with("play_w2", np.zeros((HIDDEN, HIDDEN + 1), np.float32))), "shape"),
    "dtype": (lambda d: write_model(d, _weights_with("bid_b1", np.zeros(HIDDEN, np.float64))), "float64"),
    "nan": (lambda d: write_model(d, _weights_with("bid_b1", np.full(HIDDEN, np.nan, np.float32))), "NaN or infinite"),
    "inf": (lambda d: write_model(d, _weights_with("play_b3", np.full(60, np.inf, np.float32))), "NaN or infinite"),
    "pickle": (lambda d: write_model(d, _weights_with("bid_b1", np.array([{"a": 1}] * HIDDEN, dtype=object))), "pickled"),
    "missing array": (lambda d: write_model(d, {k: v for k, v in tiny_weights().items() if k != "play_w3"}), "lacks"),
    "extra array": (lambda d: write_model(d, {**tiny_weights(), "code": np.zeros(3, np.float32)}), "no model has"),
    "not npz": (lambda d: (write_model(d), (d / WEIGHTS_FILE).write_bytes(b"PK\x03\x04 not a zip")), "not a readable"),
}


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_a_bad_model_is_refused_with_one_line(case, tmp_path):
    make, words = BAD_MODELS[case]
    make(tmp_path / "m")
    with pytest.raises(ConfigError, match=words):
        load_model(tmp_path / "m")


def test_a_missing_model_directory_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        parse_policy(f"learned:model={tmp_path / 'nothing'}")
    with pytest.raises(ConfigError, match="model=DIR"):
        parse_policy("learned:depth=3")


@pytest.mark.slow
def test_the_command_line_refuses_a_bad_model_before_any_game(tmp_path):
    BAD_MODELS["nan"][0](tmp_path / "m")
    result = invoke("tournament", "--policies", f"learned:model={tmp_path / 'm'},heuristic,heuristic,heuristic",
                    "--games", 4, "--out", tmp_path / "run")  # fmt: skip
    one_line(result, 2, "NaN or infinite")
    assert not (tmp_path / "run").exists()


# --- the policy in the engine -----------------------------------------------------------------


@pytest.mark.parametrize("players, bidding", [(3, "open"), (4, "hidden"), (6, "open")])
def test_learned_decisions_do_not_read_other_hands(players, bidding):
    """At every bid and card decision of a round, re-deal the other seats' hands (consistently
    with the public state) and ask the learned policy again: the same answer."""
    from test_information import policies_for, redeal, started_round
    from helpers import play_round_asking

    rules = sim.Rules(players=players, bidding=bidding)
    weights = tuple(tiny_weights()[name] for name in learned.WEIGHT_NAMES)
    rng = np.random.default_rng(players)
    answers = set()
    for game, size in enumerate((1, 4, 60 // players)):
        storage, seats, _ = started_round(rules, policies_for("heuristic", players), 17, game, size, dealer=game % players)
        table = storage[0]

        def ask(decision, seat, legal):
            answer = learned.decide(decision, seats[seat], table, legal, weights)
            saved = seats.copy()
            redeal(storage, seats, [other for other in range(players) if other != seat], rng)
            assert learned.decide(decision, seats[seat], table, legal, weights) == answer
            seats[:] = saved
            answers.add((decision, answer))
            return answer

        play_round_asking(table, seats, ask)
    assert len(answers) > 10  # the tiny model answers many ways: the check is not vacuous




@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 6])
def test_learned_games_are_legal_and_the_same_on_any_threads_and_batch(model_dir, players):
    """Every answer is checked by the engine (an illegal one fails the run); the games are a
    function of (seed, game id) alone."""
    rules = sim.Rules(players=players, rounds=(1, 2, 5, 60 // players))
    spec = [f"learned:model={model_dir}"] + ["heuristic"] * (players - 1)
    one = sim.run_games(rules, spec, seed=4, games=24, threads=1, log_plays=True)
    two = sim.run_games(rules, spec, seed=4, games=24, threads=2, log_plays=True)
    part = sim.run_games(rules, spec, seed=4, game_ids=np.arange(10, 17), threads=2, log_plays=True)
    assert (one.games["total"] == two.games["total"]).all()
    assert (one.plays["card"] == two.plays["card"]).all()
    assert (one.seats["bid"][10:17] == part.seats["bid"]).all()
    assert (one.plays["card"][10:17] == part.plays["card"]).all()


@pytest.mark.slow
def test_the_state_api_asks_learned_as_run_games_plays_it(model_dir):
    """The state API (the drivers of play, OpenSpiel) agrees with the batch engine, decision by
    decision, for a table with learned seats."""
    from sim.env import state_api as env
    from sim.engine.seating import Seating
    from sim.policies.registry import parse_policies

    rules = sim.Rules(players=4, rounds=(1, 3, 6))
    spec = f"learned:model={model_dir},heuristic,learned:model={model_dir},random"
    batch = sim.run_games(rules, spec, seed=5, games=2, log_plays=True)
    seating = Seating.of(parse_policies(spec, 4))
    for game in range(2):
        state = env.WizardGame(rules).new_state(5, game)
        plays = []
        while not state.is_terminal():
            action = env.policy_action(state, seating)
            if state.decision() == 2:
                plays.append((state.current_player(), action))
            state.apply_action(action)
        assert plays == list(zip(batch.plays["seat"][game].tolist(), batch.plays["card"][game].tolist()))
        assert state.returns() == batch.games["total"][game].astype(float).tolist()


@pytest.mark.slow
def test_learned_opponents_in_the_vector_env(model_dir):
    from sim.env import VectorEnv

    rules = sim.Rules(players=4, rounds=(1, 2))
    runs = []
    for threads in (1, 2):
        vec = VectorEnv(rules, num_envs=8, controlled_seats=(0,), opponents=f"learned:model={model_dir}", seed=2,
                        threads=threads, copy=True)  # fmt: skip
        obs, masks, _ = vec.reset()
        rewards = []
        for _ in range(20):
            obs, masks, reward, *_ = vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
            rewards.append(reward)
        runs.append(np.array(rewards))
    assert (runs[0] == runs[1]).all()


@pytest.mark.slow
def test_resume_refuses_a_changed_model(tmp_path):
    model = write_model(tmp_path / "m")
    out = tmp_path / "run"
    policies = f"learned:model={model},heuristic,heuristic,heuristic"
    result = invoke("tournament", "--policies", policies, "--games", 8, "--chunk-games", 4, "--rounds", "1-2",
                    "--out", out, "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    run = json.loads((out / "run.json").read_text())
    assert run["policy_parameters"][f"learned:model={model.resolve()}"] == {"model_sha256": load_model(model).digest}
    write_model(model, tiny_weights(seed=1))  # the model changes under the run
    (out / "run.json").write_text(json.dumps({**run, "status": "running"}))
    result = invoke("tournament", "--out", out, "--resume")
    one_line(result, 2, "another model")


# --- wizard-sim train -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--minutes", "0"], "minutes"),
        (["--minutes", "-1"], "minutes"),
        (["--minutes", "1", "--bid-hidden", "0"], "bid-hidden"),
        (["--minutes", "1", "--teacher-samples", "0"], "teacher-samples"),
        (["--minutes", "1", "--seed", "-3"], "seed"),
        (["--minutes", "1", "--learning-rate", "0"], "learning-rate"),
        (["--minutes", "1", "--resume"], "no training to resume"),
        (["--minutes", "x"], "minutes"),
    ],
)
def test_train_refuses_bad_options_with_one_line(arguments, words, tmp_path):
    one_line(invoke("train", "--out", tmp_path / "m", *arguments), 2, words)


def test_train_refuses_a_directory_in_use(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "notes.txt").write_text("mine")
    one_line(invoke("train", "--out", tmp_path / "m", "--minutes", "1"), 2, "not empty")


@pytest.mark.slow
def test_a_short_training_writes_a_model_that_loads_and_resumes(tmp_path):
    from sim.learn.train import CHECKPOINT_FILE, TrainOptions, data_chunk, evaluate, initial_weights

    warm = TrainOptions("unused", 3, 1.0, bid_hidden=8, play_hidden=8, eval_deals=4)
    data_chunk(warm, 0), evaluate(warm, initial_weights(warm))  # compiled before the budget runs
    out = tmp_path / "m"
    options = ["--seed", 3, "--bid-hidden", 8, "--play-hidden", 8, "--eval-deals", 4, "--eval-seconds", 1, "--quiet"]
    result = invoke("train", "--out", out, "--minutes", 0.4, *options)
    assert result.exit_code == 0, result.output
    model = load_model(out)
    card = model.card
    assert card["training"]["options"]["seed"] == 3 and card["training"]["steps"] > 0
    assert sorted(path.name for path in out.iterdir()) == sorted([CARD_FILE, WEIGHTS_FILE, CHECKPOINT_FILE])
    steps = json.loads(np.load(out / CHECKPOINT_FILE)["state_json"].tobytes())["state"]["steps"]
    one_line(invoke("train", "--out", out, "--minutes", 0.4, *options[:2], "--bid-hidden", 16, "--resume"), 2, "other options")
    result = invoke("train", "--out", out, "--minutes", 0.4, *options, "--resume")
    assert result.exit_code == 0, result.output
    assert json.loads(np.load(out / CHECKPOINT_FILE)["state_json"].tobytes())["state"]["steps"] > steps
    load_model(out)


@pytest.mark.slow
def test_the_same_seed_gives_the_same_data_and_initial_weights():
    from sim.learn.train import TrainOptions, data_chunk, initial_weights

    options = TrainOptions("unused", 5, 1.0)
    first, again = data_chunk(options, 0), data_chunk(options, 0)
    assert all((a == b).all() for a, b in zip(first, again))
    assert not np.array_equal(data_chunk(TrainOptions("unused", 6, 1.0), 0).features[:50], first.features[:50])
    weights, same = initial_weights(options), initial_weights(options)
    assert all((weights[name] == same[name]).all() for name in weights)


@pytest.mark.slow
def test_learned_plays_python_wizard_as_an_openspiel_bot(model_dir):
    pyspiel = pytest.importorskip("pyspiel")
    import sim.openspiel  # noqa: F401  (registers python_wizard)
    from sim.openspiel.policy_bot import PolicyBot

    game = pyspiel.load_game("python_wizard(players=4,rounds=3)")
    bot = PolicyBot(game, f"learned:model={model_dir}")
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=chances)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions() and bot.step(state) == action  # asked again: the same answer
        state.apply_action(action)
    assert len(state.returns()) == 4


@pytest.mark.processes
def test_ctrl_c_stops_training_within_2_s_and_leaves_the_best_model(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "m"
    process = subprocess.Popen(
        [sys.executable, "-m", "sim.cli", "train", "--out", str(out), "--minutes", "5", "--seed", "2", "--bid-hidden", "8",
         "--play-hidden", "8", "--eval-seconds", "2", "--eval-deals", "4", "--quiet"],
        stderr=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None and not (out / CARD_FILE).exists():
        time.sleep(0.1)
    time.sleep(1.0)  # into the next data chunk or step
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert time.monotonic() - sent < 2.0 and process.returncode == 130, stderr
    assert stderr.strip().splitlines() == [f"wizard-sim: interrupted; the best model so far stays in {out}; continue with --resume"]
    assert load_model(out).card["training"]["steps"] > 0
