"""A run's part files: DIR/<table>/part-NNNNN.parquet, one per table and chunk.

A part becomes visible only complete: it is written under a hidden temporary name (readers
such as pyarrow.dataset skip names starting with ".") and renamed. Its key-value metadata say
what it is: the run's configuration and fingerprint, its chunk index and row count.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.storage.errors import StorageError
from sim.storage.files import atomic_write, parse_json
from sim.storage.record import is_count

KNOWN_TABLES = ("rounds", "games", "plays")  # every table wizard-sim writes
METADATA_KEY = b"wizard_sim.config"
RUN_KEY = b"wizard_sim.run"  # the run's fingerprint
CHUNK_KEY = b"wizard_sim.chunk"
ROWS_KEY = b"wizard_sim.rows"
PART_DIGITS = 5
PART_NAME = re.compile(r"part-([0-9]{5,})\.parquet")
TEMPORARY_NAME = re.compile(r"\..+\.tmp")

# Encodings and compression chosen by measurement (benchmarks/bench_simulate.py --encodings):
# delta bit-packing writes the small-range integer columns two to three times faster than
# dictionaries at a similar size after lz4 and reads fastest; the random 60-bit hand masks
# gain nothing from any encoding; policy labels repeat, so they keep a dictionary. The plays
# table, eight times the rows of rounds, is written plain: 30% faster to encode than delta
# (19M vs 14M rows/s) for 3.0 instead of 1.5 bytes a row, which keeps --log-plays runs fast.
PLAIN_COLUMNS = {"hand"}
DICTIONARY_COLUMNS = {"policy"}
PLAIN_TABLES = {"plays"}
COMPRESSION = "lz4"
# lz4 saved only 13% of the random hand masks, for 8% of the time spent writing a rounds part.
UNCOMPRESSED_COLUMNS = {"hand"}
# Min/max statistics only on the sorted columns, where they let readers skip row groups by
# game or deal: every row group spans the whole range of the other columns, and computing
# their statistics cost 7% of writing.
STATISTICS_COLUMNS = ["game_id", "deal_id"]


DIGEST_KEY = "sha256"  # a journal line's checksums of its parts (format 3)
DIGEST_DIGITS = 32  # hex digits kept of the SHA-256: 128 bits, as the run fingerprint
_READ_SIZE = 1 << 20


def file_digest(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (its first DIGEST_DIGITS hex digits), read a MiB at a time."""
    digest = hashlib.sha256()
    buffer = bytearray(_READ_SIZE)
    view = memoryview(buffer)
    with open(path, "rb", buffering=0) as stream:
        while size := stream.readinto(buffer):
            digest.update(view[:size])
    return digest.hexdigest()[:DIGEST_DIGITS]


def table_names(log_plays: bool) -> tuple[str, ...]:
    """The tables of a run's dataset, each a subdirectory of part files."""
    return KNOWN_TABLES if log_plays else KNOWN_TABLES[:2]


def part_name(index: int) -> str:
    return f"part-{index:0{PART_DIGITS}d}.parquet"


def is_temporary_part(name: str) -> bool:
    return name.startswith(".part-") and name.endswith(".tmp")


def write_parquet(path: Path, table: pa.Table, metadata: dict[bytes, bytes], plain: bool = False) -> str:
    """Write `table` with `metadata` atomically; `plain`: no delta encoding (PLAIN_TABLES).
    Returns the file's digest (file_digest), taken before it became visible."""
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    columns = table.column_names
    options = {
        "compression": {name: "NONE" if name in UNCOMPRESSED_COLUMNS else COMPRESSION for name in columns},
        "write_statistics": [name for name in STATISTICS_COLUMNS if name in columns],
        "use_dictionary": [name for name in columns if name in DICTIONARY_COLUMNS],
        "column_encoding": {
            name: "PLAIN" if plain or name in PLAIN_COLUMNS else "DELTA_BINARY_PACKED"
            for name in columns
            if name not in DICTIONARY_COLUMNS and pa.types.is_integer(table.schema.field(name).type)
        },
    }
    digest = ""

    def write(temporary: str) -> None:
        nonlocal digest
        pq.write_table(table, temporary, **options)
        digest = file_digest(temporary)

    atomic_write(path, write)
    return digest


def config_metadata(config: dict, run: str | None = None) -> dict[bytes, bytes]:
    """The key-value metadata stored in every Parquet file of a run (with its fingerprint)."""
    metadata = {METADATA_KEY: json.dumps(config, sort_keys=True).encode()}
    if run is not None:
        metadata[RUN_KEY] = run.encode()
    return metadata


def part_metadata(metadata: dict[bytes, bytes], index: int, rows: int) -> dict[bytes, bytes]:
    """A part's metadata: the run's (config_metadata) with its chunk index and row count."""
    return {**metadata, CHUNK_KEY: str(index).encode(), ROWS_KEY: str(rows).encode()}


def read_config(parquet_file: str | os.PathLike) -> dict:
    """The run configuration stored in one part file."""
    metadata = pq.read_schema(parquet_file).metadata or {}
    if METADATA_KEY not in metadata:
        raise StorageError(f"{parquet_file} has no wizard-sim configuration metadata")
    return parse_json(metadata[METADATA_KEY], f"the configuration metadata of {parquet_file}")


def check_part(path: Path, where: str, index: int, expected: object, run: str, digest: object) -> tuple[str, str]:
    """("ok" | "unverified" | "missing" | "damaged" | "mismatched", detail) of the part at
    `path` that the journal lists as chunk `index` of the run with fingerprint `run`, with
    `expected` as recorded ([size in bytes, rows]) and `digest` (its file_digest; None when the
    line has none, a format-2 line: then "unverified" stands for "ok" without a content check)."""
    if path.is_symlink():
        return "damaged", f"{where} (a symbolic link, not a part file of the run)"
    if not path.is_file():
        return "missing", where
    if not (isinstance(expected, list) and len(expected) == 2 and all(is_count(v) for v in expected)):
        return "damaged", f"{where} (no size recorded)"
    if digest is not None and not (isinstance(digest, str) and len(digest) == DIGEST_DIGITS):
        return "damaged", f"{where} (no checksum recorded)"
    size, rows = expected
    try:
        actual = path.stat().st_size
        if actual != size:
            return "damaged", f"{where} ({actual:,} bytes, {size:,} written)"
        footer = pq.read_metadata(path)
    except (OSError, pa.ArrowException) as error:
        return "damaged", f"{where} (unreadable: {error})"
    metadata = footer.metadata or {}
    if metadata.get(RUN_KEY, b"").decode(errors="replace") != run:
        return "mismatched", where
    if metadata.get(CHUNK_KEY) != str(index).encode() or footer.num_rows != rows:
        return "damaged", f"{where} (chunk or row count differs from what was written)"
    if digest is None:
        return "unverified", where
    try:
        if file_digest(path) != digest:
            return "damaged", f"{where} (its contents differ from what was written: checksum mismatch)"
    except OSError as error:
        return "damaged", f"{where} (unreadable: {error.strerror or error})"
    return "ok", where


def run_of_part(path: Path) -> bytes | None:
    """The run fingerprint in a part's footer (None: unreadable or none)."""
    try:
        return (pq.read_metadata(path).metadata or {}).get(RUN_KEY)
    except (OSError, pa.ArrowException):
        return None
