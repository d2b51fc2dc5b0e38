"""Bots from outside the package: `--policy mymodule:MyBot[:key=value,...]`.

A bot is any object (a class, a module, a namespace) with three numba-jitted functions:

    bid(me, table, legal, params, generator) -> int           # a set bit of legal (the bid)
    choose_trump(me, table, params, generator) -> int         # suit 0..3, when a Wizard is turned up
    play(me, table, legal, params, generator) -> int          # a set bit of legal (the card id)

and optionally PARAMETERS = (("name", default), ...) (at most MAX_PARAMS). `me` is the bot's
own seat record, `table` the public table (README: what a policy may read), `params` its
float64 parameter row, `generator` the game's seeded random stream (kernels.rng.below,
kernels.rng.uniform) — use nothing else, so runs stay reproducible.

The built-in engine is compiled once and cached; a run with external bots compiles a copy of
the engine whose policy dispatch also knows the bots (no cache: it depends on their code).
The copy is made by rebinding: every jitted function that calls the dispatch, directly or
through other jitted functions, is recompiled from its Python source with the new dispatch.
"""
from __future__ import annotations

import importlib
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from numba import njit
from numba.core.dispatcher import Dispatcher

from kernels.policies import dispatch
from kernels.state import DECIDE_BID, DECIDE_TRUMP, MAX_PARAMS
from sim.config.errors import BotError, ConfigError
from sim.config.python_policy import PythonBot, is_python_policy, load_python_bot

BOT_FUNCTIONS = ("bid", "choose_trump", "play")
FIRST_EXTERNAL_ID = 100  # ids of external bots in one run: 100, 101, ...


@dataclass(frozen=True)
class ExternalBot:
    """A loaded bot: its `module:object` path and the object holding its functions."""

    path: str
    bot: object
    parameters: tuple[tuple[str, float], ...]


def load_bot(path: str) -> ExternalBot | PythonBot:
    """Import `module:Object` (the current directory is importable, after the standard library
    and installed packages): a numba bot (its three jitted functions checked) or a Python
    policy (sim.config.python_policy)."""
    module_name, _, object_name = path.partition(":")
    if not module_name or not object_name:
        raise ConfigError(f"external policy {path!r} must be module:Object")
    if not all(part.isidentifier() for part in module_name.split(".")) or not object_name.isidentifier():
        raise ConfigError(f"external policy {path!r} must be module:Object with Python names")
    # The current directory is searched last: a file there never shadows the standard library
    # or an installed package (a `cmath.py` beside the user's data is not executed).
    cwd = str(Path.cwd())
    here = ("", ".", cwd)  # `python -m` and an interactive session put the current directory first
    if sys.path[-1:] != [cwd] or any(entry in here for entry in sys.path[:-1]):
        sys.path[:] = [entry for entry in sys.path if entry not in here] + [cwd]
    try:
        module = importlib.import_module(module_name)
        bot = getattr(module, object_name, None)
    except ImportError as error:
        raise ConfigError(f"cannot import policy module {module_name!r}: {error}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit too: a bot module must not end the run
        raise BotError(f"importing policy module {module_name!r} failed: {type(error).__name__}: {error}") from None
    if bot is None:
        raise ConfigError(f"module {module_name!r} has no {object_name!r}")
    if is_python_policy(bot):
        return load_python_bot(path, bot)
    for name in BOT_FUNCTIONS:
        function = getattr(bot, name, None)
        if not isinstance(function, Dispatcher):
            raise ConfigError(
                f"{path} must be a Python policy or a numba bot (a Python policy has a method act or act_one; "
                f"in a numba bot, {name} must be a numba-jitted function); see README: bots"
            )
    parameters = tuple((str(key), float(value)) for key, value in getattr(bot, "PARAMETERS", ()))
    if len(parameters) > MAX_PARAMS:
        raise ConfigError(f"{path} has {len(parameters)} parameters; at most {MAX_PARAMS}")
    return ExternalBot(path, bot, parameters)


def _decide_with_bot(previous, bot: object, policy_id: int):
    """A dispatch that sends the seats of `policy_id` to the bot, every other seat to `previous`."""
    bid, choose_trump, play = (getattr(bot, name) for name in BOT_FUNCTIONS)

    @njit(inline="always")
    def decide(policies, decision, me, table, legal, generator):
        policy_ids, params = policies
        if policy_ids[me.seat] != policy_id:
            return previous(policies, decision, me, table, legal, generator)
        row = params[me.seat]
        if decision == DECIDE_BID:
            return bid(me, table, legal, row, generator)
        if decision == DECIDE_TRUMP:
            return choose_trump(me, table, row, generator)
        return play(me, table, legal, row, generator)

    return decide


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def rebind(function: Dispatcher, replacements: dict, memo: dict) -> Dispatcher:
    """`function`, recompiled (uncached) wherever it reaches a replaced jitted function."""
    if function in replacements:
        return replacements[function]
    if function in memo:
        return memo[function]
    source = function.py_func
    memo[function] = function  # co_names also lists attribute names, which may repeat this name
    overrides = {}
    for name in _global_names(source.__code__):
        value = source.__globals__.get(name)
        if isinstance(value, Dispatcher):
            rebound = rebind(value, replacements, memo)
            if rebound is not value:
                overrides[name] = rebound
    if not overrides:
        return function
    copy = types.FunctionType(
        source.__code__, {**source.__globals__, **overrides}, source.__name__, source.__defaults__, source.__closure__
    )
    copy.__qualname__ = source.__qualname__
    options = {key: value for key, value in function.targetoptions.items() if key != "nopython"}  # njit implies it
    memo[function] = njit(**options)(copy)
    return memo[function]


_ENGINES: dict[tuple[str, ...], tuple[dict, dict]] = {}


def external_ids(bots: list[ExternalBot]) -> dict[str, int]:
    """Policy id of each distinct bot path of a run: 100, 101, ... in sorted path order, so
    that every batch of the run (any seating) uses the same compiled engine."""
    return {path: FIRST_EXTERNAL_ID + index for index, path in enumerate(sorted({bot.path for bot in bots}))}


def engine_with_bots(bots: list[ExternalBot], entry: Dispatcher) -> Dispatcher:
    """The kernel entry point `entry`, rebuilt so that each bot answers for its external id.
    Compiled once per process and set of bots (the first call compiles: tens of seconds)."""
    ids = external_ids(bots)
    by_path = {bot.path: bot for bot in bots}
    key = tuple(ids)
    if key not in _ENGINES:
        decide = dispatch.decide
        for path, policy_id in ids.items():
            decide = _decide_with_bot(decide, by_path[path].bot, policy_id)
        _ENGINES[key] = ({dispatch.decide: decide}, {})
    replacements, memo = _ENGINES[key]
    return rebind(entry, replacements, memo)
