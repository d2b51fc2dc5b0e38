"""Where the command line writes: one console for tables, and one-line errors."""
from __future__ import annotations

import sys
from typing import Any

import numba.core.event
import typer
import typer.core
from rich.console import Console

from sim.config.policies import POLICY_FORMS  # noqa: F401  (the commands' option help imports it from here)

console = Console()
if not console.is_terminal:  # pipes and files: wide enough that tables do not wrap
    console = Console(width=160)


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit code 2."""
    print(f"wizard-sim: error: {message}", file=sys.stderr)
    raise typer.Exit(code=2)


class OneLineErrors(typer.core.TyperCommand):
    """A command whose usage errors (an option that is not a number, a missing option) are one
    line on stderr and exit 2, like every other bad input, instead of click's usage box."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except Exception as error:
            # click's UsageError (typer ships its own copy of click: matched by what it has)
            if getattr(error, "exit_code", None) != 2 or not hasattr(error, "format_message"):
                raise
            message = " ".join(error.format_message().split())
            print(f"wizard-sim: error: {message}", file=sys.stderr)
            raise typer.Exit(2) from None


COMPILING = "wizard-sim: compiling kernels (first use, about 30 s; cached afterwards)"


class CompileNotice(numba.core.event.Listener):
    """Says once per process, on stderr, that the kernels are being compiled: numba compiles
    them on their first use after installation (or an edit) and caches them, so a first
    command is silent for about half a minute otherwise. Only a real compile is announced
    (numba's "numba:compile" event fires on a cache miss, not when the cache is loaded). On a
    terminal only: a script reading stderr sees the same lines with a cold cache or a warm one."""

    def __init__(self) -> None:
        self.shown = False

    def on_start(self, event: numba.core.event.Event) -> None:
        if not self.shown and sys.stderr.isatty():
            self.shown = True
            print(COMPILING, file=sys.stderr, flush=True)

    def on_end(self, event: numba.core.event.Event) -> None:
        pass


def announce_compiling() -> None:
    numba.core.event.register("numba:compile", CompileNotice())
