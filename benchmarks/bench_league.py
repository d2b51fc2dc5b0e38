"""League throughput next to tournaments on the same tables.

    python -m benchmarks.bench_league                        # 5 heuristic variants, 4 players, 20k deals, 3 rounds each
    python -m benchmarks.bench_league --policies heuristic,random,mc:samples=4,play_samples=4 --deals 2000 --json
    python -m benchmarks.bench_league --instructions --deals 2000   # instructions instead of time (valgrind)

The league plays --deals deals at the T tables of its design (deal d at table d mod T); the
comparison plays one tournament per table, each of --deals / T deals with that table's
policies in table order: the same tables, the same number of games, in chunks of the same
--chunk-deals (so that both pipeline computing and writing alike). Both write their default
output (rounds + games, summaries, a league's charts) into a temporary directory, kernels
warm; the two alternate in --repeats pairs after --warmup, each going first every other time
(benchmarks.harness), and the figures are ranges (the machine is shared).

--instructions counts instead of timing, the same whatever else the machine is doing: each
side runs on one thread under valgrind's callgrind, in a process of its own that first warms
the kernels and charts up as the other does; a third process does only that warm-up, and its
count is taken off both.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import alternate, parser, report
from sim import LeagueConfig, Rules, TournamentConfig, league, run_games, tournament
from sim.runs.table_engine import design_labels

HEURISTICS = "heuristic,heuristic:aggression=1.1,heuristic:aggression=0.9,heuristic:crowding=0.3,heuristic:side_timing=6"


def play_league(rules: Rules, policies: str, deals: int, chunk: int, out: str) -> float:
    """games/s of the league"""
    played = league(LeagueConfig.build(rules, policies, seed=1, deals=deals, chunk_deals=chunk), out, overwrite=True)
    return played.games_per_second


def play_tournaments(rules: Rules, tables: list[list[str]], deals: int, chunk: int, out: str) -> float:
    """games/s of one tournament per table, deals / T each (wall time of them all)"""
    games, start = 0, time.perf_counter()
    for index, table in enumerate(tables):
        config = TournamentConfig.build(rules, table, seed=1, deals=deals // len(tables), chunk_deals=chunk)
        games += tournament(config, f"{out}/{index}", overwrite=True).games_computed
    return games / (time.perf_counter() - start)


COUNT_CHILD = """
import sys, tempfile
from benchmarks.bench_league import play_league, play_tournaments, warm_up
from sim import LeagueConfig, Rules
from sim.runs.table_engine import design_labels
side, players, policies, deals, chunk = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rules = Rules(players=players)
config = LeagueConfig.build(rules, policies, seed=1, deals=deals)
tables = design_labels(config.design, config.labels)
out = tempfile.mkdtemp(prefix="bench-league-")
warm_up(rules, policies, tables, chunk, out)
if side == "league":
    play_league(rules, policies, deals, chunk, out + "/league")
elif side == "tournaments":
    play_tournaments(rules, tables, deals, chunk, out + "/tournaments")
"""


def warm_up(rules: Rules, policies: str, tables: list[list[str]], chunk: int, out: str) -> None:
    """Load (or compile) every kernel and draw a chart once: both sides, then, pay the same."""
    run_games(rules, ",".join(tables[0]), seed=0, games=4)
    play_league(rules, policies, 8 * len(tables), chunk, f"{out}/warm-league")
    play_tournaments(rules, tables[:1], 8, chunk, f"{out}/warm-tournament")


def instructions(side: str, arguments: argparse.Namespace, deals: int) -> int:
    """Instructions callgrind counts for a child process that plays `side` on one thread."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="wizard-sim-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", COUNT_CHILD, side,
                   str(arguments.players), arguments.policies, str(deals), str(arguments.chunk_deals)]  # fmt: skip
        environment = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
        subprocess.run(command, cwd=root, env=environment, check=True, capture_output=True)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no total")


def count_instructions(arguments: argparse.Namespace, deals: int, tables: int) -> None:
    base = instructions("none", arguments, deals)
    league_count = instructions("league", arguments, deals) - base
    tournaments_count = instructions("tournaments", arguments, deals) - base
    games = deals * arguments.players
    figures = {
        "policies": arguments.policies,
        "players": arguments.players,
        "tables": tables,
        "deals": deals,
        "league_instructions_per_game": round(league_count / games),
        "tournaments_instructions_per_game": round(tournaments_count / games),
        "ratio": round(tournaments_count / league_count, 4),  # as games/s: above 1, the league is faster
    }
    if arguments.json:
        print(json.dumps(figures))
        return
    print(f"{tables} tables of {arguments.players}, {deals:,} deals ({games:,} games) each side, one thread, callgrind:")
    print(f"  league {figures['league_instructions_per_game']:,} instructions per game, tournaments"
          f" {figures['tournaments_instructions_per_game']:,}: the league at {figures['ratio']:.1%} of their speed")  # fmt: skip


def main() -> None:
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--deals", type=int, default=20_000)
    arguments.add_argument("--players", type=int, default=4)
    arguments.add_argument("--policies", default=HEURISTICS)
    arguments.add_argument("--chunk-deals", type=int, default=2_000, help="deals per chunk on both sides")
    arguments.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of timing")
    options = arguments.parse_args()
    rules = Rules(players=options.players)
    config = LeagueConfig.build(rules, options.policies, seed=1, deals=options.deals)
    tables = design_labels(config.design, config.labels)
    deals = options.deals - options.deals % len(tables)  # the same games on both sides
    if options.instructions:
        count_instructions(options, deals, len(tables))
        return
    out = tempfile.mkdtemp(prefix="bench-league-")
    try:
        chunk = options.chunk_deals
        leagues, tournaments, ratio = alternate(
            lambda: play_league(rules, options.policies, deals, chunk, f"{out}/league"),
            lambda: play_tournaments(rules, tables, deals, chunk, f"{out}/tournaments"),
            options.repeats, options.warmup,
        )  # fmt: skip
    finally:
        shutil.rmtree(out)
    figures = {"policies": options.policies, "players": options.players, "tables": len(tables), "deals": deals,
               "chunk_deals": options.chunk_deals, "league_games_per_s": leagues, "tournaments_games_per_s": tournaments,
               "ratio": ratio}  # fmt: skip
    report(figures, [
        f"{len(tables)} tables of {options.players}, {deals:,} deals ({deals * options.players:,} games) each side:",
        f"  league {leagues.text()} games/s, tournaments {tournaments.text()} games/s",
        f"  ratio {ratio.text('.1%')}",
    ], options.json)  # fmt: skip


if __name__ == "__main__":
    main()
