"""A run directory against a hostile user (issue #40, classes 2, 3 and 5): every journal line is
vouched for (an edit of one of its figures, of the same size, is found by verify and never
summed); no symbolic link in a run directory is ever followed (lock, journal, clearing
directory, run.json, summaries...); readers mid-overwrite find no empty table; the Python API
imports no bot that its caller did not name; a league where a policy would never sit is
refused up front."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from helpers import copy_of, invoke, made_run, one_line

import sim
from sim.config.errors import ConfigError
from sim.runs.league import resume_league
from sim.runs.tournament import resume_tournament
from sim.runs.verification import verify_run
from sim.storage import JOURNAL_FILE, LOCK_FILE, RunDirectory, read_run, read_table
from sim.storage.directory import CLEARING_DIR
from sim.storage.record import fingerprint

SIMULATE = ["--players", "4", "--games", "60", "--policy", "heuristic,random,random,random", "--seed", "5",
            "--chunk-games", "20", "--quiet"]  # fmt: skip
TOURNAMENT = ["--policies", "heuristic,random,random", "--players", "3", "--games", "12", "--chunk-games", "4",
              "--rounds", "1-3", "--seed", "9", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("simulated") / "run"
    assert invoke("simulate", *SIMULATE, "--out", out).exit_code == 0
    return out


@pytest.fixture(scope="module")
def tournament_run(tmp_path_factory) -> Path:
    return made_run(tmp_path_factory.mktemp("tournament") / "run", "tournament", *TOURNAMENT)


def same_size_edit(out: Path, line: int) -> None:
    """Change one digit of a figure in the statistics of journal line `line`: same size, still JSON."""
    lines = (out / JOURNAL_FILE).read_text().splitlines(keepends=True)
    stats = lines[line].index('"stats"')
    match = re.compile(r"[1-8]").search(lines[line], stats)
    position = match.start()
    lines[line] = lines[line][:position] + str(int(match.group()) + 1) + lines[line][position + 1 :]
    (out / JOURNAL_FILE).write_text("".join(lines))


# --- class 2: every journal line vouched for ------------------------------------------------


@pytest.mark.slow
def test_a_same_size_edit_of_a_figure_is_found_and_never_summed(tmp_path, tournament_run):
    out = copy_of(tournament_run, tmp_path)
    before = (out / JOURNAL_FILE).stat().st_size
    same_size_edit(out, 1)
    assert (out / JOURNAL_FILE).stat().st_size == before
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "not what wizard-sim wrote" in verified.stdout, verified.stdout
    assert "1" not in read_run(out)["chunks"]["complete"]  # not read as data
    reference = json.loads((tournament_run / "summary.json").read_text())
    resumed = invoke("tournament", "--resume", "--out", out, "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((out / "summary.json").read_text()) == reference  # the chunk recomputed, not the edit
    assert invoke("verify", out).exit_code == 0


def test_every_line_of_a_new_run_carries_its_checksum(simulated):
    for line in (simulated / JOURNAL_FILE).read_text().splitlines():
        assert re.search(r',"line_sha256":"[0-9a-f]{32}"}$', line), line
    assert json.loads((simulated / "run.json").read_text())["format_version"] == 4


@pytest.mark.slow
def test_a_format_3_run_reads_verifies_and_resumes(tmp_path, simulated):
    """Runs written before line checksums: read, resumed as format 3, and verify says their
    figures are not vouched for."""
    out = copy_of(simulated, tmp_path)
    record = json.loads((out / "run.json").read_text())
    record["format_version"] = 3
    (out / "run.json").write_text(json.dumps(record))
    lines = [json.loads(line) for line in (out / JOURNAL_FILE).read_text().splitlines()]
    for line in lines:
        del line["line_sha256"]
    (out / JOURNAL_FILE).write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines[:2]))
    assert len(read_run(out)["chunks"]["complete"]) == 2
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    verified = invoke("verify", out)
    assert verified.exit_code == 0 and "2 journal lines carry no checksum of their own (format 3" in verified.stdout
    assert read_run(out)["format_version"] == 3
    pd.testing.assert_frame_equal(read_table(out, "games").to_pandas(), read_table(simulated, "games").to_pandas())


# --- class 2: no symbolic link followed ---------------------------------------------------------


def plant(out: Path, name: str, target: Path) -> None:
    link = out / name
    if link.exists() or link.is_symlink():
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        else:
            link.unlink()
    link.symlink_to(target)


@pytest.mark.slow
@pytest.mark.parametrize("name", [LOCK_FILE, JOURNAL_FILE, "run.json", CLEARING_DIR])
def test_a_planted_link_is_never_followed_and_verify_reports_it(tmp_path, simulated, name):
    out = copy_of(simulated, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    if name == CLEARING_DIR:
        target = outside / "clearing"
        target.mkdir()
    else:
        target = outside / name
        target.write_bytes((simulated / name).read_bytes() if (simulated / name).is_file() else b"precious\n")
    before = target.read_bytes() if target.is_file() else sorted(os.listdir(target))
    plant(out, name, target)
    for command in (["simulate", "--resume", "--out", out], ["simulate", *SIMULATE, "--out", out, "--overwrite"]):
        result = invoke(*command)
        one_line(result, 2, "symbolic link")
    verified = invoke("verify", out)
    assert verified.exit_code in (1, 2) and "symbolic link" in verified.output, verified.output
    after = target.read_bytes() if target.is_file() else sorted(os.listdir(target))
    assert after == before  # nothing written, appended, moved into or out of it
    assert (out / name).is_symlink()  # and the link itself is the user's: not removed


@pytest.mark.slow
def test_a_fifo_in_a_run_directory_does_not_hang_verify(tmp_path, simulated):
    out = copy_of(simulated, tmp_path)
    (out / JOURNAL_FILE).unlink()
    os.mkfifo(out / JOURNAL_FILE)
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "special file" in verified.stdout
    one_line(invoke("simulate", "--resume", "--out", out), 2, "special file")


@pytest.mark.slow
def test_a_linked_part_is_damaged_and_never_read(tmp_path, simulated):
    out = copy_of(simulated, tmp_path)
    outside = tmp_path / "elsewhere.parquet"
    shutil.copy(out / "games" / "part-00001.parquet", outside)
    plant(out, "games/part-00001.parquet", outside)
    assert "symbolic link" in invoke("verify", out).stdout
    with pytest.raises(ConfigError):
        read_table(out, "games")


# --- class 2: readers mid-overwrite ----------------------------------------------------------


@pytest.mark.slow
def test_an_overwrite_stopped_before_its_first_part_leaves_no_empty_table(tmp_path, simulated, monkeypatch):
    out = copy_of(simulated, tmp_path)

    def killed(self, *arguments):
        raise KeyboardInterrupt

    monkeypatch.setattr(RunDirectory, "write_part", killed)
    result = invoke("simulate", *SIMULATE[:-1], "--out", out, "--overwrite", "--seed", "6")
    assert result.exit_code == 130
    monkeypatch.undo()
    for table in ("rounds", "games"):
        assert not (out / table).exists()  # the old run's parts are gone; nothing to mistake for data
        with pytest.raises(FileNotFoundError):
            pd.read_parquet(out / table)
    assert not [name for name in os.listdir(out) if name.startswith(".") and name != LOCK_FILE]
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0 and len(pd.read_parquet(out / "games")) == 60 * 4


# --- class 3: the Python API imports no bot its caller did not name ----------------------------


BOT = '''
from pathlib import Path
Path(__file__).with_name("imported").write_text("yes")
class Bot:
    fallback = "heuristic"
    def bid(self, observations):
        raise RuntimeError
'''


def with_bot_in_record(out: Path, tmp_path: Path, monkeypatch) -> Path:
    """run.json naming a module that would leave a mark if it were ever imported."""
    (tmp_path / "hostile_bot_40.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(tmp_path))
    record = json.loads((out / "run.json").read_text())
    record["config"]["policies"][1] = "hostile_bot_40:Bot"
    record["fingerprint"] = fingerprint(record["command"], record["config"])
    record["finished"] = None
    (out / "run.json").write_text(json.dumps(record))
    return tmp_path / "imported"


@pytest.mark.slow
def test_no_api_entry_imports_a_module_named_in_run_json(tmp_path, tournament_run, monkeypatch):
    out = copy_of(tournament_run, tmp_path)
    mark = with_bot_in_record(out, tmp_path, monkeypatch)
    for resume in (sim.resume, resume_tournament, resume_league):
        with pytest.raises(ConfigError):
            resume(str(out))
    with pytest.raises(ConfigError, match="name its policies again"):
        resume_tournament(str(out))
    read_run(out)
    verify_run(str(out))
    for command in (["report", out], ["verify", out], ["compare", out, tournament_run], ["tournament", "--resume", "--out", out]):
        invoke(*command)
    assert not mark.exists() and "hostile_bot_40" not in sys.modules


@pytest.mark.slow
def test_resume_takes_the_bots_its_caller_names(tmp_path, tournament_run, monkeypatch):
    out = copy_of(tournament_run, tmp_path)
    with_bot_in_record(out, tmp_path, monkeypatch)
    with pytest.raises(ConfigError, match="differs from the run being resumed"):
        resume_tournament(str(out), policies="heuristic,other_module:Bot,random")


# --- class 5: a league where a policy never sits -------------------------------------------------


@pytest.mark.parametrize(
    "policies, players, deals, needed",
    [("heuristic,random,heuristic:aggression=1.1,heuristic:aggression=1.2", 3, 1, 2),
     (",".join(["random"] + [f"heuristic:aggression={1 + k / 100}" for k in range(31)]), 6, 10, 12)],
)  # fmt: skip
def test_a_league_where_a_policy_would_never_sit_is_refused_up_front(tmp_path, policies, players, deals, needed):
    out = tmp_path / "league"
    result = invoke("league", "--policies", policies, "--players", players, "--games", deals, "--out", out)
    one_line(result, 2, f"needs at least {needed} deals", f"got {deals}")
    assert not out.exists()
    with pytest.raises(ConfigError, match="needs at least"):
        sim.league(sim.LeagueConfig.build(sim.Rules(players=players), policies, seed=1, deals=deals), str(out))
