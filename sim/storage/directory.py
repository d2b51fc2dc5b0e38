"""A run's output directory: where it is, what it holds, and the steps of a run's life in it.

Layout (docs/data.md): DIR/run.json (sim.storage.record), DIR/chunks.jsonl
(sim.storage.journal), DIR/<table>/part-NNNNN.parquet for each table (sim.storage.parts) and
DIR/.wizard-sim.lock (sim.storage.lock). Overwriting removes only the files wizard-sim
writes, after the new run.json has replaced the old one: at any moment the directory holds
the old run or the new one.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.storage import files
from sim.storage.errors import (
    CannotResume,
    EmptyPath,
    LegacyRun,
    NestedRun,
    NotADirectory,
    NotARunDirectory,
    RefusedOverwrite,
    RunError,
    StorageError,
    DirectoryNotEmpty,
    UnreadableRecord,
    UnsoundPart,
    UnsupportedURL,
    Unwritable,
    SymlinkedTable,
    LinkInRun,
    HardLinkInRun,
    NotOurs,
    OutputInRun,
)
from sim.storage.journal import JOURNAL_FILE, Journal, JournalRead
from sim.storage.lock import LOCK_FILE, RunLock
from sim.storage.parts import (
    DIGEST_KEY,
    KNOWN_TABLES,
    PART_FORMATS,
    check_part,
    is_temporary_part,
    part_index,
    part_metadata,
    part_name,
    run_of_part,
    table_names,
    write_parquet,
)
from sim.storage.record import LEGACY_FORMAT, RUN_FILE, has_checksums, has_line_checksums, validate_record
from sim.config.errors import ConfigError

# The summaries a command writes beside its parts (removed by --overwrite, expected by verify).
OUTPUT_FILES = {
    "tournament": ("summary.json", "summary.parquet"),
    "league": ("summary.json", "ratings.parquet", "pairs.parquet", "ratings.png", "head_to_head.png"),
}
SUMMARY_FILES = tuple(dict.fromkeys(name for names in OUTPUT_FILES.values() for name in names))
CLEARING_DIR = ".wizard-sim-clearing"  # a replaced run's files on their way out (RunDirectory.begin)
# The names wizard-sim writes at the top of a run directory (besides its table directories).
WIZARD_NAMES = (RUN_FILE, JOURNAL_FILE, LOCK_FILE, CLEARING_DIR, *SUMMARY_FILES)
# The files it writes into in place (every other file is replaced by a new one, renamed over it).
IN_PLACE = (LOCK_FILE, JOURNAL_FILE)

_UMASK = os.umask(0)
os.umask(_UMASK)
DIRECTORY_MODE = 0o777 & ~_UMASK  # what mkdir gives: mkdtemp's private 0700 is for the staging only

# "scheme://..." or "file:/path" is a URL; "runs/a:b" and "C:/runs" (a drive) are paths.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:/")


def local_path(out: str | os.PathLike) -> Path:
    """The directory named by an output path or file:// URL (a cluster's shared filesystem
    is mounted at the same path on every machine). Other fsspec URLs (s3://, gs://...) are
    refused: parts are made visible by an atomic rename, which object stores do not have."""
    text = os.fspath(out)
    if not _URL.match(text):
        return Path(text)
    url = urllib.parse.urlsplit(text)
    if url.scheme.lower() != "file":
        raise UnsupportedURL(
            text,
            f"{url.scheme}:// URLs are not supported; give a local path or a file:// URL"
            " (on a cluster, a shared filesystem mounted at the same path on every machine)",
        )
    if url.netloc not in ("", "localhost"):
        raise UnsupportedURL(text, f"a file:// URL must name a local path (file:///path), not host {url.netloc}")
    return Path(urllib.request.url2pathname(url.path))


def _writable_parent(path: Path) -> Path:
    """The nearest existing ancestor of `path`, which must be a writable directory."""
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise Unwritable(path, f"{parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise Unwritable(path, f"{parent} is not writable")
    return parent


def enclosing_run(path: Path) -> Path | None:
    """The run directory that `path` is or lies in (resolved: the nearest of it and its
    ancestors that holds a run.json), None when there is none."""
    resolved = path.resolve()
    for directory in (resolved, *resolved.parents):
        if (directory / RUN_FILE).exists():
            return directory
    return None


def check_output_file(path: Path, what: str) -> None:
    """Refuse (ConfigError), before any work, a path that cannot become the file `what` of a
    command that writes no run: a directory, one whose directory does not exist or is not
    writable, or one inside a run directory (a run holds only what its own run writes)."""
    if path.is_dir():
        raise ConfigError(f"cannot write {what} {path}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise ConfigError(f"cannot write {what} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write {what} {path}: directory {parent} is not writable")
    run = enclosing_run(parent)
    if run is not None:
        raise OutputInRun(path, what, run)


def run_tables(record: dict) -> tuple[str, ...]:
    """The tables the run `record` writes."""
    return table_names(record["config"].get("log_plays") is True)


def saved_record(record: dict) -> dict:
    """The record as run.json holds it: without its per-chunk statistics (in the journal)."""
    return {**record, "chunks": {key: value for key, value in record["chunks"].items() if key != "complete"}}


@dataclass
class PartCheck:
    """What a directory holds, against its run record and journal (RunDirectory.audit)."""

    complete: dict[int, dict] = field(default_factory=dict)  # chunk -> journal entry, every part sound
    missing: list[str] = field(default_factory=list)  # listed parts that are not there
    damaged: list[str] = field(default_factory=list)  # listed parts that are not what was written
    mismatched: list[str] = field(default_factory=list)  # parts of another configuration
    unlisted: list[str] = field(default_factory=list)  # parts of chunks the journal does not list
    foreign: list[str] = field(default_factory=list)  # files wizard-sim did not write
    occupied: list[str] = field(default_factory=list)  # of those, the ones at the name of a part the run writes
    torn: int = 0  # journal lines that could not be read (a kill mid-append)
    unvouched: int = 0  # journal lines whose checksum is not theirs (edited): their chunks are recomputed
    unchecked: int = 0  # journal lines of a format-2 or 3 run: no checksum of their own, figures not vouched for
    clearing: int = 0  # files of a replaced run not yet removed (an interrupted overwrite)
    unverified: int = 0  # sound parts of a format-2 run: sizes, rows and footers checked, no checksum to check


class RunDirectory:
    """The output directory of one run, with `tables` (e.g. rounds, games) as subdirectories."""

    def __init__(self, path: str | os.PathLike, tables: tuple[str, ...]):
        if os.fspath(path) == "":
            raise EmptyPath()
        self.path = local_path(path)
        self.tables = tables
        self.run_file = self.path / RUN_FILE
        self.journal = Journal(self.path / JOURNAL_FILE)
        self.lock = RunLock(self.path)
        self.created: list[Path] = []  # the directories acquire() created, innermost first

    # -- checks before anything is written -------------------------------------------------
    def check_place(self) -> None:
        """Refuse a path that is not a directory, one inside another run's directory, one
        whose table directories are symbolic links, or whose lock or journal is a hard link."""
        if self.path.exists() and not self.path.is_dir():
            raise NotADirectory(self.path)
        self.check_links()
        for name in IN_PLACE:  # a writer's check only: reading through a hard link is harmless
            if (names := files.link_count(self.path / name)) > 1:
                raise HardLinkInRun(self.path / name, names)
        ancestor = enclosing_run(self.path.resolve().parent)
        if ancestor is not None:
            raise NestedRun(self.path, ancestor)
        _writable_parent(self.path)

    def check_tables(self) -> None:
        """A table directory that is a symbolic link is refused: through it, a run would read or
        overwrite parts that are not its own."""
        for table in KNOWN_TABLES:
            if (self.path / table).is_symlink():
                raise SymlinkedTable(self.path / table)

    def check_links(self) -> None:
        """Every name wizard-sim opens, creates, appends to, renames or removes in a run directory
        must be a regular file or directory of it: a symbolic link (or a FIFO, a device) there
        is refused, so that nothing outside the directory is ever written, moved or read."""
        self.check_tables()
        for name in WIZARD_NAMES:
            if files.is_link_or_special(self.path / name):
                raise LinkInRun(self.path / name)

    def check_new(self, overwrite: bool) -> dict | None:
        """Refuse a non-empty directory unless overwriting a previous wizard-sim run; the
        record of the run it replaces (None: an empty directory)."""
        self.check_place()
        if not self.path.is_dir() or not any(entry.name != LOCK_FILE for entry in self.path.iterdir()):
            return None
        if not overwrite:
            raise DirectoryNotEmpty(self.path)
        if not self.run_file.is_file():
            raise RefusedOverwrite(self.path, None)
        try:
            return self.read_record()
        except StorageError as error:
            raise RefusedOverwrite(self.path, error) from None

    def read_record(self) -> dict:
        """run.json, validated (StorageError when it is missing, unreadable or not a run record)."""
        if not self.run_file.is_file():
            raise NotARunDirectory(self.path, self.run_file)
        try:
            record = files.read_json(self.run_file, in_run=True)
        except files.BadJSON as error:
            raise UnreadableRecord(self.run_file, error.problem) from None
        except OSError as error:
            raise UnreadableRecord(self.run_file, error.strerror or str(error)) from None
        return validate_record(record, str(self.run_file))

    def load(self) -> dict:
        """The run record of an existing run (for resuming it)."""
        try:
            record = self.read_record()
        except StorageError as error:
            raise CannotResume(error) from None
        if record.get("format") == LEGACY_FORMAT:
            raise CannotResume(LegacyRun(self.run_file))
        self.check_place()
        return record

    # -- the lock ----------------------------------------------------------------------------
    def acquire(self) -> None:
        """Create the directory if need be and take its lock (DirectoryInUse if another run holds
        it). The checks passed, a directory or lock file that cannot be made (a full disk, no
        inode left) is a failure at run time: RunError, and the directories made are removed."""
        missing = self.path
        while not missing.exists() and missing != missing.parent:
            self.created.append(missing)
            missing = missing.parent
        made = self.path
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            made = self.lock.path
            self.lock.acquire()
        except (OSError, Unwritable) as error:
            self.abandon()
            reason = error.reason if isinstance(error, Unwritable) else error.strerror or str(error)
            raise RunError(f"creating {made} failed: {reason}", resumable=False) from None

    def release(self) -> None:
        self.lock.release()

    # -- writing -----------------------------------------------------------------------------
    def begin(self, record: dict, overwrite: bool) -> None:
        """Start a new run (the lock held). Its run.json is written aside first (a full disk
        fails there, leaving the directory as it was); then a previous run's tables, journal and
        summaries are moved aside in one rename each, into CLEARING_DIR, where readers of
        DIR/<table> never look; then the new run.json replaces the old one in one rename, and
        the new run's empty tables are made. Only then is what was moved aside removed
        (finish_clearing): a kill at any moment leaves DIR/<table> holding the old run's parts
        or the new run's, never both, and the next resume or overwrite finishes the clearing."""
        previous = self.check_new(overwrite)
        try:
            self.finish_clearing()  # of an earlier overwrite that was interrupted
            if previous is not None:
                self.check_in_the_way(previous, record)
            staged = files.stage_json(self.run_file, saved_record(record))
        except OSError as error:
            raise RunError(f"writing {self.run_file} failed: {error.strerror or error}", resumable=False) from None
        try:
            self.move_aside(record["run_id"], previous)
            os.replace(staged, self.run_file)
        except BaseException as error:
            files.remove_file(Path(staged))
            with contextlib.suppress(OSError):
                self.move_back(record["run_id"])
            if isinstance(error, OSError):
                raise RunError(
                    f"replacing the previous run in {self.path} failed: {error.strerror or error}", resumable=False
                ) from None
            raise
        # No empty table directory is made: a reader of DIR/<table> finds the new run's first
        # part or no directory (write_part makes it with its first part), never an empty one.
        try:
            self.journal.start()
        except OSError as error:
            raise RunError(f"writing {self.journal.path} failed: {error.strerror or error}") from None
        try:
            self.finish_clearing()
        except OSError as error:
            raise RunError(f"clearing the previous run in {self.path} failed: {error.strerror or error}") from None

    def check_in_the_way(self, previous: dict, record: dict) -> None:
        """Refuse (NotOurs) to start the run `record` over the run `previous` when a file that
        `previous` did not write sits at the name of one of the new run's parts or summaries:
        writing it would replace that file."""
        theirs = OUTPUT_FILES.get(previous["command"], ())
        for name in OUTPUT_FILES.get(record["command"], ()):
            if name not in theirs and os.path.lexists(self.path / name):
                raise NotOurs(self.path / name)
        listed = self.listed_chunks(previous)
        for table in run_tables(record):
            directory = self.path / table
            if not directory.is_dir() or directory.is_symlink():
                continue
            for entry in os.scandir(directory):
                index = part_index(entry.name)
                in_the_way = index is not None and index < record["chunks"]["count"]
                if in_the_way and not self.owns(previous, listed, Path(entry.path)):
                    raise NotOurs(Path(entry.path))

    # -- what a run wrote ----------------------------------------------------------------------
    def listed_chunks(self, record: dict) -> set[int]:
        """The chunks of the run `record` whose parts its journal lists (format 1: run.json)."""
        count = record["chunks"]["count"]
        if record.get("format") == LEGACY_FORMAT:
            return {int(index) for index in record["chunks"]["complete"] if index.isascii() and index.isdigit()}
        if files.is_link_or_special(self.journal.path):
            return set()
        return {index for index in self.read_journal(record, ()).entries if index < count}

    def owns(self, record: dict, listed: set[int], path: Path) -> bool:
        """Whether the run `record` wrote the file at `path` (DIR/<table>/<name>): a regular file
        at the exact name of the part of one of its chunks in one of its tables, listed in its
        journal (`listed`: listed_chunks) or carrying its fingerprint in its footer. Nothing
        else in a run directory is wizard-sim's to remove or replace, whatever its name."""
        index = part_index(path.name)
        if index is None or index >= record["chunks"]["count"] or path.parent.name not in run_tables(record):
            return False
        if files.is_link_or_special(path) or not path.is_file():
            return False
        run = record.get("fingerprint")  # none in format 1
        return index in listed or (run is not None and run_of_part(path) == run.encode())

    def reopen(self) -> None:
        """Before a resumed run writes (the lock held): finish an interrupted clearing, drop
        temporaries and a torn last journal line (so that the next line starts on its own).
        Nothing else is removed: a table the run does not write is not its own."""
        try:
            self.check_links()
            self.finish_clearing()
            self.remove_stray_temporaries()
            self.journal.drop_torn_tail()
        except OSError as error:
            raise RunError(f"preparing {self.path} failed: {error.strerror or error}") from None

    def abandon(self) -> None:
        """Undo acquire() for a run that wrote nothing: the lock file and the directories it
        created, when they are empty (the lock held)."""
        if self.lock.created:
            files.remove_file(self.lock.path)
        for directory in self.created:
            with contextlib.suppress(OSError):
                directory.rmdir()

    def discard(self, record: dict) -> bool:
        """Remove the new run `record` that failed before it recorded a chunk (the lock held):
        exactly what it wrote (its parts, which carry its fingerprint, temporaries, the journal,
        run.json last), its table directories when empty, and the lock file and directories it
        created. A previous run (overwritten) was already replaced by begin(); a file anyone else
        put there stays. False (nothing removed) when a chunk was recorded: the run stays
        resumable, as after Ctrl-C."""
        journal = self.read_journal(record)
        if journal.entries or journal.torn or journal.unvouched:
            return False
        self.remove_stray_temporaries()
        for table in self.tables:
            for part in (self.path / table).glob("part-*.parquet"):
                with contextlib.suppress(OSError):
                    if self.owns(record, set(), part):  # it carries the run's fingerprint
                        files.remove_file(part)
        files.remove_file(self.journal.path)
        files.remove_file(self.run_file)
        for table in self.tables:
            with contextlib.suppress(OSError):
                (self.path / table).rmdir()  # only if empty
        # Still locked while it goes: a run starting now finds it locked, or no lock file.
        self.abandon()
        return True

    # -- clearing a replaced run ---------------------------------------------------------------
    def move_aside(self, run_id: str, previous: dict | None) -> None:
        """Move what the run `previous` wrote (its table directories, journal and its command's
        summaries) into CLEARING_DIR/<run_id>/, one rename each, with a copy of its run.json
        first: the proof of which of those files it wrote, for finish_clearing."""
        self.check_links()  # again, under the lock: never a link moved, nor into a linked directory
        if previous is None:
            return
        batch = self.path / CLEARING_DIR / run_id
        written = (*run_tables(previous), JOURNAL_FILE, *OUTPUT_FILES.get(previous["command"], ()))
        names = [name for name in written if (self.path / name).exists()]
        if not names:
            return
        batch.mkdir(parents=True, exist_ok=True)
        files.write_json(batch / RUN_FILE, previous)
        for name in names:
            os.rename(self.path / name, batch / name)

    def move_back(self, run_id: str) -> None:
        """Undo move_aside (a failure before the new run.json landed)."""
        batch = self.path / CLEARING_DIR / run_id
        if batch.is_dir():
            files.remove_file(batch / RUN_FILE)
            for entry in os.scandir(batch):
                if not (self.path / entry.name).exists():
                    os.rename(entry.path, self.path / entry.name)
        self._remove_empty(batch, batch.parent)

    def finish_clearing(self) -> None:
        """Remove what move_aside put in CLEARING_DIR that the replaced run wrote, as the copy
        of its run.json there proves (removed last): the parts it owns (owns), its temporaries,
        journal and summaries. Any other file of its tables (a user's) goes back into the run's
        table directory of that name unless that name is taken there; nothing else is removed.
        A batch without a readable run.json proves nothing: its tables' files all go back."""
        clearing = self.path / CLEARING_DIR
        if not clearing.is_dir() or clearing.is_symlink():
            return
        for batch in os.scandir(clearing):
            if not batch.is_dir(follow_symlinks=False):
                continue
            replaced = RunDirectory(batch.path, ())
            try:
                record = replaced.read_record()
                listed = replaced.listed_chunks(record)
            except (StorageError, RunError):
                record, listed = None, set()
            replaced.tables = () if record is None else run_tables(record)
            replaced.remove_stray_temporaries()
            for entry in os.scandir(batch.path):
                path = Path(entry.path)
                if entry.name in KNOWN_TABLES and entry.is_dir(follow_symlinks=False):
                    for part in os.scandir(path):
                        if record is not None and replaced.owns(record, listed, Path(part.path)):
                            files.remove_file(Path(part.path))
                        else:
                            self._put_back(Path(part.path), self.path / entry.name)
                    with contextlib.suppress(OSError):
                        path.rmdir()  # only if empty: a file that could not go back stays
                elif record is not None and entry.name in (JOURNAL_FILE, *OUTPUT_FILES.get(record["command"], ())):
                    if not entry.is_dir(follow_symlinks=False):
                        files.remove_file(path)
            if record is not None:
                files.remove_file(replaced.run_file)
            self._remove_empty(Path(batch.path), clearing)

    @staticmethod
    def _put_back(path: Path, directory: Path) -> None:
        """Move a file that is not wizard-sim's back into `directory`, unless its name is taken there."""
        if not (directory / path.name).exists() and not (directory / path.name).is_symlink():
            directory.mkdir(exist_ok=True)
            os.rename(path, directory / path.name)

    def _remove_empty(self, directory: Path, stop: Path) -> None:
        """Remove `directory` and its parents up to `stop` (included) while they are empty."""
        for path in (directory, stop):
            with contextlib.suppress(OSError):
                path.rmdir()

    def remove_staged_tables(self) -> None:
        """The hidden staging directories of tables' first parts left by a killed run: their
        part files and temporaries, then the directory if empty (a user's file there stays)."""
        for table in self.tables:
            for staging in self.path.glob(f".{table}.*.tmp"):
                if not staging.is_dir() or staging.is_symlink():
                    continue
                for entry in os.scandir(staging):
                    ours = part_index(entry.name) is not None or is_temporary_part(entry.name)
                    if ours and entry.is_file(follow_symlinks=False):
                        files.remove_file(Path(entry.path))
                with contextlib.suppress(OSError):
                    staging.rmdir()

    def remove_stray_temporaries(self) -> None:
        """Temporaries left by a killed run (invisible to readers, but they take space)."""
        self.remove_staged_tables()
        for table in self.tables:
            for temporary in (self.path / table).glob(".part-*.tmp"):
                with contextlib.suppress(OSError):
                    temporary.unlink()
        for temporary in self.path.glob(f".{RUN_FILE}.*.tmp"):
            with contextlib.suppress(OSError):
                temporary.unlink()

    def write_part(
        self, table_name: str, index: int, table: pa.Table, metadata: dict[bytes, bytes]
    ) -> tuple[list[int], str]:
        """Write one part atomically; its [size in bytes, rows] and its checksum (file_digest).
        The first part of a table makes its directory, whole: written into a hidden staging
        directory that is then renamed DIR/<table>, so that no reader ever finds it empty."""
        path = self.path / table_name / part_name(index)
        try:
            if not path.parent.is_dir() or path.parent.is_symlink():
                return self._first_part(table_name, index, table, metadata)
            digest = write_parquet(path, table, part_metadata(metadata, index, table.num_rows), PART_FORMATS[table_name])
            return [path.stat().st_size, table.num_rows], digest
        except OSError as error:
            raise RunError(f"writing {table_name}/{part_name(index)} failed: {error.strerror or error}") from None

    def _first_part(self, table_name: str, index: int, table: pa.Table, metadata: dict[bytes, bytes]) -> tuple[list[int], str]:
        if (self.path / table_name).is_symlink():
            raise SymlinkedTable(self.path / table_name)
        staging = Path(tempfile.mkdtemp(prefix=f".{table_name}.", suffix=".tmp", dir=self.path))
        staged = staging / part_name(index)
        try:
            digest = write_parquet(staged, table, part_metadata(metadata, index, table.num_rows), PART_FORMATS[table_name])
            size = staged.stat().st_size
            os.chmod(staging, DIRECTORY_MODE)
            try:
                os.rename(staging, self.path / table_name)  # replaces no directory but an empty one
            except OSError as error:
                if error.errno not in (errno.ENOTEMPTY, errno.EEXIST) or (self.path / table_name).is_symlink():
                    raise
                os.rename(staged, self.path / table_name / part_name(index))  # another chunk made it first
            return [size, table.num_rows], digest
        finally:
            with contextlib.suppress(OSError):
                files.remove_file(staged)
                staging.rmdir()

    def save(self, record: dict) -> None:
        """Write run.json: the record without its per-chunk statistics (those are in the journal)."""
        try:
            files.write_json(self.run_file, saved_record(record))
        except OSError as error:
            raise RunError(f"writing {self.run_file} failed: {error.strerror or error}") from None

    def append_chunk(self, entry: dict) -> None:
        """Record one complete chunk in the journal."""
        self.journal.append(entry)

    # -- reading -----------------------------------------------------------------------------
    def read_journal(self, record: dict, keep: tuple[str, ...] | None = None) -> JournalRead:
        """The journal's vouched entries of the run `record` by chunk, and the counts of lines
        that could not be read or are not vouched for."""
        return self.journal.read(record["run_id"], keep, vouched=has_line_checksums(record))

    def check_part(self, record: dict, table: str, entry: dict) -> tuple[str, str]:
        """("ok" | "unverified" | "missing" | "damaged" | "mismatched", detail) of the part of
        `table` that the journal line `entry` of the run `record` lists (parts.check_part)."""
        index = entry["chunk"]
        digests = entry.get(DIGEST_KEY)
        digest = digests.get(table, "") if isinstance(digests, dict) else None
        if digest is None and has_checksums(record):
            digest = ""  # a format-3 line must hold checksums: "no checksum recorded"
        where = f"{table}/{part_name(index)}"
        path = self.path / table / part_name(index)
        return check_part(path, where, index, entry["parts"].get(table), record["fingerprint"], digest)

    def audit(self, record: dict, tables: tuple[str, ...]) -> PartCheck:
        """Check every part the journal lists for run `record` (and find what else is there)."""
        check = PartCheck()
        if files.is_link_or_special(self.journal.path):
            check.foreign.append(f"{JOURNAL_FILE} (a symbolic link or special file, not the run's journal: not read)")
            entries = {}
        else:
            journal = self.read_journal(record)
            entries, check.torn, check.unvouched, check.unchecked = journal
        count = record["chunks"]["count"]
        for index in sorted(entries):
            entry = entries[index]
            if index >= count:
                # Never written by wizard-sim, and ignored by every reader (no --resume changes it).
                check.foreign.append(f"{JOURNAL_FILE}: a line for chunk {index}, beyond the run's {count} chunks (ignored)")
                continue
            sound = True
            for table in tables:
                status, detail = self.check_part(record, table, entry)
                if status == "unverified":
                    check.unverified += 1
                elif status != "ok":
                    getattr(check, status).append(detail)
                    sound = False
            if sound:
                check.complete[index] = entry
        self._find_others(record, tables, entries, check)
        return check

    def _find_others(self, record: dict, tables: tuple[str, ...], entries: dict, check: PartCheck) -> None:
        expected = {RUN_FILE, JOURNAL_FILE, LOCK_FILE, *tables}
        expected.update(OUTPUT_FILES.get(record["command"], ()))
        clearing = self.path / CLEARING_DIR
        if clearing.is_dir() and not clearing.is_symlink():
            expected.add(CLEARING_DIR)
            check.clearing = sum(len(names) for _, _, names in os.walk(clearing))
        for entry in sorted(os.scandir(self.path), key=lambda e: e.name):
            temporary = entry.name.endswith(".tmp") and any(entry.name.startswith(f".{name}.") for name in expected)
            if entry.name in tables and entry.is_symlink():
                check.foreign.append(f"{entry.name} (a symbolic link, not a table directory of the run)")
            elif entry.name != JOURNAL_FILE and files.is_link_or_special(Path(entry.path)):
                check.foreign.append(f"{entry.name} (a symbolic link or special file, not one wizard-sim writes)")
            elif entry.name in IN_PLACE and files.link_count(Path(entry.path)) > 1:
                check.foreign.append(f"{entry.name} (a hard link: its other name may be outside the run; refused)")
            elif entry.name not in expected and not temporary:
                check.foreign.append(entry.name + ("/" if entry.is_dir() else ""))
        count = record["chunks"]["count"]
        listed = {index for index in entries if index < count}
        for table in tables:
            directory = self.path / table
            if not directory.is_dir() or directory.is_symlink():
                continue
            for entry in sorted(os.scandir(directory), key=lambda e: e.name):
                name = f"{table}/{entry.name}"
                index = part_index(entry.name)
                if is_temporary_part(entry.name) or (index in listed and entry.is_file(follow_symlinks=False)):
                    continue  # a temporary, or a listed part (check_part checks it)
                if self.owns(record, listed, Path(entry.path)):
                    check.unlisted.append(name)
                    continue
                shown = name + ("/" if entry.is_dir(follow_symlinks=False) else "")
                if index is not None and index < count and index not in listed:
                    check.occupied.append(name)
                    shown += " (at the name of one of the run's parts: --resume refuses to replace it)"
                check.foreign.append(shown)


def read_run(path: str | os.PathLike, statistics: bool = True) -> dict:
    """The run record in `path` with `chunks.complete`: per complete chunk (by its index as
    text) the statistics its journal line holds, as format 1 kept them in run.json (None each
    unless `statistics`). A line for a chunk beyond the run's count is not one of its chunks
    (verify reports it)."""
    directory = RunDirectory(path, ())
    record = directory.read_record()
    if record.get("format") == LEGACY_FORMAT:
        return record
    entries = directory.read_journal(record, None if statistics else ()).entries
    count = record["chunks"]["count"]
    complete = {str(index): entries[index].get("stats") for index in sorted(entries) if index < count}
    record["chunks"]["complete"] = complete
    return record


PROBLEMS = {"missing": "missing", "damaged": "damaged", "mismatched": "written for another configuration"}


def sound_parts(path: str | os.PathLike, table: str) -> list[Path]:
    """The part files of `table` that the run in `path` lists as complete, in chunk order, each
    checked against its journal line (size, footer and checksum) before it is returned: the
    first that is not what was written raises UnsoundPart. Files the journal does not list are
    never returned. (A format-1 run's listed parts are only checked to exist.)"""
    directory = RunDirectory(path, ())
    record = directory.read_record()
    if table not in run_tables(record):
        return []
    directory.check_links()
    if record.get("format") == LEGACY_FORMAT:
        listed = [(int(index), None) for index in record["chunks"]["complete"]]
    else:
        entries = directory.read_journal(record, ("parts", DIGEST_KEY)).entries
        listed = [(index, entries[index]) for index in sorted(entries) if index < record["chunks"]["count"]]
    files = []
    for index, entry in sorted(listed, key=lambda item: item[0]):
        where = f"{table}/{part_name(index)}"
        if entry is None:
            status, detail = ("ok", where) if (directory.path / where).is_file() else ("missing", where)
        else:
            status, detail = directory.check_part(record, table, entry)
        if status not in ("ok", "unverified"):
            problem = PROBLEMS[status] + detail[len(where) :]
            raise UnsoundPart(directory.path, where, problem)
        files.append(directory.path / where)
    return files


def read_table(path: str | os.PathLike, table: str, columns: list[str] | None = None) -> pa.Table:
    """The table `table` (rounds, games, plays) of the run in `path`, read from the parts its
    journal vouches for only (sound_parts: a part that is not what was written refuses the
    read); of an incomplete run, its complete chunks. `pandas.read_parquet(DIR/table)` reads
    every Parquet file in the directory instead, whoever wrote it."""
    files = sound_parts(path, table)
    if not files:
        raise StorageError(f"{local_path(path)} holds no complete chunk of a {table} table")
    return pq.read_table(files, columns=columns)
