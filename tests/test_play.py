"""`wizard-sim play`: a person at the table, driven by scripted input (typer's CliRunner).

A game is the engine's game: answering what the built-in policy would play gives run_games'
final totals for that game and seat; bad input is explained and asked again, never a
traceback; a saved game resumes to the same game; q and the end of input quit cleanly."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import sim
from kernels.records import DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP
from sim.estimation.hints import bid_hint
from sim.play.session import PlayConfig, PlaySession, load_session
from sim.cli import app
from sim.config.cards import SUIT_LETTERS, SUIT_NAMES, format_card
from sim.policies.registry import parse_policy
from sim.config.rules import parse_rounds
from sim.env.layout import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0

runner = CliRunner()
BOTS = Path(__file__).resolve().parent / "bots"


@pytest.fixture
def importable_bots(monkeypatch):
    monkeypatch.syspath_prepend(str(BOTS))
HEURISTIC = parse_policy("heuristic")


def answer_text(decision: int, action: int) -> str:
    """The person's typed answer for a flat action."""
    if decision == DECIDE_TRUMP:
        return SUIT_LETTERS[action - ACTION_SUIT0]
    if decision == DECIDE_BID:
        return str(action - ACTION_BID0)
    return format_card(action - ACTION_CARD0)


def policy_answers(config: PlayConfig, policy=HEURISTIC) -> tuple[list[str], list[int]]:
    """The texts and actions of the person's decisions when the person answers as `policy`."""
    session = PlaySession(config)
    texts = []
    while True:
        session.advance()
        if session.is_over():
            return texts, session.answers
        action = session.policy_hint(policy)
        texts.append(answer_text(session.decision(), action))
        session.answer(action)


def play(arguments, lines, **kwargs):
    return runner.invoke(app, ["play", *map(str, arguments)], input="".join(f"{line}\n" for line in lines), **kwargs)


OPTIONS = [
    dict(players=3, rounds="1-2", seat=0, opponents="heuristic"),
    dict(players=4, rounds="1,3,5", seat=2, opponents="random,mc:samples=2,play_samples=2,heuristic", first_dealer="1"),
    dict(players=5, rounds="2,12", seat=4, opponents="heuristic,random,random,heuristic", bidding="hidden"),
    dict(players=6, rounds="1-3", seat=1, opponents="random", even_bids="forbidden", first_dealer="1"),
    dict(players=3, rounds="20", seat=1, opponents="heuristic", bidding="delayed"),
]


def rules_of(options: dict) -> sim.Rules:
    return sim.Rules(
        options["players"],
        parse_rounds(options["rounds"], options["players"]),
        options.get("bidding", "open"),
        options.get("even_bids", "allowed"),
        options.get("first_dealer", "draw"),
    )


def arguments_of(options: dict, seed: int, game: int) -> list[str]:
    arguments = ["--seed", seed, "--game", game]
    for key, value in options.items():
        arguments += [f"--{key.replace('_', '-')}", value]
    return arguments


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_answering_like_the_policy_gives_run_games_totals(options, tmp_path):
    """The person answers what heuristic would play (cards typed in notation): the game is
    game `game` of `simulate --seed` with heuristic at the person's seat, total for total."""
    seed, game = 13, 2
    rules = rules_of(options)
    config = PlayConfig.build(rules, options["seat"], options["opponents"], seed, game)
    texts, actions = policy_answers(config)
    save = tmp_path / "game.json"
    result = play(arguments_of(options, seed, game) + ["--save", save], texts)
    assert result.exit_code == 0, result.output
    spec = [policy.label if policy is not None else "heuristic" for policy in config.opponents]
    batch = sim.run_games(rules, spec, seed=seed, games=game + 1)
    totals = batch.games["total"][game].tolist()
    saved = load_session(save)
    saved.advance()  # the built-in seats' moves after the person's last answer
    assert saved.answers == actions and saved.is_over()
    assert saved.state.totals() == totals
    assert "Final scores" in result.stdout and "bid accuracy" in result.stdout
    # the final table: the person's row holds its exact bids and its total
    exact = int((batch.seats["bid"][game, :, options["seat"]] == batch.seats["tricks"][game, :, options["seat"]]).sum())
    row = next(line for line in result.stdout.splitlines() if " you " in line and "/" in line and "%" in line)
    assert f"{exact}/{len(rules.round_sizes)}" in row and str(totals[options["seat"]]) in row


