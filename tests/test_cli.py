"""The `wizard-sim` command line: version, demo, and one-line errors with exit code 2."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from sim import __version__
from sim.cli import app

runner = CliRunner()


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"wizard-sim {__version__}"


@pytest.mark.slow
def test_version_is_a_flag_of_the_installed_command():
    """--version takes no value (no --no-version either) and, being eager, exits 0 before a
    command is asked for; the console script `wizard-sim` (sim.cli:app) runs it."""
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
