"""`wizard-sim report` on a big dataset: rows/s and peak memory of the streamed tables.

    python -m benchmarks.bench_report                      # 200,000 games = 12M rounds rows
    python -m benchmarks.bench_report --games 50000 --json
    python -m benchmarks.bench_report --many-parts 10000   # memory flat in the number of parts

Writes a 4-player dataset (heuristic,random,random,random; one part file per --part-games
games, pyarrow's default row groups) into a temporary directory, then measures in fresh
interpreters the time and the peak resident memory above the imports (Linux /proc VmHWM) of
report.accuracy_tables and report.score_counts (streamed) and, for comparison, of reading the
whole projected rounds table with pyarrow.parquet.read_table.

--many-parts N instead writes two simulate runs of one-game chunks (one part per game and
table, each listed in the run's journal with its checksum), of 4 and of N games, and measures
the peak resident memory (VmHWM) of the whole `wizard-sim report DIR --json` command and of
`report --plots` on each: the ratio N parts / 4 parts is the figure (target: under 1.3).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

from sim import Rules, run_games
from sim.runs.simulation import SimulationConfig, simulate
from sim.runs.tables import games_table, rounds_table

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


# The whole report command in a child process, which prints its own high-water mark (VmHWM) and
# wall time to stderr after the command's output.
REPORT_CHILD = """
import sys, time
from sim.cli import app
start = time.perf_counter()
try:
    app(sys.argv[1:])
except SystemExit as stop:
    if stop.code:
        raise
finally:
    hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM"))
    print(int(hwm.split()[1]), time.perf_counter() - start, file=sys.stderr)
"""


def write_run(root: Path, games: int) -> None:
    """A simulate run of `games` one-game chunks (one part per game and table)."""
    config = SimulationConfig.build(Rules(players=4), "heuristic,random,random,random", seed=1, games=games,
                                    chunk_games=1)
    simulate(config, str(root))


def report_peak(root: Path, *options: str) -> tuple[float, float]:
    """Peak RSS (MiB) and wall seconds of `wizard-sim report root --json *options`."""
    command = [sys.executable, "-c", REPORT_CHILD, "report", str(root), "--json", *options]
    child = subprocess.run(command, check=True, capture_output=True, text=True)
    peak, seconds = child.stderr.split()[-2:]
    return int(peak) / 1024, float(seconds)


def many_parts(parts: int, repeats: int) -> dict[str, float]:
    """Peak memory of report on a run of 4 one-game parts and on one of `parts`, alternating
    `repeats` times (each figure: the smallest peak, the median time)."""
    figures: dict[str, float] = {"parts": parts}
    with tempfile.TemporaryDirectory() as directory:
        runs = {4: Path(directory) / "few", parts: Path(directory) / "many"}
        for games, root in runs.items():
            start = time.perf_counter()
            write_run(root, games)
            figures[f"write_{games}_parts_seconds"] = round(time.perf_counter() - start, 1)
        for mode, options in {"report": (), "report_plots": ("--plots", str(Path(directory) / "plots"))}.items():
            peaks: dict[int, list[float]] = {games: [] for games in runs}
            times: dict[int, list[float]] = {games: [] for games in runs}
            for _ in range(repeats):
                for games, root in runs.items():
                    peak, seconds = report_peak(root, *options)
                    peaks[games].append(peak)
                    times[games].append(seconds)
            for games in runs:
                figures[f"{mode}_{games}_parts_peak_mib"] = round(min(peaks[games]), 1)
                figures[f"{mode}_{games}_parts_peak_range_mib"] = f"{min(peaks[games]):.1f}-{max(peaks[games]):.1f}"
                figures[f"{mode}_{games}_parts_seconds"] = round(sorted(times[games])[len(times[games]) // 2], 2)
            figures[f"{mode}_peak_ratio"] = round(min(peaks[parts]) / min(peaks[4]), 3)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200_000, help="4-player games (60 rounds rows each)")
    parser.add_argument("--part-games", type=int, default=25_000, help="games per part file")
    parser.add_argument("--batch-size", type=int, default=1 << 17)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--many-parts", type=int, metavar="N",
                        help="instead: report's peak memory on a run of N one-game parts next to one of 4")
    parser.add_argument("--repeats", type=int, default=3, help="--many-parts: alternating measurements")
    args = parser.parse_args()

    if args.many_parts is not None:
        figures = many_parts(args.many_parts, args.repeats)
        print(json.dumps(figures) if args.json else "\n".join(f"{k:>40}: {v}" for k, v in figures.items()))
        return

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
