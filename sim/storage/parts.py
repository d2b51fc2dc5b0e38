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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class ColumnFormat:
    """How one column of a part is stored: a Parquet encoding (or "DICTIONARY") and a codec."""

    encoding: str = "PLAIN"
    compression: str = "LZ4"


# Chosen by measurement, column by column (`benchmarks/bench_simulate.py --encodings`; the
# figures and the trade-off are in docs/data.md, "Figures"). The columns are written without nulls
# (their schemas say so, sim/runs/tables.py): definition levels cost more than the values.
# - Plain values with lz4 for the columns that repeat in runs (a game's id, a round's size, a
#   seat's number in the rounds table...): lz4 takes the runs down to a few hundredths of a byte
#   per row, two to three times faster than delta bit-packing.
# - Delta bit-packing, uncompressed, for the rounds' small varying values (bid, tricks, scores):
#   half the size of plain with lz4 at the same speed.
# - Byte stream split with lz4 for the plays' varying values (seat, card, winner): 3 to 4 times
#   faster than plain with lz4 and smaller.
# - The hand masks are random bits: plain and uncompressed (lz4 saved 13% for 5 times the time).
# - Policy labels repeat: a dictionary.
REPEATING = ColumnFormat("PLAIN", "LZ4")
VARYING = ColumnFormat("DELTA_BINARY_PACKED", "NONE")
SPLIT = ColumnFormat("BYTE_STREAM_SPLIT", "LZ4")
LABELS = ColumnFormat("DICTIONARY", "LZ4")
DEAL_COLUMNS = {"deal_id": REPEATING, "rotation": REPEATING, "table_id": REPEATING}  # tournaments, leagues
PART_FORMATS: dict[str, dict[str, ColumnFormat]] = {
    "rounds": {
        **{name: REPEATING for name in ("game_id", "round", "seat", "dealer", "trump_card", "trump", "bid_order")},
        **{name: VARYING for name in ("bid", "tricks", "score", "total")},
        "hand": ColumnFormat("PLAIN", "NONE"),
        "policy": LABELS,
        **DEAL_COLUMNS,
    },
    "games": {
        **{name: REPEATING for name in ("seat", "winner")},
        **{name: VARYING for name in ("game_id", "total")},  # a game's id repeats only 4 to 6 times
        "policy": LABELS,
        **DEAL_COLUMNS,
    },
    "plays": {
        **{name: REPEATING for name in ("game_id", "round", "trick", "position")},
        **{name: SPLIT for name in ("seat", "card", "winner")},
    },
}
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


def part_index(name: str) -> int | None:
    """The chunk whose part file is named `name`: only a chunk's exact part name is one
    (part-000001.parquet is not chunk 1's); None for any other name."""
    match = PART_NAME.fullmatch(name)
    return int(match.group(1)) if match and name == part_name(int(match.group(1))) else None


def is_temporary_part(name: str) -> bool:
    return name.startswith(".part-") and name.endswith(".tmp")


def write_parquet(path: Path, table: pa.Table, metadata: dict[bytes, bytes], formats: dict[str, ColumnFormat] | None = None) -> str:
    """Write `table` with `metadata` atomically, each column in its format (PART_FORMATS; a
    column not in `formats` plain with lz4). Returns the file's digest (file_digest), taken
    before it became visible."""
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    column_formats = {name: (formats or {}).get(name, ColumnFormat()) for name in table.column_names}
    options = {
        "compression": {name: form.compression for name, form in column_formats.items()},
        "write_statistics": [name for name in STATISTICS_COLUMNS if name in column_formats],
        "use_dictionary": [name for name, form in column_formats.items() if form.encoding == "DICTIONARY"],
        "column_encoding": {name: form.encoding for name, form in column_formats.items() if form.encoding != "DICTIONARY"},
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
