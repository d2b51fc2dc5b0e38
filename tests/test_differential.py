"""Differential tests: the numba kernels (through sim.run_games) against the independent
pure-Python reference engine tests/reference.py, card by card.

All-`random` tables are replayed in full by reference.play_game (same streams, same random
decisions). Tables with `heuristic` seats are checked round by round: the deal against
reference.deal_round, every play against reference.replay_round, and every decision of a
`random` seat against the round's DECISIONS stream (a deterministic seat draws nothing).
"""
import numpy as np
import pytest

import reference as ref
import sim
from helpers import cards_of, iter_rounds, mixed_policy, round_offsets
from kernels.policies import heuristic

PLAYERS = [3, 4, 5, 6]
SEEDS = [0, 20240601, 2**63 - 1]  # the largest seed the contract allows
GAMES = 4

# (bidding, even_bids, first_dealer)
MODES = [
    ("open", "allowed", "draw"),
    ("open", "forbidden", "draw"),
    ("open", "leader", "draw"),
    ("hidden", "allowed", "draw"),
    ("delayed", "allowed", "draw"),
    ("open", "leader", 1),
    ("delayed", "allowed", 2),
]


def mode_id(mode):
    return "-".join(str(part) for part in mode)


def compare_random_game(batch, g, expected):
    """Every field of game row g of `batch` against reference.play_game's record."""
    rules = batch.rules
    n = rules.players
    game = int(batch.game_ids[g])
    where = f"seed {batch.seed} game {game}"
    assert int(batch.rounds[g, 0]["dealer"]) == (expected["first_dealer"] + rules.round_sizes[0] - 1) % n, where
    offsets = round_offsets(rules)
    for k, (r, exp) in enumerate(zip(rules.round_sizes, expected["rounds"])):
        at = f"{where} round {r}"
        assert exp["round"] == r
        rnd = batch.rounds[g, k]
        seats = batch.seats[g, k]
        assert int(rnd["dealer"]) == exp["dealer"], at
        assert [cards_of(seats[s]["hand"]) for s in range(n)] == exp["hands"], at
        assert int(rnd["trump_card"]) == exp["trump_card"], at
        assert int(rnd["trump"]) == exp["trump"], at
        assert [int(b) for b in seats["bid"]] == exp["bids"], at
        plays = batch.plays[g, offsets[k] : offsets[k] + n * r]
        assert len(exp["plays"]) == n * r
        for i, (play, exp_play) in enumerate(zip(plays, exp["plays"])):
            trick, position = divmod(i, n)
            pat = f"{at} trick {trick} position {position}"
            assert (int(play["seat"]), int(play["card"])) == (exp_play["seat"], exp_play["card"]), pat
            assert cards_of(play["legal"]) == exp_play["legal"], pat
            assert int(play["winner"]) == exp["trick_winners"][trick], pat
        assert [int(t) for t in seats["tricks"]] == exp["tricks"], at
        assert [int(x) for x in seats["score"]] == exp["scores"], at
        assert [int(x) for x in seats["total"]] == exp["totals"], at
    assert [int(t) for t in batch.games[g]["total"]] == expected["totals"], where
    assert [bool(w) for w in batch.games[g]["winner"]] == expected["winners"], where


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES, ids=mode_id)
@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_match_reference(players, mode):
    """Full games (every round size 1..60/N) of all-random tables equal the reference games."""
    bidding, even_bids, first_dealer = mode
    rules = sim.Rules(players=players, bidding=bidding, even_bids=even_bids, first_dealer=first_dealer)
    for seed in SEEDS:
        batch = sim.run_games(rules, "random", seed=seed, games=GAMES, log_plays=True)
        for g in range(GAMES):
            expected = ref.play_game(seed, g, players, rules.round_sizes, bidding, even_bids, first_dealer)
            compare_random_game(batch, g, expected)


