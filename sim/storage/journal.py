"""The chunk journal (DIR/chunks.jsonl): the only record of a run's progress.

One JSON line per complete chunk, appended and fsync'd as each lands: O(1) per chunk whatever
the run's size. A chunk counts as complete when its line names the run (run_id); a torn last
line (a kill mid-append) is ignored, and dropped before a resumed run appends.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from collections.abc import Iterator
from typing import BinaryIO

from sim.storage.errors import RunError
from sim.storage.files import parse_json
from sim.storage.record import is_count

JOURNAL_FILE = "chunks.jsonl"
# A line holds a chunk's statistics (per policy, or per pair of a tournament's policies) and
# its parts: a few hundred bytes, a few KB for six distinct policies.
MAX_LINE_BYTES = 1 << 20


def bounded_lines(stream: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """The lines of `stream`, each read into memory only up to `limit` bytes: a longer line is
    None (and skipped to its end)."""
    while line := stream.readline(limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        while (rest := stream.readline(limit)) and not rest.endswith(b"\n"):
            pass
        yield None


class Journal:
    def __init__(self, path: Path):
        self.path = path

    def read(self, run_id: str, keep: tuple[str, ...] | None = None) -> tuple[dict[int, dict], int]:
        """The entries of run `run_id` by chunk (the last line of a chunk wins), and the number
        of lines that could not be read. `keep`: the only fields kept of each entry besides its
        chunk (a run of millions of chunks: its parts' records without their statistics)."""
        entries: dict[int, dict] = {}
        torn = 0
        if not self.path.is_file():
            return entries, torn
        with open(self.path, "rb") as stream:
            for line in bounded_lines(stream, MAX_LINE_BYTES):
                try:
                    if line is None:
                        raise ValueError("a line longer than any wizard-sim writes")
                    entry = parse_json(line, JOURNAL_FILE, MAX_LINE_BYTES)
                    chunk = entry["chunk"]
                    if entry["run"] != run_id:
                        continue
                    if not is_count(chunk) or not isinstance(entry["stats"], dict) or not isinstance(entry["parts"], dict):
                        raise ValueError(line)
                except (ValueError, KeyError, TypeError):
                    torn += 1
                    continue
                entries[chunk] = entry if keep is None else {"chunk": chunk, **{key: entry.get(key) for key in keep}}
        return entries, torn

    def append(self, entry: dict) -> None:
        """Record one complete chunk: one line appended and fsync'd."""
        line = json.dumps(entry, separators=(",", ":")) + "\n"
        try:
            with open(self.path, "a") as stream:
                stream.write(line)
                stream.flush()
                os.fsync(stream.fileno())
        except OSError as error:
            raise RunError(f"writing {self.path} failed: {error.strerror or error}") from None

    def drop_torn_tail(self) -> None:
        """Cut a torn last line, so that the next line starts on its own (OSError passes)."""
        if self.path.exists():
            data = self.path.read_bytes()
            if data and not data.endswith(b"\n"):
                with open(self.path, "r+b") as stream:
                    stream.truncate(data.rfind(b"\n") + 1)
