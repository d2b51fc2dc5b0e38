"""The `wizard-sim` command line (Typer)."""
from __future__ import annotations

import contextlib
import dataclasses
import inspect
import sys
import time
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Optional, TypeVar, get_type_hints

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from sim.cli.compare import compare_command
from sim.cli.estimate import estimate_command
from sim.cli.options import rules_from_options
from sim.cli.play import play_command
from sim.cli.progress import GameProgress
from sim.cli.report import report_command
from sim.cli.serve import serve_command
from sim.cli.train import train_command
from sim.cli.verify import verify_command
from sim.cli.terminal import POLICY_FORMS, CommandLine, OneLineErrors, console, fail, on_interrupt
from sim.config.cards import SUIT_NAMES, format_card, format_hand
from sim.config.errors import BotError, ConfigError, cut, echo
from sim.config.limits import MAX_GAMES, MAX_WORKERS, check_count
from sim.config.rules import Rules
from sim.config.seeds import check_seed
from sim.config.version import __version__
from sim.runs.executors import Executor, LocalExecutor, check_named_bots, check_out, load_record, load_run, resume
from sim.runs.executors import run as run_config
from sim.runs.games import run_games
from sim.runs.league import LeagueConfig, LeagueResult
from sim.runs.bot_games import DEFAULT_BATCH, MAX_BATCH, check_batch
from sim.runs.simulation import SimulationConfig, SimulationResult
from sim.stats.sprt import LOOK_DEALS, Sprt, sprt_line
from sim.runs.table_engine import TableConfig
from sim.runs.tables import table_names
from sim.runs.tournament import TournamentConfig, TournamentResult
from sim.storage import RUN_FILE, RunError, local_path

