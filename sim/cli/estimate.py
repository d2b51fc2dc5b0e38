"""`wizard-sim estimate`: the command-line face of sim.analysis.estimate (registered in sim/cli/main.py)."""
from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer
from rich.table import Table

from sim.analysis.estimate import BidEstimate, run_estimate
from sim.cli.terminal import POLICY_FORMS, console, fail
from sim.config.errors import BotError, ConfigError


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
        table.add_row(
            str(stats.bid),
            percent(stats.p_make),
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
    model = "exact heuristic" if result.spread == 0 else f"heuristic with spread {result.spread:g}"
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


def json_text(result: BidEstimate) -> str:
    """Strict JSON (allow_nan=False): illegal bids carry null, never NaN."""
    return json.dumps(result.to_json(), allow_nan=False)


def estimate_command(
    hand: Annotated[str, typer.Option(help='The hand, e.g. "W AS KH 7H J" (any order; its size is the round size).')],
    trump: Annotated[
        Optional[str], typer.Option(help="The turned-up card, e.g. 3H (W needs --trump-suit; J means no trump).")
    ] = None,
    trump_suit: Annotated[
        Optional[str], typer.Option(help="A Wizard was turned up and the dealer chose this suit (C, D, H, S).")
    ] = None,
    no_trump: Annotated[
        bool, typer.Option("--no-trump", help="No trump: a Jester was turned up (or the last round).")
    ] = False,
    players: Annotated[int, typer.Option(help="Players at the table, 3..6.")] = 4,
    position: Annotated[
        int, typer.Option(help="Bidding position: 0 = left of the dealer, players-1 = the dealer.")
    ] = 0,
    bids: Annotated[str, typer.Option(help="Bids already made by positions 0..position-1, e.g. 1,0.")] = "",
    totals: Annotated[
        str, typer.Option(help="Score pad by bidding position, e.g. 40,-10,0,20 (default 0s; for --even-bids leader).")
    ] = "",
    opponents: Annotated[
        str, typer.Option(help=f"Opponents' policy, or one per opponent in bidding order: each {POLICY_FORMS}.")
    ] = "heuristic",
    policy: Annotated[
        str, typer.Option(help=f"The policy this seat plays with (it plays to make each bid): {POLICY_FORMS}.")
    ] = "heuristic",
    samples: Annotated[int, typer.Option(help="Sampled deals of the unseen cards.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed of the sampled deals and random decisions.")] = 0,
    bidding: Annotated[str, typer.Option(help="Bidding variant: open, hidden or delayed.")] = "open",
    even_bids: Annotated[str, typer.Option(help="Even-bids variant: allowed, forbidden or leader.")] = "allowed",
    threads: Annotated[
        Optional[int], typer.Option(help="Kernel threads (default all; results do not depend on it).")
    ] = None,
    infer: Annotated[
        bool,
        typer.Option(
            "--infer/--no-infer",
            help="Deal the unseen cards from what the earlier bids and the dealer's trump choice say "
            "(--no-infer: uniformly).",
        ),
    ] = True,
    spread: Annotated[
        float,
        typer.Option(
            help="Opponent model: 0 = they bid exactly like the heuristic (self-play); 0.7-1 for people "
            "(the heuristic's bid with that much noise, in tricks).",
        ),
    ] = 0.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a table.")] = False,
) -> None:
    """What should I bid with this hand? P(make) and expected score of every bid, by Monte Carlo.

    The other hands are dealt from the unseen cards as the earlier bids and the dealer's trump
    choice make them likely (an opponent model: the heuristic, exactly or with --spread noise);
    earlier bids are fixed, later opponents bid by their policy; this seat plays to make each
    bid in turn on the same deals.

    Example: wizard-sim estimate --hand "W AS KH 7H J" --trump 3H --players 4 --position 2 --bids 1,0
    """
    try:
        result = run_estimate(
            hand,
            samples=samples,
            seed=seed,
            threads=threads,
            trump=trump,
            trump_suit=trump_suit,
            no_trump=no_trump,
            players=players,
            position=position,
            bids=bids,
            totals=totals,
            opponents=opponents,
            policy=policy,
            bidding=bidding,
            even_bids=even_bids,
            infer=infer,
            spread=spread,
        )
    except ConfigError as error:
        fail(str(error))
    except BotError as error:  # a bot (numba or Python) raised, exited or answered illegally
        print(f"wizard-sim: error: {error}", file=sys.stderr)
        raise typer.Exit(code=1)
    except KeyboardInterrupt:  # the kernels run in short slices, so Ctrl-C lands promptly
        print("wizard-sim: interrupted", file=sys.stderr)
        raise typer.Exit(code=130)
    if as_json:
        print(json_text(result))
        return
    console.print(estimate_table(result))
    console.print(distribution_line(result))
    console.print(sampling_line(result))
    if result.few_effective_samples:
        console.print(f"[yellow]warning:[/] {few_samples_warning(result)}")
