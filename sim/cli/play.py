"""`wizard-sim play`: a person plays a seat in the terminal against built-in policies
(registered in sim/cli/main.py; the game itself is sim.play.session.PlaySession, its bid
hint sim.estimation.hints.bid_hint)."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from kernels.cards import FIRST_JESTER, FIRST_WIZARD, NO_CARD, NO_SUIT, RANKS_PER_SUIT
from kernels.records import DEALER_CHOOSES_TRUMP, DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP, NO_BID
from kernels.rules import bid_position
from sim.estimation.hints import bid_hint
from sim.play.session import (
    Event,
    Move,
    PlayConfig,
    PlaySession,
    RoundEnd,
    RoundStart,
    TrickEnd,
    builtin_policy,
    load_session,
    opponent_names,
    saved_opponents,
)
from sim.cli.options import rules_from_options
from sim.cli.terminal import console, fail
from sim.config.cards import SUIT_NAMES, format_card
from sim.config.errors import BotError, ConfigError
from sim.config.limits import check_count
from sim.policies.registry import Policy, bot_name
from sim.config.seeds import draw_seed
from sim.env.layout import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0
from sim.storage import check_output_file

QUIT_WORDS = {"q", "quit", "exit"}
HINT_WORDS = {"?", "h", "hint"}
MAX_HINT_SAMPLES = 1_000_000
SUIT_STYLES = ("green", "yellow", "red", "blue")  # clubs, diamonds, hearts, spades


class Quit(Exception):
    """The person typed q (or the input ended)."""


# --- rendering -----------------------------------------------------------------------------


def card_text(card: int) -> str:
    """A card in notation, coloured by suit (rich markup)."""
    if card >= FIRST_WIZARD:
        return f"[bold magenta]{format_card(card)}[/]" if card < FIRST_JESTER else f"[cyan]{format_card(card)}[/]"
    return f"[{SUIT_STYLES[card // RANKS_PER_SUIT]}]{format_card(card)}[/]"


def hand_text(cards: list[int], legal: set[int] | None = None) -> str:
    """The hand grouped: Wizards, then spades, hearts, diamonds, clubs (high to low), then
    Jesters; with `legal`, the cards that may not be played now are struck through."""

    def shown(card: int) -> str:
        return card_text(card) if legal is None or card in legal else f"[dim strike]{format_card(card)}[/]"

    groups = [[c for c in cards if FIRST_WIZARD <= c < FIRST_JESTER]]
    for suit in reversed(range(4)):
        groups.append(sorted((c for c in cards if c < FIRST_WIZARD and c // RANKS_PER_SUIT == suit), reverse=True))
    groups.append([c for c in cards if c >= FIRST_JESTER])
    return "  |  ".join(" ".join(shown(c) for c in group) for group in groups if group)


def trump_text(trump: int) -> str:
    if trump == DEALER_CHOOSES_TRUMP:
        return "the dealer chooses trump"
    return "no trump" if trump == NO_SUIT else f"trump {SUIT_NAMES[trump]}"


def who(session: PlaySession, seat: int) -> str:
    if seat == session.config.seat:
        return f"[bold]you[/] (seat {seat})"
    return f"seat {seat} ({session.config.label(seat)})"


def does(session: PlaySession, seat: int, verb: str, rest: str) -> str:
    """`seat 2 (mc) plays W`, `you (seat 0) play W`: the verb agrees with who acts (`verb` in
    the third person, `plays`; the person's form drops its -s)."""
    own = verb.removesuffix("s") if seat == session.config.seat else verb
    return f"{who(session, seat)} {own} {rest}"


def render_event(session: PlaySession, event: Event) -> None:
    rules = session.config.rules
    if isinstance(event, RoundStart):
        number = rules.round_sizes.index(event.round_size) + 1
        console.rule(
            f"Round {number} of {len(rules.round_sizes)}: "
            f"{event.round_size} card{'s' if event.round_size > 1 else ''} each, "
            f"dealer {who(session, event.dealer)}"
        )
        turned = event.trump_card
        up = "nothing turned up (every card is dealt)" if turned == NO_CARD else f"turned up {card_text(turned)}"
        console.print(f"{up}: {trump_text(event.trump)}")
    elif isinstance(event, Move):
        if event.decision == DECIDE_TRUMP:
            console.print(does(session, event.seat, "names", f"trump: {SUIT_NAMES[event.answer]}"))
        elif event.decision == DECIDE_BID:
            shown = rules.bidding == "open" or event.seat == session.config.seat
            console.print(does(session, event.seat, "bids", str(event.answer)) if shown else f"{who(session, event.seat)} has bid")
        else:
            console.print(does(session, event.seat, "plays", card_text(event.answer)))
    elif isinstance(event, TrickEnd):
        plays = ", ".join(f"{card_text(card)} seat {seat}" for seat, card in event.plays)
        console.print(f"[bold]{does(session, event.winner, 'takes', 'the trick')}[/] ({plays})")
    elif isinstance(event, RoundEnd):
        history = session.state.history
        console.print(score_pad(session, history[: next(k for k, r in enumerate(history) if r is event.summary) + 1]))


def score_pad(session: PlaySession, history: list[dict]) -> Table:
    """The finished rounds: per seat bid/tricks, the round's score and the total after it."""
    config = session.config
    pad = Table(title="Score pad (bid/tricks  score  total)")
    pad.add_column("cards", justify="right")
    for seat in range(config.rules.players):
        pad.add_column("you" if seat == config.seat else f"seat {seat} {config.label(seat)}", justify="right")
    for index, summary in enumerate(history):
        cells = [
            f"{bid}/{tricks}  {score:+d}  [bold]{total}[/]"
            for bid, tricks, score, total in zip(*(summary[key] for key in ("bids", "tricks", "scores", "totals")))
        ]
        pad.add_row(str(summary["round_size"]), *cells, style="reverse" if index == len(history) - 1 else None)
    return pad


def render_table(session: PlaySession) -> None:
    """What the person sees before deciding: the table's bids, tricks and totals, the trick so
    far, the turned-up card and trump, and the hand."""
    config = session.config
    table, seats, _ = session.state.records()
    players = config.rules.players
    status = Table(box=None, pad_edge=False)
    for column in ("seat", "player", "bid", "tricks", "total"):
        status.add_column(column, justify="right")
    for seat in range(players):
        bid = int(seats[seat]["bid"]) if seat == config.seat else int(table["bids"][seat])
        if bid == NO_BID:
            bid_text = "-" if int(table["n_bids"]) <= bid_position(seat, int(table["dealer"]), players) else "hidden"
        else:
            bid_text = str(bid)
        marks = " (dealer)" if seat == int(table["dealer"]) else ""
        status.add_row(
            str(seat),
            ("[bold]you[/]" if seat == config.seat else config.label(seat)) + marks,
            bid_text,
            str(int(table["tricks"][seat])),
            str(int(table["totals"][seat])),
        )
    console.print(status)
    console.print(trump_text(int(table["trump"])))  # the turned-up card was shown as the round began
    if session.decision() == DECIDE_CARD:
        trick = session.trick()
        played = ", ".join(f"seat {seat} {card_text(card)}" for seat, card in trick) or "you lead"
        console.print(f"trick {int(table['trick']) + 1} of {int(table['round_size'])}: {played}")
    legal = set(session.legal_cards()) if session.decision() == DECIDE_CARD else None
    console.print(f"your hand: {hand_text(session.hand(), legal)}")


def hint_text(session: PlaySession, policy: Policy, samples: int) -> str:
    """The hint for the decision at hand: estimate's recommended bid, or the policy's choice."""
    if session.decision() == DECIDE_BID:
        try:
            result = bid_hint(session, policy, samples)
        except ConfigError as error:  # no sampled deal fits even the tolerant model: no hint, the game goes on
            return f"no bid hint: {error}"
        best = result.stats[result.recommended_bid]
        model = "" if result.spread == 0 else f", tolerant opponent model (spread {result.spread:g})"
        return (
            f"hint: estimate recommends bid {best.bid} (P(make) {100 * best.p_make:.0f}%, "
            f"E(score) {best.expected_score:+.1f}; {result.samples:,} samples{model})"
        )
    action = session.policy_hint(policy)
    if session.decision() == DECIDE_TRUMP:
        return f"hint: {policy.label} names {SUIT_NAMES[action - ACTION_SUIT0]}"
    return f"hint: {policy.label} plays {card_text(action - ACTION_CARD0)}"


def prompt_text(session: PlaySession) -> str:
    decision = session.decision()
    if decision == DECIDE_TRUMP:
        return "Name trump (C, D, H, S): "
    if decision == DECIDE_BID:
        round_size = int(session.state.records()[0]["round_size"])
        legal = [action - ACTION_BID0 for action in session.state.legal_actions()]
        barred = "".join(f", not {bid}" for bid in range(round_size + 1) if bid not in legal)
        return f"Your bid (0-{round_size}{barred}): "
    return "Your card: "


def ask(session: PlaySession, policy: Policy, samples: int) -> int:
    """The person's answer as a flat action; bad input is explained and asked again. `?`
    shows the hint, `q` (or the end of input) quits."""
    while True:
        try:
            text = console.input(prompt_text(session)).strip()
        except EOFError:
            console.print()
            raise Quit from None
        if text.lower() in QUIT_WORDS:
            raise Quit
        if text.lower() in HINT_WORDS:
            console.print(hint_text(session, policy, samples))
            continue
        if not text:
            continue
        try:
            return session.action_of(text)
        except ConfigError as error:
            console.print(f"[red]{error}[/] (q quits, ? gives a hint)")


def results_table(session: PlaySession) -> Table:
    rows = session.results()
    table = Table(title=f"Final scores, game {session.config.game} of seed {session.config.seed}")
    for column in ("seat", "player", "exact bids", "bid accuracy", "final score", ""):
        table.add_column(column, justify="right")
    for row in rows:
        accuracy = row["exact"] / row["rounds"] if row["rounds"] else 0.0
        table.add_row(
            str(row["seat"]),
            row["player"],
            f"{row['exact']}/{row['rounds']}",
            f"{100 * accuracy:.0f}%",
            str(row["total"]),
            "winner" if row["winner"] else "",
            style="bold" if row["seat"] == session.config.seat else None,
        )
    return table


def winners_line(session: PlaySession) -> str:
    winners = [row for row in session.results() if row["winner"]]
    names = " and ".join("you" if row["player"] == "you" else f"seat {row['seat']} ({row['player']})" for row in winners)
    verb = "win" if len(winners) > 1 or winners[0]["seat"] == session.config.seat else "wins"
    return f"{names} {verb} with {winners[0]['total']} points" + (" (shared)" if len(winners) > 1 else "")


# --- the command ---------------------------------------------------------------------------


def check_resumed_opponents(resume: str, opponents: Optional[str]) -> None:
    """A saved game with Python policies is resumed only when --opponents names their modules
    again: a save file alone never makes wizard-sim import code."""
    saved = saved_opponents(resume)
    bots = [label for label in saved if bot_name(label)]
    if bots and opponents is None:
        raise ConfigError(
            f"{resume} names the Python policies {', '.join(dict.fromkeys(bots))}: give its --opponents again"
            " to allow importing them"
        )
    if opponents is not None:
        names = opponent_names(opponents, len(saved) + 1)
        if [bot_name(name) for name in names] != [bot_name(label) for label in saved]:
            raise ConfigError(f"--opponents {opponents} differs from the saved game's ({','.join(saved)})")


def new_session(given: dict, resume: Optional[str], save_path: Optional[str]) -> PlaySession:
    """A new game from the options, or the game saved in `resume` (whose options then come
    from the file: giving one of them as well is an error). --save never overwrites another file."""
    if save_path is not None and save_path != resume:
        check_output_file(Path(save_path), "the save file")  # first: a directory is no game to resume
        if os.path.lexists(save_path):
            raise ConfigError(f"{save_path} exists: continue that game with --resume {save_path}, or save to another file")
    if resume is not None:
        clash = [option for option, value in given.items() if value is not None and option != "opponents"]
        if clash:
            raise ConfigError(f"--resume takes the game's options from {resume}; do not give --{clash[0]}")
        check_resumed_opponents(resume, given["opponents"])
        if save_path == resume:  # saved to again
            check_output_file(Path(resume), "the save file")
        return load_session(resume)
    rules = rules_from_options(
        given["players"] if given["players"] is not None else 4,
        given["rounds"],
        given["bidding"] or "open",
        given["even-bids"] or "allowed",
        given["first-dealer"] or "draw",
    )
    config = PlayConfig.build(
        rules,
        given["seat"] if given["seat"] is not None else 0,
        given["opponents"] or "heuristic",
        given["seed"] if given["seed"] is not None else draw_seed(),
        given["game"] if given["game"] is not None else 0,
    )
    return PlaySession(config)


class SaveFailed(Exception):
    """Writing the save file failed at run time (disk full): one line and exit 1."""


def save(session: PlaySession, path: Optional[str]) -> None:
    if path is None:
        return
    try:
        session.save(path)
    except OSError as error:
        raise SaveFailed(f"cannot write the save file {path}: {error.strerror or error}") from None


def play_command(
    players: Annotated[Optional[int], typer.Option(help="Players, 3..6.", show_default="4")] = None,
    seat: Annotated[Optional[int], typer.Option(help="The seat you play, 0..players-1.", show_default="0")] = None,
    opponents: Annotated[
        Optional[str],
        typer.Option(help="The other seats' policy (built-in, or module:Object for a Python policy of yours), or a comma list with one per other seat in seat order, e.g. heuristic,mc,random.", show_default="heuristic"),
    ] = None,
    rounds: Annotated[
        Optional[str], typer.Option(help="Round sizes to play, e.g. 7, 1-5 or 1,3,5.", show_default="all, a full game")
    ] = None,
    bidding: Annotated[Optional[str], typer.Option(help="open | hidden | delayed.", show_default="open")] = None,
    even_bids: Annotated[
        Optional[str], typer.Option("--even-bids", help="allowed | forbidden | leader.", show_default="allowed")
    ] = None,
    first_dealer: Annotated[Optional[str], typer.Option("--first-dealer", help="draw | SEAT.", show_default="draw")] = None,
    seed: Annotated[
        Optional[int], typer.Option(help="Run seed: game G of seed S is dealt as game G of simulate --seed S.", show_default="drawn at random")
    ] = None,
    game: Annotated[Optional[int], typer.Option(help="Game index within the seed's run.", show_default="0")] = None,
    hint: Annotated[
        bool, typer.Option("--hint/--no-hint", help="Show a hint before each decision (? shows one at any time).")
    ] = False,
    hint_policy: Annotated[
        str, typer.Option("--hint-policy", help="The policy whose card (and trump) choice is the hint; it also plays your cards in the bid hint's estimate.")
    ] = "heuristic",
    hint_samples: Annotated[int, typer.Option("--hint-samples", help="Sampled deals of the bid hint (estimate): 0.1-0.6 s in a 15-card round on 2 cores at 20,000.")] = 20_000,
    save_file: Annotated[
        Optional[str], typer.Option("--save", help="Save the game to FILE after every decision (resume with --resume FILE).", show_default=False)
    ] = None,
    resume: Annotated[
        Optional[str], typer.Option(help="Continue the game saved in FILE (and keep saving to it unless --save names another file).", show_default=False)
    ] = None,
) -> None:
    """Play a seat of a game in the terminal against built-in policies.

    Type cards in card notation: AS, 10H or TH, JH (the Jack of hearts), W (a Wizard), J (a Jester).

    Bids are numbers, trump a suit (C, D, H, S or its name). ? shows a hint; q or end of input quits.

    With --save FILE the game is saved after every decision; --resume FILE continues it.

    Example: wizard-sim play --players 4 --opponents heuristic,mc,random --rounds 1-5 --hint --save game.json
    """
    given = {
        "players": players, "seat": seat, "opponents": opponents, "rounds": rounds, "bidding": bidding,
        "even-bids": even_bids, "first-dealer": first_dealer, "seed": seed, "game": game,
    }  # fmt: skip
    save_path = save_file if save_file is not None else resume
    session = None
    try:
        policy = builtin_policy(hint_policy)
        samples = check_count(hint_samples, "hint-samples", 2, MAX_HINT_SAMPLES)
        session = new_session(given, resume, save_path)
        save(session, save_path)
        config = session.config
        seats = ", ".join(f"seat {s} {config.label(s)}" for s in range(config.rules.players))
        console.print(f"[bold]wizard-sim play[/]: game {config.game} of seed {config.seed}, {seats}")
        if session.answers:
            console.print(f"resumed after {len(session.answers)} of your decisions")
            if session.state.history:
                console.print(score_pad(session, session.state.history))
        while True:
            for event in session.advance():
                render_event(session, event)
            if session.is_over():
                break
            render_table(session)
            if hint:
                console.print(hint_text(session, policy, samples))
            action = ask(session, policy, samples)
            for event in session.answer(action):
                render_event(session, event)
            save(session, save_path)
    except ConfigError as error:
        fail(error)
    except (BotError, SaveFailed) as error:  # a Python opponent failed (the game is saved), a full disk
        fail(str(error), code=1)
    except Quit:
        labels = [session.config.label(seat) for seat in range(session.config.rules.players) if seat != session.config.seat]
        named = f" --opponents {','.join(labels)}" if any(bot_name(label) for label in labels) else ""
        where = f"; saved to {save_path}, continue with: wizard-sim play --resume {save_path}{named}" if save_path else ""
        console.print(f"game left{where}", soft_wrap=True)
        raise typer.Exit(code=0)
    except KeyboardInterrupt:
        console.print()  # end the prompt's line
        where = f"; saved to {save_path}" if save_path and session is not None else ""
        print(f"wizard-sim: interrupted{where}", file=sys.stderr)
        raise typer.Exit(code=130)
    console.print(results_table(session))
    console.print(f"[bold]{winners_line(session)}[/]")
