"""`wizard-sim verify`: what a run directory holds, checked against its run.json and journal.

Reads run.json (validated: format marker, fields, fingerprint), the chunk journal and every
part the journal lists (size, footer: row count, chunk index, run fingerprint; and the
checksum of its bytes), checks that a finished run holds every summary its command writes,
each readable as its kind, and lists the directory for files wizard-sim did not write. Imports no bot: the tables to
expect follow from the recorded configuration alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.config.errors import ConfigError
from sim.policies.registry import is_external, parameter_changes, parse_policy
from sim.runs.league import LeagueConfig
from sim.runs.tables import table_names
from sim.runs.tournament import TournamentConfig
from sim.storage import LEGACY_FORMAT, OUTPUT_FILES, PartCheck, RunDirectory
from sim.storage.directory import CLEARING_DIR
from sim.storage.files import open_in_run, read_json

# The stop test (--sprt) of each command that has one, from the configuration in run.json.
STOP_TESTS = {"tournament": TournamentConfig.stop_test, "league": LeagueConfig.stop_test}

SHOWN = 10  # names listed per kind of problem


@dataclass
class Verification:
    out: str
    record: dict
    check: PartCheck
    end: int  # the chunks the run consists of: all, or up to where its --sprt test decided
    stopped: dict | None = None  # that test's outcome, recomputed from the journal
    moved: tuple[str, ...] = ()  # a line per built-in policy whose defaults moved since (moved_defaults)
    absent: tuple[str, ...] = ()  # the summaries a finished run of its kind writes that are not there
    unreadable: tuple[str, ...] = ()  # those there that do not read as their kind (JSON, Parquet, PNG)

    @property
    def pending(self) -> list[int]:
        return [index for index in range(self.end) if index not in self.check.complete]

    @property
    def sprt_differs(self) -> bool:
        """run.json records another outcome of the --sprt test than its journal gives."""
        if self.stopped is None or not self.record["finished"]:
            return False
        recorded = self.record.get("sprt")
        keys = ("decision", "deals")
        return not isinstance(recorded, dict) or any(recorded.get(key) != self.stopped[key] for key in keys)

    @property
    def sound(self) -> bool:
        c = self.check
        problems = (
            self.pending or c.missing or c.damaged or c.mismatched or c.foreign or c.torn or c.unvouched or c.clearing
            or self.sprt_differs or self.absent or self.unreadable
        )
        return not problems and bool(self.record["finished"])

    def lines(self) -> list[str]:
        record, c = self.record, self.check
        count = record["chunks"]["count"]
        kind = f"{record['command']} run {record['fingerprint'][:12]}"
        unchecked = (
            f"  {c.unverified:,} parts carry no checksum (format {record['format_version']}, before checksums):"
            " sizes, rows and footers checked, not their contents"
        )
        unvouched = (
            f"  {c.unchecked:,} journal lines carry no checksum of their own (format {record['format_version']},"
            " before line checksums): their figures are not vouched for"
        )
        notes = [line for line, shown in ((unchecked, c.unverified), (unvouched, c.unchecked)) if shown]
        notes += self.moved
        if self.sound:
            if self.stopped is not None and self.stopped["decision"] is not None:
                decision, deals = self.stopped["decision"], self.stopped["deals"]
                size = f"stopped by its SPRT ({decision}) after {self.end:,} chunks, {deals:,} deals"
            else:
                size = f"{count:,} chunks, {record['chunks']['total']:,} {unit(record)}"
            done = f"{self.out}: {kind}: complete and sound ({size})"
            return [done, *notes]
        pending = self.pending
        state = "incomplete" if pending or not record["finished"] else "complete"
        lines = [f"{self.out}: {kind}: {state}, {len(c.complete):,} of {count:,} chunks complete and sound"]
        if pending:
            lines.append(f"  chunks to compute (--resume): {shorten([str(i) for i in pending])}")
        elif not record["finished"]:
            lines.append("  every chunk is complete but the run did not finish: --resume finishes it")
        for label, names in (("missing", self.absent), ("unreadable", self.unreadable)):
            if names:
                lines.append(f"  {label} summaries (--resume writes them again): {shorten(list(names))}")
        for label, names in (
            ("missing parts", c.missing),
            ("damaged parts", c.damaged),
            ("parts of another configuration (--resume refuses)", c.mismatched),
            ("parts not listed in the journal (--resume recomputes their chunks)", c.unlisted),
            ("foreign files (not written by wizard-sim)", c.foreign),
        ):
            if names:
                lines.append(f"  {label}: {shorten(names)}")
        if c.torn:
            lines.append(f"  unreadable journal lines: {c.torn}")
        if c.unvouched:
            lines.append(
                f"  journal lines that are not what wizard-sim wrote (their checksum differs: edited; --resume"
                f" recomputes their chunks): {c.unvouched}"
            )
        if c.clearing:
            lines.append(
                f"  files of a replaced run still to be removed (an interrupted --overwrite; --resume or --overwrite"
                f" finishes it): {c.clearing:,} in {CLEARING_DIR}/"
            )
        if self.sprt_differs:
            lines.append("  run.json's sprt record differs from the test recomputed from its journal")
        return [*lines, *notes]


def unit(record: dict) -> str:
    return "games" if record["command"] == "simulate" else "deals"


def shorten(names: list[str]) -> str:
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN:,} more" if len(names) > SHOWN else "")


def verify_run(out: str) -> Verification:
    """Check the run in `out` (ConfigError when `out` is not a wizard-sim run directory)."""
    directory = RunDirectory(out, ())
    record = directory.read_record()
    if record.get("format") == LEGACY_FORMAT:
        raise ConfigError(f"{directory.run_file} was written by an older wizard-sim (format 1), which verify does not check")
    log_plays = record["config"].get("log_plays")
    if not isinstance(log_plays, bool):
        raise ConfigError(f"{directory.run_file}: config.log_plays is not true or false")
    tables = table_names(log_plays)
    check = directory.audit(record, tables)
    end, stopped = run_end(record, check)
    absent, unreadable = check_outputs(directory, record)
    return Verification(str(directory.path), record, check, end, stopped, moved_defaults(record), absent, unreadable)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_outputs(directory: RunDirectory, record: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The summaries and figures a finished run of its command writes (OUTPUT_FILES) that are
    not regular files in its directory (a link is reported as foreign), and those that do not
    read as their kind: JSON, a Parquet footer, a PNG signature."""
    if not record["finished"]:
        return (), ()
    absent, unreadable = [], []
    for name in OUTPUT_FILES.get(record["command"], ()):
        path = directory.path / name
        if not path.is_file() or path.is_symlink():
            absent.append(name)
        elif not reads_as_its_kind(path):
            unreadable.append(name)
    return tuple(absent), tuple(unreadable)


