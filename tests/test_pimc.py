"""The `pimc` policy: legal play in every variant, reproducibility across threads and chunks,
its parameters, the face-up playout, and a tournament through the command line. The
information it may use is tested in tests/test_information.py, the solver in
tests/test_solver.py. Small sample counts keep the file fast."""
import json

import numpy as np
import pytest

import sim
import test_invariants
from helpers import invoke, make_table
from test_determinism import assert_same_games
from kernels import records as st
from kernels.cards import N_CARDS
from kernels.search import faceup, mc, pimc
from sim.config.errors import ConfigError
from sim.policies.registry import parse_policy

# pimc at its defaults (inference, rounds of 7 cards on played as mc) with few samples.
FAST_PIMC = "pimc:samples=2,play_samples=2,mc_samples=2,mc_play_samples=2"
# Before wizard-sim 0.2's defaults: no inference, no round played as mc.
FORMER = "posterior=0,mc_from=0"


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(test_invariants.VARIANTS))
@pytest.mark.parametrize("players", [3, 6])
def test_pimc_games_satisfy_the_invariants(players, variant):
    """The round and play invariants of tests/test_invariants.py on full games of pimc seats."""
    test_invariants.test_round_invariants(players, FAST_PIMC, variant)
    test_invariants.test_play_invariants(players, FAST_PIMC, variant)


@pytest.mark.slow
@pytest.mark.parametrize("spec", [f"{FAST_PIMC},bidding=0,depth=1",
                                  f"{FAST_PIMC},playout=1,uniform_when_most_dealt=0,bidding=2"])
def test_pimc_settings_satisfy_the_invariants_under_delayed_bidding(monkeypatch, spec):
    """Delayed bidding (bids hidden during play, estimated), mc's rollout bidding, the face-up
    playout and inference, through the same harness."""
    monkeypatch.setitem(test_invariants.VARIANTS, "delayed", {"bidding": "delayed"})
    test_invariants.test_round_invariants(4, spec, "delayed")
    test_invariants.test_play_invariants(4, spec, "delayed")


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_pimc_without_samples_is_the_heuristic():
    """samples=0 and play_samples=0 fall back to the heuristic's bid and card: same games."""
    rules = sim.Rules(players=4, even_bids="forbidden")
    as_pimc = sim.run_games(rules, "pimc:samples=0,play_samples=0,mc_from=0,random,heuristic,random", seed=4, games=100,
                            log_plays=True)  # fmt: skip
    heuristic = sim.run_games(rules, "heuristic,random,heuristic,random", seed=4, games=100, log_plays=True)
    assert_same_games(as_pimc, heuristic)


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_pimc_with_rollouts_to_the_end_and_mc_bids_is_mc():
    """playout=2 (mc's rollouts to the end of the round), the solver only on the last trick
    (forced) and mc's bid: pimc plays exactly as mc, so a tuning run of it against mc measures
    what the solver adds and nothing else (docs/pimc.md)."""
    rules = sim.Rules(players=4)
    as_pimc = sim.run_games(rules, f"pimc:playout=2,depth=1,bidding=0,samples=3,play_samples=4,{FORMER},mc,heuristic,random",
                            seed=5, games=20, log_plays=True)  # fmt: skip
    as_mc = sim.run_games(rules, "mc:samples=3,play_samples=4,mc,heuristic,random", seed=5, games=20, log_plays=True)
    assert_same_games(as_pimc, as_mc)


def test_pimc_parameters_parse_with_defaults_and_ranges():
    defaults = dict(pimc.PARAMETERS)
    policy = parse_policy("pimc:depth=2")
    assert policy.params == tuple(defaults[key] if key != "depth" else 2.0 for key, _ in pimc.PARAMETERS)
    assert policy.label == "pimc:depth=2" and parse_policy("pimc").label == "pimc"
    for bad in ("pimc:depth=0", f"pimc:depth={pimc.MAX_DEPTH + 1}", f"pimc:play_samples={pimc.MAX_PLAY_SAMPLES + 1}",
                f"pimc:samples={pimc.MAX_SAMPLES + 1}",
                "pimc:samples=1.5", "pimc:robust=2", "pimc:posterior=0.5", "pimc:bidding=3", "pimc:playout=-1",
                "pimc:playout=3",
                "pimc:mc_from=-1", f"pimc:mc_from={st.MAX_ROUND_SIZE + 1}", "pimc:mc_from=2.5",
                f"pimc:mc_play_samples={mc.MAX_SAMPLES + 1}", "pimc:mc_samples=-1"):  # fmt: skip
        with pytest.raises(ConfigError):
            parse_policy(bad)


