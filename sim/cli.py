"""The `wizard-sim` command line (Typer)."""
from __future__ import annotations

import sys
import time
from typing import Annotated, Optional

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from sim import __version__
from sim.cards import format_card, format_hand
from sim.engine import run_games
from sim.errors import ConfigError
from sim.estimate_cli import estimate_command
from sim.rules import Rules

app = typer.Typer(
    name="wizard-sim",
    help="Fast, reproducible simulator of the card game Wizard.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
app.command("estimate")(estimate_command)
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def fail(message: str) -> None:
    """Bad input: one line on stderr, exit code 2."""
    print(f"wizard-sim: error: {message}", file=sys.stderr)
    raise typer.Exit(code=2)


def _version(value: bool) -> None:
    if value:
        print(f"wizard-sim {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """Fast, reproducible simulator of the card game Wizard."""


@app.command()
def demo(
    players: Annotated[int, typer.Option(help="Players at the table, 3..6.")] = 4,
    games: Annotated[int, typer.Option(help="Full games to play.")] = 20000,
    policy: Annotated[str, typer.Option(help="One policy, or a comma list with one per seat.")] = "heuristic,random,random,random",
    seed: Annotated[int, typer.Option(help="Run seed.")] = 7,
) -> None:
    """Play a batch of full games and print per-policy results and one sample round.

    Example: wizard-sim demo --players 4 --games 20000 --policy heuristic,random,random,random
    """
    try:
        rules = Rules(players=players)
        if policy == "heuristic,random,random,random" and players != 4:
            policy = ",".join(["heuristic"] + ["random"] * (players - 1))
        if games < 1:
            raise ConfigError(f"games must be at least 1, got {games}")
        run_games(rules, policy, seed=seed, games=1)  # compile or load the kernels first
        start = time.perf_counter()
        batch = run_games(rules, policy, seed=seed, games=games)
        elapsed = time.perf_counter() - start
    except ConfigError as error:
        fail(str(error))
    table = Table(title=f"{games:,} games, {players} players, seed {seed}: {games / elapsed:,.0f} games/s")
    for column in ("seat", "policy", "mean total", "win rate", "bid accuracy", "mean |bid - tricks|"):
        table.add_column(column, justify="right")
    for seat, seat_policy in enumerate(batch.policies):
        bids = batch.seats["bid"][:, :, seat].astype(np.int16)
        tricks = batch.seats["tricks"][:, :, seat].astype(np.int16)
        table.add_row(
            str(seat),
            seat_policy.label,
            f"{batch.games['total'][:, seat].mean():.1f}",
            f"{batch.games['winner'][:, seat].mean():.3f}",
            f"{(bids == tricks).mean():.3f}",
            f"{np.abs(bids - tricks).mean():.3f}",
        )
    console.print(table)
    size = rules.round_sizes[min(4, len(rules.round_sizes) - 1)]
    k = rules.round_sizes.index(size)
    rnd = batch.rounds[0, k]
    trump = "no trump" if rnd["trump"] < 0 else f"trump {SUIT_NAMES[rnd['trump']]}"
    turned = "nothing turned up" if rnd["trump_card"] < 0 else f"turned up {format_card(int(rnd['trump_card']))}"
    console.print(f"Game 0, round {size}: dealer seat {rnd['dealer']}, {turned}, {trump}")
    for seat in range(players):
        result = batch.seats[0, k, seat]
        console.print(
            f"  seat {seat}: {format_hand(int(result['hand'])):<40} bid {result['bid']} "
            f"took {result['tricks']} score {result['score']:+d}"
        )


if __name__ == "__main__":
    app()
