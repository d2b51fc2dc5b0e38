"""The `wizard-sim` command line: the top layer, which imports every other and is imported by none."""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Mapping
from typing import Any


def _stop_loading(number: int, frame: Any) -> None:
    """Ctrl-C while the command line loads: nothing is done yet, so it stops there (a
    KeyboardInterrupt raised inside an extension's import can come out as an ImportError)."""
    os.write(2, b"wizard-sim: interrupted\n")
    os._exit(130)


def main() -> None:
    """The `wizard-sim` script and `python -m sim.cli`: the app, loaded (numba, pandas: seconds
    on a busy machine) with Ctrl-C stopping at once and one line; the app itself then handles
    Ctrl-C (sim.cli.terminal.CommandLine)."""
    try:
        signal.signal(signal.SIGINT, _stop_loading)
    except ValueError:  # not the main thread
        pass
    problem = environment_problem(os.environ)
    if problem is not None:
        sys.stderr.write(f"wizard-sim: error: {problem}\n")
        sys.exit(2)
    _load_app()()


def environment_problem(environ: Mapping[str, str]) -> str | None:
    """What is wrong with the environment numba reads when it loads (None: nothing): checked
    before, as numba fails on NUMBA_NUM_THREADS=0 with a long traceback, only warns about one
    that is not a number, and crashes the process starting far too many threads."""
    from sim.config.limits import threads_variable_problem  # numpy only: numba is not loaded yet

    return threads_variable_problem(environ.get("NUMBA_NUM_THREADS"))


def _load_app() -> Any:
    """The app, with the notice that kernels are compiling registered (once)."""
    from sim.cli.main import app
    from sim.cli.terminal import announce_compiling

    announce_compiling()
    return app


def __getattr__(name: str) -> object:
    if name == "app":  # `from sim.cli import app`, loaded on first use
        app = _load_app()
        globals()["app"] = app
        return app
    raise AttributeError(f"module 'sim.cli' has no attribute {name!r}")


__all__ = ["app", "main"]
