"""End-to-end `simulate` throughput next to the kernel alone, and peak memory.

    python -m benchmarks.bench_simulate                  # 200k random 4-player games
    python -m benchmarks.bench_simulate --games 1000000 --json
    python -m benchmarks.bench_simulate --encodings      # compare Parquet compressions
    python -m benchmarks.bench_simulate --checksums      # the part checksums' share of simulate

Kernel-only plays the same chunks with run_games and drops them; end-to-end runs
sim.runs.simulation.simulate into a temporary directory (in-process, kernels warm). The two
alternate `--repeats` times and the best of each is reported: on a shared machine, a single
pair measured a minute apart can put the ratio anywhere between 45% and 66%. CPU time per game
(every thread of the process, best of the repeats) moves much less with the machine's load
than wall time; compare revisions by it when the machine is busy. Peak RSS comes from running
the `wizard-sim simulate` command in a child process.
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

import pyarrow as pa
import pyarrow.parquet as pq

from sim.runs.games import run_games
from sim.config.rules import Rules
from sim.runs.simulation import SimulationConfig, simulate
from sim.runs.tables import batch_tables


def kernel_only(config: SimulationConfig) -> tuple[float, float]:
    """Wall and CPU seconds (every thread of the process) of the kernels alone."""
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, config.games, config.chunk_games):
        games = min(config.chunk_games, config.games - first)
        run_games(config.rules, list(config.policies), seed=config.seed, games=games, first_game=first, log_plays=config.log_plays)
    return time.perf_counter() - start, time.process_time() - cpu


def end_to_end(config: SimulationConfig) -> tuple[float, float, int, int]:
    """Wall and CPU seconds of simulate, its rows and bytes written."""
    out = Path(tempfile.mkdtemp(prefix="bench-simulate-"))
    try:
        start, cpu = time.perf_counter(), time.process_time()
        simulate(config, str(out), overwrite=True)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        rows = sum(pq.ParquetDataset(out / table).read(columns=["game_id"]).num_rows for table in config.tables)
        size = sum(path.stat().st_size for path in out.rglob("*.parquet"))
        return seconds, cpu, rows, size
    finally:
        shutil.rmtree(out)


# The child reports its own high-water mark (VmHWM): getrusage(RUSAGE_CHILDREN) would also count
# the memory a forked child inherits from this (large) process before exec.
CHILD = """
import sys
from sim.cli import app
try:
    app(sys.argv[1:])
