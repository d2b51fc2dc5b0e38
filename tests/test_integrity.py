"""Issue #22: content integrity. Every part's checksum is recorded in the journal when it is
written; `verify` checks it, `--resume` recomputes a part that fails, and `report` and the
Python readers (sim.storage.read_table, sound_parts) refuse a part the journal does not
vouch for. A run of format 2 (before checksums) is still read, verified and resumed."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from helpers import invoke, one_line

from sim.storage import JOURNAL_FILE, read_run, read_table, sound_parts
from sim.storage.errors import UnsoundPart
from sim.storage.journal import vouched_line

SMALL = ["--players", "4", "--games", "60", "--policy", "heuristic,random,random,random", "--seed", "5",
         "--chunk-games", "20", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "run"
    assert invoke("simulate", *SMALL, "--out", out).exit_code == 0
    return out


def copy_of(reference: Path, tmp_path: Path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    return out


def flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.write_bytes(bytes(data))


def same_data(first: Path, second: Path) -> None:
    for table in ("rounds", "games"):
        pd.testing.assert_frame_equal(pd.read_parquet(first / table), pd.read_parquet(second / table))


def page_header_offset(path: Path) -> int:
    """A byte inside the first data page's header (of the bid column, mid-file)."""
    metadata = pq.read_metadata(path)
    names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
    return metadata.row_group(0).column(names.index("bid")).data_page_offset + 2


WHERE = {
    "the middle": lambda path: path.stat().st_size // 2,
    "a page header": page_header_offset,
    "the footer": lambda path: path.stat().st_size - 40,
}


@pytest.mark.parametrize("where", sorted(WHERE))
def test_one_flipped_bit_is_found_refused_and_recomputed(tmp_path, reference, where):
    out = copy_of(reference, tmp_path)
    part = out / "rounds" / "part-00001.parquet"
    flip(part, WHERE[where](part))
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "damaged parts: rounds/part-00001.parquet" in verified.stdout, verified.stdout
    one_line(invoke("report", out), 2, "rounds/part-00001.parquet is listed as complete but damaged", "wizard-sim verify")
    with pytest.raises(UnsoundPart) as caught:
        read_table(out, "rounds")
    assert caught.value.part == "rounds/part-00001.parquet" and "--" not in str(caught.value)
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    assert invoke("verify", out).exit_code == 0
    same_data(reference, out)
    assert invoke("report", out, "--json").stdout == invoke("report", reference, "--json").stdout


def silent_flip(part: Path) -> None:
    """Flip a bit of `part` so that it still reads, the same size, with other values."""
    original = pq.read_table(part)
    metadata = pq.read_metadata(part)
    names = [metadata.schema.column(i).name for i in range(metadata.num_columns)]
    start = metadata.row_group(0).column(names.index("bid")).data_page_offset
    for offset in range(start + 30, part.stat().st_size):
        flip(part, offset)
        try:
            if not pq.read_table(part).equals(original):
                return
        except Exception:  # noqa: BLE001, S112 (unreadable: not silent, try the next byte)
            pass
        flip(part, offset)
    raise AssertionError("no silent flip found")


def test_same_size_corruption_of_the_data_is_caught(tmp_path, reference):
    """The case of the issue: a bit of the bids flipped, the file the same size and readable."""
    out = copy_of(reference, tmp_path)
    part = out / "rounds" / "part-00002.parquet"
    silent_flip(part)
    assert part.stat().st_size == (reference / "rounds" / "part-00002.parquet").stat().st_size
    assert not pd.read_parquet(out / "rounds").equals(pd.read_parquet(reference / "rounds"))
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "checksum mismatch" in verified.stdout
    one_line(invoke("report", out), 2, "checksum mismatch")
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    same_data(reference, out)


def test_a_part_of_another_run_copied_in_is_never_read(tmp_path, reference):
    out = copy_of(reference, tmp_path)
    other = tmp_path / "other"
    assert invoke("simulate", *SMALL, "--seed", "6", "--out", other).exit_code == 0
    shutil.copy(other / "rounds" / "part-00000.parquet", out / "rounds" / "part-00000.parquet")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds/part-00000.parquet" in verified.stdout
    one_line(invoke("report", out), 2, "rounds/part-00000.parquet is listed as complete but")
    with pytest.raises(UnsoundPart):
        sound_parts(out, "rounds")


