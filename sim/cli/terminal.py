"""Where the command line writes: one console for tables, and one-line errors."""
from __future__ import annotations

import sys
from typing import Any

import typer
import typer.core
from rich.console import Console

from sim.cli.messages import phrase
from sim.config.policies import REGISTRY

# The forms a policy takes, in the help of every option that names policies.
POLICY_FORMS = (
    f"a built-in policy ({', '.join(REGISTRY)}; parameters as name:key=value) or module:Object, "
    "a Python policy or a numba bot imported from the current directory or PYTHONPATH (README: External bots)"
)

console = Console()
if not console.is_terminal:  # pipes and files: wide enough that tables do not wrap
    console = Console(width=160)


def fail(problem: str | Exception, code: int = 2) -> None:
    """One line on stderr (an exception in the command line's words, sim.cli.messages) and
    exit `code`: 2 for bad input, 1 for a failure at run time."""
    print(f"wizard-sim: error: {phrase(problem) if isinstance(problem, Exception) else problem}", file=sys.stderr)
    raise typer.Exit(code=code)


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
