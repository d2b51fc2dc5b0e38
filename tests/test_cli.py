"""The `wizard-sim` command line: version, demo, and one-line errors with exit code 2."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from sim import __version__
from sim.config.errors import echo
from sim.cli import app

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"wizard-sim {__version__}"


@pytest.mark.processes
def test_version_is_a_flag_of_the_installed_command():
    """--version takes no value (no --no-version either) and, being eager, exits 0 before a
    command is asked for; the console script `wizard-sim` (sim.cli:main) runs it."""
    (option,) = [param for param in typer.main.get_command(app).params if param.name == "version"]
    assert option.is_flag and option.is_eager and option.opts == ["--version"] and not option.secondary_opts
    script = shutil.which("wizard-sim", path=str(Path(sys.executable).parent))
    assert script is not None
    result = subprocess.run([script, "--version"], capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"wizard-sim {__version__}\n", "")


def test_demo_prints_results_per_seat():
    result = runner.invoke(app, ["demo", "--games", "200", "--players", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "200 games, 3 players, seed 1" in result.stdout
    assert "heuristic" in result.stdout and "random" in result.stdout
    assert "Game 0, round 5" in result.stdout


def test_demo_is_reproducible():
    first = runner.invoke(app, ["demo", "--games", "100", "--seed", "3"])
    second = runner.invoke(app, ["demo", "--games", "100", "--seed", "3"])
    strip_rate = [line for line in first.stdout.splitlines() if "games/s" not in line]
    assert strip_rate == [line for line in second.stdout.splitlines() if "games/s" not in line]


def test_bad_input_is_one_line_and_exit_2():
    for arguments, message in (
        (["demo", "--players", "7"], "players must be 3..6"),
        (["demo", "--games", "0"], "games must be in 1..1,000,000,000,000"),
        (["demo", "--policy", "nobody"], "unknown policy 'nobody'"),
        (["demo", "--policy", "random,random"], "got 2 policies for 4 players"),
    ):
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, arguments
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], (arguments, result.stderr)


def test_a_policy_parameter_is_given_once_as_a_plain_decimal_number():
    """#22: aggression=1.5,aggression=2 was merged silently (the last won) and 1_0 read as 10."""
    from sim.config.errors import ConfigError
    from sim.policies.registry import parse_policy

    for text, message in (
        ("heuristic:aggression=1.5,aggression=2", "sets its parameter aggression twice"),
        ("heuristic:aggression=1_0", "needs a number (a plain decimal such as 1.2), got '1_0'"),
        ("heuristic:aggression=inf", "got 'inf'"),
        ("heuristic:aggression=nan", "got 'nan'"),
        ("heuristic:aggression=0x1", "got '0x1'"),
        ("heuristic:aggression=", "got ''"),
    ):
        with pytest.raises(ConfigError, match=re.escape(message)):
            parse_policy(text)
        result = runner.invoke(app, ["demo", "--games", "5", "--policy", text])
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1, (text, result.stderr)
        assert message.split(" such as")[0] in result.stderr
    for text, value in (("heuristic:aggression=1.25", 1.25), ("heuristic:aggression=+2", 2.0), ("heuristic:aggression=.5", 0.5),
                        ("heuristic:aggression= 1e0 ", 1.0)):  # fmt: skip
        policy = parse_policy(text)
        assert policy.params[0] == value and parse_policy(policy.label) == policy


@pytest.mark.parametrize("threads", ["0", "-1", "two", "", "1025", "100000", "9" * 5000])
def test_a_bad_numba_num_threads_is_one_line_before_numba_loads(threads):
    """#22: NUMBA_NUM_THREADS=0 was a 21-line traceback from numba's import (and a word only a
    warning); issue 61: 100,000 crashed the process when numba started its threads."""
    environment = {**os.environ, "NUMBA_NUM_THREADS": threads}
    result = subprocess.run([sys.executable, "-m", "sim.cli", "demo", "--games", "1"], capture_output=True, text=True,
                            env=environment)  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"wizard-sim: error: NUMBA_NUM_THREADS must be a whole number in 1..1,024 (the kernels' threads) or unset, got {echo(threads)}\n"
    )