@pytest.mark.parametrize(
    "opponents, as_run_games",
    [
        ("python_bots:DelegatingHeuristic,random", "heuristic,random"),  # delegates: its fallback's game
        ("python_bots:Lowest,python_bots:HighestBid", "python_bots:Lowest,python_bots:HighestBid"),
    ],
)
def test_python_policies_play_as_in_run_games(opponents, as_run_games, tmp_path, importable_bots):
    """Python opponents are asked with their observation and mask as run_games asks them: the
    person answering like heuristic gives run_games' totals with the same bots seated."""
    seed, game, seat = 21, 1, 0
    rules = sim.Rules(players=3, rounds=(1, 2, 3))
    config = PlayConfig.build(rules, seat, opponents, seed, game)
    texts, _ = policy_answers(config)
    result = play(["--players", 3, "--rounds", "1-3", "--seat", seat, "--opponents", opponents, "--seed", seed,
                   "--game", game, "--save", tmp_path / "game.json"], texts)  # fmt: skip
    assert result.exit_code == 0, result.output
    batch = sim.run_games(rules, ["heuristic", *as_run_games.split(",")], seed=seed, games=game + 1)
    saved = load_session(tmp_path / "game.json")
    saved.advance()
    assert saved.is_over() and saved.state.totals() == batch.games["total"][game].tolist()


def test_a_failing_python_opponent_is_one_line_and_exit_1(importable_bots):
    result = play(["--players", 3, "--rounds", "1-2", "--opponents", "python_bots:Raising,heuristic", "--seed", 4], ["0"] * 10)
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "policy python_bots:Raising raised KeyError" in lines[0] and "seat 1" in lines[0]


def test_a_short_game_shows_the_table():
    config = PlayConfig.build(sim.Rules(3, (1, 2)), 0, "heuristic", 1, 0)
    texts, _ = policy_answers(config)
    result = play(["--players", 3, "--rounds", "1-2", "--seed", 1], texts)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("game 0 of seed 1", "Round 1 of 2", "Round 2 of 2", "your hand:", "turned up", "takes the trick",
                 "Score pad", "Final scores", "bid accuracy", "Your bid (0-1)", "Your card"):  # fmt: skip
        assert text in out, text
    assert ("win with" in out) or ("wins with" in out)


def find_state(config: PlayConfig, wanted) -> tuple[list[str], PlaySession]:
    """Answers (as heuristic) up to the first decision of the person where wanted(session) holds."""
    session = PlaySession(config)
    texts = []
    while True:
        session.advance()
        assert not session.is_over(), "no such situation in this game"
        if wanted(session):
            return texts, session
        action = session.policy_hint(HEURISTIC)
        texts.append(answer_text(session.decision(), action))
        session.answer(action)


def must_follow(session: PlaySession) -> bool:
    if session.decision() != DECIDE_CARD:
        return False
    return len(session.legal_cards()) < len(session.hand())


