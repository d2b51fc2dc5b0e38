"""`wizard-sim compare A B`: one changed policy across two tournaments of the same deals."""
from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from sim.cli.terminal import console, fail
from sim.config.errors import ConfigError


def compare_command(
    run_a: Annotated[str, typer.Argument(help="A finished tournament run directory.")],
    run_b: Annotated[str, typer.Argument(help="A finished tournament of the same rules, seed and seatings.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead.")] = False,
) -> None:
    """The policy that run A lists where run B lists another, paired over the deals both played.

    Both runs must be duplicate tournaments of the same rules, seed and seatings (mirror images
    or not) that list the same policies but one: where A lists policy X, B lists policy Y. Every
    deal was then played in both runs with the same cards and the same other players, so the
    per-deal difference of X's and Y's mean scores is paired, as within one tournament. It
    measures a policy against a variant of itself at a table of others (for example pimc with
    and without inference against three heuristic seats), which no single table holds.

    Example: wizard-sim compare runs/infer_vs_heuristic runs/pimc_vs_heuristic
    """
    from sim.runs.comparison import compare_tournaments

    try:
        comparison = compare_tournaments(run_a, run_b)
    except ConfigError as error:
        fail(error)
    if as_json:
        print(json.dumps(comparison.to_dict()))
        return
    where = ", ".join(str(position + 1) for position in comparison.positions)
    table = Table(
        title=f"{comparison.deals:,} deals played in both runs, {comparison.policy_a} in A and"
        f" {comparison.policy_b} in B at listed position {where} of {','.join(comparison.policies)}"
    )
    for column in ("run", "policy", "mean score per game"):
        table.add_column(column, justify="right")
    table.add_row(f"A {comparison.run_a}", comparison.policy_a, f"{comparison.mean_a:.1f}")
    table.add_row(f"B {comparison.run_b}", comparison.policy_b, f"{comparison.mean_b:.1f}")
    console.print(table)
    console.print(
        f"A - B: {comparison.difference:+.1f} points per game (95% CI {comparison.ci_low:+.1f} to"
        f" {comparison.ci_high:+.1f}, paired over deals): {'significant' if comparison.significant else 'not significant'}",
        markup=False, highlight=False,
    )
    console.print(f"- {comparison.verdict}", markup=False, highlight=False)
