"""Issue #15: a run directory has one writer, is recognised (not guessed), and its data are
verified: the lock, run.json's schema, --overwrite removing only wizard-sim's files (and a
failure in its middle), nested and empty --out, the chunk journal, resume and report against
missing, damaged, foreign and edited files, and `wizard-sim verify`."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import invoke, one_line

import sim.storage.files
from sim.storage import JOURNAL_FILE, LOCK_FILE, RunLock, fingerprint, read_run

SMALL = ["--players", "3", "--games", "23", "--rounds", "1-4", "--policy", "heuristic,random,heuristic:aggression=1.2",
         "--seed", "5", "--chunk-games", "5", "--quiet"]  # fmt: skip


def same_data(first: Path, second: Path, tables=("rounds", "games")) -> None:
    for table in tables:
        pd.testing.assert_frame_equal(pd.read_parquet(first / table), pd.read_parquet(second / table))


def files_of(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "run"
    assert invoke("simulate", *SMALL, "--out", out).exit_code == 0
    return out


def fresh(tmp_path: Path, name: str = "run", *extra: str) -> Path:
    out = tmp_path / name
    result = invoke("simulate", *SMALL, *extra, "--out", out)
    assert result.exit_code == 0, result.output
    return out


# -- one writer -----------------------------------------------------------------------------
def test_a_held_lock_refuses_a_second_writer_and_resumer(tmp_path):
    out = fresh(tmp_path)
    before = files_of(out)
    lock = RunLock(out)
    lock.acquire()
    try:
        one_line(invoke("simulate", *SMALL, "--overwrite", "--out", out), 2, "in use by another wizard-sim run")
        one_line(invoke("simulate", "--resume", "--out", out), 2, "in use")
        one_line(invoke("tournament", "--policies", "heuristic,random,random", "--players", "3", "--games", "2",
                        "--overwrite", "--out", out), 2, "in use")  # fmt: skip
    finally:
        lock.release()
    after = files_of(out)
    del before[LOCK_FILE], after[LOCK_FILE]  # holds the pid of the last holder
    assert after == before
    # A lock file left by a dead process is no lock: the OS dropped its flock.
    (out / LOCK_FILE).write_text("999999999\n")
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0


@pytest.mark.processes
def test_two_processes_racing_for_one_directory(tmp_path):
    """A real run holds --out: a second `--overwrite` and a `--resume` started into it are
    refused with one line (exit 2) and change nothing; after the first, paused, is killed (-9) its
    lock is gone and --resume finishes the run to the same data."""
    arguments = ["simulate", "--games", "2000", "--chunk-games", "20", "--policy", "mc", "--seed", "11",
                 "--rounds", "1-5", "--quiet", "--threads", "1"]  # fmt: skip
    out = tmp_path / "raced"
    first = subprocess.Popen([sys.executable, "-m", "sim.cli", *arguments, "--out", str(out)], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and first.poll() is None:
        if (out / JOURNAL_FILE).exists() and (out / JOURNAL_FILE).read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.02)
    assert first.poll() is None, "the first run ended before the race"
    # Paused (still holding its lock) so that it cannot finish while the racers start: on a fast
    # machine it once wrote every chunk before the racers were refused.
    first.send_signal(signal.SIGSTOP)
    try:
        racers = [
            subprocess.Popen([sys.executable, "-m", "sim.cli", *arguments, "--overwrite", "--out", str(out)],
                             stderr=subprocess.PIPE, text=True),
            subprocess.Popen([sys.executable, "-m", "sim.cli", "simulate", "--resume", "--quiet", "--out", str(out)],
                             stderr=subprocess.PIPE, text=True),
        ]  # fmt: skip
        for racer in racers:
            _, stderr = racer.communicate(timeout=120)
            lines = stderr.strip().splitlines()
            assert racer.returncode == 2 and len(lines) == 1 and "in use by another wizard-sim run" in lines[0], stderr
        assert first.poll() is None, "the first run ended before the racers were refused"
    finally:
        # Killed (-9) even when an assertion above failed: a paused run never ends by itself.
        first.kill()
        first.wait()
    record = read_run(out)
    assert 0 < len(record["chunks"]["complete"]) < record["chunks"]["count"]
    resumed = invoke("simulate", "--resume", "--out", out, "--quiet", "--threads", "2")
    assert resumed.exit_code == 0, resumed.output
    assert invoke("verify", out).exit_code == 0
    reference = tmp_path / "reference"
    assert invoke(*arguments, "--chunk-games", "1000", "--out", reference).exit_code == 0
    same_data(reference, out)


# -- recognised, not guessed ------------------------------------------------------------------
@pytest.mark.parametrize(
    "content", ['{"my_experiment": 1}', "[1, 2]", '{"format": "wizard-sim run"}', "not json", "DIRECTORY"]
)
def test_overwrite_refuses_what_is_not_a_wizard_sim_run(tmp_path, content):
    out = tmp_path / "mine"
    (out / "games").mkdir(parents=True)
    (out / "games" / "my-results.csv").write_text("precious\n")
    if content == "DIRECTORY":
        (out / "run.json").mkdir()
    else:
        (out / "run.json").write_text(content)
    before = files_of(out)
    result = invoke("simulate", *SMALL, "--overwrite", "--out", out)
    one_line(result, 2)
    assert "overwrite" in result.stderr
    assert files_of(out) == before and (out / "games").is_dir()


def test_empty_and_nested_out_are_refused(tmp_path, reference):
    one_line(invoke("simulate", *SMALL, "--out", ""), 2, "--out is empty")
    for nested in (reference / "rounds" / "sub", reference / "sub", reference / "rounds"):
        result = invoke("simulate", *SMALL, "--out", nested)
        one_line(result, 2, "inside the run directory")
        assert not (reference / "rounds" / "sub").exists() and not (reference / "sub").exists()


def test_overwrite_removes_only_what_wizard_sim_wrote(tmp_path):
    out = fresh(tmp_path, "run", "--log-plays")
    (out / "notes.txt").write_text("mine")
    (out / "rounds" / "analysis.ipynb").write_text("mine")
    (out / "plays" / "keep.csv").write_text("mine")
    replaced = invoke("simulate", *SMALL, "--seed", "6", "--overwrite", "--out", out)
    assert replaced.exit_code == 0, replaced.output
    assert (out / "notes.txt").read_text() == "mine" and (out / "rounds" / "analysis.ipynb").read_text() == "mine"
    assert (out / "plays" / "keep.csv").read_text() == "mine"
    assert not list((out / "plays").glob("*.parquet")), "the old run's plays were kept beside the new rounds"
    expected = fresh(tmp_path, "expected", "--seed", "6")
    assert sorted(p.name for p in (out / "rounds").glob("*.parquet")) == sorted(
        p.name for p in (expected / "rounds").glob("*.parquet")
    )
    (out / "rounds" / "analysis.ipynb").unlink()
    same_data(expected, out)
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "foreign files" in verified.stdout and "notes.txt" in verified.stdout


@pytest.mark.slow
def test_overwrite_failing_midway_leaves_the_old_run_or_a_clean_start(tmp_path, monkeypatch):
    out = fresh(tmp_path)
    old = files_of(out)
    # Before the new run.json lands: the old run is untouched.
    real_stage_json = sim.storage.files.stage_json

    def refuse(path, record):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sim.storage.files, "stage_json", refuse)
    failed = invoke("simulate", *SMALL, "--seed", "9", "--overwrite", "--out", out)
    one_line(failed, 1, "No space left on device", "nothing of the run was written")
    assert "--resume" not in failed.stderr  # there is nothing to resume: the old run is untouched
    monkeypatch.setattr(sim.storage.files, "stage_json", real_stage_json)
    now = files_of(out)
    old.pop(LOCK_FILE), now.pop(LOCK_FILE)
    assert now == old
    assert invoke("verify", out).exit_code == 0
    # After it landed, while the old files are removed: a clean start of the new run.
    real_unlink = sim.storage.files.remove_file
    calls = {"n": 0}

    def failing_unlink(path):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(5, "Input/output error")
        real_unlink(path)

    monkeypatch.setattr(sim.storage.files, "remove_file", failing_unlink)
    failed = invoke("simulate", *SMALL, "--seed", "9", "--overwrite", "--out", out)
    assert failed.exit_code == 1 and "Input/output error" in failed.stderr
    monkeypatch.setattr(sim.storage.files, "remove_file", real_unlink)
    record = read_run(out)
    assert record["config"]["seed"] == 9 and record["chunks"]["complete"] == {}
    report = invoke("report", out)
    assert report.exit_code == 2  # no listed part yet: the old run's parts are never read as the new one's
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    same_data(fresh(tmp_path, "expected", "--seed", "9"), out)
    assert invoke("verify", out).exit_code == 0


def test_format_one_run_json_is_overwritten_but_not_resumed(tmp_path):
    out = tmp_path / "old"
    (out / "rounds").mkdir(parents=True)
    legacy = {"format": 1, "command": "simulate", "config": {}, "versions": {}, "started": "x", "finished": None,
              "chunks": {"count": 1, "total": 1, "games": 1, "complete": {}}}  # fmt: skip
    (out / "run.json").write_text(json.dumps(legacy))
    one_line(invoke("simulate", "--resume", "--out", out), 2, "older wizard-sim (format 1)")
    assert invoke("simulate", *SMALL, "--overwrite", "--out", out).exit_code == 0
    legacy["surprise"] = 1
    (out / "run.json").write_text(json.dumps(legacy))
    one_line(invoke("simulate", *SMALL, "--overwrite", "--out", out), 2, "not a wizard-sim run record")


# -- verified data ----------------------------------------------------------------------------
def test_a_deleted_part_is_reported_and_recomputed(tmp_path, reference):
    out = fresh(tmp_path)
    (out / "rounds" / "part-00002.parquet").unlink()
    report = invoke("report", out)
    one_line(report, 2, "missing", "verify")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds/part-00002.parquet" in verified.stdout
    resumed = invoke("simulate", "--resume", "--out", out, "-q")
    assert resumed.exit_code == 0
    same_data(reference, out)
    assert invoke("verify", out).exit_code == 0


def test_a_damaged_part_is_recomputed(tmp_path, reference):
    out = fresh(tmp_path)
    part = out / "games" / "part-00001.parquet"
    part.write_bytes(part.read_bytes()[:-100])
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "damaged parts: games/part-00001.parquet" in verified.stdout
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    same_data(reference, out)


def edit(out: Path, change) -> None:
    record = json.loads((out / "run.json").read_text())
    change(record)
    (out / "run.json").write_text(json.dumps(record))


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda r: r["config"].update(seed=6), ("was edited",)),
        (lambda r: r["config"].update(policies=["random"] * 3), ("was edited",)),
        (lambda r: r["chunks"].update(count=3), ("chunks.count",)),
        (lambda r: r.pop("config"), ("'config' is missing",)),
        (lambda r: r.update(format_version=5), ("newer wizard-sim",)),
    ],
)
@pytest.mark.slow
def test_an_edited_run_json_is_refused(tmp_path, change, words):
    out = fresh(tmp_path)
    edit(out, change)
    for command in (["simulate", "--resume", "--out", out], ["verify", out], ["report", out]):
        one_line(invoke(*command), 2, *words)


def test_parts_of_another_configuration_refuse_the_resume(tmp_path):
    """run.json edited consistently (its fingerprint recomputed) no longer matches its parts."""
    out = fresh(tmp_path)

    def change(record):
        record["config"]["chunk_games"] = 6
        record["chunks"].update(games=6, count=4)
        record["fingerprint"] = fingerprint(record["command"], record["config"])

    edit(out, change)
    one_line(invoke("simulate", "--resume", "--out", out), 2, "disagree on the configuration")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "parts of another configuration" in verified.stdout


def test_a_huge_recorded_size_is_refused_before_anything_is_allocated(tmp_path):
    out = fresh(tmp_path)

    def change(record):
        record["config"]["games"] = record["chunks"]["total"] = 10**30
        record["chunks"]["count"] = -(-10**30 // record["chunks"]["games"])
        record["fingerprint"] = fingerprint(record["command"], record["config"])

    edit(out, change)
    one_line(invoke("simulate", "--resume", "--out", out), 2, "games must be in 1..1,000,000,000,000")


def test_run_json_that_is_a_list_or_misses_keys_is_one_line(tmp_path):
    out = fresh(tmp_path)
    (out / "run.json").write_text("[]")
    for command in (["simulate", "--resume", "--out", out], ["verify", out], ["report", out]):
        one_line(invoke(*command), 2, "not a wizard-sim run record")
    edit_text = {"format": "wizard-sim run", "format_version": 2}
    (out / "run.json").write_text(json.dumps(edit_text))
    one_line(invoke("simulate", "--resume", "--out", out), 2, "not a wizard-sim run record")


def test_report_counts_only_listed_parts_and_says_when_incomplete(tmp_path, reference):
    out = fresh(tmp_path)
    expected = invoke("report", reference, "--json")
    foreign = pd.read_parquet(out / "rounds" / "part-00000.parquet")
    foreign.to_parquet(out / "rounds" / "part-00099.parquet")
    foreign.to_parquet(out / "rounds" / "extra.parquet")
    assert invoke("report", out, "--json").stdout == expected.stdout
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds/part-00099.parquet" in verified.stdout
    assert "rounds/extra.parquet" in verified.stdout
    # An interrupted run: its journal lists two of five chunks.
    journal = (out / JOURNAL_FILE).read_bytes().splitlines(keepends=True)
    (out / JOURNAL_FILE).write_bytes(b"".join(journal[:2]) + journal[2][:20])  # and a torn line
    edit(out, lambda r: r.update(finished=None))
    partial = invoke("report", out)
    assert partial.exit_code == 0 and "incomplete run (2 of 5 chunks)" in partial.stderr
    assert f"{2 * 5 * 4 * 3:,} bids" in partial.stdout
    assert invoke("simulate", "--resume", "--out", out, "-q").exit_code == 0
    (out / "rounds" / "part-00099.parquet").unlink()
    (out / "rounds" / "extra.parquet").unlink()
    assert invoke("verify", out).exit_code == 0
    same_data(reference, out)


@pytest.mark.slow
def test_run_json_stays_small_and_the_journal_grows_by_a_line(tmp_path):
    out = tmp_path / "many"
    result = invoke("simulate", "--games", "300", "--chunk-games", "1", "--rounds", "1", "--policy", "random",
                    "--seed", "1", "--quiet", "--out", out)  # fmt: skip
    assert result.exit_code == 0
    assert (out / "run.json").stat().st_size < 2000
    lines = (out / JOURNAL_FILE).read_bytes().splitlines()
    assert len(lines) == 300 and all(json.loads(line)["parts"]["rounds"][1] == 4 for line in lines)
    record = read_run(out)
    assert len(record["chunks"]["complete"]) == 300 and record["finished"]


def test_verify_exit_codes(tmp_path, reference):
    good = invoke("verify", reference)
    assert good.exit_code == 0 and "complete and sound" in good.stdout
    one_line(invoke("verify", tmp_path / "nothing"), 2, "not a run directory")
    one_line(invoke("verify", tmp_path), 2, "not a run directory")


def test_tournament_directories_are_checked_too(tmp_path):
    out = tmp_path / "t"
    arguments = ["tournament", "--policies", "heuristic,random,random", "--players", "3", "--games", "12",
                 "--rounds", "1-3", "--chunk-games", "4", "--seed", "2", "--quiet"]  # fmt: skip
    assert invoke(*arguments, "--out", out).exit_code == 0
    assert invoke("verify", out).exit_code == 0  # summary.json and summary.parquet are its own
    (out / "games" / "part-00001.parquet").unlink()
    assert invoke("verify", out).exit_code == 1
    assert invoke("tournament", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0