@pytest.mark.parametrize("level, now", [
    (0, "pimc:play_samples=96,posterior=0,mc_from=0"),
    (1, "pimc:play_samples=96,robust=0,learn_bids=0,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,"
        "mc_from=0"),
    (3, "pimc:play_samples=96,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,mc_from=0"),
    (5, "pimc:play_samples=96,uniform_when_most_dealt=0,mc_from=0"),
    (6, "pimc:play_samples=96,mc_from=0"),
])  # fmt: skip
def test_a_retired_infer_level_is_refused_with_its_switches(level, now):
    """`infer` (0-6, each level the one before plus a rule) is refused in one line that names the
    label of the same player: each rule up to the level on, the rest off (pimc.former_infer)."""
    with pytest.raises(ConfigError) as refused:
        parse_policy(f"pimc:play_samples=96,infer={level},mc_from=0")
    assert str(refused.value) == (f"policy pimc no longer has the parameter infer (docs/pimc.md): "
                                  f"pimc:play_samples=96,infer={level},mc_from=0 is now {now}")  # fmt: skip
    assert parse_policy(now).label == now
    with pytest.raises(ConfigError, match="infer=7 was never one of its values"):
        parse_policy("pimc:infer=7")


MIXED = f"{FAST_PIMC},heuristic,mc:samples=2,play_samples=2,pimc:samples=1,play_samples=3,depth=2,playout=1"


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_same_seed_same_games_across_threads_and_batches():
    rules = sim.Rules(players=4, rounds=(1, 3, 7, 15))
    one = sim.run_games(rules, MIXED, seed=11, games=64, log_plays=True, threads=1)
    two = sim.run_games(rules, MIXED, seed=11, games=64, log_plays=True, threads=2)
    assert_same_games(one, two)
    second_half = sim.run_games(rules, MIXED, seed=11, first_game=32, games=32, log_plays=True, threads=2)
    assert_same_games(one, second_half, rows_a=slice(32, None))
    other_seed = sim.run_games(rules, MIXED, seed=12, games=64)
    assert not np.array_equal(one.games, other_seed.games)


