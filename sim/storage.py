"""A run's output directory: atomic Parquet parts, run.json, resume bookkeeping.

Layout (README: Data contract): DIR/run.json and DIR/<table>/part-NNNNN.parquet for each table
(rounds, games, plays...). A part becomes visible only complete: it is written under a hidden
temporary name (readers such as pyarrow.dataset skip names starting with ".") and renamed.
run.json is rewritten the same way after every chunk and lists the complete chunks; it is the
only record of progress, so a chunk whose files exist but is not listed is simply recomputed
(a chunk is a pure function of the configuration, so the rewrite is identical).
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import shutil
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from sim.config.errors import ConfigError
from sim.config.version import __version__

RUN_FILE = "run.json"
FORMAT_VERSION = 1
METADATA_KEY = b"wizard_sim.config"
PART_DIGITS = 5
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK  # what open() would give: mkstemp's private 0600 is for the temporary only

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


class RunError(Exception):
    """A failure while a run writes its output (disk full, permissions): the run can resume."""


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def versions() -> dict[str, str]:
    return {"wizard_sim": __version__, "numba": numba.__version__, "numpy": np.__version__, "pyarrow": pa.__version__}


def part_name(index: int) -> str:
    return f"part-{index:0{PART_DIGITS}d}.parquet"


def chunk_ranges(games: int, chunk_games: int) -> list[tuple[int, int]]:
    """(first game, number of games) of every chunk of a run."""
    return [(first, min(chunk_games, games - first)) for first in range(0, games, chunk_games)]


def atomic_write(path: Path, write: Callable[[str], None]) -> None:
    """Call write(temporary path), then rename it to `path`; on failure remove the temporary."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(temporary)
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_parquet(path: Path, table: pa.Table, metadata: dict[bytes, bytes], plain: bool = False) -> None:
    """Write `table` with `metadata` atomically; `plain`: no delta encoding (PLAIN_TABLES)."""
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
    atomic_write(path, lambda temporary: pq.write_table(table, temporary, **options))


def write_json(path: Path, record: dict) -> None:
    def write(temporary: str) -> None:
        with open(temporary, "w") as stream:
            json.dump(record, stream, indent=2)
            stream.write("\n")

    atomic_write(path, write)


# "scheme://..." or "file:/path" is a URL; "runs/a:b" and "C:/runs" (a drive) are paths.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")


def local_path(out: str | os.PathLike) -> Path:
    """The directory named by --out: a path, or a file:// URL (a cluster's shared filesystem
    is mounted at the same path on every machine). Other fsspec URLs (s3://, gs://...) are
    refused: parts are made visible by an atomic rename, which object stores do not have."""
    text = os.fspath(out)
    if not _URL.match(text):
        return Path(text)
    url = urllib.parse.urlsplit(text)
    if url.scheme.lower() != "file":
        raise ConfigError(
            f"--out {text}: {url.scheme}:// URLs are not supported; give a local path or a file:// URL"
            " (on a cluster, a shared filesystem mounted at the same path on every machine)"
        )
    if url.netloc not in ("", "localhost"):
        raise ConfigError(f"--out {text}: a file:// URL must name a local path (file:///path), not host {url.netloc}")
    return Path(urllib.request.url2pathname(url.path))


def _writable_parent(path: Path) -> Path:
    """The nearest existing ancestor of `path`, which must be a writable directory."""
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"cannot write to {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write to {path}: {parent} is not writable")
    return parent


class RunDirectory:
    """The output directory of one run, with `tables` (e.g. rounds, games) as subdirectories."""

    def __init__(self, path: str | os.PathLike, tables: tuple[str, ...]):
        self.path = local_path(path)
        self.tables = tables
        self.run_file = self.path / RUN_FILE

    # -- checks before anything is written -------------------------------------------------
    def check_new(self, overwrite: bool) -> None:
        """Refuse a non-empty directory unless overwriting a previous run."""
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"--out {self.path} exists and is not a directory")
        _writable_parent(self.path)
        if self.path.is_dir() and any(self.path.iterdir()):
            if not overwrite:
                raise ConfigError(
                    f"--out {self.path} is not empty: pass --resume to finish its run or --overwrite to replace it"
                )
            if not self.run_file.exists():
                raise ConfigError(f"--out {self.path} is not empty and holds no {RUN_FILE}: refusing to overwrite it")

    def load(self) -> dict:
        """The run record of an existing run (for --resume)."""
        if not self.run_file.is_file():
            raise ConfigError(f"cannot resume: {self.run_file} does not exist")
        try:
            record = json.loads(self.run_file.read_text())
        except (OSError, ValueError) as error:
            raise ConfigError(f"cannot resume: {self.run_file} is unreadable ({error})") from None
        if record.get("format") != FORMAT_VERSION or "config" not in record:
            raise ConfigError(f"cannot resume: {self.run_file} is not a wizard-sim run record")
        _writable_parent(self.path)
        return record

    # -- writing -----------------------------------------------------------------------------
    def create(self, overwrite: bool) -> None:
        try:
            if overwrite and self.path.is_dir():
                for name in (RUN_FILE, *self.tables, "summary.parquet", "summary.json"):
                    target = self.path / name
                    if target.is_dir():
                        shutil.rmtree(target)
                    elif target.exists():
                        target.unlink()
            for table in self.tables:
                (self.path / table).mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"cannot write to {self.path}: {error.strerror or error}") from None

    def remove_stray_temporaries(self) -> None:
        """Temporaries left by a killed run (invisible to readers, but they take space)."""
        for table in self.tables:
            for temporary in (self.path / table).glob(".part-*.tmp"):
                with contextlib.suppress(OSError):
                    temporary.unlink()
        for temporary in self.path.glob(f".{RUN_FILE}.*.tmp"):
            with contextlib.suppress(OSError):
                temporary.unlink()

    def write_part(self, table_name: str, index: int, table: pa.Table, metadata: dict[bytes, bytes]) -> None:
        try:
            write_parquet(self.path / table_name / part_name(index), table, metadata, plain=table_name in PLAIN_TABLES)
        except OSError as error:
            raise RunError(f"writing {table_name}/{part_name(index)} failed: {error.strerror or error}") from None

    def save(self, record: dict) -> None:
        try:
            write_json(self.run_file, record)
        except OSError as error:
            raise RunError(f"writing {self.run_file} failed: {error.strerror or error}") from None


def config_metadata(config: dict) -> dict[bytes, bytes]:
    """The key-value metadata stored in every Parquet file of a run."""
    return {METADATA_KEY: json.dumps(config, sort_keys=True).encode()}


def read_config(parquet_file: str | os.PathLike) -> dict:
    """The run configuration stored in one part file."""
    metadata = pq.read_schema(parquet_file).metadata or {}
    if METADATA_KEY not in metadata:
        raise ConfigError(f"{parquet_file} has no wizard-sim configuration metadata")
    return json.loads(metadata[METADATA_KEY])
