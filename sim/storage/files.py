"""Files that appear whole or not at all (write under a hidden temporary name, then rename),
and JSON read within bounds (size and depth: a hostile file is one line, not a traceback)."""
from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from sim.config.errors import ConfigError

MAX_JSON_BYTES = 1 << 20  # run.json and a play save: a few KB in practice
MAX_JSON_DEPTH = 32  # run.json nests 4 levels deep, a journal line 4, a play save 3
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK  # what open() would give: mkstemp's private 0600 is for the temporary only


class BadJSON(ConfigError):
    """A JSON text that is not JSON, or larger or deeper than its bounds."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"{where} is not valid: {problem}")


def _depth(value: object) -> int:
    """How deeply `value` nests lists and objects, walked without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            todo.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_json(text: bytes | str, where: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH) -> object:
    """The JSON value of `text`, or BadJSON when it is longer than `max_bytes`, nests deeper
    than `max_depth` or is not JSON. Depth costs nothing to check for texts with few brackets
    (every line of a journal), and json's own recursion limit bounds the parse of the rest."""
    if len(text) > max_bytes:
        raise BadJSON(where, f"larger than {max_bytes:,} bytes")
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadJSON(where, f"nested more than {max_depth} levels deep") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, an integer of too many digits
        raise BadJSON(where, f"not JSON ({str(error).splitlines()[0][:200]})") from None
    opening = text.count(b"[" if isinstance(text, bytes) else "[") + text.count(b"{" if isinstance(text, bytes) else "{")
    if opening > max_depth and _depth(value) > max_depth:
        raise BadJSON(where, f"nested more than {max_depth} levels deep")
    return value


def read_json(path: Path, where: str | None = None, max_bytes: int = MAX_JSON_BYTES, in_run: bool = False) -> object:
    """The JSON value of the file at `path` (parse_json), reading at most max_bytes + 1 bytes
    of it; `in_run`: a file of a run directory, never read through a symbolic link
    (open_in_run). OSError passes."""
    with (open_in_run(path, "rb") if in_run else open(path, "rb")) as stream:
        data = stream.read(max_bytes + 1)
    return parse_json(data, where or str(path), max_bytes)


NOT_OURS = "a symbolic link or special file, not a file wizard-sim writes (refused)"
HARD_LINK = "a hard link: a write would land in a file outside the run directory too (refused)"
# "w" truncates only once the file is known to be the run's own (open_in_run).
_MODES = {"rb": os.O_RDONLY, "r+b": os.O_RDWR, "a": os.O_WRONLY | os.O_APPEND, "w": os.O_WRONLY}


def is_link_or_special(path: Path) -> bool:
    """Whether `path` exists as something other than a regular file or directory (a symbolic
    link, even a dangling one; a FIFO, a socket, a device)."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # missing, or a parent is a file
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def link_count(path: Path) -> int:
    """How many names the file at `path` has (0: missing); more than 1 is a hard link."""
    try:
        return os.lstat(path).st_nlink
    except (FileNotFoundError, NotADirectoryError):
        return 0


def open_in_run(path: Path, mode: str, create: bool = False):
    """Open a file of a run directory (mode "rb", "r+b", "a" or "w"; `create`: make it if it is
    missing) without ever following a symbolic link: a link, a FIFO or a device there raises
    OSError (NOT_OURS), so a link planted in a run directory is never read, written or
    appended to; nor is a hard link written to (HARD_LINK: its other name may be outside the
    run). FileNotFoundError when it is missing and not created."""
    flags = _MODES[mode] | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if create:
        flags |= os.O_CREAT
    try:
        fd = os.open(path, flags, FILE_MODE)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
            raise OSError(errno.ELOOP, NOT_OURS, str(path)) from None
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.ELOOP, NOT_OURS, str(path))
        if mode != "rb" and status.st_nlink > 1:
            raise OSError(errno.EMLINK, HARD_LINK, str(path))
        if mode == "w":
            os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


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


def _dump(record: dict, temporary: str) -> None:
    with open(temporary, "w") as stream:
        json.dump(record, stream, indent=2)
        stream.write("\n")


def write_json(path: Path, record: dict) -> None:
    atomic_write(path, lambda temporary: _dump(record, temporary))


def stage_json(path: Path, record: dict) -> str:
    """Write `record` as a hidden temporary beside `path`, to be renamed over it by the caller
    (who removes it if it is not): what atomic_write does, in two steps."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        _dump(record, temporary)
        os.chmod(temporary, FILE_MODE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def remove_file(path: Path) -> None:
    """Unlink `path`; one that is already gone is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
