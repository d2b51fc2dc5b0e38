"""A run's output directory: atomic Parquet parts, run.json, the chunk journal, the lock.

Layout (README: Data contract): DIR/run.json (the configuration, its fingerprint and totals:
small, written at the start, on resume and at the end), DIR/chunks.jsonl (one line per
complete chunk, appended and fsync'd as each lands: O(1) per chunk whatever the run's size),
DIR/<table>/part-NNNNN.parquet for each table (rounds, games, plays), and DIR/.wizard-sim.lock.

- A part becomes visible only complete: it is written under a hidden temporary name (readers
  such as pyarrow.dataset skip names starting with ".") and renamed. Its key-value metadata say
  what it is: the run's configuration and fingerprint, its chunk index and row count.
- The journal is the only record of progress: a chunk counts as complete when its line names
  the run (run_id), and on resume only if each of its parts has the recorded size, row count,
  chunk and fingerprint; anything else is recomputed (a chunk is a pure function of the
  configuration, so the rewrite is identical). A torn last line (a kill mid-append) is ignored.
- One writer per directory: a run holds an exclusive flock on DIR/.wizard-sim.lock from before
  it writes until it ends; the OS releases it when the process dies, so a stale lock never
  blocks anyone. The lock file itself stays (removing a lock file races with its next user).
- A directory is a run only if run.json is a valid run record ("format": "wizard-sim run",
  "format_version": 2, every field of the right type, the fingerprint matching the
  configuration). --overwrite removes only the files wizard-sim writes, after the new run.json
  has replaced the old one: at any moment the directory holds the old run or the new one.
"""
from __future__ import annotations

import contextlib
import datetime
import errno
import fcntl
import hashlib
import json
import os
import re
import tempfile
import uuid
from dataclasses import dataclass, field
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
JOURNAL_FILE = "chunks.jsonl"
LOCK_FILE = ".wizard-sim.lock"
RUN_FORMAT = "wizard-sim run"
FORMAT_VERSION = 2
LEGACY_FORMAT = 1  # run.json before the format marker: recognised for --overwrite only
COMMANDS = ("simulate", "tournament", "league")
KNOWN_TABLES = ("rounds", "games", "plays")  # every table wizard-sim writes
# The summaries a command writes beside its parts (removed by --overwrite, expected by verify).
OUTPUT_FILES = {
    "tournament": ("summary.json", "summary.parquet"),
    "league": ("summary.json", "ratings.parquet", "pairs.parquet", "ratings.png", "head_to_head.png"),
}
SUMMARY_FILES = tuple(dict.fromkeys(name for names in OUTPUT_FILES.values() for name in names))
METADATA_KEY = b"wizard_sim.config"
RUN_KEY = b"wizard_sim.run"  # the run's fingerprint
CHUNK_KEY = b"wizard_sim.chunk"
ROWS_KEY = b"wizard_sim.rows"
PART_DIGITS = 5
PART_NAME = re.compile(r"part-([0-9]{5,})\.parquet")
TEMPORARY_NAME = re.compile(r"\..+\.tmp")
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


def chunk_range(games: int, chunk_games: int, index: int) -> tuple[int, int]:
    """(first game, number of games) of chunk `index`, without listing the others."""
    first = index * chunk_games
    return first, min(chunk_games, games - first)