def reads_as_its_kind(path: Path) -> bool:
    """Whether a summary file reads as what its name says (not a check of its contents)."""
    try:
        if path.suffix == ".json":
            read_json(path, in_run=True)
        elif path.suffix == ".parquet":
            pq.read_metadata(path)
        else:
            with open_in_run(path, "rb") as stream:
                return stream.read(len(PNG_SIGNATURE)) == PNG_SIGNATURE
    except (OSError, ConfigError, pa.ArrowException):
        return False
    return True


def moved_defaults(record: dict) -> tuple[str, ...]:
    """A line for each built-in policy of the run whose label means other parameters in this
    wizard-sim than run.json's policy_parameters record (a default moved since). Its data are
    sound, but --resume refuses the run. Bots are not imported to tell."""
    lines = []
    for label, then in (record.get("policy_parameters") or {}).items():
        if is_external(label):
            continue
        try:
            today = parse_policy(label).parameter_record()
        except ConfigError as error:
            lines.append(f"  policy {label} no longer reads as a policy in this wizard-sim ({error})")
            continue
        if today != then:
            changed = parameter_changes(then, today, "then", "now")
            what = "defaults" if then.keys() == today.keys() else "parameters"  # as check_parameters
            lines.append(
                f"  policy {label} has other {what} in this wizard-sim ({changed}): its data are what it played then;"
                " --resume refuses the run"
            )
    return tuple(lines)


def run_end(record: dict, check: PartCheck) -> tuple[int, dict | None]:
    """(chunks the run consists of, its stop test's outcome): with --sprt the test is run again
    on the journal's statistics, in chunk order, up to the first chunk it decides at (or the
    first chunk not complete and sound)."""
    count = record["chunks"]["count"]
    make_test = STOP_TESTS.get(record["command"])
    test = make_test(record["config"]) if make_test is not None else None
    if test is None:
        return count, None
    try:
        for index in range(count):
            if index not in check.complete:
                break
            if test.add(check.complete[index]["stats"]):
                return index + 1, test.record()
    except (KeyError, TypeError, ValueError, IndexError):  # statistics not in the form wizard-sim writes
        return count, None
    return count, test.record()
