"""Files that appear whole or not at all: write under a hidden temporary name, then rename."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK  # what open() would give: mkstemp's private 0600 is for the temporary only


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


def write_json(path: Path, record: dict) -> None:
    def write(temporary: str) -> None:
        with open(temporary, "w") as stream:
            json.dump(record, stream, indent=2)
            stream.write("\n")

    atomic_write(path, write)


def remove_file(path: Path) -> None:
    """Unlink `path`; one that is already gone is fine."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
