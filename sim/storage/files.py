"""Files that appear whole or not at all: write under a hidden temporary name, then rename."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from sim.config.errors import ConfigError

_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK  # what open() would give: mkstemp's private 0600 is for the temporary only


def check_new_file(path: Path, what: str = "the file") -> None:
    """Refuse (ConfigError), before any work, a path that cannot become a file: a directory,
    or one whose directory does not exist or is not writable."""
    if path.is_dir():
        raise ConfigError(f"cannot write {what} {path}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise ConfigError(f"cannot write {what} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write {what} {path}: directory {parent} is not writable")


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
