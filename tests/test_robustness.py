"""Issue #15: Ctrl-C stops a run within 2 s keeping its finished chunks, external bots are
loaded safely (the current directory last, only when named, after every other check; a
failing bot is one line and exit 1), and a --scheduler that is not a Dask scheduler is one
line instead of a hang."""
from __future__ import annotations

import importlib.util
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import invoke, one_line

import sim.engine.calls
from sim.estimation.run import run_estimate
from sim.config.errors import BotError
from sim.policies.registry import parse_policy
from sim.config.rules import Rules
from sim.runs.executors import new_record
from sim.runs.games import run_games
from sim.storage import JOURNAL_FILE, read_run, versions


# -- interruptible ----------------------------------------------------------------------------
@pytest.mark.processes
def test_ctrl_c_stops_an_mc_run_within_two_seconds_and_keeps_its_chunks(tmp_path):
    """The costliest built-in setting: every seat mc at the largest sample counts."""
    out = tmp_path / "mc"
    command = [sys.executable, "-m", "sim.cli", "simulate", "--games", "100000", "--chunk-games", "4",
               "--policy", "mc:samples=256,play_samples=256", "--seed", "1", "--quiet", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if (out / JOURNAL_FILE).exists() and (out / JOURNAL_FILE).read_bytes().count(b"\n") >= 1:
            break
        time.sleep(0.02)
    time.sleep(0.3)  # inside the next chunk's kernel call
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    elapsed = time.monotonic() - sent
    assert process.returncode == 130, stderr
    assert elapsed < 2.0, f"Ctrl-C took {elapsed:.1f} s"
    assert "--resume" in stderr
    record = read_run(out)
    assert len(record["chunks"]["complete"]) >= 1
    verified = invoke("verify", out)
    assert verified.exit_code == 1 and "incomplete" in verified.stdout and "damaged" not in verified.stdout


@pytest.mark.processes
def test_ctrl_c_stops_an_estimate_within_two_seconds():
    command = [sys.executable, "-m", "sim.cli", "estimate", "--hand", "W AS KH 7H J 10D 4C 9S 2S QD", "--trump", "3H",
               "--position", "3", "--bids", "1,2,0", "--samples", "10000000"]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    time.sleep(8)  # started (imports, a warm or cold compile) and into its slices
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    elapsed = time.monotonic() - sent
    assert process.returncode == 130 and stderr.strip() == "wizard-sim: interrupted", stderr
    assert elapsed < 2.0, f"Ctrl-C took {elapsed:.1f} s"


def test_slicing_the_estimate_never_changes_it(monkeypatch):
    options = dict(trump="3H", position=2, bids="1,0", samples=3000, seed=2)
    whole = run_estimate("W AS KH 7H J", **options)
    monkeypatch.setattr(sim.engine.calls, "SLICE_SECONDS", 0.0)
    sliced = run_estimate("W AS KH 7H J", **options)
    for name in ("tricks", "weights", "proposals"):
        assert np.array_equal(getattr(whole, name), getattr(sliced, name))


def test_slicing_the_kernel_calls_never_changes_the_games(monkeypatch):
    rules = Rules(players=4, rounds=(1, 2, 3))
    whole = run_games(rules, "heuristic,random,mc:samples=2,play_samples=2,random", seed=3, games=300, log_plays=True)
    monkeypatch.setattr(sim.engine.calls, "SLICE_SECONDS", 0.0)  # slices of 1, 4, 16... games per thread
    sliced = run_games(rules, "heuristic,random,mc:samples=2,play_samples=2,random", seed=3, games=300, log_plays=True)
    for name in ("rounds", "seats", "games", "plays"):
        assert np.array_equal(getattr(whole, name), getattr(sliced, name))


# -- safe code loading ------------------------------------------------------------------------
BOT = '''
MARKER.write_text("imported")
from greedy_bot import GreedyBot as Bot
'''


def write_bot(directory: Path, name: str, body: str = BOT) -> Path:
    marker = directory / f"{name}.imported"
    (directory / f"{name}.py").write_text(f"from pathlib import Path\nMARKER = Path({str(marker)!r})\n" + body)
    return marker


@pytest.fixture
def bot_directory(tmp_path, monkeypatch):
    examples = str(Path(__file__).resolve().parent.parent / "examples")
    monkeypatch.syspath_prepend(examples)
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_the_current_directory_never_shadows_the_standard_library(bot_directory, monkeypatch):
    candidates = ("tabnanny", "sched", "netrc", "shelve", "mailbox", "wave", "xdrlib", "nntplib")
    module = next((name for name in candidates if name not in sys.modules), None)
    if module is None:
        pytest.skip("every candidate module is already imported")
    (bot_directory / f"{module}.py").write_text(f"open({str(bot_directory / 'shadowed')!r}, 'w').write('executed')\n")
    write_bot(bot_directory, "shadow_bot", BOT + f"import {module}\n")
    monkeypatch.setattr(sys, "path", ["", *sys.path])  # as `python -m` and an interactive session have it
    parse_policy("shadow_bot:Bot")  # found in the current directory...
    sys.modules.pop(module, None)
    assert not (bot_directory / "shadowed").exists()  # ...whose module of a stdlib name is not run
    assert sys.path[-1] == str(bot_directory) and "" not in sys.path


def test_a_bot_is_imported_only_after_every_other_check(bot_directory, tmp_path):
    marker = write_bot(bot_directory, "late_bot")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "data.csv").write_text("x")
    for arguments in (
        ["simulate", "--games", "0", "--policy", "late_bot:Bot", "--out", tmp_path / "a"],
        ["simulate", "--games", "3", "--policy", "late_bot:Bot", "--out", taken],
        ["simulate", "--games", "3", "--policy", "late_bot:Bot", "--out", tmp_path / "b", "--engine", "nope"],
        ["tournament", "--games", "3", "--policies", "late_bot:Bot,random,random,random", "--out", taken],
    ):
        one_line(invoke(*arguments), 2)
        assert not marker.exists(), arguments


