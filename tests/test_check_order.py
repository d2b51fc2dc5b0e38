"""Every check before every import (issue 61): a command with a mistake anywhere in its options
says so (one line, exit 2) without importing the user's module it names, whose import may do
anything. `league --policies mod:Bot,mod:Bot,heuristic` imported mod, and only then said
"listed twice"."""
from __future__ import annotations

import itertools
import sys

import pytest

from helpers import invoke, one_line

BOT = """import pathlib
pathlib.Path("imported").write_text("the module ran")


class Bot:
    PARAMETERS = (("margin", 0.5),)

    def __init__(self, margin=0.5):
        pass

    def act(self, observations, masks):
        return masks.argmax(axis=1)
"""
_names = itertools.count()


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A fresh module name (imported from the current directory) whose import leaves a file."""
    monkeypatch.chdir(tmp_path)
    name = f"side_effect_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(BOT)
    return name


CASES = [
    # (command line with {m} for the module, words of the one line)
    ("league --policies {m}:Bot,{m}:Bot,heuristic --games 10", "listed twice"),
    ("league --policies {m}:Bot:margin=0.7,{m}:Bot:margin=.70,heuristic --games 10", "listed twice"),
    ("league --policies {m}:Bot,heuristic --games 0", "games must be in"),
    ("league --policies {m}:Bot,heuristic,random,mc,pimc --players 3 --games 1", "needs at least"),
    ("league --policies {m}:Bot,heuristic --games 10 --seed -1", "seed"),
    ("league --policies {m}:Bot,heuristic:nope=1 --games 10", "has no parameter"),
    ("league --policies {m}:Bot,heuristic --games 10 --sprt 5,0", "sprt"),
    ("tournament --policies {m}:Bot,heuristic,heuristic,heuristic --games 0", "games must be in"),
    ("tournament --policies {m}:Bot,heuristic,heuristic,heuristic --games 10 --seed -1", "seed"),
    ("tournament --policies {m}:Bot,heuristic,heuristic,heuristic --games 10 --chunk-games 0", "chunk-games"),
    ("tournament --policies {m}:Bot,heuristic,heuristic,heuristic --games 10 --sprt 5,0", "sprt"),
    ("tournament --policies {m}:Bot,{m}:Bot,{m}:Bot,{m}:Bot --games 10", "two different policies"),
    ("tournament --policies {m}:Bot,heuristic:aggression=99,heuristic,heuristic --games 10", "aggression"),
    ("tournament --policies {m}:Bot,heuristic,heuristic --games 10", "policies for 4 players"),
    ("simulate --policy {m}:Bot,heuristic:nope=1,random,random --games 10", "has no parameter"),
    ("simulate --policy {m}:Bot:margin=x --games 10", "needs a number"),
    ("simulate --policy {m}:Bot:margin=1,margin=2 --games 10", "twice"),
    ("simulate --policy {m}:Bot,no_such_policy,random,random --games 10", "unknown policy"),
    ("simulate --policy {m}:Bot --games 10 --chunk-games 0", "chunk-games"),
    ("estimate --hand W --trump 3H --opponents {m}:Bot,heuristic:nope=1,random", "has no parameter"),
    ("estimate --hand W --trump 3H --opponents {m}:Bot --policy heuristic:nope=1", "has no parameter"),
    ("estimate --hand W --trump 3H --opponents {m}:Bot --samples 0", "samples"),
    ("play --opponents {m}:Bot,heuristic:nope=1,random", "has no parameter"),
    ("play --opponents {m}:Bot --seed -1", "seed"),
]


@pytest.mark.parametrize("line, words", CASES)
def test_a_mistake_is_found_before_any_user_module_is_imported(module, tmp_path, line, words):
    arguments = line.format(m=module).split()
    if arguments[0] in ("simulate", "tournament", "league"):
        arguments += ["--out", str(tmp_path / "run")]
    one_line(invoke(*arguments), 2, words)
    assert module not in sys.modules and not (tmp_path / "imported").exists(), "the module was imported"


@pytest.mark.parametrize("command, extra", [("simulate", ["--games", "0"]), ("tournament", ["--seed", "-1"]),
                                            ("league", ["--games", "0"]), ("tournament", ["--sprt", "5,0"])])  # fmt: skip
def test_an_option_given_on_resume_is_checked_before_the_runs_modules_are_imported(tmp_path, monkeypatch, command, extra):
    """--resume imports the run's modules (named again) only once the options given with it
    pass the checks that need no import."""
    monkeypatch.chdir(tmp_path)
    name = f"side_effect_{next(_names)}"
    (tmp_path / f"{name}.py").write_text(BOT.replace('pathlib.Path("imported").write_text("the module ran")', ""))
    option = "--policy" if command == "simulate" else "--policies"
    policies = {"simulate": f"{name}:Bot,random,random", "tournament": f"{name}:Bot,random,random",
                "league": f"{name}:Bot,random,heuristic"}[command]  # fmt: skip
    out = tmp_path / "run"
    started = invoke(command, option, policies, "--players", 3, "--rounds", 1, "--games", 30, "--chunk-games", 10,
                     "--seed", 1, "--out", out, "--quiet")  # fmt: skip
    assert started.exit_code == 0, started.output
    (out / "chunks.jsonl").write_text((out / "chunks.jsonl").read_text().splitlines()[0] + "\n")  # as if interrupted
    sys.modules.pop(name)
    result = invoke(command, "--out", out, "--resume", option, policies, *extra)
    one_line(result, 2, "differs from the run being resumed")
    assert name not in sys.modules, "the module was imported"
