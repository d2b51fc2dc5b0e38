"""Importing `sim` and every module of `sim` and `kernels` writes no file and sets no environment
variable; the engine does both, once, when it starts (sim/engine/startup.py), and it starts
before any kernel is compiled or loaded from numba's cache."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Imports every module of the copied tree and reports what changed in the process.
IMPORT_ALL = """
import ast, importlib, json, os, sys
from pathlib import Path
root = Path(sys.argv[1]).resolve()
modules, libraries = [], set()
for package in ("sim", "kernels"):
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] != "__main__":  # that one runs the command line
            modules.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            libraries.update(name.split(".")[0] for name in names)
# What other libraries do when imported (pygame, under pettingzoo, sets variables) is theirs.
for library in sorted(libraries - {"sim", "kernels"} - set(sys.stdlib_module_names)):
    try:
        importlib.import_module(library)
    except ImportError:
        pass
before = dict(os.environ)
import sim
assert Path(sim.__file__).resolve().parent.parent == root, f"imported {sim.__file__}, not the copy"
skipped = []
for name in modules:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as error:  # an optional extra's dependency (pettingzoo, ...)
        if error.name.split(".")[0] in ("sim", "kernels"):
            raise
        skipped.append(name)
import numba.np.ufunc.parallel as parallel
changed = sorted(key for key in {*before, *os.environ} if before.get(key) != os.environ.get(key))
print(json.dumps({"changed": changed, "skipped": skipped, "threads_started": bool(parallel._is_initialized)}))
"""


def files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root`: its (modification time, size)."""
    return {str(path): (path.stat().st_mtime_ns, path.stat().st_size) for path in root.rglob("*") if path.is_file()}


@pytest.mark.processes
def test_importing_every_module_writes_no_file_and_sets_no_variable(tmp_path):
    tree = tmp_path / "tree"
    for package in ("sim", "kernels"):  # a copy without caches
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    numba_cache, work = tmp_path / "numba-cache", tmp_path / "work"
    numba_cache.mkdir()
    work.mkdir()
    environment = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    environment.update(PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1", NUMBA_CACHE_DIR=str(numba_cache),
                       WIZARD_SIM_CACHE_DIR=str(tmp_path / "engines"))  # fmt: skip
    before = files(tmp_path)
    probe = subprocess.run([sys.executable, "-c", IMPORT_ALL, str(tree)], cwd=work, env=environment,
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    report = json.loads(probe.stdout.splitlines()[-1])
    assert report["changed"] == []  # no environment variable set (OMP_WAIT_POLICY was unset)
    assert not report["threads_started"]  # so the engine's start still comes before numba's threads
    # numba makes its cache's directories when @njit(cache=True) decorates a function (its own
    # doing, and no file); no file appears or changes anywhere under the copy or the caches.
    assert files(tmp_path) == before
    assert len(report["skipped"]) <= 3, report["skipped"]  # only the optional adapters may be absent


# Each in a fresh process: the engine starts once per process.
ENTRIES = {
    "run_games": "from sim import Rules, run_games; run_games(Rules(players=3, rounds=(1, 2)), 'random', seed=1, games=4)",
    "draw_first_dealer": "from sim import draw_first_dealer; draw_first_dealer(1, 0, 4)",
    "state_api": "from sim.env import WizardGame; WizardGame().new_state(seed=1).legal_actions()",
    "vector_env": "from sim.env import VectorEnv; VectorEnv(num_envs=2, threads=1).reset()",
    "estimate": "from sim import estimate; estimate('AS KH 3C', players=3, trump='2D', samples=8, threads=1)",
    "seatings": (
        "import numpy as np; from sim import Rules; from sim.runs.tournament import TournamentConfig; "
        "config = TournamentConfig.build(Rules(players=3), 'random,heuristic,random', seed=1, deals=2, duplicate=False); "
        "config.deal_rows(np.arange(2, dtype=np.int64))"
    ),
}
# Counts the kernels numba has compiled or loaded from its cache when the engine starts.
ORDER = """
import sys
import numba.core.registry
from numba.core.dispatcher import Dispatcher
from sim.engine import startup
prefer = startup.prefer_passive_waiting

def loaded_kernels():
    return sorted(f"{name}.{key}" for name, module in list(sys.modules.items()) if name.startswith("kernels")
                  for key, value in vars(module).items() if isinstance(value, Dispatcher) and value.overloads)

def checked_start(*arguments):
    print("loaded before the start:", loaded_kernels())
    return prefer(*arguments)

startup.prefer_passive_waiting = checked_start
exec(sys.argv[1])
"""


@pytest.mark.processes
@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_the_engine_starts_before_the_first_kernel(entry):
    probe = subprocess.run([sys.executable, "-c", ORDER, ENTRIES[entry]], cwd=ROOT, capture_output=True, text=True,
                           timeout=600)  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    assert "loaded before the start: []" in probe.stdout.splitlines()
