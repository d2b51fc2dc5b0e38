"""A run that fails because of a bot does not block the next run into its directory: a new run
that recorded no chunk removes exactly what it wrote (and nothing else); one that recorded
chunks stays resumable and `--overwrite` replaces it. simulate and tournament alike."""
from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import pytest
from helpers import invoke, one_line

from sim.config.errors import BotError
from sim.config.rules import Rules
from sim.runs.games import run_games
from sim.storage import JOURNAL_FILE, LOCK_FILE, RUN_FILE

FAILING = "broken_bots:IllegalPlayer,random,random"  # fails in the first game
SMALL = ["--players", "3", "--rounds", "3", "--seed", "3", "--quiet"]


@pytest.fixture(autouse=True)
def importable_bots(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent / "bots"))


def simulate(out: Path, policy: str, *options: str):
    return invoke("simulate", "--games", "40", "--policy", policy, "--out", out, *SMALL, *options)


def tournament(out: Path, policies: str, *options: str):
    return invoke("tournament", "--games", "12", "--policies", policies, "--out", out, *SMALL, *options)


def test_a_failed_simulate_leaves_no_directory_and_the_same_command_runs_again(tmp_path):
    out = tmp_path / "new" / "run"
    one_line(simulate(out, FAILING), 1, "policy broken_bots:IllegalPlayer chose card")
    assert not (tmp_path / "new").exists()  # it created both directories: both are gone
    assert simulate(out, "random").exit_code == 0


def test_a_failed_run_in_an_existing_empty_directory_leaves_it_empty(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    one_line(simulate(out, FAILING), 1, "broken_bots:IllegalPlayer")
    assert list(out.iterdir()) == []
    assert simulate(out, "random").exit_code == 0


def test_a_failed_overwrite_clears_the_previous_run_and_keeps_foreign_files(tmp_path):
    out = tmp_path / "run"
    assert simulate(out, "random").exit_code == 0
    (out / "notes.txt").write_text("mine")
    one_line(simulate(out, FAILING, "--overwrite"), 1, "broken_bots:IllegalPlayer")
    assert sorted(path.name for path in out.iterdir()) == [LOCK_FILE, "notes.txt"]  # the lock file was there before
    (out / "notes.txt").unlink()
    assert simulate(out, "random").exit_code == 0


def test_a_failed_tournament_leaves_nothing_and_overwrite_works_after_it(tmp_path):
    out = tmp_path / "run"
    one_line(tournament(out, FAILING), 1, "policy broken_bots:IllegalPlayer chose card", "(deal 0)")
    assert not out.exists()
    assert tournament(out, "random,heuristic,random").exit_code == 0
    one_line(tournament(out, FAILING, "--overwrite"), 1, "broken_bots:IllegalPlayer")
    assert sorted(path.name for path in out.iterdir()) == [LOCK_FILE]
    assert tournament(out, "random,heuristic,random").exit_code == 0
    assert json.loads((out / "summary.json").read_text())["config"]["policies"] == ["random", "heuristic", "random"]


def test_a_run_that_recorded_chunks_stays_resumable_and_overwrite_replaces_it(tmp_path):
    # RarelyIllegal fails first in game `first`: chunks of `first` games record chunk 0 first.
    policies = "broken_bots:RarelyIllegal,random,random"
    with pytest.raises(BotError) as caught:
        run_games(Rules(players=3, rounds=(3,)), policies, seed=3, games=2000)
    first = int(re.search(r"in game (\d+),", str(caught.value))[1])
    assert first > 0
    out = tmp_path / "run"
    options = ("--games", str(first + 5), "--chunk-games", str(first))
    result = invoke("simulate", "--policy", policies, "--out", out, *SMALL, *options)
    one_line(result, 1, f"in game {first},")
    assert (out / RUN_FILE).is_file() and len((out / JOURNAL_FILE).read_text().splitlines()) == 1
    one_line(invoke("simulate", "--policy", "random", "--out", out, *SMALL, *options), 2, "--resume", "--overwrite")
    one_line(invoke("simulate", "--resume", "--out", out, "--policy", policies, "--quiet"), 1, f"in game {first},")
    assert (out / RUN_FILE).is_file()  # a resumed run is never removed
    assert invoke("simulate", "--policy", "random", "--out", out, *SMALL, *options, "--overwrite").exit_code == 0


def test_a_bot_failing_after_saved_chunks_says_resume_continues(tmp_path):
    policies = "broken_bots:RarelyIllegal,random,random"
    with pytest.raises(BotError) as caught:
        run_games(Rules(players=3, rounds=(3,)), policies, seed=3, games=2000)
    first = int(re.search(r"in game (\d+),", str(caught.value))[1])
    out = tmp_path / "run"
    options = ("--games", str(2 * first + 5), "--chunk-games", str(first), "--threads", "1")
    result = invoke("simulate", "--policy", policies, "--out", out, *SMALL, *options)
    one_line(result, 1, f"in game {first},", "the run keeps its", "written chunk", f"--out {out} --resume", "--policy again")
    # A failed run that wrote nothing says nothing of resuming.
    fresh = invoke("simulate", "--games", "40", "--policy", FAILING, "--out", tmp_path / "new", *SMALL)
    one_line(fresh, 1)
    assert "--resume" not in fresh.stderr


def test_the_progress_bar_is_erased_before_an_error_line():
    import io

    from rich.console import Console

    from sim.cli.progress import GameProgress

    endings = {}
    for failing in (False, True):
        stream = io.StringIO()
        with pytest.raises(ValueError) if failing else contextlib.nullcontext():
            with GameProgress(console=Console(file=stream, force_terminal=True, width=80)) as progress:
                progress.update(0, 10)
                progress.update(5, 10)
                if failing:
                    raise ValueError("boom")
        endings[failing] = stream.getvalue()
    erase = "\x1b[1A\x1b[2K"  # cursor up, erase the line
    assert "5/10" in endings[False] and not endings[False].endswith(erase)
    assert endings[True].endswith(erase)
