"""League throughput next to tournaments on the same tables.

    python benchmarks/bench_league.py                        # 5 heuristic variants, 4 players, 20k deals, 3 rounds each
    python benchmarks/bench_league.py --policies heuristic,random,mc:samples=4,play_samples=4 --deals 2000 --json

The league plays --deals deals at the T tables of its design (deal d at table d mod T); the
comparison plays one tournament per table, each of --deals / T deals with that table's
policies in table order: the same tables, the same number of games, in chunks of the same
--chunk-deals (so that both pipeline computing and writing alike). Both write their default
output (rounds + games, summaries, a league's charts) into a temporary directory, kernels
warm; the two alternate --repeats times, each going first every other time, and every figure
is reported (the machine is shared).
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time

from sim.config.rules import Rules
from sim.runs.games import run_games
from sim.runs.league import LeagueConfig, design_labels, league
from sim.runs.tournament import TournamentConfig, tournament

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--policies", default=HEURISTICS)
    parser.add_argument("--chunk-deals", type=int, default=2_000, help="deals per chunk on both sides")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    rules = Rules(players=arguments.players)
    config = LeagueConfig.build(rules, arguments.policies, seed=1, deals=arguments.deals)
    tables = design_labels(config.design, config.labels)
    deals = arguments.deals - arguments.deals % len(tables)  # the same games on both sides
    run_games(rules, ",".join(tables[0]), seed=0, games=4)  # load or compile the kernels
    out = tempfile.mkdtemp(prefix="bench-league-")
    leagues, tournaments = [], []
    try:
        chunk = arguments.chunk_deals
        play_league(rules, arguments.policies, 8 * len(tables), chunk, f"{out}/warm")  # the seated kernel too
        for repeat in range(arguments.repeats):  # which side goes first alternates
            sides = [lambda: leagues.append(play_league(rules, arguments.policies, deals, chunk, f"{out}/league")),
                     lambda: tournaments.append(play_tournaments(rules, tables, deals, chunk, f"{out}/tournaments"))]  # fmt: skip
            for side in sides if repeat % 2 == 0 else sides[::-1]:
                side()
    finally:
        shutil.rmtree(out)
    ratios = [mine / theirs for mine, theirs in zip(leagues, tournaments)]
    figures = {
        "policies": arguments.policies,
        "players": arguments.players,
        "tables": len(tables),
        "deals": deals,
        "chunk_deals": arguments.chunk_deals,
        "league_games_per_s": [round(value) for value in leagues],
        "tournaments_games_per_s": [round(value) for value in tournaments],
        "ratio": [round(value, 3) for value in ratios],
    }
    if arguments.json:
        print(json.dumps(figures))
        return
    print(f"{len(tables)} tables of {arguments.players}, {deals:,} deals ({deals * arguments.players:,} games) each side:")
    for league_rate, tournament_rate, ratio in zip(leagues, tournaments, ratios):
        print(f"  league {league_rate:,.0f} games/s, tournaments {tournament_rate:,.0f} games/s ({ratio:.1%})")
    print(f"  ratio {min(ratios):.1%} .. {max(ratios):.1%}, median {sorted(ratios)[len(ratios) // 2]:.1%}")


if __name__ == "__main__":
    main()
