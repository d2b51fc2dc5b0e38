"""Issue #22 item 5: Ctrl-C stops every command within 2 s with one line and exit 130 — while
it loads, while numba compiles (where a KeyboardInterrupt can be swallowed), in an estimate
whose samples are costly (mc opponents at their largest settings in a 15-card round: a sample
is split between its candidate bids), at play's prompt — and a command ends when its work
does even if a bot left threads running."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import invoke

import sim.engine.calls
from sim.estimation.run import run_estimate
from sim.estimation.slices import pieces

COMMAND = [sys.executable, "-m", "sim.cli"]


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def interrupt(process: subprocess.Popen, when) -> tuple[float, str]:
    """Wait until when(process) holds, send SIGINT; seconds until the process ended, stderr."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and process.poll() is None and not when(process):
        time.sleep(0.05)
    assert process.poll() is None, process.communicate()
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    return time.monotonic() - sent, stderr


def one_line_130(process: subprocess.Popen, stderr: str, elapsed: float, words: str = "wizard-sim: interrupted") -> None:
    assert process.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(words), stderr
    assert elapsed < 2.0, f"Ctrl-C took {elapsed:.1f} s"


def in_kernels(process: subprocess.Popen) -> bool:
    """The numba thread pool started: a parallel kernel runs (or ran)."""
    return threads_of(process.pid) > 1


def loading(process: subprocess.Popen) -> bool:
    """numpy's extension is loaded: the command line is importing its libraries."""
    return "_multiarray_umath" in Path(f"/proc/{process.pid}/maps").read_text()


def test_ctrl_c_while_loading_is_one_line():
    process = subprocess.Popen([*COMMAND, "demo", "--games", "1000"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    elapsed, stderr = interrupt(process, loading)
    one_line_130(process, stderr, elapsed)


@pytest.mark.processes
def test_ctrl_c_stops_an_estimate_of_costly_samples():
    """One sample of mc opponents at 256/256 in a 15-card round takes about 1.5 s on a thread."""
    hand = "W W AS KH 7H J 10D 4C 9S 2S QD 3C 5H 6D 8S"
    process = subprocess.Popen([*COMMAND, "estimate", "--hand", hand, "--position", "3", "--bids", "1,2,0",
                                "--opponents", "mc:samples=256,play_samples=256", "--samples", "100000", "--spread", "1"],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)  # fmt: skip
    started = [None]

    def computing(p: subprocess.Popen) -> bool:
        if started[0] is None and in_kernels(p):
            started[0] = time.monotonic()
        return started[0] is not None and time.monotonic() - started[0] > 2.0

    elapsed, stderr = interrupt(process, computing)
    one_line_130(process, stderr, elapsed)


def test_ctrl_c_at_plays_prompt():
    process = subprocess.Popen([*COMMAND, "play", "--opponents", "mc", "--rounds", "1", "--seed", "3", "--seat", "3"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    os.set_blocking(process.stdout.fileno(), False)
    seen = []

    def prompted(p: subprocess.Popen) -> bool:
        try:
            seen.append(os.read(p.stdout.fileno(), 1 << 16))
        except BlockingIOError:
            pass
        return b"Your bid" in b"".join(seen)

    elapsed, stderr = interrupt(process, prompted)
    one_line_130(process, stderr.decode(), elapsed)


@pytest.mark.processes
def test_ctrl_c_while_numba_compiles(tmp_path):
    """A cold cache: the kernels compile for a minute or more; Ctrl-C raised inside numba's
    callbacks is swallowed by ctypes, and the grace timer stops the command anyway."""
    environment = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(dir=tmp_path))
    process = subprocess.Popen([*COMMAND, "simulate", "--games", "100", "--out", str(tmp_path / "run"), "-q"],
                               stderr=subprocess.PIPE, text=True, env=environment)  # fmt: skip
    loaded = [None]

    def compiling(p: subprocess.Popen) -> bool:
        if loaded[0] is None and (tmp_path / "run" / "run.json").exists():
            loaded[0] = time.monotonic()  # the run started: its first kernel call compiles
        return loaded[0] is not None and time.monotonic() - loaded[0] > 3.0

    elapsed, stderr = interrupt(process, compiling)
    one_line_130(process, stderr, elapsed, "wizard-sim: interrupted; finish with: wizard-sim simulate")


THREAD_BOT = """
import threading, time
from rule_bot import RuleBot


class Bot(RuleBot):
    def __init__(self, **parameters):
        super().__init__(**parameters)
        threading.Thread(target=time.sleep, args=(3600,), name="bot-telemetry").start()
"""


def test_a_bot_that_leaves_a_thread_running_does_not_keep_the_process(tmp_path):
    (tmp_path / "thread_bot.py").write_text(THREAD_BOT)
    examples = Path(__file__).resolve().parent.parent / "examples"
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(examples)]))
    result = subprocess.run([*COMMAND, "simulate", "--games", "8", "--policy", "thread_bot:Bot,random,random,random",
                             "--rounds", "1-2", "--seed", "1", "-q", "--out", str(tmp_path / "run")],
                            capture_output=True, text=True, timeout=300, env=environment)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "1 thread left running (bot-telemetry)" in lines[0], result.stderr


def test_a_command_without_words_for_ctrl_c_is_one_line_130(tmp_path, monkeypatch):
    import sim.analysis.report

    out = tmp_path / "run"
    assert invoke("simulate", "--games", "3", "--rounds", "1", "--out", out, "-q").exit_code == 0

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sim.analysis.report, "accuracy_tables", interrupted)
    result = invoke("report", out)
    assert result.exit_code == 130 and result.stderr.strip() == "wizard-sim: interrupted", result.output


def test_pieces_cover_the_cells_in_order():
    for width in (1, 3, 7):
        for start in range(0, 4 * width):
            for stop in range(start + 1, 4 * width + 1):
                cells = [(sample, candidate) for first, last, low, high in pieces(start, stop, width)
                         for sample in range(first, last) for candidate in range(low, high)]  # fmt: skip
                assert cells == [divmod(cell, width) for cell in range(start, stop)]
                assert len(pieces(start, stop, width)) <= 3


def test_splitting_samples_between_bids_never_changes_the_estimate(monkeypatch):
    options = dict(trump="3H", position=2, bids="1,0", samples=40, seed=2, opponents="mc:samples=2,play_samples=2")
    whole = run_estimate("W AS KH 7H J", **options)
    monkeypatch.setattr(sim.engine.calls, "SLICE_SECONDS", 0.0)  # one cell (sample, bid) per call
    sliced = run_estimate("W AS KH 7H J", **options)
    for name in ("tricks", "weights", "proposals"):
        assert np.array_equal(getattr(whole, name), getattr(sliced, name))
