"""Issue #61: wizard-sim deletes or replaces only what it can prove it wrote. Whatever verify
calls foreign stays, whatever its name (items 1, 2); no hard link leads a write out of a run
directory (item 4); no output of another command lands in a run (item 5); verify checks every
artefact a run's kind promises (item 6); repeated round sizes are refused, not rewritten
(item 12); and failures of a new run say what failed (item 13)."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from helpers import copy_of, invoke, made_run, one_line

from sim.config.errors import ConfigError
from sim.config.rules import Rules, parse_rounds
from sim.storage import JOURNAL_FILE, LOCK_FILE, read_run
from sim.storage.journal import Journal

SMALL = ["--players", "3", "--rounds", "1-2", "--policy", "random", "--chunk-games", "100", "--quiet"]
TOURNAMENT = ["--policies", "heuristic,random,random", "--players", "3", "--games", "8", "--chunk-games", "4",
              "--rounds", "1-2", "--seed", "9", "--quiet"]  # fmt: skip
LEAGUE = ["--policies", "heuristic,random,heuristic:aggression=1.2", "--players", "3", "--games", "6",
          "--rounds", "1-2", "--seed", "3", "--quiet"]  # fmt: skip


@pytest.fixture(scope="module")
def three_chunks(tmp_path_factory) -> Path:
    return made_run(tmp_path_factory.mktemp("simulated") / "run", "simulate", *SMALL, "--games", "300", "--seed", "1")


@pytest.fixture(scope="module")
def tournament_run(tmp_path_factory) -> Path:
    return made_run(tmp_path_factory.mktemp("tournament") / "run", "tournament", *TOURNAMENT)


def drop_last_chunk(out: Path) -> None:
    """The run as if killed before its last chunk was recorded (its parts stay, unlisted)."""
    lines = (out / JOURNAL_FILE).read_text().splitlines(keepends=True)
    (out / JOURNAL_FILE).write_text("".join(lines[:-1]))


# --- item 1: --overwrite keeps what verify calls foreign -----------------------------------------


def test_overwrite_keeps_the_files_verify_calls_foreign(tmp_path, three_chunks):
    out = copy_of(three_chunks, tmp_path)
    near = out / "rounds" / "part-000001.parquet"
    beyond = out / "games" / "part-00005.parquet"
    near.write_bytes((out / "rounds" / "part-00001.parquet").read_bytes())
    beyond.write_bytes((out / "games" / "part-00001.parquet").read_bytes())  # a part of this very run, copied
    mine = {near: near.read_bytes(), beyond: beyond.read_bytes()}
    verified = invoke("verify", out)
    assert "foreign files" in verified.stdout and "rounds/part-000001.parquet" in verified.stdout
    assert "games/part-00005.parquet" in verified.stdout
    result = invoke("simulate", *SMALL, "--games", "200", "--seed", "2", "--out", out, "--overwrite")
    assert result.exit_code == 0, result.output
    assert {path: path.read_bytes() for path in mine} == mine
    assert sorted(path.name for path in (out / "games").iterdir()) == ["part-00000.parquet", "part-00001.parquet", "part-00005.parquet"]
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds/part-000001.parquet" in verified.stdout
    assert "games/part-00005.parquet" in verified.stdout and "2 of 2 chunks complete" in verified.stdout


def test_overwrite_refuses_to_replace_a_foreign_file_at_a_part_of_the_new_run(tmp_path, three_chunks):
    out = copy_of(three_chunks, tmp_path)
    squatter = out / "games" / "part-00004.parquet"
    squatter.write_text("my notes\n")
    before = sorted(os.listdir(out / "games")), (out / "run.json").read_bytes()
    result = invoke("simulate", *SMALL, "--games", "500", "--seed", "2", "--out", out, "--overwrite")
    one_line(result, 2, "games/part-00004.parquet", "not written by wizard-sim")
    assert (sorted(os.listdir(out / "games")), (out / "run.json").read_bytes()) == before
    assert squatter.read_text() == "my notes\n"


def test_overwrite_refuses_to_replace_a_foreign_file_at_a_summary_of_the_new_run(tmp_path, three_chunks):
    """A simulate run writes no summary: a summary.json there is the user's, never the new tournament's to replace."""
    out = copy_of(three_chunks, tmp_path)
    (out / "summary.json").write_text("my summary\n")
    assert "foreign files (not written by wizard-sim): summary.json" in invoke("verify", out).stdout
    result = invoke("tournament", *TOURNAMENT, "--out", out, "--overwrite")
    one_line(result, 2, "summary.json", "not written by wizard-sim")
    assert (out / "summary.json").read_text() == "my summary\n" and read_run(out)["command"] == "simulate"


def test_a_clearing_without_its_record_proves_nothing_and_removes_nothing(tmp_path, three_chunks):
    """A replaced run's files set aside without the copy of its run.json (by hand, or by an
    older wizard-sim): none of them is removed."""
    out = copy_of(three_chunks, tmp_path)
    batch = out / ".wizard-sim-clearing" / "0123"
    (batch / "rounds").mkdir(parents=True)
    (batch / "rounds" / "part-00007.parquet").write_bytes((out / "rounds" / "part-00000.parquet").read_bytes())
    (batch / "rounds" / "part-00000.parquet").write_text("taken name\n")
    (batch / JOURNAL_FILE).write_text("")
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert (out / "rounds" / "part-00007.parquet").exists()  # put back: its name was free
    assert (batch / "rounds" / "part-00000.parquet").read_text() == "taken name\n"  # stays where it was
    assert (batch / JOURNAL_FILE).exists()
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "rounds/part-00007.parquet" in verified.stdout and "2 in .wizard-sim-clearing" in verified.stdout


# --- item 2: --resume keeps what verify calls foreign --------------------------------------------


def test_resume_keeps_a_table_directory_the_run_does_not_write(tmp_path, three_chunks):
    out = copy_of(three_chunks, tmp_path)
    drop_last_chunk(out)
    (out / "plays").mkdir()
    (out / "plays" / "part-00000.parquet").write_text("notes\n")
    assert "plays/" in invoke("verify", out).stdout
    result = invoke("simulate", "--resume", "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert (out / "plays" / "part-00000.parquet").read_text() == "notes\n"
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "foreign files (not written by wizard-sim): plays/" in verified.stdout


def test_resume_refuses_to_replace_a_foreign_file_at_a_part_it_writes(tmp_path, three_chunks):
    out = copy_of(three_chunks, tmp_path)
    drop_last_chunk(out)
    squatter = out / "games" / "part-00002.parquet"
    squatter.write_text("my notes\n")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "games/part-00002.parquet" in verified.stdout and "--resume refuses" in verified.stdout
    one_line(invoke("simulate", "--resume", "--out", out), 2, "games/part-00002.parquet", "not written by wizard-sim")
    assert squatter.read_text() == "my notes\n"
    squatter.unlink()
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0


def test_an_unlisted_part_of_the_run_is_still_recomputed(tmp_path, three_chunks):
    """A part written before a kill, its journal line lost: it carries the run's fingerprint."""
    out = copy_of(three_chunks, tmp_path)
    drop_last_chunk(out)
    verified = invoke("verify", out)
    assert "parts not listed in the journal" in verified.stdout and "foreign" not in verified.stdout
    assert invoke("simulate", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0


# --- item 4: no hard link leads out ----------------------------------------------------------------


@pytest.mark.parametrize("name", [LOCK_FILE, JOURNAL_FILE])
def test_a_hard_linked_lock_or_journal_is_refused(tmp_path, three_chunks, name):
    out = copy_of(three_chunks, tmp_path)
    drop_last_chunk(out)
    outside = tmp_path / "users-file"
    outside.write_bytes((out / name).read_bytes() if (out / name).exists() else b"precious\n")
    before = outside.read_bytes()
    (out / name).unlink(missing_ok=True)
    os.link(outside, out / name)
    for command in (["simulate", "--resume", "--out", out], ["simulate", *SMALL, "--games", "200", "--out", out, "--overwrite"]):
        one_line(invoke(*command), 2, name, "hard link")
    assert outside.read_bytes() == before
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "hard link" in verified.stdout
    assert invoke("report", out).exit_code == 0  # reading through it is harmless (a snapshot made by cp -al)


@pytest.mark.slow
def test_files_rewritten_in_a_run_are_new_files_never_written_through_a_hard_link(tmp_path, tournament_run):
    out = copy_of(tournament_run, tmp_path)
    (tmp_path / "outside").mkdir()
    outside = {}
    for name, content in (("run.json", None), ("summary.json", b"mine\n"), ("summary.parquet", b"mine too\n"),
                          ("games/part-00001.parquet", b"mine as well\n")):  # fmt: skip
        target = tmp_path / "outside" / name.replace("/", "-")
        target.write_bytes((out / name).read_bytes() if content is None else content)
        (out / name).unlink()
        os.link(target, out / name)
        outside[target] = target.read_bytes()
    result = invoke("tournament", "--resume", "--out", out, "--quiet")  # run.json, the damaged part, the summaries
    assert result.exit_code == 0, result.output
    assert {path: path.read_bytes() for path in outside} == outside
    assert all(path.stat().st_nlink == 1 for path in outside)
    assert invoke("verify", out).exit_code == 0
    plots = tmp_path / "plots"
    assert invoke("report", out, "--plots", plots).exit_code == 0
    plot = plots / "accuracy_by_round.png"
    plot.unlink()
    os.link(tmp_path / "outside" / "summary.json", plot)
    assert invoke("report", out, "--plots", plots, "--overwrite").exit_code == 0
    assert (tmp_path / "outside" / "summary.json").read_bytes() == b"mine\n"


# --- item 5: no output of another command lands in a run -------------------------------------------


def test_report_never_writes_into_a_run(tmp_path, three_chunks):
    out = copy_of(three_chunks, tmp_path)
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    for option, target in (("--out", "run.json"), ("--out", "rounds/part-00003.parquet"), ("--out", "rounds/part-00001.parquet"),
                           ("--out", "tidy.parquet"), ("--plots", "."), ("--plots", "plots"), ("--plots", "games")):  # fmt: skip
        for extra in ([], ["--overwrite"]):
            one_line(invoke("report", out, option, out / target, *extra), 2, "run directory", "name a path outside it")
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    assert invoke("verify", out).exit_code == 0


def test_play_never_saves_into_a_run(tmp_path, three_chunks):
    one_line(invoke("play", "--save", three_chunks / "game.json"), 2, "inside the run directory")
    assert not (three_chunks / "game.json").exists()


@pytest.mark.slow
def test_an_existing_output_file_is_replaced_only_with_overwrite(tmp_path, three_chunks):
    tidy, plots = tmp_path / "tidy.parquet", tmp_path / "plots"
    tidy.write_text("mine\n")
    one_line(invoke("report", three_chunks, "--out", tidy), 2, "exists", "--overwrite")
    assert tidy.read_text() == "mine\n"
    assert invoke("report", three_chunks, "--out", tidy, "--overwrite").exit_code == 0
    plots.mkdir()
    (plots / "score_distribution.png").write_text("mine\n")
    one_line(invoke("report", three_chunks, "--plots", plots), 2, "score_distribution.png exists", "--overwrite")
    assert (plots / "score_distribution.png").read_text() == "mine\n"
    assert invoke("report", three_chunks, "--plots", plots, "--overwrite").exit_code == 0


# --- item 6: verify checks every artefact the run's kind promises --------------------------------


def test_verify_names_a_tournament_summary_that_is_missing(tmp_path, tournament_run):
    out = copy_of(tournament_run, tmp_path)
    (out / "summary.parquet").unlink()
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "missing summaries" in verified.stdout and "summary.parquet" in verified.stdout
    assert invoke("tournament", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0


def test_verify_names_a_tournament_summary_that_is_damaged(tmp_path, tournament_run):
    out = copy_of(tournament_run, tmp_path)
    (out / "summary.json").write_text((tournament_run / "summary.json").read_text()[:100])
    (out / "summary.parquet").write_bytes(b"")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "unreadable summaries (--resume writes them again): summary.json, summary.parquet" in verified.stdout
    assert invoke("tournament", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0


@pytest.mark.slow
def test_verify_names_a_league_figure_that_is_missing(tmp_path):
    out = tmp_path / "league"
    assert invoke("league", *LEAGUE, "--out", out).exit_code == 0
    (out / "head_to_head.png").unlink()
    (out / "ratings.png").write_bytes(b"not a picture")
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "missing summaries (--resume writes them again): head_to_head.png" in verified.stdout
    assert "unreadable summaries (--resume writes them again): ratings.png" in verified.stdout
    assert invoke("league", "--resume", "--out", out, "--quiet").exit_code == 0
    assert invoke("verify", out).exit_code == 0


# --- item 12: repeated round sizes ---------------------------------------------------------------


@pytest.mark.parametrize("rounds, repeated", [("3,1,3", 3), ("1,1", 1), ("1-3,2", 2)])
def test_repeated_round_sizes_are_refused_not_rewritten(tmp_path, rounds, repeated):
    out = tmp_path / "run"
    result = invoke("simulate", "--players", "3", "--rounds", rounds, "--games", "10", "--policy", "random", "--out", out)
    one_line(result, 2, f"round size {repeated} is listed twice")
    assert not out.exists()
    with pytest.raises(ConfigError, match=f"round size {repeated} is listed twice"):
        Rules(3, parse_rounds(rounds, 3))
    assert Rules(3, parse_rounds("3,1", 3)).round_sizes == (1, 3)


# --- item 13: messages that say what happened ---------------------------------------------------


def test_a_new_run_that_cannot_write_its_journal_says_so(tmp_path, monkeypatch):
    def no_inode(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Journal, "start", no_inode)
    out = tmp_path / "run"
    result = invoke("simulate", *SMALL, "--games", "100", "--out", out)
    one_line(result, 1, f"writing {out / JOURNAL_FILE} failed", "No space left")
    assert "clearing" not in result.stderr


def test_a_new_run_that_cannot_create_its_lock_file_is_a_failure_at_run_time(tmp_path, monkeypatch):
    """No inode for the lock file: one line, exit 1 (not bad input), and the directories it made are gone."""
    real = os.open

    def no_inode(path, flags, *arguments, **options):
        if str(path).endswith(LOCK_FILE) and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, flags, *arguments, **options)

    monkeypatch.setattr(os, "open", no_inode)
    result = invoke("simulate", *SMALL, "--games", "100", "--out", tmp_path / "new" / "run")
    one_line(result, 1, f"creating {tmp_path / 'new' / 'run' / LOCK_FILE} failed", "No space left", "nothing of the run was written")
    assert not (tmp_path / "new").exists()


def test_play_save_to_a_directory_says_it_is_a_directory(tmp_path):
    result = invoke("play", "--save", tmp_path)
    one_line(result, 2, "is a directory")
    assert "--resume" not in result.stderr
