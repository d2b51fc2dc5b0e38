"""A run's record (run.json): its configuration, fingerprint and totals, and its validation.

run.json is small and written at the start, on resume and at the end. A directory is a run
only if its run.json is a valid run record ("format": "wizard-sim run", "format_version",
every field of the right type, the fingerprint matching the configuration).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import uuid

import numba
import numpy as np
import pyarrow as pa

from sim.config.version import __version__
from sim.storage.errors import EditedRecord, NewerFormat, NotARunRecord

RUN_FILE = "run.json"
RUN_FORMAT = "wizard-sim run"
# 3: every journal line holds the checksum of each of its parts (docs/data.md).
# A run of format 2 (sizes and row counts only) is still read, verified without content
# checksums, and resumed as format 2.
# 4: every journal line ends with the checksum of the rest of it (its figures are vouched for).
# A run of format 3 is read, verified (its figures said to be unvouched) and resumed as format 3.
FORMAT_VERSION = 4
READ_FORMATS = (2, 3, 4)
CHECKSUM_FORMAT = 3  # the first format whose journal lines must hold checksums
LINE_CHECKSUM_FORMAT = 4  # the first format whose journal lines must each carry their own checksum
LEGACY_FORMAT = 1  # run.json before the format marker: recognised for overwriting only
# The commands that write runs, and the fields of their configuration that give a run's size:
# (units of the run, units per chunk), recorded again as chunks.total and chunks.games.
SIZE_FIELDS = {
    "simulate": ("games", "chunk_games"),
    "tournament": ("deals", "chunk_deals"),
    "league": ("deals", "chunk_deals"),
}
COMMANDS = tuple(SIZE_FIELDS)


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def versions() -> dict[str, str]:
    return {"wizard_sim": __version__, "numba": numba.__version__, "numpy": np.__version__, "pyarrow": pa.__version__}


def new_run_id() -> str:
    return uuid.uuid4().hex


def fingerprint(command: str, config: dict) -> str:
    """What a run's data is a pure function of, hashed: stored in run.json and in every part."""
    text = json.dumps({"command": command, "config": config}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def chunk_ranges(games: int, chunk_games: int) -> list[tuple[int, int]]:
    """(first game, number of games) of every chunk of a run."""
    return [(first, min(chunk_games, games - first)) for first in range(0, games, chunk_games)]


def chunk_range(games: int, chunk_games: int, index: int) -> tuple[int, int]:
    """(first game, number of games) of chunk `index`, without listing the others."""
    first = index * chunk_games
    return first, min(chunk_games, games - first)


def chunk_count(games: int, chunk_games: int) -> int:
    return -(-games // chunk_games)


def is_count(value: object, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def is_parameter_record(value: object) -> bool:
    """Whether `value` has the form of run.json's policy_parameters: {label: {name: number}}
    (a learned policy's: {label: {"model_sha256": text}})."""
    return isinstance(value, dict) and all(
        isinstance(parameters, dict)
        and all(isinstance(number, (int, float, str)) and not isinstance(number, bool) for number in parameters.values())
        for parameters in value.values()
    )


def has_checksums(record: dict) -> bool:
    """Whether every journal line of the run must hold its parts' checksums."""
    return record["format_version"] >= CHECKSUM_FORMAT


def has_line_checksums(record: dict) -> bool:
    """Whether every journal line of the run must carry its own checksum."""
    return record["format_version"] >= LINE_CHECKSUM_FORMAT


def validate_record(record: object, where: str) -> dict:
    """`record` (parsed run.json) if it is a wizard-sim run record, else a StorageError naming
    the first problem. A format-1 record (before the format marker) is returned as it is when
    it has exactly the fields of format 1 (it can be overwritten, not resumed)."""

    def bad(problem: str) -> NotARunRecord:
        return NotARunRecord(where, problem)

    if not isinstance(record, dict):
        raise bad(f"it holds a JSON {type(record).__name__}, not an object")
    if record.get("format") == LEGACY_FORMAT and "format_version" not in record:
        keys = set(record)
        required = {"format", "command", "config", "versions", "started", "finished", "chunks"}
        chunks = record.get("chunks")
        if (
            not required <= keys <= required | {"resumed"}
            or record["command"] not in COMMANDS
            or not isinstance(record["config"], dict)
            or not isinstance(chunks, dict)
            or set(chunks) != {"count", "total", "games", "complete"}
        ):
            raise bad("format 1 without its exact fields")
        return record
    if record.get("format") != RUN_FORMAT:
        raise bad(f"no \"format\": \"{RUN_FORMAT}\"")
    version = record.get("format_version")
    if not is_count(version, 1):
        raise bad("no format_version")
    if version > FORMAT_VERSION:
        raise NewerFormat(where, version, FORMAT_VERSION)
    if version not in READ_FORMATS:
        raise bad(f"format_version {version} is not one of {', '.join(map(str, READ_FORMATS))}")
    types_of = {
        "command": str, "fingerprint": str, "run_id": str, "config": dict, "versions": dict,
        "started": str, "chunks": dict,
    }  # fmt: skip
    for key, kind in types_of.items():
        if not isinstance(record.get(key), kind):
            raise bad(f"{key!r} is missing or not a {kind.__name__}")
    if record["command"] not in COMMANDS:
        raise bad(f"unknown command {record['command']!r}")
    if record.get("finished") is not None and not isinstance(record["finished"], str):
        raise bad("'finished' is not null or a time")
    resumed = record.get("resumed", [])
    if not isinstance(resumed, list) or not all(isinstance(item, str) for item in resumed):
        raise bad("'resumed' is not a list of times")
    if not all(isinstance(value, str) for value in record["versions"].values()):
        raise bad("'versions' holds a value that is not text")
    if "policy_parameters" in record and not is_parameter_record(record["policy_parameters"]):
        raise bad("'policy_parameters' is not an object of policy labels, each an object of numbers (or a model's digest)")
    chunks = record["chunks"]
    for key in ("count", "total", "games"):
        if not is_count(chunks.get(key), 1):
            raise bad(f"chunks.{key} is missing or not a whole number >= 1")
    expected = chunk_count(chunks["total"], chunks["games"])
    if chunks["count"] != expected:
        raise bad(f"chunks.count {chunks['count']} is not the {expected} chunks of {chunks['total']} in chunks of {chunks['games']}")
    # The size its configuration gives (an edited total would be advertised as resumable, then refused).
    total, per_chunk = SIZE_FIELDS[record["command"]]
    config = record["config"]
    if [config.get(total), config.get(per_chunk)] != [chunks["total"], chunks["games"]]:
        raise bad(
            f"chunks.total {chunks['total']} and chunks.games {chunks['games']} are not its configuration's"
            f" {total} {config.get(total)!r} and {per_chunk} {config.get(per_chunk)!r}"
        )
    if record["fingerprint"] != fingerprint(record["command"], record["config"]):
        raise EditedRecord(where)
    return record
