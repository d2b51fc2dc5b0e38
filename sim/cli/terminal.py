"""Where the command line writes: one console for tables, and one-line errors."""
from __future__ import annotations

import sys

import typer
from rich.console import Console

console = Console()
if not console.is_terminal:  # pipes and files: wide enough that tables do not wrap
    console = Console(width=160)


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit code 2."""
    print(f"wizard-sim: error: {message}", file=sys.stderr)
    raise typer.Exit(code=2)