def test_bad_input_is_explained_and_asked_again():
    config = PlayConfig.build(sim.Rules(3, (5, 6, 7)), 0, "heuristic", 4, 0)
    texts, session = find_state(config, must_follow)
    table = session.state.records()[0]
    led = SUIT_NAMES[int(table["led_suit"])]
    illegal = format_card(next(c for c in session.hand() if c not in session.legal_cards()))
    absent = next(format_card(c) for c in range(52) if c not in session.hand())
    legal = format_card(session.legal_cards()[0])
    result = play(["--players", 3, "--rounds", "5-7", "--seed", 4], texts + ["XX", absent, illegal, "", legal, "q"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "unknown card 'XX'" in out
    assert f"{absent} is not in your hand" in out
    assert f"you must follow {led}" in out
    assert f"play {legal}" in out.replace("[", "")  # the legal card was taken after the re-prompts
    assert "Traceback" not in out and result.exception is None or isinstance(result.exception, SystemExit)


def test_bad_bids_are_explained():
    """Out of range, not a number, and the dealer's bid that even bids forbid."""
    rules = sim.Rules(3, (3,), even_bids="forbidden", first_dealer=0)  # round 3 is dealt by seat 2
    config = PlayConfig.build(rules, 2, "heuristic", 6, 0)
    session = PlaySession(config)
    session.advance()
    assert session.decision() == DECIDE_BID and session.state.current_player() == 2
    others = sum(int(bid) for bid in session.state.records()[0]["bids"][:2])
    forbidden = 3 - others
    assert 0 <= forbidden <= 3
    allowed = 0 if forbidden != 0 else 1
    arguments = ["--players", 3, "--rounds", 3, "--seed", 6, "--seat", 2, "--even-bids", "forbidden", "--first-dealer", 0]
    result = play(arguments, ["7", "two", str(forbidden), str(allowed), "q"])
    assert result.exit_code == 0, result.output
    assert "bid a whole number 0..3, got '7'" in result.stdout
    assert "got 'two'" in result.stdout
    assert f"you may not bid {forbidden}: the bids would add up to 3 tricks and even bids are forbidden" in result.stdout
    assert f"you (seat 2) bid {allowed}" in result.stdout


def test_trump_choice_after_a_turned_up_wizard():
    """The person deals and a Wizard is turned up: the suit is asked (bad names re-prompted)."""
    for seed in range(200):
        config = PlayConfig.build(sim.Rules(3, (4,), first_dealer=0), 0, "heuristic", seed, 0)
        session = PlaySession(config)
        session.advance()
        if session.decision() == DECIDE_TRUMP:
            break
    else:
        pytest.fail("no turned-up Wizard in 200 seeds")
    result = play(["--players", 3, "--rounds", 4, "--first-dealer", 0, "--seed", seed], ["purple", "hearts", "q"])
    assert result.exit_code == 0, result.output
    assert "Name trump (C, D, H, S)" in result.stdout
    assert "unknown trump suit 'purple'" in result.stdout
    assert "you (seat 0) name trump: hearts" in result.stdout


def test_save_and_resume_give_the_same_game(tmp_path):
    options = dict(players=4, rounds="1-4", seat=1, opponents="heuristic,random,heuristic")
    seed, game = 21, 5
    config = PlayConfig.build(rules_of(options), 1, options["opponents"], seed, game)
    texts, actions = policy_answers(config)
    save = tmp_path / "saved.json"
    half = len(texts) // 2
    first = play(arguments_of(options, seed, game) + ["--save", save], texts[:half] + ["q"])
    assert first.exit_code == 0, first.output
    assert f"continue with: wizard-sim play --resume {save}" in first.stdout
    stored = json.loads(save.read_text())
    assert stored["format"] == "wizard-sim play" and stored["answers"] == actions[:half]
    assert stored["config"]["seed"] == seed and stored["config"]["game"] == game
    second = play(["--resume", save], texts[half:])
    assert second.exit_code == 0, second.output
    assert f"resumed after {half} of your decisions" in second.stdout
    whole = play(arguments_of(options, seed, game), texts)
    # the final tables agree (the resumed game saved to the same file)
    assert second.stdout[second.stdout.index("Final scores"):] == whole.stdout[whole.stdout.index("Final scores"):]
    assert load_session(save).answers == actions


def test_end_of_input_quits_and_saves(tmp_path):
    save = tmp_path / "eof.json"
    config = PlayConfig.build(sim.Rules(3, (1, 2, 3)), 0, "heuristic", 8, 0)
    texts, actions = policy_answers(config)
    result = play(["--players", 3, "--rounds", "1-3", "--seed", 8, "--save", save], texts[:3])
    assert result.exit_code == 0, result.output
    assert "game left; saved to" in result.stdout
    assert json.loads(save.read_text())["answers"] == actions[:3]


def test_the_hint_is_shown():
    config = PlayConfig.build(sim.Rules(3, (2,)), 0, "heuristic", 2, 0)
    session = PlaySession(config)
    session.advance()
    expected_bid = bid_hint(session, HEURISTIC, 200).recommended_bid
    texts, _ = policy_answers(config)
    result = play(["--players", 3, "--rounds", 2, "--seed", 2, "--hint", "--hint-samples", 200], texts)
    assert result.exit_code == 0, result.output
    assert f"hint: estimate recommends bid {expected_bid} (P(make)" in result.stdout
    assert "hint: heuristic plays" in result.stdout
    # without --hint, ? asks for one
    asked = play(["--players", 3, "--rounds", 2, "--seed", 2, "--hint-samples", 200], ["?", "q"])
    assert asked.exit_code == 0 and "hint: estimate recommends bid" in asked.stdout


def test_the_bid_hint_is_estimate_of_the_situation():
    """The bid hint is estimate's answer for the same hand, trump, position, earlier bids and
    score pad (here: seat 1 bids second in round 3, after round 2 was scored)."""
    config = PlayConfig.build(sim.Rules(3, (2, 3), first_dealer=2), 1, "heuristic", 3, 0)
    _, session = find_state(config, lambda s: s.decision() == DECIDE_BID and len(s.state.history) == 1)
    hint = bid_hint(session, HEURISTIC, 300)
    table, seats, _ = session.state.records()
    dealer = int(table["dealer"])
    order = [(dealer + 1 + k) % 3 for k in range(3)]
    position = order.index(1)
    expected = sim.estimate(
        int(seats[1]["hand"]),
        trump=int(table["trump_card"]) if table["trump_card"] >= 0 else None,
        trump_suit=int(table["trump"]) if table["trump_card"] >= 52 and table["trump_card"] < 56 else None,
        players=3,
        position=position,
        bids=[int(table["bids"][s]) for s in order[:position]],
        totals=[int(table["totals"][s]) for s in order],
        samples=300,
        seed=3,
    )
    assert hint.recommended_bid == int(expected.loc[expected["recommended"], "bid"].iloc[0])
    assert hint.to_frame()["expected_score"].equals(expected["expected_score"])


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--players", 7], "players must be 3..6"),
        (["--seat", 4], "seat must be in 0..3"),
        (["--opponents", "heuristic,random"], "got 2 opponent policies for 3 opponents"),
        (["--opponents", "mymodule:MyBot"], "cannot import policy module 'mymodule'"),
        (["--opponents", "broken_bots:IllegalPlayer"], "not the numba bot"),
        (["--opponents", "nosuch"], "unknown policy 'nosuch'"),
        (["--rounds", "30"], "round size 30 is outside"),
        (["--bidding", "hidden", "--even-bids", "forbidden"], "needs a last bidder"),
        (["--seed", -1], "seed must be"),
        (["--hint-policy", "x:Y"], "must be a built-in policy"),
        (["--hint-samples", 1], "hint-samples must be in 2.."),
        (["--players", "four"], "Invalid value for '--players'"),
        (["--resume", "/nonexistent/game.json"], "cannot read /nonexistent/game.json"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(arguments, message, importable_bots):
    result = play(arguments, [])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_bad_save_files_are_one_line_and_exit_2(tmp_path):
    config = PlayConfig.build(sim.Rules(3, (1,)), 0, "heuristic", 1, 0).to_json()
    illegal = {"format": "wizard-sim play", "format_version": 1, "answers": [84], "config": config}
    cases = {
        "not-json.json": ("{", "not a wizard-sim play save file (not JSON)"),
        "other.json": (json.dumps({"format": "wizard-sim run"}), "not a wizard-sim play save file"),
        "illegal.json": (json.dumps(illegal), "answer 0 (84) of the saved game is not a legal move"),
        "old.json": (json.dumps(illegal | {"format_version": 0}), "has save format version 0, expected 1"),
        "range.json": (json.dumps(illegal | {"answers": [999]}), "answer 0 (999) of the saved game is not a legal move"),
        "broken.json": (json.dumps({"format": "wizard-sim play", "format_version": 1}), "not a valid wizard-sim play save"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = play(["--resume", path], [])
        assert result.exit_code == 2, (name, result.output)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    saved = tmp_path / "ok.json"
    assert play(["--players", 3, "--rounds", 1, "--seed", 1, "--save", saved], ["q"]).exit_code == 0
    clash = play(["--resume", saved, "--players", 4], [])
    assert clash.exit_code == 2 and "do not give --players" in clash.stderr


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, tmp_path):
    from sim.cli import play as play_module

    def interrupted(prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr(play_module.console, "input", interrupted)
    save = tmp_path / "c.json"
    result = play(["--players", 3, "--rounds", 1, "--seed", 1, "--save", save], [])
    assert result.exit_code == 130
    assert result.stderr.strip() == f"wizard-sim: interrupted; saved to {save}"
    assert json.loads(save.read_text())["answers"] == []


@pytest.mark.parametrize("bidding", ["hidden", "delayed"])
def test_hidden_bids_are_not_shown_before_the_mode_shows_them(bidding):
    """Bots' bids are announced without their value; in delayed bidding the table says
    `hidden` until the round is scored (the score pad then shows every bid)."""
    config = PlayConfig.build(sim.Rules(3, (3,), bidding=bidding, first_dealer=0), 0, "heuristic", 9, 0)
    texts, _ = policy_answers(config)
    result = play(["--players", 3, "--rounds", 3, "--first-dealer", 0, "--bidding", bidding, "--seed", 9], texts)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "(heuristic) bids" not in out and "(heuristic) has bid" in out
    assert ("hidden" in out) == (bidding == "delayed")


def test_a_turned_up_wizard_is_announced_before_the_dealer_names_trump():
    for seed in range(200):
        config = PlayConfig.build(sim.Rules(3, (4,), first_dealer=1), 0, "heuristic", seed, 0)
        session = PlaySession(config)
        (start,) = session.advance()[:1]
        if 52 <= start.trump_card < 56:
            break
    else:
        pytest.fail("no turned-up Wizard in 200 seeds")
    result = play(["--players", 3, "--rounds", 4, "--first-dealer", 1, "--seed", seed], ["q"])
    out = result.stdout
    assert out.index("the dealer chooses trump") < out.index("seat 1 (heuristic) names trump")


def test_a_new_game_never_overwrites_a_file(tmp_path):
    existing = tmp_path / "mine.json"
    existing.write_text("precious")
    result = play(["--players", 3, "--rounds", 1, "--seed", 1, "--save", existing], ["q"])
    assert result.exit_code == 2 and f"{existing} exists: continue that game with --resume" in result.stderr
    assert existing.read_text() == "precious"


def test_a_save_that_fails_at_run_time_is_one_line_and_exit_1(tmp_path, monkeypatch):
    """#22: a full disk while saving was exit 2 (bad input) instead of 1."""

    def full_disk(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(PlaySession, "save", full_disk)
    config = PlayConfig.build(sim.Rules(3, (1, 2, 3)), 0, "heuristic", 8, 0)
    texts, _ = policy_answers(config)
    save = tmp_path / "full.json"
    result = play(["--players", 3, "--rounds", "1-3", "--seed", 8, "--save", save], texts[:3])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wizard-sim: error: cannot write the save file"), result.stderr
    assert "No space left on device" in lines[0] and not save.exists()
