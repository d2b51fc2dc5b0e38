"""`wizard-sim verify`: what a run directory holds, checked against its run.json and journal.

Reads run.json (validated: format marker, fields, fingerprint), the chunk journal and every
part the journal lists (size, footer: row count, chunk index, run fingerprint; and the
checksum of its bytes), and lists the directory for files wizard-sim did not write. Imports no bot: the tables to expect
follow from the recorded configuration alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.config.errors import ConfigError
from sim.runs.tables import table_names
from sim.storage import LEGACY_FORMAT, PartCheck, RunDirectory
from sim.storage.directory import CLEARING_DIR

SHOWN = 10  # names listed per kind of problem


@dataclass
class Verification:
    out: str
    record: dict
    check: PartCheck

    @property
    def pending(self) -> list[int]:
        return [index for index in range(self.record["chunks"]["count"]) if index not in self.check.complete]

    @property
    def sound(self) -> bool:
        c = self.check
        problems = self.pending or c.missing or c.damaged or c.mismatched or c.foreign or c.torn or c.clearing
        return not problems and bool(self.record["finished"])

    def lines(self) -> list[str]:
        record, c = self.record, self.check
        count = record["chunks"]["count"]
        kind = f"{record['command']} run {record['fingerprint'][:12]}"
        unchecked = (
            f"  {c.unverified:,} parts carry no checksum (format {record['format_version']}, before checksums):"
            " sizes, rows and footers checked, not their contents"
        )
        if self.sound:
            done = f"{self.out}: {kind}: complete and sound ({count:,} chunks, {record['chunks']['total']:,} {unit(record)})"
            return [done, unchecked] if c.unverified else [done]
        pending = self.pending
        state = "incomplete" if pending or not record["finished"] else "complete"
        lines = [f"{self.out}: {kind}: {state}, {len(c.complete):,} of {count:,} chunks complete and sound"]
        if pending:
            lines.append(f"  chunks to compute (--resume): {shorten([str(i) for i in pending])}")
        elif not record["finished"]:
            lines.append("  every chunk is complete but the run did not finish: --resume finishes it")
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
        if c.clearing:
            lines.append(
                f"  files of a replaced run still to be removed (an interrupted --overwrite; --resume or --overwrite"
                f" finishes it): {c.clearing:,} in {CLEARING_DIR}/"
            )
        if c.unverified:
            lines.append(unchecked)
        return lines


def unit(record: dict) -> str:
    return "deals" if record["command"] == "tournament" else "games"


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
    return Verification(str(directory.path), record, directory.audit(record, tables))