def test_faceup_playout_takes_a_sure_trick_and_ducks_a_made_bid():
    """Seat 1 follows a led 10 of clubs holding the King and the 2: needing a trick it plays
    the King (no later seat can beat it); with its bid made it plays the 2."""
    storage, seats, table = make_table(players=3, round_size=2, trump=-1)
    table["phase"] = st.PHASE_PLAY
    table["n_bids"] = 3
    table["leader"] = 0
    seats[0]["hand"] = 1 << 8 | 1 << 20  # 10C, 9D
    seats[1]["hand"] = 1 << 11 | 1 << 0  # KC, 2C
    seats[2]["hand"] = 1 << 5 | 1 << 30  # 7C, 6H
    from kernels import rules as K

    K.play_card(table, seats, 0, 8)
    legal = K.legal_cards(seats[1]["hand"], table["led_suit"])
    seats[1]["bid"] = 1
    assert faceup.choose_card(seats, seats[1], table, legal) == 11
    seats[1]["bid"] = 0
    assert faceup.choose_card(seats, seats[1], table, legal) == 0


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_pimc_tournament_on_the_command_line(tmp_path):
    """A duplicate tournament with a pimc seat through `wizard-sim tournament`: the summary
    names pimc with a mean score and the pair verdicts."""
    out = tmp_path / "t"
    result = invoke("tournament", "--players", 4, "--policies", f"{FAST_PIMC},mc:samples=2,play_samples=2,heuristic,random",
                    "--games", 4, "--rounds", "1-4", "--seed", 3, "--out", out, "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert FAST_PIMC in json.dumps(summary)


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_ess_fallback_takes_a_decision_again_on_uniform_deals_when_too_few_samples_are_effective():
    """mc.too_few_effective's rule (Kish's effective sample size against ESS_FLOOR of the
    samples); ess_fallback falls back at some decisions of large rounds (not the games without
    it), and its games do not depend on the threads."""
    from kernels.search import mc

    assert mc.too_few_effective(0.0, 0.0, 16, pimc.ESS_FLOOR)  # every sample given up
    assert not mc.too_few_effective(0.0, 0.0, 16, 0.0)  # floor 0: never (mc, pimc without ess_fallback)
    assert mc.too_few_effective(2.0, 4.0, 16, pimc.ESS_FLOOR)  # one sample of weight 2: 1 effective
    assert mc.too_few_effective(4.0, 10.0, 16, pimc.ESS_FLOOR)  # weights 1 and 3: 1.6 effective
    assert not mc.too_few_effective(16.0, 16.0, 16, pimc.ESS_FLOOR)  # equal weights: 16
    assert not mc.too_few_effective(8.0, 8.0, 16, pimc.ESS_FLOOR)  # 8 of 16 kept, equal: 8, not fewer
    rules = sim.Rules(players=4, rounds=(12, 15))
    others = "heuristic,heuristic,random"
    fallback = f"{inferring(uniform_when_all_dealt=0, uniform_when_most_dealt=0)},{others}"
    games = sim.run_games(rules, fallback, seed=5, games=6, threads=1, log_plays=True)
    assert_same_games(games, sim.run_games(rules, fallback, seed=5, games=6, threads=2, log_plays=True))
    without = inferring(ess_fallback=0, uniform_when_all_dealt=0, uniform_when_most_dealt=0)
    learned = sim.run_games(rules, f"{without},{others}", seed=5, games=6, log_plays=True)
    assert not np.array_equal(games.plays, learned.plays)


def assert_rounds_play_as(players, first, policy, below, at):
    """A game of rounds `first` and `first + 1` with seat 0 playing `policy` plays round `first`
    bid for bid and card for card as with `below` there, and round `first + 1` as with `at` (the
    same bids, cards and tricks), and each round differs from the other policy's."""
    rules = sim.Rules(players=players, rounds=(first, first + 1))
    others = ",".join(["heuristic"] * (players - 2) + ["random"])

    def games(seat_0):
        return sim.run_games(rules, f"{seat_0},{others}", seed=5, games=6, log_plays=True)

    played, played_below, played_at = games(policy), games(below), games(at)
    n_plays_first = players * first
    for k, same, other in ((0, played_below, played_at), (1, played_at, played_below)):
        plays = slice(0, n_plays_first) if k == 0 else slice(n_plays_first, None)
        assert np.array_equal(played.plays[:, plays], same.plays[:, plays]), f"round {first + k}"
        for field in ("hand", "bid", "tricks", "score"):
            assert np.array_equal(played.seats[field][:, k], same.seats[field][:, k]), f"round {first + k} {field}"
        assert not np.array_equal(played.plays[:, plays], other.plays[:, plays]), "vacuous"


def inferring(**switches: int) -> str:
    """pimc in every round (none played as mc), its inference switches at their defaults (every
    one on) except `switches`."""
    return "pimc:samples=8,play_samples=24,mc_from=0" + "".join(f",{name}={value}" for name, value in switches.items())


NO_UNIFORM_ROUNDS = {"uniform_when_all_dealt": 0, "uniform_when_most_dealt": 0}


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_uniform_when_all_dealt_plays_a_round_dealing_every_card_on_uniform_deals():
    """uniform_when_all_dealt plays a round with cards left undealt exactly as without it, and a
    round dealing every card exactly as posterior=0 (uniform deals): the same bids, cards and
    tricks. tests/test_information.py checks what it reads, the last round included."""
    assert_rounds_play_as(4, 14, inferring(uniform_when_most_dealt=0), below=inferring(**NO_UNIFORM_ROUNDS),
                          at=inferring(posterior=0))  # fmt: skip


@pytest.mark.parametrize("players, last_inferred", [(4, 11), (3, 15), (6, 7)])
@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_uniform_when_most_dealt_plays_the_rounds_dealing_most_cards_on_uniform_deals(players, last_inferred):
    """uniform_when_most_dealt, without uniform_when_all_dealt, plays a round dealing less than
    MOST_DEALT_SHARE of the deck exactly as without it (4 players: rounds 1-11), and one dealing
    at least that share (rounds 12-15, the one dealing every card among them) exactly as
    posterior=0 (uniform deals). tests/test_information.py checks what it reads."""
    assert players * last_inferred < pimc.MOST_DEALT_SHARE * N_CARDS <= players * (last_inferred + 1)
    assert_rounds_play_as(players, last_inferred, inferring(uniform_when_all_dealt=0),
                          below=inferring(**NO_UNIFORM_ROUNDS), at=inferring(posterior=0))  # fmt: skip


@pytest.mark.parametrize("players, mc_from", [(4, 7), (3, 12), (6, 4)])
@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_mc_from_plays_the_rounds_of_that_size_on_as_mc(players, mc_from):
    """pimc:mc_from=K plays a round smaller than K exactly as pimc, with its inference, and a
    round of K cards or more exactly as mc with mc_samples and mc_play_samples and no
    inference: the same bids, cards and tricks as an mc seat there."""
    seat_0 = f"pimc:samples=8,play_samples=24,mc_from={mc_from},mc_samples=6,mc_play_samples=12"
    assert_rounds_play_as(players, mc_from - 1, seat_0, below=inferring(), at="mc:samples=6,play_samples=12")


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_mc_from_1_is_mc_in_every_round():
    """From the first round on, every decision is mc's: whole games are an mc seat's, bit for bit."""
    rules = sim.Rules(players=4)
    as_pimc = sim.run_games(rules, "pimc:mc_from=1,mc_samples=3,mc_play_samples=4,mc,heuristic,random", seed=7,
                            games=10, log_plays=True)  # fmt: skip
    as_mc = sim.run_games(rules, "mc:samples=3,play_samples=4,mc,heuristic,random", seed=7, games=10, log_plays=True)
    assert_same_games(as_pimc, as_mc)
