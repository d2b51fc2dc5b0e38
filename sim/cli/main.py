"""The `wizard-sim` command line (Typer)."""
from __future__ import annotations

import contextlib
import sys
import time
from typing import Annotated, Callable, Optional, TypeVar

import numpy as np
import typer
from rich.table import Table

from sim.cli.estimate import estimate_command
from sim.cli.options import first_dealer_option, rules_from_options
from sim.cli.play import play_command
from sim.cli.progress import GameProgress
from sim.cli.report import report_command
from sim.cli.serve import serve_command
from sim.cli.verify import verify_command
from sim.cli.terminal import POLICY_FORMS, OneLineErrors, console, fail
from sim.config.cards import SUIT_NAMES, format_card, format_hand
from sim.config.errors import BotError, ConfigError
from sim.config.policies import is_external, parse_policies, split_policy_list
from sim.config.limits import MAX_GAMES, MAX_WORKERS, check_count
from sim.config.rules import Rules, parse_rounds
from sim.config.seeds import check_seed
from sim.config.version import __version__
from sim.runs.executors import Executor, LocalExecutor, check_out, load_record, load_run
from sim.runs.games import run_games
from sim.runs.python_seats import DEFAULT_BATCH, MAX_BATCH
from sim.runs.simulation import SimulationConfig, SimulationResult, resume, simulate
from sim.runs.tables import table_names
from sim.runs.tournament import TournamentConfig, TournamentResult, resume_tournament, tournament
from sim.storage import RunError