def chunk_count(games: int, chunk_games: int) -> int:
    return -(-games // chunk_games)


def fingerprint(command: str, config: dict) -> str:
    """What a run's data is a pure function of, hashed: stored in run.json and in every part."""
    text = json.dumps({"command": command, "config": config}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


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


class RunLock:
    """An exclusive, non-blocking flock on DIR/.wizard-sim.lock, held until release() or the
    process's death (the OS drops it then: no stale lock survives its holder)."""

    def __init__(self, directory: Path):
        self.path = directory / LOCK_FILE
        self.fd: int | None = None
        self.created = False  # this process created the lock file

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, FILE_MODE)
            created = True
        except FileExistsError:
            created = False
            try:
                fd = os.open(self.path, os.O_RDWR, FILE_MODE)
            except OSError as error:
                raise ConfigError(f"cannot write to {self.path.parent}: {error.strerror or error}") from None
        except OSError as error:
            raise ConfigError(f"cannot write to {self.path.parent}: {error.strerror or error}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = ""
            with contextlib.suppress(OSError, ValueError):
                holder = f" (pid {int(os.pread(fd, 32, 0).split()[0])})"
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise ConfigError(
                    f"--out {self.path.parent} is in use by another wizard-sim run{holder}: one writer per directory"
                ) from None
            raise ConfigError(f"cannot lock {self.path}: {error.strerror or error}") from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        self.created = created

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)  # closing the last descriptor drops the flock
            self.fd = None


def _is_count(value: object, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def validate_record(record: object, where: str) -> dict:
    """`record` (parsed run.json) if it is a wizard-sim run record, else ConfigError naming the
    first problem. A format-1 record (before the format marker) is returned as it is when it has
    exactly the fields of format 1 (for --overwrite; it cannot be resumed)."""

    def bad(problem: str) -> ConfigError:
        return ConfigError(f"{where} is not a wizard-sim run record: {problem}")

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
    if not _is_count(version, 1):
        raise bad("no format_version")
    if version > FORMAT_VERSION:
        raise ConfigError(f"{where} has format_version {version}: written by a newer wizard-sim (this one reads {FORMAT_VERSION})")
    if version != FORMAT_VERSION:
        raise bad(f"format_version {version} is not {FORMAT_VERSION}")
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
    chunks = record["chunks"]
    for key in ("count", "total", "games"):
        if not _is_count(chunks.get(key), 1):
            raise bad(f"chunks.{key} is missing or not a whole number >= 1")
    if chunks["count"] != chunk_count(chunks["total"], chunks["games"]):
        raise bad(f"chunks.count {chunks['count']} is not {chunks['total']} in chunks of {chunks['games']}")
    if record["fingerprint"] != fingerprint(record["command"], record["config"]):
        raise ConfigError(
            f"{where} was edited: its configuration no longer matches its fingerprint (the parts were written"
            " for the recorded one); start a new run with --overwrite"
        )
    return record


@dataclass
class PartCheck:
    """What a directory holds, against its run record and journal (RunDirectory.audit)."""

    complete: dict[int, dict] = field(default_factory=dict)  # chunk -> journal entry, every part sound
    missing: list[str] = field(default_factory=list)  # listed parts that are not there
    damaged: list[str] = field(default_factory=list)  # listed parts that are not what was written
    mismatched: list[str] = field(default_factory=list)  # parts of another configuration
    unlisted: list[str] = field(default_factory=list)  # parts of chunks the journal does not list
    foreign: list[str] = field(default_factory=list)  # files wizard-sim did not write
    torn: int = 0  # journal lines that could not be read (a kill mid-append)


class RunDirectory:
    """The output directory of one run, with `tables` (e.g. rounds, games) as subdirectories."""

    def __init__(self, path: str | os.PathLike, tables: tuple[str, ...]):
        if os.fspath(path) == "":
            raise ConfigError("--out is empty: name a directory")
        self.path = local_path(path)
        self.tables = tables
        self.run_file = self.path / RUN_FILE
        self.journal = self.path / JOURNAL_FILE
        self.lock = RunLock(self.path)
        self.created: list[Path] = []  # the directories acquire() created, innermost first

    # -- checks before anything is written -------------------------------------------------
    def check_place(self) -> None:
        """Refuse a path that is not a directory, or one inside another run's directory."""
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"--out {self.path} exists and is not a directory")
        resolved = self.path.resolve()
        for ancestor in resolved.parents:
            if (ancestor / RUN_FILE).exists():
                raise ConfigError(f"--out {self.path} is inside the run directory {ancestor}: a run cannot nest in another")
        _writable_parent(self.path)

    def check_new(self, overwrite: bool) -> None:
        """Refuse a non-empty directory unless overwriting a previous wizard-sim run."""
        self.check_place()
        if not self.path.is_dir() or not any(entry.name != LOCK_FILE for entry in self.path.iterdir()):
            return
        if not overwrite:
            raise ConfigError(f"--out {self.path} is not empty: pass --resume to finish its run or --overwrite to replace it")
        if not self.run_file.is_file():
            raise ConfigError(f"--out {self.path} is not empty and holds no {RUN_FILE}: refusing to overwrite it")
        try:
            self.read_record()
        except ConfigError as error:
            raise ConfigError(f"refusing to overwrite: {error}") from None

    def read_record(self) -> dict:
        """run.json, validated (ConfigError when it is missing, unreadable or not a run record)."""
        if not self.run_file.is_file():
            raise ConfigError(f"{self.path} is not a run directory: {self.run_file} does not exist")
        try:
            record = json.loads(self.run_file.read_text())
        except (OSError, ValueError) as error:
            raise ConfigError(f"{self.run_file} is unreadable ({error})") from None
        return validate_record(record, str(self.run_file))

    def load(self) -> dict:
        """The run record of an existing run (for --resume)."""
        try:
            record = self.read_record()
        except ConfigError as error:
            raise ConfigError(f"cannot resume: {error}") from None
        if record.get("format") == LEGACY_FORMAT:
            raise ConfigError(
                f"cannot resume: {self.run_file} was written by an older wizard-sim (format 1); start it again with --overwrite"
            )
        self.check_place()
        return record

    # -- the lock ----------------------------------------------------------------------------
    def acquire(self) -> None:
        """Create the directory if need be and take its lock (ConfigError if another run holds it)."""
        missing = self.path
        while not missing.exists() and missing != missing.parent:
            self.created.append(missing)
            missing = missing.parent
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ConfigError(f"cannot write to {self.path}: {error.strerror or error}") from None
        self.lock.acquire()

    def release(self) -> None:
        self.lock.release()

    # -- writing -----------------------------------------------------------------------------
    def begin(self, record: dict, overwrite: bool) -> None:
        """Start a new run (the lock held): check again, then write its run.json, which replaces
        a previous run's in one rename; only then remove the previous run's files."""
        self.check_new(overwrite)
        self.save(record)
        try:
            self.remove_wizard_files(keep_parts=False)
            for table in self.tables:
                (self.path / table).mkdir(exist_ok=True)
            self.journal.write_bytes(b"")
        except OSError as error:
            raise RunError(f"clearing the previous run in {self.path} failed: {error.strerror or error}") from None

    def reopen(self) -> None:
        """Before a resumed run writes (the lock held): drop temporaries, the tables this run does
        not have, and a torn last journal line (so that the next line starts on its own)."""
        try:
            self.remove_wizard_files(keep_parts=True)
            for table in self.tables:
                (self.path / table).mkdir(exist_ok=True)
            if self.journal.exists():
                data = self.journal.read_bytes()
                if data and not data.endswith(b"\n"):
                    with open(self.journal, "r+b") as stream:
                        stream.truncate(data.rfind(b"\n") + 1)
        except OSError as error:
            raise RunError(f"preparing {self.path} failed: {error.strerror or error}") from None

    def discard(self, record: dict) -> bool:
        """Remove the new run `record` that failed before it recorded a chunk (the lock held):
        exactly what it wrote (its parts, which carry its fingerprint, temporaries, the journal,
        run.json last), its table directories when empty, and the lock file and directories it
        created. A previous run (--overwrite) was already replaced by begin(); a file anyone else
        put there stays. False (nothing removed) when a chunk was recorded: the run stays
        resumable, as after Ctrl-C."""
        entries, torn = self.read_journal(record["run_id"])
        if entries or torn:
            return False
        self.remove_stray_temporaries()
        for table in self.tables:
            for part in (self.path / table).glob("part-*.parquet"):
                with contextlib.suppress(OSError, pa.ArrowException):
                    if PART_NAME.fullmatch(part.name) and part.is_file() and not part.is_symlink():
                        if (pq.read_metadata(part).metadata or {}).get(RUN_KEY) == record["fingerprint"].encode():
                            _unlink(part)
        _unlink(self.journal)
        _unlink(self.run_file)
        for table in self.tables:
            with contextlib.suppress(OSError):
                (self.path / table).rmdir()  # only if empty
        if self.lock.created:
            # Still locked while it goes: a run starting now finds it locked, or no lock file.
            _unlink(self.lock.path)
        for directory in self.created:
            with contextlib.suppress(OSError):
                directory.rmdir()
        return True

    def remove_wizard_files(self, keep_parts: bool) -> None:
        """Remove what wizard-sim writes and nothing else: temporaries, and unless keep_parts the
        part files of every table, the journal and the summaries; the part files of tables this
        run does not write always. Empty table directories left over are removed."""
        for name in os.listdir(self.path):
            if TEMPORARY_NAME.fullmatch(name) and name.startswith(f".{RUN_FILE}."):
                _unlink(self.path / name)
        if not keep_parts:
            for name in (JOURNAL_FILE, *SUMMARY_FILES):
                if (self.path / name).is_file():
                    _unlink(self.path / name)
        for table in KNOWN_TABLES:
            directory = self.path / table
            if not directory.is_dir() or directory.is_symlink():
                continue
            drop_parts = not keep_parts or table not in self.tables
            for entry in os.scandir(directory):
                wizard_part = PART_NAME.fullmatch(entry.name) is not None
                temporary = entry.name.startswith(".part-") and entry.name.endswith(".tmp")
                if entry.is_file(follow_symlinks=False) and (temporary or (wizard_part and drop_parts)):
                    _unlink(Path(entry.path))
            if table not in self.tables:
                with contextlib.suppress(OSError):
                    directory.rmdir()  # only if empty: a user's files stay

    def remove_stray_temporaries(self) -> None:
        """Temporaries left by a killed run (invisible to readers, but they take space)."""
        for table in self.tables:
            for temporary in (self.path / table).glob(".part-*.tmp"):
                with contextlib.suppress(OSError):
                    temporary.unlink()
        for temporary in self.path.glob(f".{RUN_FILE}.*.tmp"):
            with contextlib.suppress(OSError):
                temporary.unlink()

    def write_part(self, table_name: str, index: int, table: pa.Table, metadata: dict[bytes, bytes]) -> list[int]:
        """Write one part atomically; its [size in bytes, rows]."""
        path = self.path / table_name / part_name(index)
        metadata = {**metadata, CHUNK_KEY: str(index).encode(), ROWS_KEY: str(table.num_rows).encode()}
        try:
            write_parquet(path, table, metadata, plain=table_name in PLAIN_TABLES)
            return [path.stat().st_size, table.num_rows]
        except OSError as error:
            raise RunError(f"writing {table_name}/{part_name(index)} failed: {error.strerror or error}") from None

    def save(self, record: dict) -> None:
        """Write run.json: the record without its per-chunk statistics (those are in the journal)."""
        chunks = {key: value for key, value in record["chunks"].items() if key != "complete"}
        try:
            write_json(self.run_file, {**record, "chunks": chunks})
        except OSError as error:
            raise RunError(f"writing {self.run_file} failed: {error.strerror or error}") from None

    def append_chunk(self, entry: dict) -> None:
        """Record one complete chunk: one line appended to the journal and fsync'd."""
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        try:
            with open(self.journal, "a") as stream:
                stream.write(line)
                stream.flush()
                os.fsync(stream.fileno())
        except OSError as error:
            raise RunError(f"writing {self.journal} failed: {error.strerror or error}") from None

    # -- reading -----------------------------------------------------------------------------
    def read_journal(self, run_id: str) -> tuple[dict[int, dict], int]:
        """The journal entries of run `run_id` by chunk (the last line of a chunk wins), and the
        number of lines that could not be read."""
        entries: dict[int, dict] = {}
        torn = 0
        if not self.journal.is_file():
            return entries, torn
        with open(self.journal, "rb") as stream:
            for line in stream:
                try:
                    entry = json.loads(line)
                    chunk = entry["chunk"]
                    if entry["run"] != run_id:
                        continue
                    if not _is_count(chunk) or not isinstance(entry["stats"], dict) or not isinstance(entry["parts"], dict):
                        raise ValueError(line)
                except (ValueError, KeyError, TypeError):
                    torn += 1
                    continue
                entries[chunk] = entry
        return entries, torn

    def check_part(self, table: str, index: int, expected: object, run: str) -> tuple[str, str]:
        """("ok" | "missing" | "damaged" | "mismatched", detail) of one listed part."""
        path = self.path / table / part_name(index)
        where = f"{table}/{part_name(index)}"
        if not path.is_file():
            return "missing", where
        if not (isinstance(expected, list) and len(expected) == 2 and all(_is_count(v) for v in expected)):
            return "damaged", f"{where} (no size recorded)"
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
        return "ok", where

    def audit(self, record: dict, tables: tuple[str, ...]) -> PartCheck:
        """Check every part the journal lists for run `record` (and find what else is there)."""
        check = PartCheck()
        entries, check.torn = self.read_journal(record["run_id"])
        count = record["chunks"]["count"]
        for index in sorted(entries):
            entry = entries[index]
            if index >= count:
                check.damaged.append(f"{JOURNAL_FILE}: chunk {index} is beyond the run's {count} chunks")
                continue
            sound = True
            for table in tables:
                status, detail = self.check_part(table, index, entry["parts"].get(table), record["fingerprint"])
                if status != "ok":
                    getattr(check, status).append(detail)
                    sound = False
            if sound:
                check.complete[index] = entry
        self._find_others(record, tables, entries, check)
        return check

    def _find_others(self, record: dict, tables: tuple[str, ...], entries: dict, check: PartCheck) -> None:
        expected = {RUN_FILE, JOURNAL_FILE, LOCK_FILE, *tables}
        expected.update(OUTPUT_FILES.get(record["command"], ()))
        for entry in sorted(os.scandir(self.path), key=lambda e: e.name):
            temporary = entry.name.endswith(".tmp") and any(entry.name.startswith(f".{name}.") for name in expected)
            if entry.name not in expected and not temporary:
                check.foreign.append(entry.name + ("/" if entry.is_dir() else ""))
        for table in tables:
            directory = self.path / table
            if not directory.is_dir():
                continue
            for entry in sorted(os.scandir(directory), key=lambda e: e.name):
                match = PART_NAME.fullmatch(entry.name)
                name = f"{table}/{entry.name}"
                if match and int(match.group(1)) < record["chunks"]["count"] and entry.is_file():
                    if int(match.group(1)) not in entries:
                        check.unlisted.append(name)
                elif not (entry.name.startswith(".part-") and entry.name.endswith(".tmp")):
                    check.foreign.append(name + ("/" if entry.is_dir() else ""))


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def new_run_id() -> str:
    return uuid.uuid4().hex


def read_run(path: str | os.PathLike) -> dict:
    """The run record in `path` with `chunks.complete`: per complete chunk (by its index as
    text) the statistics its journal line holds, as format 1 kept them in run.json."""
    directory = RunDirectory(path, ())
    record = directory.read_record()
    if record.get("format") == LEGACY_FORMAT:
        return record
    entries, _ = directory.read_journal(record["run_id"])
    record["chunks"]["complete"] = {str(index): entries[index]["stats"] for index in sorted(entries)}
    return record


def config_metadata(config: dict, run: str | None = None) -> dict[bytes, bytes]:
    """The key-value metadata stored in every Parquet file of a run (with its fingerprint)."""
    metadata = {METADATA_KEY: json.dumps(config, sort_keys=True).encode()}
    if run is not None:
        metadata[RUN_KEY] = run.encode()
    return metadata


def read_config(parquet_file: str | os.PathLike) -> dict:
    """The run configuration stored in one part file."""
    metadata = pq.read_schema(parquet_file).metadata or {}
    if METADATA_KEY not in metadata:
        raise ConfigError(f"{parquet_file} has no wizard-sim configuration metadata")
    return json.loads(metadata[METADATA_KEY])
