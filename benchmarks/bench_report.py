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

Every figure is a range over --repeats fresh interpreters after --warmup (benchmarks.harness);
--many-parts alternates the two runs in pairs, the ratio taken pair by pair.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from benchmarks.harness import Range, Rate, alternate, measure, parser, report, seconds
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


def measure_fresh(work: str) -> tuple[float, float, float]:
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


def many_parts(parts: int, repeats: int, warmup: int) -> dict[str, object]:
    """Peak memory and seconds of report on a run of `parts` one-game parts and on one of 4,
    in `repeats` alternating pairs after `warmup` (benchmarks.harness); the peaks' ratio
    N parts / 4 parts pair by pair."""
    figures: dict[str, object] = {"parts": parts}
    with tempfile.TemporaryDirectory() as directory:
        runs = {parts: Path(directory) / "many", 4: Path(directory) / "few"}
        for games, root in runs.items():
            figures[f"write_{games}_parts_seconds"] = round(seconds(lambda: write_run(root, games)), 1)
        for mode in ("report", "report_plots"):
            times: dict[int, list[float]] = {games: [] for games in runs}

            def peak(games: int) -> Rate:
                def one_report() -> float:
                    # report refuses to overwrite plots: every --plots run gets a directory of its own
                    options = ("--plots", tempfile.mkdtemp(dir=directory)) if mode == "report_plots" else ()
                    peak_mib, wall = report_peak(runs[games], *options)
                    times[games].append(wall)
                    return peak_mib

                return one_report

            many, few, ratio = alternate(peak(parts), peak(4), repeats, warmup, digits=1)
            for games, peaks in ((parts, many), (4, few)):
                figures[f"{mode}_{games}_parts_peak_mib"] = peaks
                figures[f"{mode}_{games}_parts_seconds"] = Range(tuple(times[games][warmup:]), 2)
            figures[f"{mode}_peak_ratio"] = ratio
    return figures


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--games", type=int, default=200_000, help="4-player games (60 rounds rows each)")
    arguments.add_argument("--part-games", type=int, default=25_000, help="games per part file")
    arguments.add_argument("--batch-size", type=int, default=1 << 17)
    arguments.add_argument("--many-parts", type=int, metavar="N",
                           help="instead: report's peak memory on a run of N one-game parts next to one of 4")
    args = arguments.parse_args()

    if args.many_parts is not None:
        figures = many_parts(args.many_parts, args.repeats, args.warmup)
    else:
        with tempfile.TemporaryDirectory() as directory:
            root = Path(directory) / "run"
            rows = write_dataset(root, args.games, args.part_games)
            figures = {"rows": rows, "batch_size": args.batch_size}
            for name, work in WORK.items():
                runs: list[tuple[float, float, float]] = []

                def one_run() -> float:
                    runs.append(measure_fresh(work.format(path=str(root), batch_size=args.batch_size)))
                    return runs[-1][0]

                figures[f"{name}_seconds"] = measure(one_run, args.repeats, args.warmup, digits=2)
                figures[f"{name}_peak_increase_mib"] = Range(tuple(increase for _, _, increase in runs[args.warmup:]), 1)
                figures["rss_after_imports_mib"] = round(runs[-1][1], 1)
    report(figures, [f"{name:>40}: {value.text(',.2f') if isinstance(value, Range) else value}"
                     for name, value in figures.items()], args.json)  # fmt: skip


if __name__ == "__main__":
    main()
