"""What can go wrong with a run directory, as exception classes that carry what went wrong.

Their messages (str()) are the Python API's and name no command-line flag: the CLI
(sim.cli.messages) phrases them with its flags (`--out`, `--resume`, `--overwrite`).
A StorageError is bad input (a ConfigError: the CLI exits 2); a RunError is a failure while a
run writes (disk full, permissions: exit 1), which says whether the run can be resumed.
"""
from __future__ import annotations

from pathlib import Path

from sim.config.errors import ConfigError


class StorageError(ConfigError):
    """Bad input about a run directory or one of its files."""


class EmptyPath(StorageError):
    def __init__(self) -> None:
        super().__init__("the output directory is empty: name a directory")


class UnsupportedURL(StorageError):
    """An output URL that is not a local path or a file:// URL."""

    def __init__(self, text: str, problem: str) -> None:
        self.text, self.problem = text, problem
        super().__init__(f"{text}: {problem}")


class PathProblem(StorageError):
    """The output path cannot be a run directory: `problem` follows the path in the message."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path, self.problem = path, problem
        super().__init__(f"{path} {problem}")


class NotADirectory(PathProblem):
    def __init__(self, path: Path) -> None:
        super().__init__(path, "exists and is not a directory")


class NestedRun(PathProblem):
    def __init__(self, path: Path, ancestor: Path) -> None:
        self.ancestor = ancestor
        super().__init__(path, f"is inside the run directory {ancestor}: a run cannot nest in another")


class DirectoryInUse(PathProblem):
    def __init__(self, path: Path, pid: int | None) -> None:
        self.pid = pid
        holder = "" if pid is None else f" (pid {pid})"
        super().__init__(path, f"is in use by another wizard-sim run{holder}: one writer per directory")


class DirectoryNotEmpty(PathProblem):
    def __init__(self, path: Path) -> None:
        super().__init__(path, "is not empty: resume its run, or overwrite it to replace the run")


class SymlinkedTable(StorageError):
    """A table directory that is a symbolic link: its parts could be anyone's."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"{path} is a symbolic link: a run's tables are directories of its own, not links")


class Unwritable(StorageError):
    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"cannot write to {path}: {reason}")


class NotARunDirectory(StorageError):
    def __init__(self, path: Path, run_file: Path) -> None:
        self.path, self.run_file = path, run_file
        super().__init__(f"{path} is not a run directory: {run_file} does not exist")


class UnreadableRecord(StorageError):
    def __init__(self, run_file: Path, detail: str) -> None:
        self.run_file, self.detail = run_file, detail
        super().__init__(f"{run_file} is unreadable ({detail})")


class NotARunRecord(StorageError):
    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where} is not a wizard-sim run record: {problem}")


class NewerFormat(StorageError):
    def __init__(self, where: str, version: int, supported: int) -> None:
        self.where, self.version, self.supported = where, version, supported
        super().__init__(
            f"{where} has format_version {version}: written by a newer wizard-sim (this one reads {supported})"
        )


class EditedRecord(StorageError):
    """run.json's configuration no longer matches its fingerprint."""

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(
            f"{where} was edited: its configuration no longer matches its fingerprint (the parts were written"
            " for the recorded one); start a new run"
        )


class LegacyRun(StorageError):
    """A run.json of format 1 (before the format marker): overwritten, never resumed."""

    def __init__(self, run_file: Path) -> None:
        self.run_file = run_file
        super().__init__(f"{run_file} was written by an older wizard-sim (format 1); start it again")


class PartsOfAnotherRun(StorageError):
    """Parts the journal lists carry another configuration's fingerprint."""

    def __init__(self, count: int, example: str) -> None:
        self.count, self.example = count, example
        super().__init__(
            f"run.json and its parts disagree on the configuration ({count} parts, e.g. {example}, were written"
            " for another one); start a new run"
        )


class RefusedOverwrite(StorageError):
    """A non-empty directory that is not a wizard-sim run: it is never overwritten. `cause`:
    why its run.json is not a run record (None: it has no run.json)."""

    def __init__(self, path: Path, cause: StorageError | None) -> None:
        self.path, self.cause = path, cause
        if cause is None:
            super().__init__(f"refusing to overwrite {path}: it is not empty and holds no run.json")
        else:
            super().__init__(f"refusing to overwrite: {cause}")


class CannotResume(StorageError):
    """The run in a directory cannot be resumed, because of `cause`."""

    def __init__(self, cause: StorageError) -> None:
        self.cause = cause
        super().__init__(f"cannot resume: {cause}")


class UnsoundPart(StorageError):
    """A part its run lists as complete is missing or not what was written: readers refuse it."""

    def __init__(self, root: Path, part: str, problem: str) -> None:
        self.root, self.part, self.problem = root, part, problem
        super().__init__(
            f"{root / part} is listed as complete but {problem}: sim.runs.verification.verify_run lists what is"
            " wrong, and resuming the run recomputes it"
        )


class RunError(Exception):
    """A failure while a run writes its output (disk full, permissions). `resumable`: the
    directory holds the run's record, and resuming it continues; otherwise nothing of the run
    was written and the directory is as it was."""

    def __init__(self, message: str, resumable: bool = True) -> None:
        super().__init__(message)
        self.resumable = resumable


class LinkInRun(PathProblem):
    """A name wizard-sim writes in a run directory is a symbolic link (or a FIFO, a device)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, "is a symbolic link or special file: wizard-sim never follows one out of a run "
                               "directory; remove it")


class HardLinkInRun(PathProblem):
    """A file wizard-sim writes in place in a run directory (the lock, the journal) has other
    names: a write there would land in a file outside the run too."""

    def __init__(self, path: Path, names: int) -> None:
        self.names = names
        super().__init__(path, f"is a hard link ({names} names of one file): wizard-sim never writes through one "
                               "into a file outside the run directory; replace it by a copy of its own")


class NotOurs(StorageError):
    """A file wizard-sim did not write sits where a run would write one of its files (a part,
    a summary): it is never replaced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"{path} was not written by wizard-sim (verify lists it as foreign) and the run would write"
                         " a file of that name: move it away first")


class OutputInRun(StorageError):
    """An output of another command (a report, a play save) named inside a run directory."""

    def __init__(self, path: Path, what: str, run: Path) -> None:
        self.path, self.run = path, run
        where = "the run directory" if path.resolve() == run else f"inside the run directory {run}"
        super().__init__(f"cannot write {what} {path}: it is {where}, which holds only what its run writes;"
                         " name a path outside it")
