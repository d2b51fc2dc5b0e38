"""`wizard-sim verify DIR`: is a run directory complete and sound? (exit 0 yes, 1 no, 2 not a run)."""
from __future__ import annotations

from typing import Annotated

import typer

from sim.cli.terminal import console, fail
from sim.config.errors import ConfigError
from sim.runs.verification import verify_run


def verify_command(
    out: Annotated[str, typer.Argument(help="A run directory written by simulate, tournament or league.")],
) -> None:
    """Check a run directory: complete, incomplete (what is missing), damaged parts, foreign files.

    Every part listed in the run's journal is checked (size, rows, chunk, run fingerprint).
    Exit 0 when the run is complete and sound, 1 otherwise, 2 when DIR is not a run directory.

    Example: wizard-sim verify results/runs/h4
    """
    try:
        verification = verify_run(out)
    except ConfigError as error:
        fail(error)
    for line in verification.lines():
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    if not verification.sound:
        raise typer.Exit(code=1)