app = typer.Typer(
    name="wizard-sim",
    help="Fast, reproducible simulator of the card game Wizard.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("estimate", cls=OneLineErrors)(estimate_command)
T = TypeVar("T")


def _version(value: bool) -> None:
    if value:
        print(f"wizard-sim {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Fast, reproducible simulator of the card game Wizard."""


@app.command(cls=OneLineErrors)
def demo(
    players: Annotated[int, typer.Option(help="Players at the table, 3..6.")] = 4,
    games: Annotated[int, typer.Option(help="Full games to play.")] = 20000,
    policy: Annotated[
        str, typer.Option(help=f"One policy, or a comma list with one per seat: each {POLICY_FORMS}.")
    ] = "heuristic,random,random,random",
    seed: Annotated[int, typer.Option(help="Run seed.")] = 7,
) -> None:
    """Play a batch of full games and print per-policy results and one sample round.

    Example: wizard-sim demo --players 4 --games 20000 --policy heuristic,random,random,random
    """
    try:
        rules = Rules(players=players)
        if policy == "heuristic,random,random,random" and players != 4:
            policy = ",".join(["heuristic"] + ["random"] * (players - 1))
        check_count(games, "games", 1, MAX_GAMES)
        check_seed(seed)
        run_games(rules, policy, seed=seed, games=1)  # compile or load the kernels first
        start = time.perf_counter()
        batch = run_games(rules, policy, seed=seed, games=games)
        elapsed = time.perf_counter() - start
    except ConfigError as error:
        fail(str(error))
    except BotError as error:
        print(f"wizard-sim: error: {error}", file=sys.stderr)
        raise typer.Exit(code=1)
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


def stored_options(config) -> dict:
    """The option values a simulate or tournament run was started with, by option name."""
    return {
        "players": config.rules.players,
        "rounds": config.rules.round_sizes,
        "bidding": config.rules.bidding,
        "even-bids": config.rules.even_bids,
        "first-dealer": config.rules.first_dealer,
        "seed": config.seed,
        "log-plays": config.log_plays,
    }


def check_resume_options(stored: dict, given: dict) -> None:
    """On --resume every option comes from run.json; an explicit different one is an error."""
    for option, value in given.items():
        if value is None:
            continue
        if option == "rounds":
            value = parse_rounds(value, stored["players"])
        elif option in ("policy", "policies"):
            value = [policy.label for policy in parse_policies(value, stored["players"])]
        elif option == "first-dealer":
            value = first_dealer_option(value)
        if value != stored[option]:
            raise ConfigError(f"--{option} {value} differs from the run being resumed ({stored[option]})")


def print_summary(result: SimulationResult) -> None:
    config = result.record["config"]
    games = config["games"]
    rounds = games * len(config["rules"]["rounds"])
    title = (
        f"{games:,} games, {rounds:,} rounds, {config['rules']['players']} players, seed {config['seed']}"
        f" — {result.games_per_second:,.0f} games/s this session"
    )
    table = Table(title=title)
    for column in ("policy", "seat-games", "mean score", "win rate", "bid accuracy", "mean |bid - tricks|"):
        table.add_column(column, justify="right")
    for row in result.summary:
        table.add_row(
            row["policy"],
            f"{row['seat_games']:,}",
            f"{row['mean_score']:.1f}",
            f"{row['win_rate']:.3f}",
            f"{row['bid_accuracy']:.3f}",
            f"{row['mean_abs_error']:.3f}",
        )
    console.print(table)
    console.print(f"Data in {result.out}/ ({', '.join(f'{name}/' for name in table_names(config['log_plays']))} and run.json)")


def check_engine(engine: str, scheduler: Optional[str], workers: Optional[int]) -> None:
    """The --engine options, checked before anything else is done."""
    if engine not in ("local", "dask"):
        raise ConfigError(f"--engine must be local or dask, got {engine!r}")
    if engine == "local" and (scheduler is not None or workers is not None):
        raise ConfigError("--scheduler and --workers need --engine dask")
    if workers is not None:
        check_count(workers, "workers", 1, MAX_WORKERS)


def resume_policies(out: str, command: str, given: Optional[str], option: str) -> None:
    """A run with external bots is resumed only when they are named again with --policy or
    --policies (matching the recorded labels): run.json alone never makes wizard-sim import code."""
    record = load_record(command, out)
    recorded = record["config"].get("policies")
    labels = [str(label) for label in recorded] if isinstance(recorded, list) else []
    bots = [label for label in labels if is_external(label)]
    if bots and given is None:
        raise ConfigError(
            f"cannot resume: the run uses external bots ({', '.join(dict.fromkeys(bots))}); name its policies again"
            f" with --{option} to allow importing them"
        )
    if bots:
        names = split_policy_list(given)
        names = names * len(labels) if len(names) == 1 else names
        bot_of = lambda text: ":".join(text.strip().split(":")[:2])  # noqa: E731
        if len(names) != len(labels) or any(
            is_external(label) and bot_of(name) != bot_of(label) for name, label in zip(names, labels)
        ):
            raise ConfigError(f"--{option} {given} differs from the run being resumed ({','.join(labels)})")


def open_executor(engine: str, scheduler: Optional[str], workers: Optional[int]) -> contextlib.AbstractContextManager[Executor]:
    """The executor named by --engine; a Dask one is connected for the duration of the run."""
    if engine == "local":
        if scheduler is not None or workers is not None:
            raise ConfigError("--scheduler and --workers need --engine dask")
        return contextlib.nullcontext(LocalExecutor())
    if engine == "dask":
        from sim.runs.cluster import connect  # imports Dask, an optional extra

        return connect(scheduler, workers)
    raise ConfigError(f"--engine must be local or dask, got {engine!r}")


EngineOption = Annotated[
    str, typer.Option(help="local: this process, all cores | dask: a Dask cluster, see --scheduler and --workers.")
]
SchedulerOption = Annotated[
    Optional[str],
    typer.Option(help="Address of a running Dask scheduler, e.g. tcp://HOST:8786 (--engine dask); --out must be storage every worker shares.", show_default=False),
]
WorkersOption = Annotated[
    Optional[int], typer.Option(help="Start a local Dask cluster of N worker processes (--engine dask), to try it.", show_default=False)
]
THREADS_HELP = "Kernel threads per chunk; results do not depend on it. [default: all cores; on Dask, a worker's cores / its task threads]"

# Options shared by simulate and tournament. Defaults are None so that --resume can tell an
# option given on the command line (which must agree with run.json) from one left out.
OutOption = Annotated[str, typer.Option(help="Output directory or file:// URL (refused if not empty, see --overwrite/--resume).")]
PlayersOption = Annotated[Optional[int], typer.Option(help="Players, 3..6. [default: 4]", show_default=False)]
RoundsOption = Annotated[
    Optional[str], typer.Option(help="Round sizes to play, e.g. 7, 1-5 or 1,3,5. [default: all, a full game]", show_default=False)
]
BiddingOption = Annotated[Optional[str], typer.Option(help="open | hidden | delayed. [default: open]", show_default=False)]
EvenBidsOption = Annotated[
    Optional[str], typer.Option("--even-bids", help="allowed | forbidden | leader. [default: allowed]", show_default=False)
]
FirstDealerOption = Annotated[Optional[str], typer.Option("--first-dealer", help="draw | SEAT. [default: draw]", show_default=False)]
SeedOption = Annotated[
    Optional[int], typer.Option(help="Run seed, 0..2^63-1. [default: drawn at random and recorded]", show_default=False)
]
ThreadsOption = Annotated[Optional[int], typer.Option(help=THREADS_HELP, show_default=False)]
BatchOption = Annotated[
    Optional[int],
    typer.Option(
        "--batch-games",
        help=f"Games in play at once when Python policies play: each bot is asked for up to this many decisions per call, 1..{MAX_BATCH:,}; results do not depend on it. [default: {DEFAULT_BATCH:,}]",
        show_default=False,
    ),
]
LogPlaysOption = Annotated[Optional[bool], typer.Option("--log-plays", help="Also write every card played (plays/).", show_default=False)]
OverwriteOption = Annotated[bool, typer.Option("--overwrite", help="Replace the run already in --out.")]
ResumeOption = Annotated[bool, typer.Option("--resume", help="Finish the interrupted run in --out with its recorded configuration.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no summary (errors still go to stderr).")]


def run_reporting_errors(command: str, out: str, action: Callable[[], T]) -> T:
    """Run a simulate/tournament action: bad input is one line and exit 2, a failed write or a
    failed external bot exit 1, Ctrl-C exit 130; a failed write and Ctrl-C say how to resume."""
    try:
        return action()
    except ConfigError as error:
        fail(str(error))
    except BotError as error:
        print(f"wizard-sim: error: {error}", file=sys.stderr)
        raise typer.Exit(code=1)
    except RunError as error:
        print(f"wizard-sim: error: {error}; no partial file is visible, finish with --resume", file=sys.stderr)
        raise typer.Exit(code=1)
    except KeyboardInterrupt:
        print(f"wizard-sim: interrupted; finish with: wizard-sim {command} --out {out} --resume", file=sys.stderr)
        raise typer.Exit(code=130)


def start_options(given: dict, overwrite: bool, resume_run: bool) -> Rules | None:
    """Check the options of a new run (None when resuming) and build its rules."""
    if overwrite and resume_run:
        raise ConfigError("--overwrite and --resume exclude each other")
    if resume_run:
        return None
    if given["games"] is None:
        raise ConfigError("--games is required (or --resume to finish a run)")
    return rules_from_options(
        given["players"] if given["players"] is not None else 4,
        given["rounds"],
        given["bidding"] or "open",
        given["even-bids"] or "allowed",
        given["first-dealer"] or "draw",
    )


SIMULATE_EPILOG = """Examples:

  wizard-sim simulate --players 4 --games 1000000 --policy heuristic --seed 7 --out results/runs/h4

  wizard-sim simulate --games 100000 --policy heuristic,random,random,random --rounds 1-5 --out runs/mixed

  wizard-sim simulate --games 50000 --policy heuristic:aggression=1.1 --bidding hidden --log-plays --out runs/hidden

  wizard-sim simulate --games 10000 --policy greedy_bot:GreedyBot,heuristic,random,random --out runs/bot      (module:Object: a bot of yours, here GreedyBot in greedy_bot.py)

  wizard-sim simulate --out results/runs/h4 --resume      (finish an interrupted run)

  wizard-sim simulate --games 10000000 --policy heuristic --seed 7 --out /shared/runs/h4 --engine dask --scheduler tcp://HOST:8786

Read the data with pandas.read_parquet("OUT/rounds") (README: Data contract)."""


@app.command("simulate", epilog=SIMULATE_EPILOG, cls=OneLineErrors)
def simulate_command(
    out: OutOption,
    games: Annotated[Optional[int], typer.Option(help="Games to play, >= 1.", show_default=False)] = None,
    players: PlayersOption = None,
    policy: Annotated[
        Optional[str],
        typer.Option(help=f"One policy for every seat or a comma list, one per seat: each {POLICY_FORMS}. [default: heuristic]", show_default=False),
    ] = None,
    rounds: RoundsOption = None,
    bidding: BiddingOption = None,
    even_bids: EvenBidsOption = None,
    first_dealer: FirstDealerOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    batch_games: BatchOption = None,
    chunk_games: Annotated[
        Optional[int], typer.Option("--chunk-games", help="Games per part file; results do not depend on it. [default: about 128 MB of rows]", show_default=False)
    ] = None,
    log_plays: LogPlaysOption = None,
    overwrite: OverwriteOption = False,
    resume_run: ResumeOption = False,
    quiet: QuietOption = False,
    engine: EngineOption = "local",
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
) -> None:
    """Play many games and write them to a Parquet dataset (streamed, atomic, resumable).

    The dataset is a pure function of the configuration and seed: the same for any --threads,
    --chunk-games and --engine, and a resumed run equals an uninterrupted one."""
    given = {
        "players": players, "games": games, "rounds": rounds, "policy": policy, "bidding": bidding,
        "even-bids": even_bids, "first-dealer": first_dealer, "seed": seed, "chunk-games": chunk_games,
        "log-plays": log_plays,
    }  # fmt: skip
    progress = GameProgress(enabled=not quiet)

    def run() -> SimulationResult:
        check_engine(engine, scheduler, workers)
        rules = start_options(given, overwrite, resume_run)
        if rules is None:
            resume_policies(out, "simulate", policy, "policy")
            stored, _ = load_run(SimulationConfig, out)
            stored_values = {"games": stored.games, "chunk-games": stored.chunk_games, "policy": [p.label for p in stored.policies]}
            check_resume_options(stored_options(stored) | stored_values, given)
            with open_executor(engine, scheduler, workers) as executor, progress:
                return resume(out, threads=threads, batch=batch_games, on_progress=progress.update, executor=executor)
        check_out(out, overwrite)  # before any bot module is imported
        config = SimulationConfig.build(
            rules, "heuristic" if policy is None else policy, seed=seed, games=games, chunk_games=chunk_games, log_plays=bool(log_plays)
        )
        with open_executor(engine, scheduler, workers) as executor, progress:
            return simulate(
                config, out, overwrite=overwrite, threads=threads, batch=batch_games, on_progress=progress.update, executor=executor
            )

    result = run_reporting_errors("simulate", out, run)
    if not quiet:
        print_summary(result)


def print_tournament(result: TournamentResult) -> None:
    config = result.record["config"]
    policies, pairs = result.summary
    mode = f"duplicate, {config['rules']['players']} rotations per deal" if config["duplicate"] else "random seating"
    title = (
        f"{config['deals']:,} deals ({mode}), {config['rules']['players']} players, seed {config['seed']}"
        f" — {result.games_per_second:,.0f} games/s this session"
    )
    table = Table(title=title)
    for column in ("policy", "mean score per game", "95% CI", "win rate", "bid accuracy", "mean |bid - tricks|"):
        table.add_column(column, justify="right")
    for row in policies:
        table.add_row(
            row["policy"],
            f"{row['mean_score']:.1f}",
            f"{row['mean_score_ci_low']:.1f} .. {row['mean_score_ci_high']:.1f}",
            f"{row['win_rate']:.3f}",
            f"{row['bid_accuracy']:.3f}",
            f"{row['mean_abs_error']:.3f}",
        )
    console.print(table)
    differences = Table(title="Pairwise differences of mean score per game (paired over deals)")
    for column in ("A", "B", "A - B", "95% CI", "significant"):
        differences.add_column(column, justify="right")
    for row in pairs:
        differences.add_row(
            row["policy_a"],
            row["policy_b"],
            f"{row['difference']:+.1f}",
            f"{row['ci_low']:+.1f} .. {row['ci_high']:+.1f}",
            "yes" if row["significant"] else "no",
        )
    console.print(differences)
    for row in pairs:
        console.print(f"- {row['verdict']}")
    console.print(f"Data in {result.out}/ ({', '.join(f'{name}/' for name in table_names(config['log_plays']))}, summary.parquet, summary.json, run.json)")


TOURNAMENT_EPILOG = """Examples:

  wizard-sim tournament --players 4 --policies mc,heuristic,heuristic,random --games 100000 --seed 1 --out DIR

  wizard-sim tournament --policies heuristic,heuristic:aggression=1.2,random,random --games 20000 --out runs/aggr

  wizard-sim tournament --policies heuristic,random,random --players 3 --no-duplicate --games 50000 --out runs/plain

  wizard-sim tournament --policies greedy_bot:GreedyBot,heuristic,random,random --games 2000 --out runs/bot      (module:Object: a bot of yours)

  wizard-sim tournament --out DIR --resume      (finish an interrupted tournament)

Duplicate deals (default): every deal is played once per seat rotation; in rotation k seat s is
played by the policy listed at (s + k) mod N. --games counts deals."""


@app.command("tournament", epilog=TOURNAMENT_EPILOG, cls=OneLineErrors)
def tournament_command(
    out: OutOption,
    policies: Annotated[
        Optional[str], typer.Option(help=f"One policy per seat, comma separated: each {POLICY_FORMS}.", show_default=False)
    ] = None,
    games: Annotated[
        Optional[int], typer.Option(help="Deals, >= 1; with duplicate deals each is played once per rotation.", show_default=False)
    ] = None,
    players: PlayersOption = None,
    rounds: RoundsOption = None,
    bidding: BiddingOption = None,
    even_bids: EvenBidsOption = None,
    first_dealer: FirstDealerOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    batch_games: BatchOption = None,
    chunk_games: Annotated[
        Optional[int], typer.Option("--chunk-games", help="Deals per part file; results do not depend on it.", show_default=False)
    ] = None,
    no_duplicate: Annotated[
        Optional[bool], typer.Option("--no-duplicate", help="Plain random seating instead of duplicate deals.", show_default=False)
    ] = None,
    log_plays: LogPlaysOption = None,
    overwrite: OverwriteOption = False,
    resume_run: ResumeOption = False,
    quiet: QuietOption = False,
    engine: EngineOption = "local",
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
) -> None:
    """Compare policies on duplicate deals: mean scores with 95% intervals and pairwise verdicts.

    Also win rates and bid accuracy per policy; written to summary.json and summary.parquet
    next to the simulate data contract."""
    given = {
        "players": players, "games": games, "rounds": rounds, "policies": policies, "bidding": bidding,
        "even-bids": even_bids, "first-dealer": first_dealer, "seed": seed, "chunk-games": chunk_games,
        "log-plays": log_plays, "no-duplicate": no_duplicate,
    }  # fmt: skip
    progress = GameProgress(enabled=not quiet)

    def run() -> TournamentResult:
        check_engine(engine, scheduler, workers)
        rules = start_options(given, overwrite, resume_run)
        if rules is None:
            resume_policies(out, "tournament", policies, "policies")
            stored, _ = load_run(TournamentConfig, out)
            stored_values = {
                "games": stored.deals,
                "chunk-games": stored.chunk_deals,
                "policies": [p.label for p in stored.policies],
                "no-duplicate": not stored.duplicate,
            }
            check_resume_options(stored_options(stored) | stored_values, given)
            with open_executor(engine, scheduler, workers) as executor, progress:
                return resume_tournament(
                    out, threads=threads, batch=batch_games, on_progress=progress.update, executor=executor
                )
        if policies is None:
            raise ConfigError("--policies is required: one policy per seat, e.g. heuristic,random,random,random")
        check_out(out, overwrite)  # before any bot module is imported
        config = TournamentConfig.build(
            rules,
            policies,
            seed=seed,
            deals=games,
            chunk_deals=chunk_games,
            duplicate=not no_duplicate,
            log_plays=bool(log_plays),
        )
        with open_executor(engine, scheduler, workers) as executor, progress:
            return tournament(
                config, out, overwrite=overwrite, threads=threads, batch=batch_games, on_progress=progress.update, executor=executor
            )

    result = run_reporting_errors("tournament", out, run)
    if not quiet:
        print_tournament(result)


app.command("report", cls=OneLineErrors)(report_command)
app.command("verify", cls=OneLineErrors)(verify_command)
app.command("play", cls=OneLineErrors)(play_command)
app.command("serve", cls=OneLineErrors)(serve_command)
