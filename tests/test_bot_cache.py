"""A numba bot's compiled engine is cached across processes (sim.engine.policy_engine.engine_cache):
a second process loads it instead of compiling, an edited bot is compiled afresh, two bots of
the same name in different places never share an entry, and an unwritable cache directory
only turns the cache off."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC
from sim.engine import policy_engine as external
from sim.policies.external_bots import BOT_FUNCTIONS, ExternalBot
from sim.engine.policy_engine import cache_directory, engine_cache

ROOT = Path(__file__).resolve().parent.parent
HEURISTIC = (POLICY_HEURISTIC,)
GREEDY = ROOT / "examples" / "greedy_bot.py"

# One process: play a few games with the copied bot and report the engine's cache counters.
PLAY = """
import json
from kernels.batch import play_games
from sim.engine.policy_engine import compiled_engine
from sim.policies.registry import external_bots
from sim.config.rules import Rules
from sim.runs.games import run_games

batch = run_games(Rules(players=3, rounds=(2, 3)), "copied_bot:GreedyBot,random,random", seed=4, games=30)
stats = compiled_engine(play_games, (0,), external_bots(batch.policies)).stats  # beside the random seats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "bids": batch.seats["bid"][:, :, 0].tolist()}))
"""


def play_in_new_process(bots: Path, cache: Path) -> dict:
    environment = {**os.environ, "PYTHONPATH": str(bots), external.CACHE_DIR_VARIABLE: str(cache)}
    done = subprocess.run([sys.executable, "-c", PLAY], cwd=bots, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.processes
def test_second_process_loads_the_engine_and_an_edit_recompiles_it(tmp_path):
    bots, cache = tmp_path / "bots", tmp_path / "cache"
    bots.mkdir()
    bot_file = bots / "copied_bot.py"
    bot_file.write_text(GREEDY.read_text())

    first = play_in_new_process(bots, cache)
    assert first["misses"] == 1 and first["hits"] == 0  # compiled, and saved
    entries = sorted(path.name for path in (cache / "engines").iterdir())
    assert any(name.startswith("batch.play_games-") and name.endswith(".nbi") for name in entries)

    second = play_in_new_process(bots, cache)
    assert second["hits"] == 1 and second["misses"] == 0  # loaded: nothing compiled
    assert second["bids"] == first["bids"]

    # A different bid rule in the same file: the stale engine must not be loaded.
    source = bot_file.read_text()
    assert "sure + params[MARGIN] * maybe" in source
    bot_file.write_text(source.replace("sure + params[MARGIN] * maybe", "sure + maybe"))
    edited = play_in_new_process(bots, cache)
    assert edited["misses"] == 1 and edited["hits"] == 0
    assert edited["bids"] != first["bids"]
    # The edit replaced the bot's entries instead of adding new ones.
    assert sorted(path.name for path in (cache / "engines").iterdir()) == entries


def load_copy(directory: Path, module_name: str) -> ExternalBot:
    """greedy_bot.py copied to `directory` and imported under `module_name`, named
    copied_bot:GreedyBot whatever its directory (as two projects could name their bots)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "copied_bot.py"
    if not path.exists():
        path.write_text(GREEDY.read_text())
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert all(hasattr(module.GreedyBot, name) for name in BOT_FUNCTIONS)
    return ExternalBot("copied_bot:GreedyBot", module.GreedyBot, (("margin", 0.5),))


def test_cache_names_and_stamps(tmp_path, monkeypatch):
    monkeypatch.setenv(external.CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    here = engine_cache([load_copy(tmp_path / "a", "copy_a")], HEURISTIC)
    again = engine_cache([load_copy(tmp_path / "a", "copy_a_again")], HEURISTIC)
    elsewhere = engine_cache([load_copy(tmp_path / "b", "copy_b")], HEURISTIC)
    assert here == again
    assert elsewhere.name != here.name  # two bots of the same name: two entries
    beside_mc = engine_cache([load_copy(tmp_path / "a", "copy_a_beside_mc")], (*HEURISTIC, POLICY_MC))
    assert beside_mc.name != here.name  # other built-in seats: another engine
    (tmp_path / "a" / "copied_bot.py").write_text(GREEDY.read_text().replace("KING = ACE - 1", "KING = ACE"))
    edited = engine_cache([load_copy(tmp_path / "a", "copy_a_edited")], HEURISTIC)
    assert edited.name == here.name and edited.stamp != here.stamp  # same entry, out of date


def test_cache_directory_and_unwritable_fallback(tmp_path, monkeypatch):
    monkeypatch.delenv(external.CACHE_DIR_VARIABLE, raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    assert cache_directory() == tmp_path / "numba" / "wizard-sim" / "engines"
    monkeypatch.setenv(external.CACHE_DIR_VARIABLE, str(tmp_path / "mine"))
    assert cache_directory() == tmp_path / "mine" / "engines"
    (tmp_path / "a file").write_text("")
    monkeypatch.setenv(external.CACHE_DIR_VARIABLE, str(tmp_path / "a file"))
    assert engine_cache([load_copy(tmp_path / "a", "copy_unwritable")], HEURISTIC) is None  # compiled, not cached



# A bot that bids the lowest legal bid, or the highest with HIGHEST: two copies of one code,
# which a process compiles in the same order, so that numba numbers their functions alike.
BIDDER = """
from numba import njit
from kernels.bits import highest_bit, lowest_bit

HIGHEST = {highest}


class Bot:
    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        return highest_bit(legal) if HIGHEST else lowest_bit(legal)

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        return lowest_bit(legal)
"""

# Plays `module:Bot,random,random` for each module given, in turn, in one process, and prints
# the bot's bids of each.
PLAY_EACH = """
import json, sys
from sim.config.rules import Rules
from sim.runs.games import run_games

bids = [run_games(Rules(players=3, rounds=(3, 4)), f"{module}:Bot,random,random", seed=2, games=4).seats["bid"][:, :, 0].tolist()
        for module in sys.argv[1:]]
print(json.dumps(bids))
"""


@pytest.mark.processes
def test_engines_compiled_in_two_processes_are_loaded_together(tmp_path):
    """numba links compiled functions by name, and numbers the functions a process compiles in
    the order it compiles them: an engine's copy of a kernel, named as its original, had the
    same name in two processes that compiled two engines alike. Loaded together from the cache,
    the second engine then ran the first's copies: its bot's seat played the other bot."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name, highest in (("low_bidder", False), ("high_bidder", True)):
        (bots / f"{name}.py").write_text(BIDDER.format(highest=highest))
    environment = {**os.environ, "PYTHONPATH": str(bots), external.CACHE_DIR_VARIABLE: str(tmp_path / "cache")}

    def play(*modules: str) -> list:
        done = subprocess.run([sys.executable, "-c", PLAY_EACH, *modules], cwd=bots, env=environment,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, (modules, done.stderr[-2000:])
        return json.loads(done.stdout.strip().splitlines()[-1])

    low, high = play("low_bidder")[0], play("high_bidder")[0]
    assert low != high
    assert play("low_bidder", "high_bidder") == [low, high]
