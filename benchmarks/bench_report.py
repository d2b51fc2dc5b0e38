"""`wizard-sim report` on a big dataset: rows/s and peak memory of the streamed tables.

    python benchmarks/bench_report.py                      # 200,000 games = 12M rounds rows
    python benchmarks/bench_report.py --games 50000 --json

Writes a 4-player dataset (heuristic,random,random,random; one part file per --part-games
games, pyarrow's default row groups) into a temporary directory, then measures in fresh
interpreters the time and the peak resident memory above the imports (Linux /proc VmHWM) of
report.accuracy_tables and report.score_counts (streamed) and, for comparison, of reading the
whole projected rounds table with pyarrow.parquet.read_table.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from sim import Rules, run_games  # noqa: E402
from sim.runs.tables import games_table, rounds_table  # noqa: E402

# Run in a fresh interpreter: imports, then reset the peak-RSS mark (Linux clear_refs 5: the
# parent's pages copied by fork would otherwise count), then the work; prints the RSS after the
# imports and the peak of the work, in kB.
MEASURE = """
import time, pyarrow.parquet as pq, sim.analysis.report
def status(key):
    return int(next(line.split()[1] for line in open("/proc/self/status") if line.startswith(key)))
open("/proc/self/clear_refs", "w").write("5")
base = status("VmRSS:")
start = time.perf_counter()
{work}
print(time.perf_counter() - start, base, status("VmHWM:"))
"""
WORK = {
    "streamed_tables": "sim.analysis.report.accuracy_tables({path!r}, batch_size={batch_size})",
    "score_counts": "sim.analysis.report.score_counts({path!r}, batch_size={batch_size})",
    "whole_table_read": "pq.read_table({path!r} + '/rounds', columns=list(sim.analysis.report.ROUNDS_COLUMNS))",
}


def write_dataset(root: Path, games: int, part_games: int) -> int:
    """A simulate-like dataset of `games` games; returns its number of rounds rows."""
    (root / "rounds").mkdir(parents=True)
    (root / "games").mkdir()
    rows = 0
    for part, first in enumerate(range(0, games, part_games)):
        batch = run_games(Rules(players=4), "heuristic,random,random,random", seed=1,
                          games=min(part_games, games - first), first_game=first)
        rounds = rounds_table(batch)
        pq.write_table(rounds, root / "rounds" / f"part-{part:05d}.parquet")
        pq.write_table(games_table(batch), root / "games" / f"part-{part:05d}.parquet")
        rows += rounds.num_rows
    return rows


def measure(work: str) -> tuple[float, float, float]:
    """Seconds, RSS after the imports and peak RSS increase of the work (MiB), measured in a
    fresh interpreter."""
    output = subprocess.run([sys.executable, "-c", MEASURE.format(work=work)], check=True, capture_output=True,
                            text=True)
    seconds, base, peak = (float(value) for value in output.stdout.split())
    return seconds, base / 1024, (peak - base) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200_000, help="4-player games (60 rounds rows each)")
    parser.add_argument("--part-games", type=int, default=25_000, help="games per part file")
    parser.add_argument("--batch-size", type=int, default=1 << 17)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "run"
        rows = write_dataset(root, args.games, args.part_games)
        figures: dict[str, float] = {"rows": rows, "batch_size": args.batch_size}
        for name, work in WORK.items():
            seconds, base, increase = measure(work.format(path=str(root), batch_size=args.batch_size))
            figures[f"{name}_seconds"] = round(seconds, 2)
            figures[f"{name}_peak_increase_mib"] = round(increase, 1)
        figures["rss_after_imports_mib"] = round(base, 1)
    if args.json:
        print(json.dumps(figures))
        return
    for name, value in figures.items():
        print(f"{name:>32}: {value:,}")


if __name__ == "__main__":
    main()
