"""A record must not outlive its array (kernels/blocks.py).

numba frees a local array right after its last use, even while a record taken from it is
still being read: a record holds no reference. `storage = new_memory(); memory = storage[0]`
followed by reads of `memory` (or `return best_choice(storage[0].totals, ...)` as the last
use) reads freed memory. pimc's 146 KB decision memory was unmapped by malloc and the read
segfaulted (`experiments/regenerate_results.py --quick` after the suite had filled the cache); mc's
smaller one was read from the heap, intact unless another thread took the chunk first (2 of
120,000 tricks differed in a Dask test). The rule the kernels follow: a record is taken from
an array only in a function the array is passed to (its caller holds it), in the function
that returns the array, or before a later use of the array."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def dangling_records(source: str, where: str = "") -> list[str]:
    """Loads of `x[0]` where x is a call's result, or a local array assigned from a call that
    the function neither uses on a later line nor returns."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef):
            continue
        allocated = {
            target.id
            for statement in ast.walk(function)
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)
            for target in statement.targets
            if isinstance(target, ast.Name)
        }
        returned = {node.value.id for node in ast.walk(function) if isinstance(node, ast.Return) and isinstance(node.value, ast.Name)}
        lines: dict[str, list[int]] = {}
        for node in ast.walk(function):
            if isinstance(node, ast.Name):
                lines.setdefault(node.id, []).append(node.lineno)
        for node in ast.walk(function):
            if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                    and isinstance(node.slice, ast.Constant) and node.slice.value == 0):  # fmt: skip
                continue
            base = node.value
            if isinstance(base, ast.Call):
                found.append(f"{where}:{node.lineno} {function.name}: a record of a temporary array")
            elif isinstance(base, ast.Name) and base.id in allocated and base.id not in returned:
                if max(lines[base.id]) <= node.lineno:
                    found.append(f"{where}:{node.lineno} {function.name}: a record of {base.id} after its last use")
    return found


def test_the_check_finds_the_patterns_that_read_freed_memory():
    bad = textwrap.dedent("""
        def last_use_is_the_record(legal):
            storage = new_memory()
            memory = storage[0]
            for k in range(3):
                memory.totals[k] += 1
            return best_choice(storage[0].totals, legal)

        def temporary():
            memory = new_known_memory()[0]
            return memory.x

        def as_an_argument():
            return prepare(new_work()[0])
    """)
    assert len(dangling_records(bad)) == 3
    good = textwrap.dedent("""
        def passed_in(storage):
            memory = storage[0]
            return memory.x

        def allocator():
            storage = np.zeros(1, dtype=DTYPE)
            init(storage[0])
            return storage

        def used_later(games):
            workspace = new_workspace()
            for i in range(3):
                seat(workspace[0], i)
                play(workspace, i)
    """)
    assert dangling_records(good) == []


# numba's cache stamps: plain Python that numba consults while it decorates, no kernel.
NOT_KERNELS = {ROOT / "kernels" / "cache_stamps.py"}


def test_no_kernel_reads_a_record_after_its_array_is_freed():
    found = [
        problem for path in sorted(set((ROOT / "kernels").rglob("*.py")) - NOT_KERNELS)
        for problem in dangling_records(path.read_text(), str(path.relative_to(ROOT)))
    ]  # fmt: skip
    assert found == []


@pytest.mark.processes
def test_search_bots_play_when_freed_memory_is_unmapped():
    """With malloc's mmap threshold fixed at 128 KiB, pimc's decision memory is unmapped when
    freed: reading it after the free segfaulted on the first pimc decision."""
    script = textwrap.dedent("""
        import sim
        for policy in ("pimc:samples=2,play_samples=2", "mc:samples=2,play_samples=2"):
            sim.run_games(sim.Rules(players=4, rounds=(3, 5)), policy, seed=1, games=8, threads=1)
        print("played")
    """)
    environment = {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(128 * 1024), "PYTHONFAULTHANDLER": "1"}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, cwd=ROOT)
    assert result.returncode == 0 and result.stdout == "played\n", result.stderr[-3000:]