@pytest.mark.parametrize("players", PLAYERS)
def test_random_games_with_a_subset_of_rounds_match_reference(players):
    """A game that plays only some round sizes (score pad and leader rule over those rounds)."""
    last = 60 // players
    rounds = (2, last // 2 + 1, last)
    rules = sim.Rules(players=players, rounds=rounds, even_bids="leader")
    first_game = 10**12  # large game ids too
    batch = sim.run_games(rules, "random", seed=77, first_game=first_game, games=3, log_plays=True)
    for g in range(3):
        expected = ref.play_game(77, first_game + g, players, rules.round_sizes, "open", "leader", "draw")
        compare_random_game(batch, g, expected)


@pytest.mark.parametrize("players", PLAYERS)
def test_first_dealer_draw_matches_reference(players):
    """The first dealer (round 1's dealer) of many games equals reference.draw_first_dealer."""
    rules = sim.Rules(players=players, rounds=(1,))
    batch = sim.run_games(rules, "random", seed=3, games=400)
    got = [int(d) for d in batch.rounds[:, 0]["dealer"]]
    assert got == [ref.draw_first_dealer(3, g, players) for g in range(400)]


def test_sim_draw_first_dealer_matches_reference():
    """The public sim.draw_first_dealer against the reference draw."""
    for players in PLAYERS:
        for game in range(0, 300, 7):
            assert sim.draw_first_dealer(11, game, players) == ref.draw_first_dealer(11, game, players)


# ------------------------------------------------------------------- heuristic and mixed tables


def check_round_against_reference(batch, g, k, r, plays, first, totals_before):
    """One round of a table with any policies: the deal, dealer, trump, the legality and
    effect of every play, the scores, and every decision of the `random` seats."""
    rules = batch.rules
    n = rules.players
    seed, game = batch.seed, int(batch.game_ids[g])
    at = f"seed {seed} game {game} round {r}"
    policies = [p.name for p in batch.policies]
    rnd = batch.rounds[g, k]
    seats = batch.seats[g, k]

    hands, turned = ref.deal_round(seed, game, n, r)
    assert [cards_of(seats[s]["hand"]) for s in range(n)] == hands, at
    assert int(rnd["trump_card"]) == turned, at
    dealer = (first + r - 1) % n
    assert int(rnd["dealer"]) == dealer, at

    stream = ref.Stream(seed, game, r, ref.STREAM_DECISIONS)
    trump = ref.trump_from_turned_card(turned)
    if trump == "dealer_chooses":
        if policies[dealer] == "random":
            trump = stream.below(4)
        else:
            trump = int(heuristic.choose_trump(np.int64(ref_mask(hands[dealer]))))
    assert int(rnd["trump"]) == trump, at

    bids = [int(b) for b in seats["bid"]]
    earlier = []
    for position in range(n):
        seat = (dealer + 1 + position) % n
        options = ref.legal_bids(
            r, earlier, position == n - 1, rules.even_bids, ref.is_sole_leader(totals_before, seat)
        )
        assert bids[seat] in options, f"{at}: seat {seat} bid {bids[seat]} not in {options}"
        if policies[seat] == "random":
            assert bids[seat] == options[stream.below(len(options))], f"{at}: random bid of seat {seat}"
        earlier.append(bids[seat])

    cards = [int(c) for c in plays["card"]]
    replay = ref.replay_round(n, dealer, hands, trump, bids, cards)
    assert [int(s) for s in plays["seat"]] == replay["seats"], at
    assert [cards_of(m) for m in plays["legal"]] == replay["legal"], at
    assert [int(w) for w in plays["winner"][::n]] == replay["trick_winners"], at
    assert all(len(set(plays["winner"][t * n : (t + 1) * n])) == 1 for t in range(r)), at
    assert [int(t) for t in seats["tricks"]] == replay["tricks"], at
    assert [int(x) for x in seats["score"]] == replay["scores"], at
    totals = [totals_before[s] + replay["scores"][s] for s in range(n)]
    assert [int(x) for x in seats["total"]] == totals, at
    for seat, card, legal in zip(replay["seats"], cards, replay["legal"]):
        if policies[seat] == "random":
            assert card == legal[stream.below(len(legal))], f"{at}: random card of seat {seat}"
    return totals


def ref_mask(cards):
    value = 0
    for c in cards:
        value |= 1 << c
    return value


MIXED_MODES = [("open", "allowed"), ("open", "forbidden"), ("open", "leader"), ("hidden", "allowed"), ("delayed", "allowed")]


@pytest.mark.slow
@pytest.mark.parametrize("mode", MIXED_MODES, ids=lambda m: "-".join(m))
@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("table", ["mixed", "swapped", "heuristic"])
def test_heuristic_and_mixed_tables_replay_in_reference(table, players, mode):
    bidding, even_bids = mode
    policy = {
        "mixed": mixed_policy(players),
        "swapped": mixed_policy(players, "random", "heuristic"),
        "heuristic": "heuristic",
    }[table]
    rules = sim.Rules(players=players, bidding=bidding, even_bids=even_bids)
    seed = 4242
    batch = sim.run_games(rules, policy, seed=seed, games=3, log_plays=True)
    totals = {}
    for g, k, r, plays in iter_rounds(batch):
        if k == 0:
            totals[g] = [0] * players
        first = ref.draw_first_dealer(seed, int(batch.game_ids[g]), players)
        totals[g] = check_round_against_reference(batch, g, k, r, plays, first, totals[g])
    for g in totals:
        assert [int(t) for t in batch.games[g]["total"]] == totals[g]
        assert [bool(w) for w in batch.games[g]["winner"]] == ref.game_winners(totals[g])