def test_the_journal_holds_a_checksum_of_every_part(reference):
    for line in (reference / JOURNAL_FILE).read_text().splitlines():
        entry = json.loads(line)
        assert set(entry["sha256"]) == set(entry["parts"]) == {"rounds", "games"}
        assert all(len(digest) == 32 and int(digest, 16) >= 0 for digest in entry["sha256"].values())
    assert json.loads((reference / "run.json").read_text())["format_version"] == 4
    assert read_table(reference, "games").num_rows == 60 * 4
    assert [path.name for path in sound_parts(reference, "rounds")] == [f"part-0000{k}.parquet" for k in range(3)]
    assert sound_parts(reference, "plays") == []


def as_format(out: Path, version: int, drop: tuple[str, ...] = ()) -> list[dict]:
    """What an earlier wizard-sim wrote: run.json of format `version`, journal lines without
    their own checksums (format 4's) nor the fields `drop`."""
    record = json.loads((out / "run.json").read_text())
    record["format_version"] = version
    (out / "run.json").write_text(json.dumps(record))
    dropped = {"line_sha256", *drop}
    lines = [{k: v for k, v in json.loads(line).items() if k not in dropped}
             for line in (out / JOURNAL_FILE).read_text().splitlines()]  # fmt: skip
    (out / JOURNAL_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return lines


def test_a_format_3_line_without_checksums_is_damaged(tmp_path, reference):
    out = copy_of(reference, tmp_path)
    lines = as_format(out, 3)
    del lines[1]["sha256"]
    (out / JOURNAL_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "(no checksum recorded)" in verified.stdout
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    assert invoke("verify", out).exit_code == 0


def as_format_2(out: Path) -> None:
    """What wizard-sim wrote before part checksums: format_version 2, journal lines without checksums."""
    as_format(out, 2, ("sha256",))


def test_a_format_2_run_is_read_verified_and_resumed(tmp_path, reference):
    out = copy_of(reference, tmp_path)
    as_format_2(out)
    verified = invoke("verify", out)
    assert verified.exit_code == 0 and "complete and sound" in verified.stdout
    assert "6 parts carry no checksum (format 2" in verified.stdout
    assert invoke("report", out, "--json").stdout == invoke("report", reference, "--json").stdout
    (out / "rounds" / "part-00002.parquet").unlink()
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    record = read_run(out)
    assert record["format_version"] == 2 and len(record["chunks"]["complete"]) == 3
    same_data(reference, out)
    assert invoke("verify", out).exit_code == 0


def test_a_journal_line_beyond_the_run_is_ignored_and_reported_not_advertised(tmp_path, reference):
    """#22: a line for a chunk beyond the run's count made report advise --resume, which
    changed nothing (a loop). Every reader ignores it; verify names it among what wizard-sim
    did not write."""
    out = copy_of(reference, tmp_path)
    lines = (out / JOURNAL_FILE).read_text().splitlines()
    stray = {key: value for key, value in json.loads(lines[-1]).items() if key != "line_sha256"} | {"chunk": 7}
    with open(out / JOURNAL_FILE, "a") as journal:
        journal.write(vouched_line(stray))  # a line that is what wizard-sim would write, for chunk 7
    reported = invoke("report", out)
    assert reported.exit_code == 0 and "--resume" not in reported.output and "incomplete" not in reported.output
    assert sorted(read_run(out)["chunks"]["complete"]) == ["0", "1", "2"]
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "foreign" in verified.stdout and "chunk 7, beyond the run's 3 chunks" in verified.stdout
    assert "--resume" not in verified.stdout and "damaged" not in verified.stdout
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    same_data(reference, out)


@pytest.mark.parametrize(
    "chunks",
    [{"total": 120, "count": 6}, {"total": 20, "count": 1}, {"total": 60, "count": 2, "games": 30}],
)
def test_an_edited_chunks_total_is_refused_by_every_reader_alike(tmp_path, reference, chunks):
    """#22: chunks.total edited (with a count to match) was advertised as resumable by verify
    and report, then refused by --resume. Now run.json is not a run record for all of them."""
    out = copy_of(reference, tmp_path)
    record = json.loads((out / "run.json").read_text())
    record["chunks"].update(chunks)
    (out / "run.json").write_text(json.dumps(record))
    for arguments in (("verify", out), ("report", out), ("simulate", "--resume", "--out", out, "-q")):
        one_line(invoke(*arguments), 2, "is not a wizard-sim run record", "are not its configuration's games 60")
    with pytest.raises(Exception, match="chunk_games 20"):
        read_run(out)
