"""Profile the jitted engine with Linux perf: per-function and per-instruction hot spots.

perf cannot name numba's jitted code: it lives in anonymous memory. This script plays games
after writing /tmp/perf-PID.map (perf's map of JIT code) from the ELF object that numba
cached for `play_games` (or, with --python-seats, for the Python-seat driver's `run_envs`),
and keeps that object so instructions can be annotated later.

    perf record -F 5000 -o perf.data python -m experiments.profile_kernels --policy heuristic
    perf report -i perf.data --no-children --sort sym
    python -m experiments.profile_kernels --annotate perf.data choose_card
    perf record -F 3000 -o perf.data python -m experiments.profile_kernels --python-seats 8192

The workload runs on one thread by default (clearer profiles). Addresses 0x...0050-0x...006f
outside any symbol are numba's NRT_incref/NRT_decref (reference counts: atomics).
"""
from __future__ import annotations

import argparse
import collections
import glob
import os
import pickle
import re
import subprocess
import time
from pathlib import Path


OBJECT = Path("profile-kernel.o")  # the profiled kernel's object, kept in the working directory for --annotate


def cached_objects(value, found: list[bytes]) -> list[bytes]:
    """Every ELF object inside an unpickled numba cache entry."""
    if isinstance(value, bytes) and value[:4] == b"\x7fELF":
        found.append(value)
    elif isinstance(value, (tuple, list)):
        for item in value:
            cached_objects(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            cached_objects(item, found)
    return found


def function_symbols(path: Path) -> dict[str, tuple[int, int]]:
    """name -> (offset, size) of the functions of an object file (objdump -t)."""
    symbols = {}
    for line in subprocess.run(["objdump", "-t", str(path)], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if " F " in line and len(fields) >= 6:
            symbols[fields[-1]] = (int(fields[0], 16), int(fields[-2], 16))
    return symbols


def write_perf_map(dispatcher) -> None:
    """Map the loaded code of a kernel (play_games, run_envs) for perf, from the object numba
    cached for it (its callees are in the same object)."""
    compiled = next(iter(dispatcher.overloads.values()))
    entry = compiled.fndesc.llvm_func_name
    source = Path(dispatcher.py_func.__code__.co_filename)
    cache_name = f"{source.stem}.{dispatcher.py_func.__name__}"
    for cache_file in glob.glob(str(source.parent / "__pycache__" / f"{cache_name}-*.nbc")):
        for obj in cached_objects(pickle.loads(Path(cache_file).read_bytes()), []):
            OBJECT.write_bytes(obj)
            symbols = function_symbols(OBJECT)
            if entry not in symbols:
                continue
            base = compiled.library.get_pointer_to_function(entry) - symbols[entry][0]
            OBJECT.with_suffix(".base").write_text(f"{base:x}\n")
            with open(f"/tmp/perf-{os.getpid()}.map", "w") as perf_map:
                for name, (offset, size) in sorted(symbols.items(), key=lambda item: item[1]):
                    perf_map.write(f"{base + offset:x} {size:x} {name}\n")
            return
    raise SystemExit(f"no cached object for {cache_name}: run once without NUMBA_CACHE_DIR changes")


def play(policy: str, games: int, threads: int) -> None:
    from kernels import batch, fast_games
    from sim import Rules, run_games
    from sim.policies.registry import parse_policies, policy_arrays
    from sim.runs.games import builtin_only

    rules = Rules(players=4)

    def run(n: int) -> float:
        start = time.perf_counter()
        run_games(rules, policy, seed=1, games=n, threads=threads)
        return time.perf_counter() - start

    run(10)  # load (or compile and cache) the kernels
    policies = parse_policies(policy, rules.players)
    # Built-in seats play on the fast path's kernel (docs/architecture.md, "The fast path").
    write_perf_map((fast_games if builtin_only(policies, policy_arrays(policies)) else batch).play_games)
    seconds = run(games)
    print(f"{policy}: {games / seconds:,.0f} games/s on {threads} thread(s); object kept in {OBJECT}")


def play_python_seats(deals: int, batch: int) -> None:
    """bench_python_bots.py's workload: a duplicate tournament with its numpy seat and three
    heuristic seats, the pool of `batch` games stepped by kernels.bot_pool.run_envs (on
    the run's threads: the kernel steps and the bot's numpy overlap)."""
    from benchmarks.bench_python_bots import PreferenceBot, tournament_rate
    from kernels.bot_pool import run_envs
    from sim import Rules

    rules = Rules(players=4)
    policies = [PreferenceBot, "heuristic", "heuristic", "heuristic"]
    tournament_rate(rules, policies, 4, 64, [])()  # load (or compile and cache) the kernels
    write_perf_map(run_envs)
    rate = tournament_rate(rules, policies, deals, batch, [])()
    print(f"numpy seat + 3 heuristic: {rate:,.0f} games/s at batch {batch:,}; object kept in {OBJECT}")


def annotate(perf_data: str, name_part: str, top: int) -> None:
    """Samples per instruction of the cached functions whose name contains `name_part`."""
    base = int(OBJECT.with_suffix(".base").read_text(), 16)
    script = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip"], capture_output=True, text=True, check=True)
    samples = collections.Counter(int(ip, 16) - base for ip in script.stdout.split())
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(OBJECT)], capture_output=True, text=True, check=True)
    instructions = {}
    for line in listing.stdout.splitlines():
        match = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if match:
            instructions[int(match.group(1), 16)] = re.sub(r"<_ZN.*>", "", match.group(2))
    for name, (start, size) in function_symbols(OBJECT).items():
        if name_part not in name:
            continue
        inside = [(samples.get(offset, 0), offset) for offset in instructions if start <= offset < start + size]
        print(f"== {name[:100]}: {sum(count for count, _ in inside)} samples")
        for count, offset in sorted(sorted(inside, reverse=True)[:top], key=lambda item: item[1]):
            if count:
                print(f"{count:7d} {offset - start:6x}  {instructions[offset]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="random", help="policy of all four seats")
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--python-seats", type=int, metavar="BATCH",
                        help="profile a Python seat's tournament (bench_python_bots.py) at this batch instead")
    parser.add_argument("--deals", type=int, default=4000, help="deals of the --python-seats tournament")
    parser.add_argument("--annotate", nargs=2, metavar=("PERF_DATA", "FUNCTION"), help="hot instructions of a function")
    parser.add_argument("--top", type=int, default=40, help="instructions shown per function")
    arguments = parser.parse_args()
    if arguments.annotate:
        annotate(*arguments.annotate, arguments.top)
    elif arguments.python_seats:
        play_python_seats(arguments.deals, arguments.python_seats)
    else:
        play(arguments.policy, arguments.games, arguments.threads)


if __name__ == "__main__":
    main()
