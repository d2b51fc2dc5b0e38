"""End-to-end `simulate` throughput next to the kernel alone, and peak memory.

    python -m benchmarks.bench_simulate                  # 200k random 4-player games
    python -m benchmarks.bench_simulate --games 1000000 --json
    python -m benchmarks.bench_simulate --encodings      # compare Parquet compressions
    python -m benchmarks.bench_simulate --checksums      # the part checksums' share of simulate

Kernel-only plays the same chunks with run_games and drops them; end-to-end runs
sim.simulate into a temporary directory (in-process, kernels warm). After --warmup pairs, the
two alternate in --repeats pairs (benchmarks.harness) and every figure is a range: on a shared
machine, a single pair measured a minute apart can put the ratio anywhere between 45% and 66%.
CPU time per game (every thread of the process, best of the repeats) moves much less with the machine's load
than wall time; compare revisions by it when the machine is busy. Peak RSS comes from running
the `wizard-sim simulate` command in a child process.
"""
from __future__ import annotations

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

from benchmarks.harness import alternate, parser, report
from sim import Rules, SimulationConfig, run_games, simulate
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
    arguments = parser(__doc__.splitlines()[0])
    arguments.add_argument("--games", type=int, default=200_000)
    arguments.add_argument("--policy", default="random")
    arguments.add_argument("--encodings", action="store_true", help="compare Parquet compressions and exit")
    arguments.add_argument("--checksums", action="store_true", help="the part checksums' share of simulate's CPU, and exit")
    arguments.add_argument("--no-rss", action="store_true", help="skip the peak-memory child runs")
    options = arguments.parse_args()
    if options.encodings:
        compare_encodings(min(options.games, 50_000), options.repeats)
        return
    if options.checksums:
        print(json.dumps(checksum_cost(options.games, options.repeats)))
        return
    rules = Rules(players=4)
    figures: dict[str, object] = {"games": options.games, "policy": options.policy, "threads": os.cpu_count()}
    lines = []
    for label, log_plays in (("default", False), ("log_plays", True)):
        config = SimulationConfig.build(rules, options.policy, seed=1, games=options.games, log_plays=log_plays)
        cpu: dict[str, list[float]] = {"kernel": [], "end_to_end": []}
        written: list[tuple[int, int]] = []

        def kernel_rate() -> float:
            seconds, cpu_seconds = kernel_only(config)
            cpu["kernel"].append(cpu_seconds)
            return options.games / seconds

        def end_to_end_rate() -> float:
            seconds, cpu_seconds, rows, size = end_to_end(config)
            cpu["end_to_end"].append(cpu_seconds)
            written.append((rows, size))
            return options.games / seconds

        # Alternated, so that both see the same moments of a noisy machine; ratio: simulate's share of the kernel's speed.
        end, kernel, ratio = alternate(end_to_end_rate, kernel_rate, options.repeats, options.warmup)
        rows, size = written[-1]
        figures[label] = {
            "chunk_games": config.chunk_games,
            "kernel_games_per_s": kernel,
            "end_to_end_games_per_s": end,
            "end_to_end_rows_per_s": round(rows / options.games * end.median),
            "ratio": ratio,
            # CPU time of every thread per game, the best of the measured runs: steadier than wall time on a busy machine
            "kernel_cpu_us_per_game": round(1e6 * min(cpu["kernel"][-options.repeats:]) / options.games, 2),
            "end_to_end_cpu_us_per_game": round(1e6 * min(cpu["end_to_end"][-options.repeats:]) / options.games, 2),
            "rows": rows,
            "bytes_per_row": round(size / rows, 2),
        }
        if not options.no_rss:
            peak, wall = peak_rss_mb(options.games, log_plays)
            figures[label]["cli_peak_rss_mb"] = round(peak)
            figures[label]["cli_wall_s"] = round(wall, 2)
        entry = figures[label]
        lines.append(f"{label:9}: kernel {kernel.text()} games/s | end-to-end {end.text()} games/s = {ratio.text('.0%')}"
                     f" of kernel | {entry['bytes_per_row']} bytes/row | CPU {entry['end_to_end_cpu_us_per_game']} us/game"
                     f" (kernel {entry['kernel_cpu_us_per_game']}) | CLI peak RSS {entry.get('cli_peak_rss_mb', '-')} MB")  # fmt: skip
    report(figures, lines, options.json)


if __name__ == "__main__":
    main()
