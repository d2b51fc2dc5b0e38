"""Invariants every batch of games must satisfy, whatever the policies: one harness over
players 3..6 x policies random/heuristic, on full games (every round size), with checks
vectorised over the games of a batch."""
import functools

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import reference as ref
import sim
from helpers import round_offsets
from sim.runs import tables
from sim.runs.tournament import TournamentConfig

GAMES = 200
SEED = 31337
SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.int64)
SPECIAL = np.int64(((1 << 8) - 1) << 52)
LED_NONE, LED_FREE = -1, 4

# variant name -> Rules keyword arguments (players added by the harness)
VARIANTS = {
    "default": {},
    "forbidden_fixed_dealer": {"even_bids": "forbidden", "first_dealer": "last"},
    "hidden": {"bidding": "hidden"},
}


def bitcount(values):
    values = np.asarray(values, dtype=np.int64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(values).astype(np.int64)
    return np.vectorize(lambda v: bin(int(v) & (2**64 - 1)).count("1"), otypes=[np.int64])(values)


@functools.lru_cache(maxsize=None)
def batch_for(players, policy, variant):
    kwargs = dict(VARIANTS[variant])
    if kwargs.get("first_dealer") == "last":
        kwargs["first_dealer"] = players - 1
    rules = sim.Rules(players=players, **kwargs)
    return sim.run_games(rules, policy, seed=SEED, games=GAMES, log_plays=True)


def first_dealers(batch):
    rules = batch.rules
    if rules.first_dealer == "draw":
        return np.array([ref.draw_first_dealer(batch.seed, int(g), rules.players) for g in batch.game_ids])
    return np.full(batch.game_ids.shape[0], int(rules.first_dealer))


HARNESS = pytest.mark.parametrize("variant", list(VARIANTS))
PLAYERS = pytest.mark.parametrize("players", [3, 4, 5, 6])
POLICIES = pytest.mark.parametrize("policy", ["random", "heuristic"])


@pytest.mark.slow
@HARNESS
@POLICIES
@PLAYERS
def test_round_invariants(players, policy, variant):
    """Deal, trump, bids, tricks, scores, totals, dealer and winners of every round."""
    batch = batch_for(players, policy, variant)
    rules = batch.rules
    n = players
    sizes = np.array(rules.round_sizes)
    assert list(sizes) == list(range(1, 60 // n + 1))
    hands = batch.seats["hand"].astype(np.int64)  # (G, R, N)
    g_count, r_count = hands.shape[:2]
    assert batch.seats.shape == (GAMES, len(sizes), n) and batch.rounds.shape == (GAMES, len(sizes))

    # The deal: r cards per hand, no card twice, the turned-up card in no hand.
    assert (bitcount(hands) == sizes[None, :, None]).all()
    union = np.bitwise_or.reduce(hands, axis=2)
    assert (bitcount(union) == n * sizes[None, :]).all(), "a card was dealt twice in a round"
    turned = batch.rounds["trump_card"].astype(np.int64)
    last = n * sizes == 60
    assert (turned[:, last] == -1).all()
    assert ((turned[:, ~last] >= 0) & (turned[:, ~last] < 60)).all()
    shown = np.where(turned >= 0, (union >> np.maximum(turned, 0)) & 1, 0)
    assert (shown == 0).all(), "the turned-up card is in a hand"

    # Trump from the turned-up card.
    trump = batch.rounds["trump"].astype(np.int64)
    suited = (turned >= 0) & (turned < 52)
    wizard = (turned >= 52) & (turned < 56)
    jester_or_none = (turned == -1) | (turned >= 56)
    assert (trump[suited] == turned[suited] // 13).all()
    assert ((trump[wizard] >= 0) & (trump[wizard] <= 3)).all()
    assert (trump[jester_or_none] == -1).all()
    assert ((trump == -1) == jester_or_none).all()

    # Dealer rotation from the first dealer.
    first = first_dealers(batch)
    assert (batch.rounds["dealer"] == (first[:, None] + sizes[None, :] - 1) % n).all()

    # Bids, tricks, scores, totals.
    bids = batch.seats["bid"].astype(np.int64)
    tricks = batch.seats["tricks"].astype(np.int64)
    assert ((bids >= 0) & (bids <= sizes[None, :, None])).all()
    assert (tricks >= 0).all() and (tricks.sum(axis=2) == sizes[None, :]).all()
    if rules.even_bids == "forbidden":
        assert (bids.sum(axis=2) != sizes[None, :]).all(), "bids add up to r under even_bids=forbidden"
    expected_score = np.where(bids == tricks, 20 + 10 * tricks, -10 * np.abs(bids - tricks))
    assert (batch.seats["score"] == expected_score).all()
    totals = batch.seats["total"].astype(np.int64)
    assert (totals == np.cumsum(expected_score, axis=1)).all()
    final = batch.games["total"].astype(np.int64)
    assert (final == totals[:, -1, :]).all()
    assert (batch.games["winner"] == (final == final.max(axis=1, keepdims=True))).all()
    assert batch.games["winner"].any(axis=1).all()


@pytest.mark.slow
@HARNESS
@POLICIES
@PLAYERS
def test_play_invariants(players, policy, variant):
    """Every play: the right seat in turn, a card of its hand, legal under follow-suit and
    inside its logged legal mask; each trick's winner leads the next; winners count tricks."""
    batch = batch_for(players, policy, variant)
    rules = batch.rules
    n = players
    games = np.arange(GAMES)
    assert batch.plays.shape == (GAMES, rules.plays_per_game())
    for k, (r, offset) in enumerate(zip(rules.round_sizes, round_offsets(rules))):
        plays = batch.plays[:, offset : offset + n * r].reshape(GAMES, r, n)
        cards = plays["card"].astype(np.int64)
        seats = plays["seat"].astype(np.int64)
        legal = plays["legal"].astype(np.int64)
        winners = plays["winner"].astype(np.int64)
        remaining = batch.seats["hand"][:, k, :].astype(np.int64).copy()
        leader = (batch.rounds["dealer"][:, k].astype(np.int64) + 1) % n
        won = np.zeros((GAMES, n), dtype=np.int64)
        for t in range(r):
            led = np.full(GAMES, LED_NONE)
            for position in range(n):
                seat = seats[:, t, position]
                card = cards[:, t, position]
                assert (seat == (leader + position) % n).all(), f"round {r} trick {t}: seat out of turn"
                hand = remaining[games, seat]
                bit = np.int64(1) << card
                assert (hand & bit != 0).all(), f"round {r} trick {t}: card not in hand"
                assert (legal[:, t, position] & bit != 0).all(), f"round {r} trick {t}: card outside its legal mask"
                assert (legal[:, t, position] & ~hand == 0).all(), f"round {r} trick {t}: legal mask outside hand"
                # Follow suit (docs/rules.md §5), recomputed from the cards played so far.
                must = np.where((led >= 0) & (led < 4), SUIT_MASKS[np.clip(led, 0, 3)], 0)
                follows = hand & must
                expected = np.where(follows != 0, follows | (hand & SPECIAL), hand)
                assert (legal[:, t, position] == expected).all(), f"round {r} trick {t}: wrong legal mask"
                remaining[games, seat] = hand & ~bit
                is_jester = card >= 56
                led = np.where((led == LED_NONE) & ~is_jester, np.where(card >= 52, LED_FREE, card // 13), led)
            assert (winners[:, t, :] == winners[:, t, :1]).all(), "the winner differs within a trick"
            winner = winners[:, t, 0]
            assert ((winner >= 0) & (winner < n)).all()
            won[games, winner] += 1
            leader = winner  # the next trick's seat check verifies the winner leads it
        assert (remaining == 0).all(), f"round {r}: a seat did not play its whole hand"
        assert (won == batch.seats["tricks"][:, k, :]).all(), f"round {r}: tricks differ from trick winners"


def test_hidden_and_delayed_rules_allow_even_bids():
    """With hidden/delayed bidding bids may sum to r (no last-bidder restriction exists)."""
    for bidding in ("hidden", "delayed"):
        batch = sim.run_games(sim.Rules(players=4, bidding=bidding, rounds=(1,)), "random", seed=5, games=300)
        assert (batch.seats["bid"].astype(int).sum(axis=2) == 1).any()


# ----------------------------------------------------------------------- tables of sim/runs/tables.py


@POLICIES
@PLAYERS
def test_tables_schema_and_row_counts(players, policy):
    batch = batch_for(players, policy, "default")
    n, sizes = players, batch.rules.round_sizes
    rounds = tables.rounds_table(batch)
    games = tables.games_table(batch)
    plays = tables.plays_table(batch)
    assert rounds.schema.equals(tables.ROUNDS_SCHEMA)
    assert games.schema.equals(tables.GAMES_SCHEMA)
    assert plays.schema.equals(tables.PLAYS_SCHEMA)
    assert rounds.num_rows == GAMES * len(sizes) * n
    assert games.num_rows == GAMES * n
    assert plays.num_rows == GAMES * n * sum(sizes)

    df = rounds.to_pandas()
    assert (df["hand"].to_numpy() == batch.seats["hand"].ravel()).all()
    assert (df["bid"].to_numpy() == batch.seats["bid"].ravel()).all()
    assert (df["total"].to_numpy() == batch.seats["total"].ravel()).all()
    assert (df["round"].to_numpy().reshape(GAMES, len(sizes), n) == np.array(sizes)[None, :, None]).all()
    assert (df["seat"].to_numpy().reshape(GAMES, len(sizes), n) == np.arange(n)).all()
    assert (df["bid_order"] == (df["seat"].astype(int) - df["dealer"].astype(int) - 1) % n).all()
    assert (df["policy"].astype(str) == policy).all()
    assert (df["game_id"].to_numpy().reshape(GAMES, -1) == batch.game_ids[:, None]).all()

    dp = plays.to_pandas()
    assert (dp["card"].to_numpy() == batch.plays["card"].ravel()).all()
    assert (dp["seat"].to_numpy() == batch.plays["seat"].ravel()).all()
    first_game = dp[dp["game_id"] == batch.game_ids[0]]
    assert len(first_game) == n * sum(sizes)
    for r in sizes:
        of_round = first_game[first_game["round"] == r]
        assert len(of_round) == n * r
        assert list(of_round["trick"]) == [t for t in range(r) for _ in range(n)]
        assert list(of_round["position"]) == list(range(n)) * r


def test_tables_read_back_through_pandas(tmp_path):
    """The three tables written as Parquet read back through pandas with the same values and
    the schema's dtypes (a dictionary column becomes a category)."""
    batch = sim.run_games(
        sim.Rules(players=4, rounds=(1, 2, 15)),
        "heuristic:aggression=1.2,random,heuristic,random",
        seed=8,
        games=25,
        log_plays=True,
    )
    for name, build, schema in (
        ("rounds", tables.rounds_table, tables.ROUNDS_SCHEMA),
        ("games", tables.games_table, tables.GAMES_SCHEMA),
        ("plays", tables.plays_table, tables.PLAYS_SCHEMA),
    ):
        table = build(batch)
        path = tmp_path / f"{name}.parquet"
        pq.write_table(table, path)
        df = pd.read_parquet(path)
        assert list(df.columns) == schema.names
        assert len(df) == table.num_rows
        for field in schema:
            column = df[field.name]
            if pa.types.is_dictionary(field.type):
                assert isinstance(column.dtype, pd.CategoricalDtype)
                assert list(column.astype(str)) == table.column(field.name).to_pylist()
            else:
                assert column.dtype == np.dtype(field.type.to_pandas_dtype()), field.name
                assert (column.to_numpy() == table.column(field.name).to_numpy()).all(), field.name
    games = pd.read_parquet(tmp_path / "games.parquet")
    assert list(games["policy"].astype(str)[:4]) == ["heuristic:aggression=1.2", "random", "heuristic", "random"]


def test_plays_table_without_logged_plays_is_empty():
    batch = sim.run_games(sim.Rules(players=3, rounds=(1, 2)), "random", seed=1, games=4)
    assert batch.plays.shape == (4, 0)
    table = tables.plays_table(batch)
    assert table.num_rows == 0 and table.schema.equals(tables.PLAYS_SCHEMA)


def naive_round_rows(batch) -> list[tuple]:
    """The rounds table's rows straight from the result records, one Python tuple per row."""
    labels = [policy.label for policy in batch.policies]
    rows = []
    n_games, n_rounds, n_players = batch.seats.shape
    for g in range(n_games):
        for r in range(n_rounds):
            round_result = batch.rounds[g, r]
            dealer = int(round_result["dealer"])
            for s in range(n_players):
                seat = batch.seats[g, r, s]
                rows.append((
                    int(batch.game_ids[g]), batch.rules.round_sizes[r], s, dealer,
                    labels[int(batch.seating[g, s])], int(seat["hand"]), int(round_result["trump_card"]),
                    int(round_result["trump"]), int(seat["bid"]), (s - dealer - 1) % n_players,
                    int(seat["tricks"]), int(seat["score"]), int(seat["total"]),
                ))
    return rows


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_rounds_table_matches_the_records_row_by_row(players):
    """kernels.columns fills every column of every row as a plain reading of the records says."""
    batch = sim.run_games(
        sim.Rules(players=players, rounds=(1, 2, 60 // players)),
        (["heuristic:aggression=1.2", "random", "heuristic"] * 2)[:players],
        seed=players,
        games=40,
    )
    table = tables.rounds_table(batch)
    rows = list(zip(*(table.column(name).to_pylist() for name in tables.ROUNDS_SCHEMA.names)))
    assert rows == naive_round_rows(batch)


def test_rounds_table_of_a_tournament_matches_the_records(tmp_path):
    """Rotated seating (the policy of a seat changes from game to game) and deal ids."""
    config = TournamentConfig.build(
        sim.Rules(players=4, rounds=(3, 7)), "heuristic,random,random,random", seed=2, deals=10
    )
    batch = config.compute_chunk(0, 10, threads=1)
    table = tables.rounds_table(batch)
    names = [name for name in table.column_names if name not in ("deal_id", "rotation")]
    rows = list(zip(*(table.column(name).to_pylist() for name in names)))
    assert rows == naive_round_rows(batch)
    assert table.column("deal_id").to_pylist() == list(np.repeat(batch.deal_ids, 2 * 4))
