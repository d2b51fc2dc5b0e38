"""`wizard-sim estimate`: the command-line face of sim.estimation (registered in sim/cli/main.py)."""
from __future__ import annotations

import inspect
import sys
from dataclasses import MISSING, fields
from typing import Annotated

import typer
from rich.table import Table

from sim.cli.terminal import console, fail
from sim.config.errors import BotError, ConfigError
from sim.estimation.request import EstimateRequest
from sim.estimation.results import BidEstimate, result_json
from sim.estimation.run import run_estimate


def percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def estimate_table(result: BidEstimate) -> Table:
    context = result.context()
    trump = "no trump" if context["trump"] is None else f"trump {context['trump']}"
    turned_names = {None: "nothing", "W": "a Wizard", "J": "a Jester"}
    turned = f"{turned_names.get(context['trump_card'], context['trump_card'])} turned up"
    earlier = ",".join(map(str, context["earlier_bids"])) or "none"
    table = Table(
        title=(
            f"{context['hand']} | {turned}, {trump} | {context['players']} players, bidding position "
            f"{context['position']}, earlier bids {earlier} | {result.samples:,} samples, seed {context['seed']}"
        )
    )
    # E(score), not E[score]: rich would read the brackets as markup.
    for column in ("bid", "P(make)", "95% interval", "E(score)", "95% interval", ""):
        table.add_column(column, justify="right")
    for stats in result.stats:
        if not stats.legal:
            table.add_row(str(stats.bid), "-", "", "-", "", "illegal", style="dim")
            continue
        chosen = stats.bid == result.recommended_bid
        low, high = stats.p_make_ci
        score_low, score_high = stats.expected_score_ci
        # A 0% or 100% that only the exact model makes certain is starred (footnote: the assumptions line).
        starred = "*" if stats.bid in result.model_certain else ""
        table.add_row(
            str(stats.bid),
            percent(stats.p_make) + starred,
            f"{percent(low)} - {percent(high)}",
            f"{stats.expected_score:+.1f}",
            f"{score_low:+.1f} - {score_high:+.1f}",
            "recommended" if chosen else "",
            style="bold" if chosen else None,
        )
    return table


def distribution_line(result: BidEstimate) -> str:
    bid = result.recommended_bid
    shares = result.stats[bid].tricks_distribution
    return f"Tricks taken when bidding {bid}: " + "  ".join(f"{k}: {percent(p)}" for k, p in enumerate(shares))


def sampling_line(result: BidEstimate) -> str:
    if not result.infer:
        return f"Deals: uniform over the unseen cards (--no-infer), {result.samples:,} samples."
    model = result.model.describe()
    bots = result.bot_observed_seats
    model += " model" + (f"; {bots} of them through a Python policy's own answers" if bots else "")
    return (
        f"Deals: posterior given {result.observed_seats} observed seat(s) ({model}): "
        f"{result.effective_samples:,.0f} effective samples of {result.samples:,}, acceptance {percent(result.acceptance)}."
    )


def few_samples_warning(result: BidEstimate) -> str:
    return (
        f"only {result.effective_samples:,.0f} effective samples: the percentages above may be off by "
        "5 points or more; raise --samples (or use --spread)"
    )


def estimate_command(as_json: bool = False, **options) -> None:
    """What should I bid with this hand? P(make) and expected score of every bid, by Monte Carlo.

    The other hands are dealt from the unseen cards as the earlier bids and the dealer's trump
    choice make them likely (an opponent model: the heuristic, exactly or with --spread noise);
    earlier bids are fixed, later opponents bid by their policy; this seat plays to make each
    bid in turn on the same deals.

    Example: wizard-sim estimate --hand "W AS KH 7H J" --trump 3H --players 4 --position 2 --bids 1,0
    """
    try:
        result = run_estimate(EstimateRequest(**options))
    except ConfigError as error:
        fail(str(error))
    except BotError as error:  # a bot (numba or Python) raised, exited or answered illegally
        fail(error, code=1)
    except KeyboardInterrupt:  # the kernels run in short slices, so Ctrl-C lands promptly
        print("wizard-sim: interrupted", file=sys.stderr)
        raise typer.Exit(code=130)
    if as_json:
        print(result_json(result))
        return
    console.print(estimate_table(result))
    console.print(distribution_line(result))
    console.print(sampling_line(result))
    console.print(result.assumptions()["summary"] + (" (starred above)" if result.model_certain else ""))
    if result.few_effective_samples:
        console.print(f"[yellow]warning:[/] {few_samples_warning(result)}")


def request_parameters() -> list[inspect.Parameter]:
    """The command's options, one per EstimateRequest field (its help and command-line type;
    a default of () is the empty text), then --json."""
    parameters = []
    for item in fields(EstimateRequest):
        info = typer.Option(*item.metadata["flags"], help=item.metadata["help"])
        default = inspect.Parameter.empty if item.default is MISSING else item.default
        default = "" if default == () else default
        cli_type = item.metadata["cli"]
        annotation = Annotated[cli_type, info]
        parameters.append(inspect.Parameter(item.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=annotation))  # fmt: skip
    json_option = typer.Option("--json", help="Print one JSON object instead of a table.")
    parameters.append(inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False,
                                        annotation=Annotated[bool, json_option]))  # fmt: skip
    return parameters


# typer reads the options from the signature: the request's fields, written once.
estimate_command.__signature__ = inspect.Signature(request_parameters())
