"""Tournament throughput next to simulate's on the same tables.

    python -m benchmarks.bench_tournament                       # 50k deals = 200k games, heuristic tables
    python -m benchmarks.bench_tournament --policies mc,heuristic,heuristic,random --deals 500 --json

Both write their default output (rounds + games) into a temporary directory, after a warm-up
of each; they alternate --repeats times (benchmarks.harness), each going first every other
time, and the figures are ranges.
"""
from __future__ import annotations

import shutil
import tempfile

from benchmarks.harness import alternate, parser, report
from sim import Rules, SimulationConfig, TournamentConfig, simulate, tournament

HEURISTIC_TABLE = "heuristic,heuristic:aggression=1.1,heuristic:aggression=0.9,heuristic:crowding=0.3"


def main() -> None:
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--deals", type=int, default=50_000)
    arguments.add_argument("--policies", default=HEURISTIC_TABLE)
    options = arguments.parse_args()
    rules = Rules(players=4)
    out = tempfile.mkdtemp(prefix="bench-tournament-")
    try:
        config = TournamentConfig.build(rules, options.policies, seed=1, deals=options.deals)
        games = options.deals * config.rotations  # as many games as the tournament plays
        plain = SimulationConfig.build(rules, options.policies, seed=1, games=games)
        played, simulated, ratio = alternate(
            lambda: tournament(config, f"{out}/t", overwrite=True).games_per_second,
            lambda: simulate(plain, f"{out}/s", overwrite=True).games_per_second,
            options.repeats, options.warmup,
        )  # fmt: skip
    finally:
        shutil.rmtree(out)
    figures = {"policies": options.policies, "deals": options.deals, "tournament_games_per_s": played,
               "simulate_games_per_s": simulated, "ratio": ratio}  # fmt: skip
    report(figures, [f"{options.policies}: tournament {played.text()} games/s, simulate {simulated.text()} games/s,"
                     f" ratio {ratio.text('.0%')}"], options.json)  # fmt: skip


if __name__ == "__main__":
    main()