app = CommandLine(
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
        fail(error)
    except BotError as error:
        fail(error, code=1)
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


def check_engine(
    engine: str, scheduler: Optional[str], workers: Optional[int], threads: Optional[int], batch: Optional[int]
) -> None:
    """The options of how a run is computed (--engine, --scheduler, --workers, --threads,
    --batch-games), checked before anything else is done and before any bot module is imported:
    a --scheduler must answer as a Dask scheduler now."""
    if engine not in ("local", "dask"):
        raise ConfigError(f"--engine must be local or dask, got {echo(engine)}")
    if engine == "local" and (scheduler is not None or workers is not None):
        raise ConfigError("--scheduler and --workers need --engine dask")
    if workers is not None:
        check_count(workers, "workers", 1, MAX_WORKERS)
    check_batch(batch)
    if engine == "local":
        LocalExecutor().check_threads(threads)
        return
    from sim.runs.cluster import check_cluster_choice, check_task_threads, import_distributed, probe_scheduler

    check_cluster_choice(scheduler, workers)
    check_task_threads(threads)
    import_distributed()  # imports Dask
    if scheduler is not None:
        probe_scheduler(scheduler)


def open_executor(engine: str, scheduler: Optional[str], workers: Optional[int]) -> contextlib.AbstractContextManager[Executor]:
    """The executor named by --engine; a Dask one is connected for the duration of the run."""
    if engine == "local":
        if scheduler is not None or workers is not None:
            raise ConfigError("--scheduler and --workers need --engine dask")
        return contextlib.nullcontext(LocalExecutor())
    if engine == "dask":
        from sim.runs.cluster import connect  # imports Dask, an optional extra

        return connect(scheduler, workers)
    raise ConfigError(f"--engine must be local or dask, got {echo(engine)}")


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



def with_default(text: str, default: str) -> str:
    """Help text that says what an option's None default means, "[default: ...]" escaped
    (rich would read it as markup and drop it; typer's own show_default text adds brackets)."""
    return f"{text} {escape(f'[default: {default}]')}"


# Options shared by simulate, tournament and league. Defaults are None so that --resume can
# tell an option given on the command line (which must agree with run.json) from one left out;
# their help says what None means.
OutOption = Annotated[str, typer.Option(help="Output directory or file:// URL (refused if not empty, see --overwrite/--resume).")]
PlayersOption = Annotated[Optional[int], typer.Option(help=with_default("Players, 3..6.", "4"), show_default=False)]
RoundsOption = Annotated[Optional[str], typer.Option(help=with_default("Round sizes to play, e.g. 7, 1-5 or 1,3,5.", "all, a full game"), show_default=False)]
BiddingOption = Annotated[Optional[str], typer.Option(help=with_default("open | hidden | delayed.", "open"), show_default=False)]
EvenBidsOption = Annotated[Optional[str], typer.Option("--even-bids", help=with_default("allowed | forbidden | leader.", "allowed"), show_default=False)]
FirstDealerOption = Annotated[Optional[str], typer.Option("--first-dealer", help=with_default("draw | SEAT.", "draw"), show_default=False)]
SeedOption = Annotated[Optional[int], typer.Option(help=with_default("Run seed, 0..2^63-1.", "drawn at random and recorded"), show_default=False)]
ThreadsOption = Annotated[
    Optional[int],
    typer.Option(
        help=with_default("Kernel threads per chunk; results do not depend on it.", "all cores; on Dask, a worker's cores / its task threads"), show_default=False,
    ),
]
BatchOption = Annotated[
    Optional[int],
    typer.Option(
        "--batch-games",
        help=with_default(f"Games in play at once when Python policies play: each bot is asked for up to this many decisions per call, 1..{MAX_BATCH:,}; results do not depend on it.", f"{DEFAULT_BATCH:,}"), show_default=False,
    ),
]
LogPlaysOption = Annotated[Optional[bool], typer.Option("--log-plays", help="Also write every card played (plays/).", show_default=False)]
OverwriteOption = Annotated[bool, typer.Option("--overwrite", help="Replace the run already in --out.")]
ResumeOption = Annotated[bool, typer.Option("--resume", help="Finish the interrupted run in --out with its recorded configuration.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar and no summary (errors still go to stderr).")]
DealsOption = Annotated[
    Optional[int],
    typer.Option("--games", help="Deals, >= 1, each played once per seat rotation (the cap with --sprt).", show_default=False),
]
DealChunkOption = Annotated[
    Optional[int],
    typer.Option(
        "--chunk-games",
        help=with_default("Deals per part file; results do not depend on it (with --sprt: deals between two looks of the test).", f"about 128 MB of rows; {LOOK_DEALS} with --sprt"), show_default=False,
    ),
]
SprtOption = Annotated[
    Optional[str],
    typer.Option(
        help="LOW,HIGH: stop as soon as a sequential test decides between H0 (the first policy beats the second by at"
        " most LOW points per game) and H1 (by at least HIGH); --games is the cap.",
        show_default=False,
    ),
]
AlphaOption = Annotated[Optional[float], typer.Option(help=with_default("--sprt: the chance of accepting H1 when H0 holds.", "0.05"), show_default=False)]
BetaOption = Annotated[Optional[float], typer.Option(help=with_default("--sprt: the chance of accepting H0 when H1 holds.", "0.05"), show_default=False)]


def run_reporting_errors(command: str, out: str, action: Callable[[], T]) -> T:
    """Run a run command's action: bad input is one line and exit 2, a failed write or a
    failed external bot exit 1, Ctrl-C exit 130; a failed write and Ctrl-C say how to resume."""
    started = time.time()

    def interrupted() -> str:
        """How to continue: --resume once this command has written the run's record."""
        with contextlib.suppress(OSError, ConfigError):
            if (local_path(out) / RUN_FILE).stat().st_mtime >= started - 1:
                return f"wizard-sim: interrupted; finish with: wizard-sim {command} --out {out} --resume"
        return "wizard-sim: interrupted"

    on_interrupt(interrupted)
    try:
        return action()
    except ConfigError as error:
        fail(error)
    except BotError as error:
        option = "--policy" if command == "simulate" else "--policies"
        kept = error.chunks_saved
        saved = (
            f"; the run keeps its {kept:,} written chunk{'s' * (kept != 1)}: once the bot is fixed, continue with"
            f" wizard-sim {command} --out {out} --resume (naming its {option} again)"
        )
        fail(f"{error}{saved if kept else ''}", code=1)
    except RunError as error:
        fail(error, code=1)
    except KeyboardInterrupt:
        print(interrupted(), file=sys.stderr)
        raise typer.Exit(code=130)


@dataclass(frozen=True)
class RunGiven:
    """The options of simulate, tournament and league that make a run's configuration, as
    given on the command line (None: not given). `policies` is --policy (simulate) or
    --policies. A new run's configuration is built from them with the defaults; on --resume
    each one given must leave the recorded configuration as it is (resumed_config)."""

    players: Optional[int] = None
    rounds: Optional[str] = None
    bidding: Optional[str] = None
    even_bids: Optional[str] = None
    first_dealer: Optional[str] = None
    policies: Optional[str] = None
    seed: Optional[int] = None
    games: Optional[int] = None
    chunk_games: Optional[int] = None
    log_plays: Optional[bool] = None
    no_duplicate: Optional[bool] = None
    mirror: Optional[bool] = None
    sprt: Optional[str] = None
    alpha: Optional[float] = None
    beta: Optional[float] = None

    @classmethod
    def of(cls, data: dict, kind: type) -> "RunGiven":
        """The options that build the configuration `data` again (a configuration's to_dict
        form, as run.json records it, of a `kind` run; its recorded values as option texts)."""
        rules, (units, chunk), sprt = data["rules"], (data[field] for field in kind.size_fields), data.get("sprt")
        return cls(
            rules["players"], ",".join(map(str, rules["rounds"])), rules["bidding"], rules["even_bids"],
            str(rules["first_dealer"]), ",".join(data["policies"]), data["seed"], units, chunk, data["log_plays"],
            not data.get("duplicate", True), bool(data.get("mirrored")),
            None if sprt is None else f"{sprt['low']!r},{sprt['high']!r}", None if sprt is None else sprt["alpha"],
            None if sprt is None else sprt["beta"],
        )  # fmt: skip

    def given(self) -> list[str]:
        """The fields given on the command line."""
        return [field.name for field in dataclasses.fields(self) if getattr(self, field.name) is not None]

    def rules(self) -> Rules:
        return rules_from_options(
            4 if self.players is None else self.players, self.rounds, self.bidding or "open", self.even_bids or "allowed",
            self.first_dealer or "draw",
        )  # fmt: skip

    def sprt_test(self) -> Sprt | None:
        return None if self.sprt is None else Sprt.parse(self.sprt, self.alpha, self.beta)


def simulation_config(given: RunGiven, imports: bool = True) -> SimulationConfig | None:
    return SimulationConfig.build(
        given.rules(), "heuristic" if given.policies is None else given.policies, seed=given.seed, games=given.games,
        chunk_games=given.chunk_games, log_plays=bool(given.log_plays), imports=imports,
    )  # fmt: skip


def table_config(kind: type[TableConfig]) -> Callable[..., TableConfig | None]:
    """The configuration builder of a tournament or a league (which has no --no-duplicate)."""

    def build(given: RunGiven, imports: bool = True) -> TableConfig | None:
        return kind.build(
            given.rules(), given.policies, seed=given.seed, deals=given.games, chunk_deals=given.chunk_games,
            duplicate=not given.no_duplicate, log_plays=bool(given.log_plays), sprt=given.sprt_test(),
            mirrored=given.mirror, imports=imports,
        )  # fmt: skip

    return build


@dataclass(frozen=True)
class RunCommand:
    """What sets simulate, tournament and league apart on the command line; run_command is
    the one path they share (options checked, a new run started or an interrupted one resumed
    on the chosen engine, errors as one line, the summary printed)."""

    name: str
    kind: type  # its configuration class (SimulationConfig, ...)
    policy_option: str  # the option that names its policies: policy or policies
    # Its configuration from the options (simulation_config, ...); imports=False: only the
    # checks that need no import of a policy module, and None.
    build: Callable[..., Any]
    report: Callable[[Any], None]
    policies_example: str | None = None  # its policy option is required: what to say when it is missing


def option_name(field: str, command: RunCommand) -> str:
    return command.policy_option if field == "policies" else field.replace("_", "-")


def resumed_config(command: RunCommand, recorded_config: dict, given: RunGiven, stored: Any = None) -> None:
    """On --resume every option comes from run.json: each option given is applied to the
    recorded ones (`recorded_config`: run.json's configuration), and the configuration it
    builds must be the recorded one, `stored` (an option that changes it, or cannot apply to
    it, is an error naming it). Without `stored` (before the run's policy modules are
    imported), only the checks that need no import are made."""
    recorded = RunGiven.of(recorded_config, command.kind)
    for field in given.given():
        value = getattr(given, field)
        try:
            built = command.build(dataclasses.replace(recorded, **{field: value}), imports=stored is not None)
            same = stored is None or built.to_dict() == stored.to_dict()
        except ConfigError:
            same = False
        if not same:
            flag = f"--{option_name(field, command)}"
            if isinstance(value, bool):  # a flag: named, never True or False
                given_text = flag if value else flag.replace("--", "--no-", 1)
                shown = f"recorded with{'' if getattr(recorded, field) else 'out'} {flag}"
            else:
                given_text, shown = f"{flag} {cut(str(value))}", cut(str(getattr(recorded, field)))
            raise ConfigError(f"{given_text} differs from the run being resumed ({shown})")


@dataclass(frozen=True)
class HowToRun:
    """The options of a run that never change its data."""

    out: str
    threads: Optional[int]
    batch_games: Optional[int]
    overwrite: bool
    resume_run: bool
    quiet: bool
    engine: str
    scheduler: Optional[str]
    workers: Optional[int]


def check_how(given: RunGiven, how: HowToRun) -> None:
    """The checks of the options before a run is started or resumed."""
    if how.overwrite and how.resume_run:
        raise ConfigError("--overwrite and --resume exclude each other")
    if given.sprt is None and (given.alpha is not None or given.beta is not None):
        raise ConfigError("--alpha and --beta need --sprt")
    if not how.resume_run and given.games is None:
        raise ConfigError("--games is required (or --resume to finish a run)")


def run_command(command: RunCommand, given: RunGiven, how: HowToRun) -> None:
    """Start (or with --resume finish) the run of `command` with the options `given`: a new
    run's configuration is built from them; a resumed run's is the one recorded, which every
    option given must agree with (resumed_config). Both go through the one start and resume
    of sim.runs.executors."""
    progress = GameProgress(enabled=not how.quiet)
    out = how.out
    running = {"threads": how.threads, "batch": how.batch_games, "on_progress": progress.update}

    def run() -> Any:
        check_engine(how.engine, how.scheduler, how.workers, how.threads, how.batch_games)
        check_how(given, how)
        if how.resume_run:
            # A run with external bots is resumed only when they are named again (run.json alone
            # never makes wizard-sim import code); then the recorded configuration is checked.
            record = load_record(command.kind.command, out)
            check_named_bots(record, given.policies, "cannot resume", f"--{command.policy_option}")
            with contextlib.suppress(KeyError, TypeError, AttributeError):  # a malformed run.json: load_run says so
                resumed_config(command, record["config"], given)  # before the run's modules are imported
            stored, _ = load_run(command.kind, out, given.policies)
            resumed_config(command, stored.to_dict(), given, stored)
            with open_executor(how.engine, how.scheduler, how.workers) as executor, progress:
                return resume(command.kind, out, executor=executor, policies=given.policies, **running)
        if given.policies is None and command.policies_example is not None:
            raise ConfigError(f"--{command.policy_option} is required: {command.policies_example}")
        check_out(out, how.overwrite)  # before any bot module is imported
        config = command.build(given)
        with open_executor(how.engine, how.scheduler, how.workers) as executor, progress:
            return run_config(config, out, overwrite=how.overwrite, executor=executor, **running)

    result = run_reporting_errors(command.name, out, run)
    if not how.quiet:
        command.report(result)


SIMULATE_EPILOG = """Examples:

  wizard-sim simulate --players 4 --games 1000000 --policy heuristic --seed 7 --out results/runs/h4

  wizard-sim simulate --games 100000 --policy heuristic,random,random,random --rounds 1-5 --out runs/mixed

  wizard-sim simulate --games 50000 --policy heuristic:aggression=1.1 --bidding hidden --log-plays --out runs/hidden

  wizard-sim simulate --games 10000 --policy greedy_bot:GreedyBot,heuristic,random,random --out runs/bot      (module:Object: a bot of yours, here GreedyBot in greedy_bot.py)

  wizard-sim simulate --out results/runs/h4 --resume      (finish an interrupted run)

  wizard-sim simulate --games 10000000 --policy heuristic --seed 7 --out /shared/runs/h4 --engine dask --scheduler tcp://HOST:8786

Read the data with pandas.read_parquet("OUT/rounds") (docs/data.md)."""

SIMULATE = RunCommand("simulate", SimulationConfig, "policy", simulation_config, print_summary)


@app.command("simulate", epilog=SIMULATE_EPILOG, cls=OneLineErrors)
def simulate_command(
    out: OutOption,
    games: Annotated[Optional[int], typer.Option(help="Games to play, >= 1.", show_default=False)] = None,
    players: PlayersOption = None,
    policy: Annotated[
        Optional[str],
        typer.Option(help=with_default(f"One policy for every seat or a comma list, one per seat: each {POLICY_FORMS}.", "heuristic"), show_default=False),
    ] = None,
    rounds: RoundsOption = None,
    bidding: BiddingOption = None,
    even_bids: EvenBidsOption = None,
    first_dealer: FirstDealerOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    batch_games: BatchOption = None,
    chunk_games: Annotated[
        Optional[int], typer.Option("--chunk-games", help=with_default("Games per part file; results do not depend on it.", "about 128 MB of rows"), show_default=False)
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
    given = RunGiven(players, rounds, bidding, even_bids, first_dealer, policy, seed, games, chunk_games, log_plays)
    run_command(SIMULATE, given, HowToRun(out, threads, batch_games, overwrite, resume_run, quiet, engine, scheduler, workers))


def print_sprt(record: dict) -> None:
    if record.get("sprt") is not None:
        console.print(sprt_line(record["sprt"]), markup=False, highlight=False)


def print_tournament(result: TournamentResult) -> None:
    config = result.record["config"]
    policies, pairs = result.summary
    deals = policies[0]["deals"]
    players = config["rules"]["players"]
    if not config["duplicate"]:
        mode = "random seating"
    elif config.get("mirrored"):
        mode = f"duplicate, {players} rotations and their {players} mirror images per deal"
    else:
        mode = f"duplicate, {players} rotations per deal"
    title = (
        f"{deals:,} deals ({mode}), {config['rules']['players']} players, seed {config['seed']}"
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
    print_sprt(result.record)
    console.print(f"Data in {result.out}/ ({', '.join(f'{name}/' for name in table_names(config['log_plays']))}, summary.parquet, summary.json, run.json)")


MirrorOption = Annotated[
    Optional[bool],
    typer.Option("--mirror/--no-mirror", help="Also play each rotation's mirror image (2N games per deal), so that every "
                 "policy has each other one as often on its left as on its right. Default: wherever a table's mirror "
                 "images seat the policies differently from its rotations (not at A,H,H,H or A,H,B,H).", show_default=False),
]  # fmt: skip


TOURNAMENT_EPILOG = """Examples:

  wizard-sim tournament --players 4 --policies mc,heuristic,heuristic,random --games 100000 --seed 1 --out DIR

  wizard-sim tournament --policies heuristic,heuristic:aggression=1.2,random,random --games 20000 --out runs/aggr

  wizard-sim tournament --policies heuristic,random,random --players 3 --no-duplicate --games 50000 --out runs/plain

  wizard-sim tournament --policies heuristic:aggression=1.1,heuristic,heuristic,heuristic --games 100000 --sprt 0,5 --out runs/sprt      (stop once aggression=1.1 is known to be 5 points per game better, or at most 0)

  wizard-sim tournament --policies greedy_bot:GreedyBot,heuristic,random,random --games 2000 --out runs/bot      (module:Object: a bot of yours)

  wizard-sim tournament --out DIR --resume      (finish an interrupted tournament)

Duplicate deals (default): every deal is played once per seat rotation; in rotation k seat s is
played by the policy listed at (s + k) mod N. --games counts deals. The rotations keep each
seat's neighbours, so each rotation's mirror image is played too (2N games per deal: each
policy then has every other one as often on its left as on its right), unless the mirror
images seat the policies as the rotations do (A,H,H,H; A,H,B,H) or --no-mirror is given
(docs/tournament.md)."""

TOURNAMENT = RunCommand("tournament", TournamentConfig, "policies", table_config(TournamentConfig), print_tournament,
                        "one policy per seat, e.g. heuristic,random,random,random")  # fmt: skip


NoDuplicateOption = Annotated[
    Optional[bool], typer.Option("--no-duplicate", help="Plain random seating instead of duplicate deals.", show_default=False)
]


def table_command(command: RunCommand, policies_help: str, summary: str, epilog: str) -> None:
    """Add the command of a table run (tournament, league): one set of options, of which only
    a tournament, whose table may be a random seating, has --no-duplicate."""

    def table_run(
        out: OutOption,
        policies: Optional[str] = None,  # its help is the command's (below)
        games: DealsOption = None,
        players: PlayersOption = None,
        rounds: RoundsOption = None,
        bidding: BiddingOption = None,
        even_bids: EvenBidsOption = None,
        first_dealer: FirstDealerOption = None,
        seed: SeedOption = None,
        threads: ThreadsOption = None,
        batch_games: BatchOption = None,
        chunk_games: DealChunkOption = None,
        no_duplicate: NoDuplicateOption = None,
        mirror: MirrorOption = None,
        log_plays: LogPlaysOption = None,
        sprt: SprtOption = None,
        alpha: AlphaOption = None,
        beta: BetaOption = None,
        overwrite: OverwriteOption = False,
        resume_run: ResumeOption = False,
        quiet: QuietOption = False,
        engine: EngineOption = "local",
        scheduler: SchedulerOption = None,
        workers: WorkersOption = None,
    ) -> None:
        given = RunGiven(players, rounds, bidding, even_bids, first_dealer, policies, seed, games, chunk_games, log_plays,
                         no_duplicate, mirror, sprt, alpha, beta)  # fmt: skip
        run_command(command, given, HowToRun(out, threads, batch_games, overwrite, resume_run, quiet, engine, scheduler, workers))

    # Typer reads the options from the signature: this command's policies help, and no
    # --no-duplicate for a league.
    hints = get_type_hints(table_run, include_extras=True)
    hints["policies"] = Annotated[Optional[str], typer.Option(help=policies_help, show_default=False)]
    kept = [
        parameter.replace(annotation=hints[parameter.name])
        for parameter in inspect.signature(table_run).parameters.values()
        if parameter.name != "no_duplicate" or "duplicate" in {field.name for field in dataclasses.fields(command.kind)}
    ]
    table_run.__signature__ = inspect.Signature(kept, return_annotation=None)  # type: ignore[attr-defined]
    table_run.__annotations__ = {parameter.name: parameter.annotation for parameter in kept}
    table_run.__doc__ = summary
    app.command(command.name, epilog=epilog, cls=OneLineErrors)(table_run)


table_command(
    TOURNAMENT,
    f"One policy per seat, comma separated: each {POLICY_FORMS}.",
    """Compare policies on duplicate deals: mean scores with 95% intervals and pairwise verdicts.

    Also win rates and bid accuracy per policy; written to summary.json and summary.parquet
    next to the simulate data contract. With --sprt the run stops as soon as the first two
    policies listed are told apart (docs/tournament.md).""",
    TOURNAMENT_EPILOG,
)


def print_league(result: LeagueResult) -> None:
    config = result.record["config"]
    ratings, pairs = result.summary
    players = config["rules"]["players"]
    deals = sum(chunk["deals"] for chunk in result.record["chunks"]["complete"].values())
    title = (
        f"League of {len(ratings)} policies: {deals:,} deals x {players} rotations"
        f"{f' and their {players} mirror images' if config.get('mirrored') else ''} at {len(config['design'])} tables"
        f" of {players}, seed {config['seed']} — {result.games_per_second:,.0f} games/s this session"
    )
    table = Table(title=title)
    for column in ("rank", "policy", "rating", "95% CI", "games", "mean score", "win rate", "bid accuracy"):
        table.add_column(column, justify="right")
    for rank, row in enumerate(ratings, 1):
        table.add_row(
            str(rank),
            row["policy"],
            f"{row['rating']:+.1f}",
            f"{row['ci_low']:+.1f} .. {row['ci_high']:+.1f}",
            f"{row['games']:,}",
            f"{row['mean_score']:.1f}",
            f"{row['win_rate']:.3f}",
            f"{row['bid_accuracy']:.3f}",
        )
    console.print(table)
    console.print("Ratings: points per game relative to the pool's mean, at the same table on the same cards (docs/league.md).")
    differences = Table(title="Pairwise: rating differences, and head to head at the deals met")
    for column in ("A", "B", "A - B", "95% CI", "deals met", "head to head"):
        differences.add_column(column, justify="right")
    for row in pairs:
        head = "" if not row["deals_met"] else f"{row['head_to_head']:+.1f}"
        differences.add_row(row["policy_a"], row["policy_b"], f"{row['difference']:+.1f}",
                            f"{row['ci_low']:+.1f} .. {row['ci_high']:+.1f}", f"{row['deals_met']:,}", head)  # fmt: skip
    console.print(differences)
    print_sprt(result.record)
    files = ", ".join(f"{name}/" for name in table_names(config["log_plays"]))
    console.print(f"Data in {result.out}/ ({files}, ratings.parquet, pairs.parquet, ratings.png, head_to_head.png, summary.json, run.json)")


LEAGUE_EPILOG = """Examples:

  wizard-sim league --players 4 --policies heuristic,heuristic:aggression=1.2,heuristic:crowding=0.3,mc,random --games 20000 --seed 1 --out runs/league

  wizard-sim league --policies mc:play_samples=20,mc,heuristic,random,--games 100000 --sprt 0,5 --out runs/mc20      (stop once the first is known to be 5 points per game better than the second, or at most 0)

  wizard-sim league --policies rule_bot:RuleBot,greedy_bot:GreedyBot,heuristic,random --players 3 --games 5000 --out runs/bots      (your Python and numba bots)

  wizard-sim league --out runs/league --resume      (finish an interrupted league)

Every deal is played at one table of a balanced design (each policy in each seat equally often,
every pair meeting nearly equally often), once per seat rotation and once per rotation's
mirror image (2N games: each policy has every other one as often on its left as on its right;
--no-mirror for the rotations only). --games counts deals."""

LEAGUE = RunCommand("league", LeagueConfig, "policies", table_config(LeagueConfig), print_league,
                    "two or more policies, e.g. heuristic,heuristic:aggression=1.2,mc,random")  # fmt: skip


table_command(
    LEAGUE,
    f"Two or more policies, comma separated, each once: each {POLICY_FORMS}.",
    """Rate any number of policies on duplicate deals: ratings with 95% intervals, pairwise differences, head to head.

    Written to ratings.parquet, pairs.parquet, ratings.png, head_to_head.png and summary.json
    next to the tournament's data contract (plus a table_id column). With --sprt the run stops
    as soon as the first two policies listed are told apart (docs/league.md).""",
    LEAGUE_EPILOG,
)


app.command("report", cls=OneLineErrors)(report_command)
app.command("verify", cls=OneLineErrors)(verify_command)
app.command("compare", cls=OneLineErrors)(compare_command)
app.command("play", cls=OneLineErrors)(play_command)
app.command("serve", cls=OneLineErrors)(serve_command)
app.command("train", cls=OneLineErrors)(train_command)
