"""The `mc` policy: legal play in every variant, reproducibility, the void-respecting sampler
(counts, voids, exact distribution). The information it may use (its own seat record and the
public table only) is tested in tests/test_information.py. Small sample counts keep the file
fast."""
import itertools
import math

import numpy as np
import pytest

import sim
import test_invariants
from helpers import C, D, H, S, J1, J2, W1, W2, card, cards_of, make_table, mask, new_stream, popcount
from test_determinism import assert_same_games
from test_information import mc_decide, policies_for, started_round
from kernels import round_state as R
from kernels import records as st
from kernels.search import posterior
from kernels.search.equivalence import distinct_cards, in_play_for_seat, representative
from kernels.search import mc
from kernels.rng import STREAM_DECISIONS
from sim.config.errors import ConfigError
from sim.policies.registry import parse_policy

FAST_MC = "mc:samples=2,play_samples=2"
SIGMAS = 4.5  # per cell of a (seat, card) table: dozens of cells per test


# ------------------------------------------------------------------------------ legality


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(test_invariants.VARIANTS))
@pytest.mark.parametrize("players", [3, 4, 6])
def test_mc_games_satisfy_the_invariants(players, variant):
    """The round and play invariants of tests/test_invariants.py on full games of mc seats."""
    test_invariants.test_round_invariants(players, FAST_MC, variant)
    test_invariants.test_play_invariants(players, FAST_MC, variant)


@pytest.mark.slow
def test_mc_games_satisfy_the_invariants_under_delayed_bidding(monkeypatch):
    """Delayed bidding (bids hidden during play, estimated by mc) through the same harness."""
    monkeypatch.setitem(test_invariants.VARIANTS, "delayed", {"bidding": "delayed"})
    test_invariants.test_round_invariants(5, FAST_MC, "delayed")
    test_invariants.test_play_invariants(5, FAST_MC, "delayed")


def test_mc_without_samples_is_the_heuristic():
    """samples=0 and play_samples=0 fall back to the heuristic's bid and card: same games."""
    rules = sim.Rules(players=4, even_bids="forbidden")
    as_mc = "mc:samples=0,play_samples=0,random,heuristic,random"
    mc_games = sim.run_games(rules, as_mc, seed=4, games=200, log_plays=True)
    heuristic_games = sim.run_games(rules, "heuristic,random,heuristic,random", seed=4, games=200, log_plays=True)
    assert_same_games(mc_games, heuristic_games)


