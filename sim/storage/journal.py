"""The chunk journal (DIR/chunks.jsonl): the only record of a run's progress.

One JSON line per complete chunk, appended and fsync'd as each lands: O(1) per chunk whatever
the run's size. A chunk counts as complete when its line names the run (run_id) and is vouched
for: the line ends with the SHA-256 of the rest of it ("line_sha256", format 4), so that an
edit of one of its figures (a chunk's score sum, of the same size) makes the line unvouched,
and its chunk is recomputed, never summed. A torn last line (a kill mid-append) is ignored,
and dropped before a resumed run appends. Lines of runs of formats 2 and 3 carry no such
checksum: read as before, and verify says their figures are not vouched for.

The file is opened without following a symbolic link (O_NOFOLLOW): a link planted in the run
directory is refused, never read or appended to.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

from sim.storage.errors import RunError
from sim.storage.files import open_in_run, parse_json
from sim.storage.record import is_count

JOURNAL_FILE = "chunks.jsonl"
# A line holds a chunk's statistics (per policy, or per pair of a tournament's policies) and
# its parts: a few hundred bytes, a few KB for six distinct policies.
MAX_LINE_BYTES = 1 << 20
LINE_KEY = "line_sha256"  # the last field of a line: the checksum of the line before it
LINE_DIGITS = 32


def line_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:LINE_DIGITS]


def vouched_line(entry: dict) -> str:
    """The journal line of `entry`: its compact JSON with the checksum of that text last."""
    text = json.dumps(entry, separators=(",", ":"))
    return f'{text[:-1]},"{LINE_KEY}":"{line_digest(text)}"}}\n'


def line_check(entry: dict) -> bool | None:
    """Whether a parsed line's checksum is that of the rest of it (None: it carries none). The
    rest is written again as wizard-sim wrote it: json keeps the order of keys and the exact
    value of every number."""
    digest = entry.pop(LINE_KEY, None)
    if digest is None:
        return None
    return isinstance(digest, str) and digest == line_digest(json.dumps(entry, separators=(",", ":")))


class JournalRead(NamedTuple):
    entries: dict[int, dict]  # by chunk: the last vouched line of each
    torn: int  # lines that could not be read (a kill mid-append)
    unvouched: int  # chunks whose lines' checksums are not theirs (an edit) or missing where required,
    # and no line of which is vouched for (a chunk recomputed by --resume has one: the edit is moot)
    unchecked: int = 0  # lines taken without a checksum (a run of format 2 or 3)


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

    def read(self, run_id: str, keep: tuple[str, ...] | None = None, vouched: bool = True) -> JournalRead:
        """The entries of run `run_id` by chunk (the last line of a chunk wins), and the counts of
        lines that could not be read or are not vouched for. `keep`: the only fields kept of each
        entry besides its chunk (a run of millions of chunks: its parts' records without their
        statistics). `vouched`: every line must carry its checksum (format 4); a line that carries
        a wrong one is never taken, whatever the format."""
        entries: dict[int, dict] = {}
        torn = unchecked = 0
        unvouched: set[int] = set()
        try:
            stream = open_in_run(self.path, "rb")
        except FileNotFoundError:
            return JournalRead(entries, torn, 0)
        except OSError as error:
            raise RunError(f"reading {self.path} failed: {error.strerror or error}") from None
        with stream:
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
                check = line_check(entry)
                if check is False or (check is None and vouched):
                    unvouched.add(chunk)
                    continue
                unchecked += check is None
                entries[chunk] = entry if keep is None else {"chunk": chunk, **{key: entry.get(key) for key in keep}}
        return JournalRead(entries, torn, len(unvouched - set(entries)), unchecked)

    def append(self, entry: dict) -> None:
        """Record one complete chunk: one vouched line appended and fsync'd."""
        try:
            with open_in_run(self.path, "a", create=True) as stream:
                stream.write(vouched_line(entry))
                stream.flush()
                os.fsync(stream.fileno())
        except OSError as error:
            raise RunError(f"writing {self.path} failed: {error.strerror or error}") from None

    def start(self) -> None:
        """An empty journal (a new run), replacing none: begin() moved the old one aside."""
        with open_in_run(self.path, "w", create=True):
            pass

    def drop_torn_tail(self) -> None:
        """Cut a torn last line, so that the next line starts on its own (OSError passes)."""
        try:
            stream = open_in_run(self.path, "r+b")
        except FileNotFoundError:
            return
        with stream:
            size = os.fstat(stream.fileno()).st_size
            if not size:
                return
            stream.seek(size - 1)
            if stream.read(1) == b"\n":
                return
            stream.seek(0)
            data = stream.read()
            stream.truncate(data.rfind(b"\n") + 1)
