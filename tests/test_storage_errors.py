"""Issue #21: the storage package raises structured errors (classes carrying what went wrong)
whose messages name no command-line flag; the command line phrases the same facts with its
flags (`--out`, `--resume`, `--overwrite`)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import invoke, one_line

from sim import Rules, SimulationConfig, resume, simulate
from sim.storage import RunLock, errors

CONFIG = SimulationConfig.build(Rules(players=3, rounds=(1, 2)), "random", seed=1, games=6, chunk_games=2)


def run(out: Path) -> Path:
    simulate(CONFIG, str(out))
    return out


def edited(out: Path) -> Path:
    record = json.loads((out / "run.json").read_text())
    record["config"]["seed"] = 2
    (out / "run.json").write_text(json.dumps(record))
    return out


def not_empty(tmp_path: Path) -> Path:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "mine.txt").write_text("mine")
    return tmp_path / "x"


# (what to do, the error class, the CLI command that meets the same situation, its words)
SITUATIONS = {
    "empty path": (lambda tmp: simulate(CONFIG, ""), errors.EmptyPath, lambda tmp: ["simulate", "--games", "2", "--out", ""],
                   "--out is empty"),
    "s3 URL": (lambda tmp: simulate(CONFIG, "s3://bucket/run"), errors.UnsupportedURL,
               lambda tmp: ["simulate", "--games", "2", "--out", "s3://bucket/run"], "--out s3://bucket/run: s3://"),
    "not empty": (lambda tmp: simulate(CONFIG, str(run(tmp / "r"))), errors.DirectoryNotEmpty,
                  lambda tmp: ["simulate", "--games", "2", "--out", tmp / "r"], "pass --resume to finish its run or --overwrite"),
    "a stranger's directory": (lambda tmp: simulate(CONFIG, str(not_empty(tmp)), overwrite=True), errors.RefusedOverwrite,
                               lambda tmp: ["simulate", "--games", "2", "--overwrite", "--out", tmp / "x"],
                               "is not empty and holds no run.json: refusing to overwrite it"),
    "nested": (lambda tmp: simulate(CONFIG, str(run(tmp / "r") / "inner")), errors.NestedRun,
               lambda tmp: ["simulate", "--games", "2", "--out", tmp / "r" / "inner"], "--out", "inside the run directory"),
    "edited": (lambda tmp: resume(str(edited(run(tmp / "r")))), errors.CannotResume,
               lambda tmp: ["simulate", "--resume", "--out", tmp / "r"], "cannot resume:", "start a new run with --overwrite"),
    "not a run": (lambda tmp: resume(str(tmp)), errors.CannotResume, lambda tmp: ["simulate", "--resume", "--out", tmp],
                  "cannot resume:", "is not a run directory"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SITUATIONS))
def test_the_api_names_no_flag_and_the_cli_does(tmp_path, name):
    action, kind, command, *words = SITUATIONS[name]
    with pytest.raises(kind) as caught:
        action(tmp_path)
    assert "--" not in str(caught.value), str(caught.value)
    assert isinstance(caught.value, errors.StorageError) and isinstance(caught.value, ValueError)
    one_line(invoke(*command(tmp_path)), 2, *words)


def test_a_held_lock_says_who_holds_it(tmp_path):
    out = run(tmp_path / "r")
    lock = RunLock(out)
    lock.acquire()
    try:
        with pytest.raises(errors.DirectoryInUse) as caught:
            simulate(CONFIG, str(out), overwrite=True)
        assert caught.value.path == out and isinstance(caught.value.pid, int) and "--" not in str(caught.value)
        one_line(invoke("simulate", "--games", "2", "--overwrite", "--out", out), 2, f"--out {out} is in use")
    finally:
        lock.release()


def test_a_resumed_legacy_run_names_overwrite_only_on_the_command_line(tmp_path):
    out = tmp_path / "old"
    out.mkdir()
    legacy = {"format": 1, "command": "simulate", "config": {}, "versions": {}, "started": "x", "finished": None,
              "chunks": {"count": 1, "total": 1, "games": 1, "complete": {}}}  # fmt: skip
    (out / "run.json").write_text(json.dumps(legacy))
    with pytest.raises(errors.CannotResume) as caught:
        resume(str(out))
    assert isinstance(caught.value.cause, errors.LegacyRun) and "--" not in str(caught.value)
    one_line(invoke("simulate", "--resume", "--out", out), 2, "(format 1); start it again with --overwrite")
