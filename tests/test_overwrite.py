"""Issue #22 item 2: a run directory holds exactly one run. `--overwrite` moves the old run's
tables aside (one rename each) before the new run.json lands and removes them after: killed
(kill -9) or interrupted (Ctrl-C) at any of its file operations, the directory's tables hold
the old run's parts or the new run's, never both, and the next `--resume` or `--overwrite`
finishes the clearing. Symlinked table directories and files that are not the run's own parts
are refused or reported, never read as its data."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from helpers import invoke, one_line

from sim.storage import read_run, read_table
from sim.storage.errors import UnsoundPart

OLD = ["--players", "3", "--rounds", "1-2", "--policy", "random", "--games", "12", "--chunk-games", "2", "--seed", "1",
       "--log-plays", "--quiet"]  # fmt: skip
NEW = ["--players", "3", "--rounds", "1-2", "--policy", "random", "--games", "12", "--chunk-games", "3", "--seed", "2",
       "--quiet", "--threads", "1"]  # fmt: skip

# Runs the command line with every file operation counted once the run holds its lock; the
# operation number LIMIT sends SIGNAL to the process itself, just before it happens.
DRIVER = """
import os, sys
limit, number = int(sys.argv[1]), int(sys.argv[2])
state = {"armed": False, "count": 0}
def counted(name):
    real = getattr(os, name)
    def operation(*args, **kwargs):
        if state["armed"]:
            state["count"] += 1
            if state["count"] == limit:
                os.kill(os.getpid(), number)
        return real(*args, **kwargs)
    setattr(os, name, operation)
for name in ("rename", "replace", "unlink", "rmdir", "mkdir"):
    counted(name)
import sim.storage.lock
acquire = sim.storage.lock.RunLock.acquire
def armed(self):
    acquire(self)
    state["armed"] = True
