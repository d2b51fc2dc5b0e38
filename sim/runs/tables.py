"""Arrow tables of a GameBatch, in the public data contract (docs/data.md)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from kernels.columns import fill_round_columns
from sim.engine.startup import start
from sim.runs.games import GameBatch
from sim.storage.parts import table_names  # noqa: F401 (the tables of a run, by its log_plays)


def _schema(fields: list[tuple[str, pa.DataType]]) -> pa.Schema:
    """Every column of a run's tables has a value in every row: declared so, a part is written
    without definition levels (about a third of the time of writing it, sim/storage/parts.py)."""
    return pa.schema([pa.field(name, type_, nullable=False) for name, type_ in fields])


ROUNDS_SCHEMA = _schema(
    [
        ("game_id", pa.int64()),
        ("round", pa.int8()),
        ("seat", pa.int8()),
        ("dealer", pa.int8()),
        ("policy", pa.dictionary(pa.int8(), pa.string())),
        ("hand", pa.int64()),
        ("trump_card", pa.int8()),
        ("trump", pa.int8()),
        ("bid", pa.int8()),
        ("bid_order", pa.int8()),
        ("tricks", pa.int8()),
        ("score", pa.int16()),
        ("total", pa.int32()),
    ]
)
GAMES_SCHEMA = _schema(
    [
        ("game_id", pa.int64()),
        ("seat", pa.int8()),
        ("policy", pa.dictionary(pa.int8(), pa.string())),
        ("total", pa.int32()),
        ("winner", pa.bool_()),
    ]
)
PLAYS_SCHEMA = _schema(
    [
        ("game_id", pa.int64()),
        ("round", pa.int8()),
        ("trick", pa.int8()),
        ("position", pa.int8()),
        ("seat", pa.int8()),
        ("card", pa.int8()),
        ("winner", pa.int8()),
    ]
)


TOURNAMENT_FIELDS = [("deal_id", pa.int64()), ("rotation", pa.int8())]
LEAGUE_FIELDS = [*TOURNAMENT_FIELDS, ("table_id", pa.int32())]


def with_deal_fields(schema: pa.Schema, fields: list = TOURNAMENT_FIELDS) -> pa.Schema:
    """The schema plus deal_id and rotation (and a league's table_id) after game_id."""
    for offset, (name, type_) in enumerate(fields):
        schema = schema.insert(1 + offset, pa.field(name, type_, nullable=False))
    return schema


def batch_tables(batch: GameBatch, log_plays: bool) -> dict[str, pa.Table]:
    """Every table of a run (table_names) for one batch of its games."""
    builders = {"rounds": rounds_table, "games": games_table, "plays": plays_table}
    return {name: builders[name](batch) for name in table_names(log_plays)}


def _policy_dictionary(batch: GameBatch) -> tuple[list[str], np.ndarray]:
    """The sorted policy labels and, per game and seat, the code of the seated policy."""
    labels = [policy.label for policy in batch.policies]
    dictionary = sorted(set(labels))
    codes = np.array([dictionary.index(label) for label in labels], dtype=np.int8)
    return dictionary, np.ascontiguousarray(codes[batch.seating])  # [games, seats]


def _dictionary_array(codes: np.ndarray, dictionary: list[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(dictionary, pa.string()))


def _policy_column(batch: GameBatch, rows_per_seat_game: int) -> pa.DictionaryArray:
    """Policy labels of every row: rows are ordered game, [round or play...], seat."""
    dictionary, seat_codes = _policy_dictionary(batch)
    n_games, n_players = seat_codes.shape
    per_row = np.broadcast_to(seat_codes[:, None, :], (n_games, rows_per_seat_game, n_players)).ravel()
    return _dictionary_array(per_row, dictionary)


def _table(columns: dict, schema: pa.Schema, batch: GameBatch, rows_per_game: int) -> pa.Table:
    if batch.deal_ids is not None:
        league = batch.table_ids is not None
        schema = with_deal_fields(schema, LEAGUE_FIELDS if league else TOURNAMENT_FIELDS)
        columns = {
            "game_id": columns.pop("game_id"),
            "deal_id": np.repeat(batch.deal_ids, rows_per_game),
            "rotation": np.repeat(batch.rotations, rows_per_game),
            **({"table_id": np.repeat(batch.table_ids, rows_per_game)} if league else {}),
            **columns,
        }
    return pa.Table.from_pydict(columns, schema=schema)


def rounds_table(batch: GameBatch) -> pa.Table:
    """One row per game x round x seat (filled in one pass by kernels.columns)."""
    n_games, n_rounds, n_players = batch.seats.shape
    n_rows = n_games * n_rounds * n_players
    columns = {
        field.name: np.empty(n_rows, dtype=np.int8 if field.name == "policy" else field.type.to_pandas_dtype())
        for field in ROUNDS_SCHEMA
    }
    dictionary, seat_codes = _policy_dictionary(batch)
    start()  # a Dask run's client writes tables of chunks computed elsewhere
    fill_round_columns(
        np.ascontiguousarray(batch.game_ids, dtype=np.int64),
        np.array(batch.rules.round_sizes, dtype=np.int8),
        batch.rounds,
        batch.seats,
        seat_codes,
        tuple(columns.values()),
    )
    columns["policy"] = _dictionary_array(columns["policy"], dictionary)
    return _table(columns, ROUNDS_SCHEMA, batch, n_rounds * n_players)


def games_table(batch: GameBatch) -> pa.Table:
    """One row per game x seat."""
    n_games, n_players = batch.games.shape
    seat = np.tile(np.arange(n_players, dtype=np.int8), n_games)
    columns = {
        "game_id": np.repeat(batch.game_ids, n_players),
        "seat": seat,
        "policy": _policy_column(batch, 1),
        "total": batch.games["total"].ravel(),
        "winner": batch.games["winner"].ravel(),
    }
    return _table(columns, GAMES_SCHEMA, batch, n_players)


def plays_table(batch: GameBatch) -> pa.Table:
    """One row per card played (needs a batch run with log_plays)."""
    n_games, plays_per_game = batch.plays.shape
    n_players = batch.rules.players
    round_of_play, trick, position = [], [], []
    for size in batch.rules.round_sizes:
        count = size * n_players
        round_of_play.append(np.full(count, size, dtype=np.int8))
        trick.append(np.repeat(np.arange(size, dtype=np.int8), n_players))
        position.append(np.tile(np.arange(n_players, dtype=np.int8), size))
    columns = {
        "game_id": np.repeat(batch.game_ids, plays_per_game),
        "round": np.tile(np.concatenate(round_of_play), n_games) if plays_per_game else np.zeros(0, np.int8),
        "trick": np.tile(np.concatenate(trick), n_games) if plays_per_game else np.zeros(0, np.int8),
        "position": np.tile(np.concatenate(position), n_games) if plays_per_game else np.zeros(0, np.int8),
        "seat": batch.plays["seat"].ravel(),
        "card": batch.plays["card"].ravel(),
        "winner": batch.plays["winner"].ravel(),
    }
    return pa.Table.from_pydict(columns, schema=PLAYS_SCHEMA)