@pytest.mark.parametrize(
    "text, message",
    [("mc:samples=-1", "whole number >= 0"), ("mc:play_samples=2.5", "whole number >= 0"),
     ("mc:samples=inf", "plain decimal"), ("mc:samples=nan", "plain decimal")],  # fmt: skip
)
def test_mc_sample_counts_must_be_whole_numbers(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_policy(text)


def test_mc_parameters_parse_with_defaults():
    defaults = dict(mc.PARAMETERS)
    policy = parse_policy("mc:play_samples=3")
    assert policy.params == (defaults["samples"], 3.0, defaults["infer"], defaults["spread"])
    assert policy.label == "mc:play_samples=3" and parse_policy("mc").label == "mc"
    assert parse_policy("mc:infer=1,spread=0.5").label == "mc:infer=1,spread=0.5"
    for bad in ("mc:infer=2", "mc:infer=0.5", "mc:spread=-1", "mc:spread=nan"):
        with pytest.raises(ConfigError):
            parse_policy(bad)


# ------------------------------------------------------------------------------ reproducibility


MIXED = f"{FAST_MC},heuristic,random,mc:samples=3,play_samples=1"


def test_same_seed_same_games_across_threads_and_batches():
    rules = sim.Rules(players=4, rounds=(1, 3, 6, 15))
    one = sim.run_games(rules, MIXED, seed=11, games=160, log_plays=True, threads=1)
    two = sim.run_games(rules, MIXED, seed=11, games=160, log_plays=True, threads=2)
    again = sim.run_games(rules, MIXED, seed=11, games=160, log_plays=True, threads=2)
    assert_same_games(one, two)
    assert_same_games(two, again)
    second_half = sim.run_games(rules, MIXED, seed=11, first_game=80, games=80, log_plays=True)
    assert_same_games(one, second_half, rows_a=slice(80, None))
    other_seed = sim.run_games(rules, MIXED, seed=12, games=160)
    assert not np.array_equal(one.games, other_seed.games)


# ------------------------------------------------------------------------------ the sampler


def sampled_hands(me, table, n_samples, seed=1):
    """n_samples hands of every seat drawn by posterior.sample_hands ([samples, MAX_PLAYERS])."""
    generator = new_stream(seed, 0, 0, STREAM_DECISIONS)
    hands = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    order = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    out = np.zeros((n_samples, st.MAX_PLAYERS), dtype=np.int64)
    for i in range(n_samples):
        posterior.sample_hands(me, table, hands, order, generator)
        out[i] = hands
    return out


def allowed_by_voids(voids):
    """Mask of the cards a seat void in the suits of `voids` may hold."""
    result = (1 << 60) - 1
    for suit in range(4):
        if (voids >> suit) & 1:
            result &= ~(((1 << 13) - 1) << (13 * suit))
    return result


def check_samples(samples, me, storage, players):
    """Every sample: right counts per seat, no card twice, only unseen cards, no void broken."""
    table = storage[0]
    unseen = ((1 << 60) - 1) & ~(int(me["hand"]) | int(table["played"]))
    if table["trump_card"] >= 0:
        unseen &= ~(1 << int(table["trump_card"]))
    for sample in samples:
        dealt = 0
        for seat in range(players):
            hand = int(sample[seat])
            if seat == me["seat"]:
                assert hand == me["hand"]
                continue
            assert popcount(hand) == posterior.cards_left(table, seat)
            assert hand & ~unseen == 0, "a seen card was dealt"
            assert dealt & hand == 0, "a card was dealt twice"
            assert hand & ~allowed_by_voids(int(storage["voids"][0][seat])) == 0, "a void was broken"
            dealt |= hand


def z_scores(counts, n_samples, probabilities):
    p = np.clip(probabilities, 1e-12, 1 - 1e-12)
    return (counts - n_samples * p) / np.sqrt(n_samples * p * (1 - p))


def seat_card_counts(samples, seats):
    return np.array([[((samples[:, seat] >> c) & 1).sum() for c in range(60)] for seat in seats])


@pytest.mark.parametrize("players, round_size", [(4, 5), (3, 20)])
def test_unconstrained_sampler_is_uniform(players, round_size):
    """Before any play (no voids), every unseen card is in each other seat with probability
    cards per seat / unseen cards."""
    rules = sim.Rules(players=players)
    storage, seats, _ = started_round(rules, policies_for("heuristic", players), 5, 0, round_size, dealer=0)
    me = seats[1]
    n_samples = 6000
    samples = sampled_hands(me, storage[0], n_samples)
    check_samples(samples[:500], me, storage, players)
    unseen = [c for c in range(60) if not (int(me["hand"]) >> c) & 1 and c != storage[0]["trump_card"]]
    others = [s for s in range(players) if s != 1]
    counts = seat_card_counts(samples, others)[:, unseen]
    z = z_scores(counts, n_samples, round_size / len(unseen))
    assert np.abs(z).max() < SIGMAS, f"worst cell {np.abs(z).max():.1f} sigma off"


def last_round_state():
    """4 players, last round (15), 11 tricks played; seat 0 holds 4 cards and the 12 unseen
    cards go 4 to each other seat under tight voids: seat 1 void in hearts, seat 2 in hearts
    and spades, seat 3 in clubs (so seat 3 holds all three hearts)."""
    storage, seats, table = make_table(players=4, round_size=15, dealer=3)
    mine = [card(14, C), card(14, D), card(14, S), J1]
    pool = [card(r, C) for r in (2, 5, 9)] + [card(r, D) for r in (3, 7, 12)]
    pool += [card(r, H) for r in (4, 8, 13)] + [card(r, S) for r in (6, 10)] + [W1]
    seats[0]["hand"] = mask(mine)
    table["played"] = ((1 << 60) - 1) & ~mask(mine + pool)
    table["trick"] = 11
    table["leader"] = 0
    table["n_bids"] = 4
    storage["voids"][0][1:4] = [1 << H, (1 << H) | (1 << S), 1 << C]
    return storage, seats, pool


def mid_trick_state():
    """3 players, round 18 (a turned-up card and 5 undealt cards), trick 16 with seat 2 having
    led: seats 1 and 2 hold 2 and 1 cards, seat 1 void in diamonds, seat 2 in clubs."""
    storage, seats, table = make_table(players=3, round_size=18, dealer=1, trump=H)
    mine = [card(10, C), W2]
    pool = [card(r, C) for r in (3, 11)] + [card(r, D) for r in (4, 9, 13)] + [card(7, S), card(5, H), J2]
    turned = card(2, H)
    led = card(12, S)
    seats[0]["hand"] = mask(mine)
    table["trump_card"] = turned
    table["played"] = ((1 << 60) - 1) & ~mask(mine + pool + [turned])
    table["trick"] = 16
    table["leader"] = 2
    table["n_in_trick"] = 1
    table["trick_cards"][0] = led
    table["led_suit"] = S
    table["n_bids"] = 3
    storage["voids"][0][1:3] = [1 << D, 1 << C]
    return storage, seats, pool


def exact_marginals(storage, pool, players, me_seat):
    """P(card in seat) over all deals of `pool` consistent with the counts and voids, each
    equally likely (enumerated)."""
    table = storage[0]
    others = [s for s in range(players) if s != me_seat]
    needs = [posterior.cards_left(table, s) for s in others]
    allowed = [allowed_by_voids(int(storage["voids"][0][s])) for s in others]
    counts = np.zeros((len(others), 60))
    total = 0

    def deal(index, remaining, hands):
        nonlocal total
        if index == len(others):
            total += 1
            for i, hand in enumerate(hands):
                counts[i, list(hand)] += 1
            return
        candidates = [c for c in remaining if (allowed[index] >> c) & 1]
        for hand in itertools.combinations(candidates, needs[index]):
            deal(index + 1, [c for c in remaining if c not in hand], hands + [hand])

    deal(0, list(pool), [])
    return others, counts / total


@pytest.mark.parametrize("state", [last_round_state, mid_trick_state])
def test_constrained_sampler_matches_the_exact_distribution(state):
    """With voids on several seats, each (seat, card) frequency is within SIGMAS of its exact
    probability over the consistent deals, and no sample breaks a count or a void. (Dealing
    seat by seat without the sampler's acceptance step is 7 sigma off in the mid-trick state.)"""
    storage, seats, pool = state()
    players = int(storage[0]["n_players"])
    me = seats[0]
    n_samples = 8000
    samples = sampled_hands(me, storage[0], n_samples, seed=3)
    check_samples(samples, me, storage, players)
    others, exact = exact_marginals(storage, pool, players, 0)
    counts = seat_card_counts(samples, others)
    z = z_scores(counts[:, pool], n_samples, exact[:, pool])
    assert np.abs(z).max() < SIGMAS, f"worst cell {np.abs(z).max():.1f} sigma off"
    forced = exact[:, pool] == 1.0
    assert (counts[:, pool][forced] == n_samples).all()


def test_sampler_respects_voids_in_played_out_rounds():
    """States from real rounds (mc seats everywhere, voids shown as they come, asked by mc's
    own kernel: no other search compiled): every sample from the seat about to play keeps
    counts and voids."""
    players = 4
    rules = sim.Rules(players=players)
    policies = policies_for(FAST_MC, players)
    checked_voids = 0
    for game, r in enumerate((6, 11, 15)):
        storage, seats, generator = started_round(rules, policies, 8, game, r, dealer=game)
        table = storage[0]
        while table["phase"] != st.PHASE_DONE:
            seat = R.current_seat(table)
            if table["phase"] == st.PHASE_PLAY:
                samples = sampled_hands(seats[seat], table, 20, seed=int(table["n_in_trick"]))
                check_samples(samples, seats[seat], storage, players)
                checked_voids += int(storage["voids"][0][:players].astype(bool).sum())
            legal = R.legal_actions(table, seats)
            R.apply_action(table, seats, mc_decide(policies, int(table["phase"]), seats[seat], table, legal, generator))
    assert checked_voids > 0


# ------------------------------------------------------------------------------ card choices


def test_distinct_cards_keep_one_card_of_each_equivalent_run():
    storage, seats, table = make_table(players=4, round_size=8, trump=H)
    hand = [card(5, C), card(6, C), card(8, C), card(9, C), card(2, D), W1, W2, J1, J2]
    seats[0]["hand"] = mask(hand)
    table["played"] = mask([card(7, C)])  # 7C gone: 5C..9C is one run, 5C and 6C already were
    distinct = distinct_cards(mask(hand), in_play_for_seat(seats[0], table))
    assert cards_of(distinct) == [card(5, C), card(2, D), W1, J1]
    assert representative(card(9, C), distinct) == card(5, C)
    assert representative(W2, distinct) == W1
    table["played"] = 0  # 7C may be elsewhere: two runs
    distinct = distinct_cards(mask(hand), in_play_for_seat(seats[0], table))
    assert cards_of(distinct) == [card(5, C), card(8, C), card(2, D), W1, J1]
    assert representative(card(9, C), distinct) == card(8, C)
    table["played"] = mask([card(7, C)])  # 7C on the current trick: 5C/6C lose to it, 8C wins
    table["trick_cards"][0] = card(7, C)
    table["n_in_trick"] = 1
    distinct = distinct_cards(mask(hand), in_play_for_seat(seats[0], table))
    assert cards_of(distinct) == [card(5, C), card(8, C), card(2, D), W1, J1]


# ------------------------------------------------------------------------------ strength


def test_mc_beats_the_heuristic_on_five_card_rounds():
    """Duplicate play of round 5 (each deal in the 4 rotations of mc, heuristic x2, random):
    mc's mean round score beats the heuristic's by more than 4 standard errors."""
    seats = ["mc:samples=8,play_samples=4", "heuristic", "heuristic", "random"]
    deals = np.arange(400)
    mc_score = np.zeros(deals.shape[0])
    heuristic_score = np.zeros(deals.shape[0])
    for k in range(4):
        rotation = [seats[(s + k) % 4] for s in range(4)]
        batch = sim.run_games(sim.Rules(players=4, rounds=(5,)), rotation, seed=13, game_ids=deals)
        totals = batch.games["total"].astype(np.float64)
        for seat, name in enumerate(rotation):
            if name.startswith("mc"):
                mc_score += totals[:, seat] / 4
            elif name == "heuristic":
                heuristic_score += totals[:, seat] / 8
    diff = mc_score - heuristic_score
    standard_error = diff.std(ddof=1) / math.sqrt(diff.shape[0])
    assert diff.mean() > 4 * standard_error, f"mc - heuristic = {diff.mean():.1f} +- {standard_error:.1f}"


def test_mc_inference_models_the_heuristic_seats_by_their_parameters_and_no_other_seat():
    """infer=1: a seat playing the heuristic is modelled as bidding like it, with its own
    parameters; the bids of seats playing anything else (random, mc) are taken to say nothing."""
    rules = sim.Rules(players=4)
    policies = policies_for("mc:samples=2,play_samples=2,infer=1,heuristic:aggression=1.1,random,mc", 4)
    storage, seats, generator = started_round(rules, policies, 3, 0, 5, dealer=3)
    memory = mc.new_decision_memory()
    mc.start_sampling(policies, seats[0], storage[0], memory[0], generator)
    model = memory[0]["model"]
    assert list(model["kind"][:4][1:]) == [posterior.OPPONENT_HEURISTIC, posterior.OPPONENT_UNINFORMATIVE, posterior.OPPONENT_UNINFORMATIVE]
    params = policies.params
    assert np.array_equal(model["params"][1], params[1])
    assert not np.array_equal(params[1], mc.ROLLOUT_PARAMS[1])  # aggression 1.1: not the rollouts' row
    assert model["spread"] == 0.0  # the default: the heuristic seats exactly