def test_resume_imports_no_bot_that_is_not_named_again(bot_directory, tmp_path):
    marker = write_bot(bot_directory, "named_bot")
    out = tmp_path / "run"
    (out / "rounds").mkdir(parents=True)
    (out / "games").mkdir()
    config = {"rules": Rules(players=4, rounds=(1,)).to_dict(), "policies": ["named_bot:Bot", "random", "random", "random"],
              "seed": 1, "games": 4, "chunk_games": 4, "log_plays": False}  # fmt: skip
    (out / "run.json").write_text(json.dumps(new_record("simulate", config, 4, 4, versions())))
    one_line(invoke("simulate", "--resume", "--out", out), 2, "external bots (named_bot:Bot)", "--policy")
    one_line(invoke("simulate", "--resume", "--out", out, "--policy", "other:Bot,random,random,random"), 2, "differs")
    assert not marker.exists()


@pytest.mark.parametrize(
    "body, words",
    [
        ("import sys\nsys.exit(0)\n", ("SystemExit",)),
        ("raise RuntimeError('boom')\n", ("RuntimeError: boom",)),
    ],
)
def test_a_bot_that_exits_or_raises_is_one_line_and_exit_1(bot_directory, tmp_path, body, words):
    name = f"failing_bot_{abs(hash(body))}"
    write_bot(bot_directory, name, body)
    out = tmp_path / "run"
    one_line(invoke("simulate", "--games", "3", "--policy", f"{name}:Bot", "--out", out), 1, *words)
    assert not out.exists()
    with pytest.raises(BotError):
        parse_policy(f"{name}:Bot")


# -- Dask -------------------------------------------------------------------------------------
def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import sim.runs.cluster

    monkeypatch.setattr(sim.runs.cluster, "SCHEDULER_TIMEOUT", 1.0)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])  # and say nothing
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        started = time.monotonic()
        out = tmp_path / "run"
        result = invoke("simulate", "--games", "3", "--out", out, "--engine", "dask", "--scheduler", address)
        one_line(result, 2, "does not answer as a Dask scheduler")
        assert time.monotonic() - started < 10 and not out.exists()
    finally:
        listener.close()
        for connection in accepted:
            connection.close()


def test_no_option_check_comes_after_a_bot_import(bot_directory, tmp_path, monkeypatch):
    """Issue #22: --threads, --batch-games, a Dask scheduler that does not answer, estimate's
    --spread/--samples/--seed/--threads and play's --game and --save are checked first."""
    import sim.runs.cluster

    monkeypatch.setattr(sim.runs.cluster, "SCHEDULER_TIMEOUT", 0.5)
    marker = write_bot(bot_directory, "checked_bot")
    bots = "checked_bot:Bot,random,random,random"
    estimate = ["estimate", "--hand", "W AS", "--trump", "3H", "--opponents", "checked_bot:Bot"]
    cases = [
        ["simulate", "--games", "3", "--policy", "checked_bot:Bot", "--threads", "99", "--out", tmp_path / "a"],
        ["simulate", "--games", "3", "--policy", "checked_bot:Bot", "--batch-games", "0", "--out", tmp_path / "a"],
        ["tournament", "--games", "3", "--policies", bots, "--threads", "0", "--out", tmp_path / "a"],
        ["tournament", "--games", "3", "--policies", bots, "--batch-games", "99999", "--out", tmp_path / "a"],
        [*estimate, "--spread", "99"], [*estimate, "--samples", "1"], [*estimate, "--seed", "-1"],
        [*estimate, "--threads", "99"],
        ["play", "--opponents", "checked_bot:Bot", "--game", "-1"],
        ["play", "--opponents", "checked_bot:Bot", "--save", tmp_path / "missing" / "game.json"],
    ]  # fmt: skip
    if importlib.util.find_spec("distributed") is not None:
        cases.append(["simulate", "--games", "3", "--policy", "checked_bot:Bot", "--engine", "dask", "--scheduler",
                      "tcp://127.0.0.1:9", "--out", tmp_path / "a"])  # fmt: skip
    for arguments in cases:
        one_line(invoke(*arguments), 2)
        assert not marker.exists(), arguments
    assert not (tmp_path / "a").exists()


def test_play_resume_imports_only_the_opponents_named_again(bot_directory, tmp_path):
    body = "from rule_bot import RuleBot as Bot\nMARKER.write_text('imported')\n"
    marker = write_bot(bot_directory, "saved_bot", body)
    save = tmp_path / "game.json"
    opponents = "saved_bot:Bot,heuristic,random"
    left = invoke("play", "--opponents", opponents, "--rounds", "1", "--seed", "1", "--save", save)
    assert left.exit_code == 0 and f"--resume {save} --opponents {opponents}" in left.stdout
    marker.unlink()
    sys.modules.pop("saved_bot")
    one_line(invoke("play", "--resume", save), 2, "names the Python policies saved_bot:Bot", "--opponents")
    one_line(invoke("play", "--resume", save, "--opponents", "other_bot:Bot,heuristic,random"), 2, "differs")
    assert not marker.exists() and "saved_bot" not in sys.modules
    assert invoke("play", "--resume", save, "--opponents", opponents).exit_code == 0
    assert marker.exists()
