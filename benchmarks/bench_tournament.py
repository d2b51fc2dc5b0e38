"""Tournament throughput next to simulate's on the same tables.

    python benchmarks/bench_tournament.py                       # 50k deals = 200k games, heuristic tables
    python benchmarks/bench_tournament.py --policies mc,heuristic,heuristic,random --deals 500 --json

Both write their default output (rounds + games) into a temporary directory, kernels warm.
"""
from __future__ import annotations

import argparse
import json
import shutil
import tempfile

from sim.runs.games import run_games
from sim.config.rules import Rules
from sim.runs.simulation import SimulationConfig, simulate
from sim.runs.tournament import TournamentConfig, tournament

HEURISTIC_TABLE = "heuristic,heuristic:aggression=1.1,heuristic:aggression=0.9,heuristic:crowding=0.3"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50_000)
    parser.add_argument("--policies", default=HEURISTIC_TABLE)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    rules = Rules(players=4)
    run_games(rules, arguments.policies, seed=0, games=4)  # load or compile the kernels
    out = tempfile.mkdtemp(prefix="bench-tournament-")
    try:
        config = TournamentConfig.build(rules, arguments.policies, seed=1, deals=arguments.deals)
        played = tournament(config, f"{out}/t", overwrite=True)
        games = arguments.deals * config.rotations  # as many games as the tournament plays
        plain = simulate(SimulationConfig.build(rules, arguments.policies, seed=1, games=games), f"{out}/s", overwrite=True)
    finally:
        shutil.rmtree(out)
    figures = {
        "policies": arguments.policies,
        "deals": arguments.deals,
        "tournament_games_per_s": round(played.games_per_second),
        "simulate_games_per_s": round(plain.games_per_second),
        "ratio": round(played.games_per_second / plain.games_per_second, 3),
    }
    if arguments.json:
        print(json.dumps(figures))
    else:
        print(f"{arguments.policies}: tournament {figures['tournament_games_per_s']:,} games/s, simulate "
              f"{figures['simulate_games_per_s']:,} games/s ({figures['ratio']:.0%})")  # fmt: skip


if __name__ == "__main__":
    main()