finally:
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
    print(int(hwm.split()[1]) // 1024, file=sys.stderr)
"""


def peak_rss_mb(games: int, log_plays: bool) -> tuple[int, float]:
    """Peak resident memory of the CLI in a child process (MB) and its wall time (s)."""
    out = tempfile.mkdtemp(prefix="bench-simulate-rss-")
    command = [sys.executable, "-c", CHILD, "simulate", "--players", "4", "--games", str(games), "--policy", "random",
               "--seed", "1", "--out", out, "--overwrite", "--quiet"] + (["--log-plays"] if log_plays else [])  # fmt: skip
    try:
        start = time.perf_counter()
        child = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if child.returncode != 0:
            raise SystemExit(f"simulate failed: {child.stderr}")
        return int(child.stderr.strip().splitlines()[-1]), wall
    finally:
        shutil.rmtree(out)


def checksum_cost(games: int, repeats: int) -> dict[str, dict[str, float]]:
    """CPU seconds of simulate (best of `repeats`) and of taking the SHA-256 of every part it
    wrote (sim.storage.parts.file_digest, as each part's writer does before the part becomes
    visible; files in the page cache): the checksums' share of simulate's CPU time. Measured in
    one process, so it resolves a share of a few percent that side-by-side wall times on a
    shared machine cannot."""
    from sim.storage.parts import file_digest

    figures = {}
    for label, log_plays in (("default", False), ("log_plays", True)):
        config = SimulationConfig.build(Rules(players=4), "random", seed=1, games=games, log_plays=log_plays)
        runs, digests = [], []
        for _ in range(repeats):
            out = Path(tempfile.mkdtemp(prefix="bench-simulate-")) / "run"
            try:
                cpu = time.process_time()
                simulate(config, str(out))
                runs.append(time.process_time() - cpu)
                files = sorted(out.rglob("*.parquet"))
                size = sum(path.stat().st_size for path in files)
                cpu = time.process_time()
                for path in files:
                    file_digest(path)
                digests.append(time.process_time() - cpu)
            finally:
                shutil.rmtree(out.parent)
        figures[label] = {
            "simulate_cpu_s": round(min(runs), 3),
            "checksums_cpu_s": round(min(digests), 3),
            "checksums_share": round(min(digests) / min(runs), 4),
            "bytes_hashed": size,
        }
    return figures


CANDIDATE_ENCODINGS = ("PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT", "DICTIONARY")
CANDIDATE_CODECS = ("NONE", "LZ4", "SNAPPY", "ZSTD")


def formats_before(name: str, table: pa.Table) -> dict:
    """The formats of every part before the column-by-column choice: nullable columns, the
    plays table plain, the others' integers delta bit-packed, all lz4 but the hand masks."""
    import sim.storage.parts as parts

    formats = {}
    for column in table.column_names:
        if column == "policy":
            formats[column] = parts.LABELS
        elif column == "hand":
            formats[column] = parts.ColumnFormat("PLAIN", "NONE")
        elif name != "plays" and pa.types.is_integer(table.schema.field(column).type):
            formats[column] = parts.ColumnFormat("DELTA_BINARY_PACKED", "LZ4")
    return formats


def compare_encodings(games: int, repeats: int = 5) -> None:
    """Every column of every table alone, in every encoding and codec: CPU microseconds per
    game of writing it (the second best of `repeats`) and bytes per row; `*` marks the format
    sim.storage.parts.PART_FORMATS chose. Then each whole part as written, and as it would be
    with nullable columns (definition levels), and as it was before (formats_before)."""
    import sim.storage.parts as parts

    batch = run_games(Rules(players=4), "random", seed=1, games=games, log_plays=True)
    out = Path(tempfile.mkdtemp(prefix="bench-encodings-"))
    path = out / "part.parquet"

    def cost(table, formats) -> tuple[float, float]:
        times = []
        for _ in range(repeats):
            start = time.process_time()
            parts.write_parquet(path, table, {}, formats)
            times.append(time.process_time() - start)
        return 1e6 * sorted(times)[min(1, repeats - 1)] / games, path.stat().st_size / table.num_rows

    try:
        for name, table in batch_tables(batch, log_plays=True).items():
            chosen = parts.PART_FORMATS[name]
            print(f"{name} ({table.num_rows / games:.0f} rows a game): us/game, bytes/row")
            for column in table.column_names:
                alone = table.select([column])
                cells = []
                for encoding in CANDIDATE_ENCODINGS:
                    for codec in CANDIDATE_CODECS:
                        form = parts.ColumnFormat(encoding, codec)
                        try:
                            seconds, size = cost(alone, {column: form})
                        except (pa.ArrowException, ValueError, OSError):  # not defined for this type
                            continue
                        mark = "*" if form == chosen.get(column) else " "
                        cells.append(f"{mark}{encoding[:5]}/{codec[:4]} {seconds:5.2f} {size:5.2f}")
                print(f"  {column:10} " + " |".join(cells))
            nullable = table.cast(pa.schema([field.with_nullable(True) for field in table.schema]))
            for label, whole, formats in (("as written", table, chosen), ("nullable", nullable, chosen),
                                          ("before (f2e1b27)", nullable, formats_before(name, table))):  # fmt: skip
                seconds, size = cost(whole, formats)
                print(f"  whole part, {label:16}: {seconds:6.2f} us/game, {size:5.2f} bytes/row")
    finally:
        shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--policy", default="random")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--encodings", action="store_true", help="compare Parquet compressions and exit")
    parser.add_argument("--checksums", action="store_true", help="the part checksums' share of simulate's CPU, and exit")
    parser.add_argument("--no-rss", action="store_true", help="skip the peak-memory child runs")
    parser.add_argument("--repeats", type=int, default=3, help="kernel / end-to-end pairs, alternating")
    arguments = parser.parse_args()
    if arguments.encodings:
        compare_encodings(min(arguments.games, 50_000), arguments.repeats)
        return
    if arguments.checksums:
        print(json.dumps(checksum_cost(arguments.games, arguments.repeats)))
        return
    rules = Rules(players=4)
    run_games(rules, arguments.policy, seed=0, games=10, log_plays=True)  # load the kernels
    figures: dict[str, object] = {"games": arguments.games, "policy": arguments.policy, "threads": os.cpu_count()}
    for label, log_plays in (("default", False), ("log_plays", True)):
        config = SimulationConfig.build(rules, arguments.policy, seed=1, games=arguments.games, log_plays=log_plays)
        # Alternate the two so that both see the same moments of a noisy machine; best of each.
        pairs = []
        for _ in range(arguments.repeats):
            pairs.append((*kernel_only(config), *end_to_end(config)))
        kernel, kernel_cpu = min(pair[0] for pair in pairs), min(pair[1] for pair in pairs)
        seconds, _, rows, size = min(pairs, key=lambda pair: pair[2])[2:]
        cpu = min(pair[3] for pair in pairs)
        figures[label] = {
            "chunk_games": config.chunk_games,
            "kernel_games_per_s": round(arguments.games / kernel),
            "end_to_end_games_per_s": round(arguments.games / seconds),
            "end_to_end_rows_per_s": round(rows / seconds),
            "ratio": round(kernel / seconds, 3),
            "pair_ratios": [round(pair[0] / pair[2], 3) for pair in pairs],
            # CPU time of every thread per game: steadier than wall time on a busy machine
            "kernel_cpu_us_per_game": round(1e6 * kernel_cpu / arguments.games, 2),
            "end_to_end_cpu_us_per_game": round(1e6 * cpu / arguments.games, 2),
            "rows": rows,
            "bytes_per_row": round(size / rows, 2),
        }
        if not arguments.no_rss:
            rss, wall = peak_rss_mb(arguments.games, log_plays)
            figures[label]["cli_peak_rss_mb"] = round(rss)
            figures[label]["cli_wall_s"] = round(wall, 2)
    if arguments.json:
        print(json.dumps(figures))
        return
    for label in ("default", "log_plays"):
        entry = figures[label]
        print(f"{label:9}: kernel {entry['kernel_games_per_s']:>9,} games/s | end-to-end "
              f"{entry['end_to_end_games_per_s']:>9,} games/s ({entry['end_to_end_rows_per_s'] / 1e6:.1f}M rows/s) "
              f"= {entry['ratio']:.0%} of kernel (pairs: {', '.join(f'{r:.0%}' for r in entry['pair_ratios'])}) | "
              f"{entry['bytes_per_row']} bytes/row | CPU {entry['end_to_end_cpu_us_per_game']} us/game "
              f"(kernel {entry['kernel_cpu_us_per_game']}) | "
              f"CLI peak RSS {entry.get('cli_peak_rss_mb', '-')} MB")  # fmt: skip


if __name__ == "__main__":
    main()
