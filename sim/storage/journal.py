"""The chunk journal (DIR/chunks.jsonl): the only record of a run's progress.

One JSON line per complete chunk, appended and fsync'd as each lands: O(1) per chunk whatever
the run's size. A chunk counts as complete when its line names the run (run_id); a torn last
line (a kill mid-append) is ignored, and dropped before a resumed run appends.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from sim.storage.errors import RunError
from sim.storage.record import is_count

JOURNAL_FILE = "chunks.jsonl"


class Journal:
    def __init__(self, path: Path):
        self.path = path

    def read(self, run_id: str) -> tuple[dict[int, dict], int]:
        """The entries of run `run_id` by chunk (the last line of a chunk wins), and the number
        of lines that could not be read."""
        entries: dict[int, dict] = {}
        torn = 0
        if not self.path.is_file():
            return entries, torn
        with open(self.path, "rb") as stream:
            for line in stream:
                try:
                    entry = json.loads(line)
                    chunk = entry["chunk"]
                    if entry["run"] != run_id:
                        continue
                    if not is_count(chunk) or not isinstance(entry["stats"], dict) or not isinstance(entry["parts"], dict):
                        raise ValueError(line)
                except (ValueError, KeyError, TypeError):
                    torn += 1
                    continue
                entries[chunk] = entry
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