sim.storage.lock.RunLock.acquire = armed
from sim.cli import app
app(sys.argv[3:])
"""


def reference(tmp_path_factory, name: str, arguments: list[str]) -> dict[str, pd.DataFrame]:
    out = tmp_path_factory.mktemp(name) / "run"
    assert invoke("simulate", *arguments, "--out", out).exit_code == 0
    return {table: pd.read_parquet(out / table) for table in ("rounds", "games")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[dict, dict]:
    return reference(tmp_path_factory, "old", OLD), reference(tmp_path_factory, "new", NEW)


def old_run(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    assert invoke("simulate", *OLD, "--out", out).exit_code == 0
    (out / "rounds" / "_notes.txt").write_text("mine")  # pyarrow skips names starting with "_"
    (out / "plays" / "_mine.txt").write_text("mine too")
    (out / "notes.txt").write_text("mine as well")
    return out


def table_now(out: Path, table: str) -> pd.DataFrame | None:
    """What pandas reads of DIR/table now (None: nothing to read)."""
    directory = out / table
    if not directory.is_dir() or not any(path.suffix == ".parquet" for path in directory.iterdir()):
        return None
    return pd.read_parquet(directory)


def one_run(out: Path, old: dict, new: dict) -> None:
    """Each table pandas reads is the old run's whole, or parts of the new run's only."""
    for table in ("rounds", "games"):
        frame = table_now(out, table)
        if frame is None or (len(frame) == len(old[table]) and frame.equals(old[table])):
            continue
        assert len(frame.merge(new[table])) == len(frame), f"{table} mixes runs"


def users_files_stay(out: Path) -> None:
    assert (out / "rounds" / "_notes.txt").read_text() == "mine"
    assert (out / "plays" / "_mine.txt").read_text() == "mine too"
    assert (out / "notes.txt").read_text() == "mine as well"


def overwrite_stopped_at(out: Path, operation: int, number: int) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", DRIVER, str(operation), str(number), "simulate", *NEW, "--overwrite", "--out", str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def check_moment(tmp_path: Path, runs: tuple[dict, dict], operation: int, number: int, then: str) -> bool:
    """Stop an --overwrite at file operation `operation`, check the directory, continue with
    `then` (--resume or --overwrite), check again. False when the overwrite ended first."""
    old, new = runs
    out = old_run(tmp_path / f"{operation}-{then}")
    stopped = overwrite_stopped_at(out, operation, number)
    if stopped.returncode == 0:
        return False
    if number == signal.SIGINT:
        assert stopped.returncode == 130 and stopped.stderr.count("\n") == 1, stopped.stderr
    else:
        assert stopped.returncode == -signal.SIGKILL, stopped.stderr
    one_run(out, old, new)
    if then == "--resume":
        result = invoke("simulate", "--resume", "--out", out, "--quiet")
    else:
        result = invoke("simulate", *NEW, "--overwrite", "--out", out)
    assert result.exit_code == 0, (operation, result.output)
    # Resuming before the new run.json landed finishes the old run (the only one there).
    expected = new if read_run(out)["config"]["seed"] == 2 or then == "--overwrite" else old
    for table in ("rounds", "games"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / table), expected[table])
        pd.testing.assert_frame_equal(read_table(out, table).to_pandas(), expected[table])
    if expected is new:
        assert not any((out / "plays").glob("*.parquet")), "the old run's plays stayed"
    users_files_stay(out)
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "foreign files" in verified.stdout and "clearing" not in verified.stdout
    return True


@pytest.mark.parametrize("operation", [1, 3, 5, 9, 20, 30])
def test_an_overwrite_killed_at_some_moments_of_its_clearing(tmp_path, runs, operation):
    then = "--resume" if operation % 2 else "--overwrite"
    assert check_moment(tmp_path, runs, operation, signal.SIGKILL, then)


@pytest.mark.processes
def test_an_overwrite_killed_at_every_moment_of_its_clearing(tmp_path, runs):
    """Every file operation from taking the lock to the first parts of the new run (the old run
    has 18 parts: the clearing is about 30 operations), followed by --resume or --overwrite."""
    operation = 1
    while check_moment(tmp_path, runs, operation, signal.SIGKILL, "--resume" if operation % 2 else "--overwrite"):
        operation += 1
    assert operation > 30


@pytest.mark.parametrize("operation", [2, 6, 25])
def test_an_overwrite_interrupted_by_ctrl_c_in_its_clearing(tmp_path, runs, operation):
    assert check_moment(tmp_path, runs, operation, signal.SIGINT, "--resume")


def test_an_interrupted_clearing_is_reported_by_verify(tmp_path, runs):
    out = old_run(tmp_path)
    stopped = overwrite_stopped_at(out, 12, signal.SIGKILL)  # among the old parts' removals
    assert stopped.returncode == -signal.SIGKILL
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "files of a replaced run still to be removed" in verified.stdout
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert not (out / ".wizard-sim-clearing").exists()


# -- symlinks and files that are not the run's parts -----------------------------------------------
def test_a_symlinked_table_directory_is_refused(tmp_path, runs):
    out = tmp_path / "run"
    assert invoke("simulate", *NEW, "--out", out).exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    (out / "rounds").rename(elsewhere)
    os.symlink(elsewhere, out / "rounds")
    for command in (["simulate", *NEW, "--overwrite", "--out", out], ["simulate", "--resume", "--out", out], ["report", out]):
        one_line(invoke(*command), 2, "rounds is a symbolic link")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds (a symbolic link" in verified.stdout
    assert sorted(path.name for path in elsewhere.iterdir()) == [f"part-0000{k}.parquet" for k in range(4)]


def test_a_near_name_and_a_symlinked_part_are_reported(tmp_path):
    out = tmp_path / "run"
    assert invoke("simulate", *NEW, "--out", out).exit_code == 0
    near = out / "rounds" / "part-000001.parquet"
    near.write_bytes((out / "rounds" / "part-00001.parquet").read_bytes())
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "foreign files" in verified.stdout and "rounds/part-000001.parquet" in verified.stdout
    near.unlink()
    part = out / "games" / "part-00002.parquet"
    copy = tmp_path / "copy.parquet"
    copy.write_bytes(part.read_bytes())
    part.unlink()
    os.symlink(copy, part)
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "games/part-00002.parquet (a symbolic link" in verified.stdout
    with pytest.raises(UnsoundPart, match="games/part-00002.parquet is listed as complete but damaged"):
        read_table(out, "games")
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert not part.is_symlink() and copy.exists()
    assert invoke("verify", out).exit_code == 0
