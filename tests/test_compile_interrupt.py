"""Ctrl-C at any moment of a compile (issue #40, class 4): the command's SIGINT handler
(sim.cli.terminal) exits 130 at once with one line when the interrupted code is numba's or
llvmlite's, instead of raising KeyboardInterrupt inside the compiler (swallowed by a ctypes
callback with a traceback, or breaking numba's library: "no compiled object yet"); numba's
on-disk cache stays sound, so the next run loads or compiles and answers right."""
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = 6

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, sys.argv[1])
    from sim.cli import terminal
    signal.signal(signal.SIGINT, terminal._interrupt)
    import kernels_40  # each function compiles (or loads from the cache) on its first call
    print("compiling", flush=True)
    try:
        total = sum(getattr(kernels_40, f"f{{k}}")(k) for k in range({functions}))
    except KeyboardInterrupt:
        print("wizard-sim: interrupted", file=sys.stderr)
        os._exit(130)
    print(total, flush=True)
    """
).format(functions=FUNCTIONS)


def kernel_module(directory: Path) -> None:
    """FUNCTIONS numba functions, each a few hundred statements: a compile of seconds in all."""
    lines = ["import numba", ""]
    for k in range(FUNCTIONS):
        lines.append("@numba.njit(cache=True)")
        lines.append(f"def f{k}(x):")
        lines.append("    t = 0")
        lines += [f"    t += (x + {i}) * {k + 1} // {i + 1} - (x ^ {i})" for i in range(120)]
        lines.append("    return t")
        lines.append("")
    (directory / "kernels_40.py").write_text("\n".join(lines))


def expected_total() -> int:
    return sum(sum((k + i) * (k + 1) // (i + 1) - (k ^ i) for i in range(120)) for k in range(FUNCTIONS))


def start(directory: Path, cache: Path) -> subprocess.Popen:
    environment = {"NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.Popen([sys.executable, "-c", CHILD, str(directory)], cwd=ROOT, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


@pytest.mark.processes
def test_ctrl_c_at_any_moment_of_a_compile_exits_130_at_once_with_one_line(tmp_path):
    kernel_module(tmp_path)
    cache = tmp_path / "cache"
    draw = random.Random(40)
    interrupted = 0
    for trial in range(3):
        process = start(tmp_path, cache)
        assert process.stdout.readline().strip() == "compiling"
        time.sleep(draw.uniform(0.0, 1.0))
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
        elapsed = time.monotonic() - sent
        if process.returncode == 0:  # every function compiled before the signal: nothing to interrupt
            assert int(stdout) == expected_total()
            continue
        assert process.returncode == 130, (trial, stderr)
        assert elapsed < 2.0, (trial, elapsed)
        assert stderr.strip().splitlines() == ["wizard-sim: interrupted"], (trial, stderr)
        interrupted += 1
    assert interrupted  # the compile takes seconds: the signal landed inside it
    # The cache numba left is sound: a full run loads what was cached, compiles the rest, answers right.
    process = start(tmp_path, cache)
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr
    assert int(stdout.split()[-1]) == expected_total()
