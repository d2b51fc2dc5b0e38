"""Bots from outside the package: `--policy mymodule:MyBot[:key=value,...]`.

A bot is any object (a class, a module, a namespace) with three numba-jitted functions:

    bid(me, table, legal, params, generator) -> int           # a set bit of legal (the bid)
    choose_trump(me, table, params, generator) -> int         # suit 0..3, when a Wizard is turned up
    play(me, table, legal, params, generator) -> int          # a set bit of legal (the card id)

and optionally PARAMETERS = (("name", default), ...) (at most MAX_PARAMS). `me` is the bot's
own seat record, `table` the public table (docs/policies.md, Guarantees), `params` its
float64 parameter row, `generator` the game's seeded random stream (kernels.rng.below,
kernels.rng.uniform) — use nothing else, so runs stay reproducible.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from numba.core.dispatcher import Dispatcher

from kernels.records import MAX_PARAMS
from sim.config.errors import BotError, ConfigError, echo
from sim.policies.python_protocol import PythonBot, error_text, is_python_policy, load_python_bot

BOT_FUNCTIONS = ("bid", "choose_trump", "play")
FIRST_EXTERNAL_ID = 100  # ids of external bots in one run: 100, 101, ...


@dataclass(frozen=True)
class ExternalBot:
    """A loaded bot: its `module:object` path and the object holding its functions."""

    path: str
    bot: object
    parameters: tuple[tuple[str, float], ...]


def check_bot_path(path: str) -> None:
    """`module:Object` with Python names (checked before anything is imported)."""
    module_name, _, object_name = path.partition(":")
    if not module_name or not object_name:
        raise ConfigError(f"external policy {echo(path)} must be module:Object")
    if not all(part.isidentifier() for part in module_name.split(".")) or not object_name.isidentifier():
        raise ConfigError(f"external policy {echo(path)} must be module:Object with Python names")


def load_bot(path: str) -> ExternalBot | PythonBot:
    """Import `module:Object` (the current directory is importable, after the standard library
    and installed packages): a numba bot (its three jitted functions checked) or a Python
    policy (sim.policies.python_protocol)."""
    check_bot_path(path)
    module_name, _, object_name = path.partition(":")
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
        # The module itself not found, or one of its own imports failing (a missing dependency).
        own = isinstance(error, ModuleNotFoundError) and _names_module(error, module_name)
        text = str(error) if own else _import_error_text(error, module_name)
        raise ConfigError(f"cannot import policy module {module_name!r}: {text}") from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # SystemExit too: a bot module must not end the run
        raise BotError(f"importing policy module {module_name!r} failed: {_import_error_text(error, module_name)}") from None
    if bot is None:
        raise ConfigError(f"module {module_name!r} has no {object_name!r}")
    if is_python_policy(bot):
        return load_python_bot(path, bot)
    for name in BOT_FUNCTIONS:
        function = getattr(bot, name, None)
        if not isinstance(function, Dispatcher):
            raise ConfigError(
                f"{path} must be a Python policy or a numba bot (a Python policy has a method act or act_one; "
                f"in a numba bot, {name} must be a numba-jitted function); see docs/numba-bots.md"
            )
    parameters = tuple((str(key), float(value)) for key, value in getattr(bot, "PARAMETERS", ()))
    if len(parameters) > MAX_PARAMS:
        raise ConfigError(f"{path} has {len(parameters)} parameters; at most {MAX_PARAMS}")
    return ExternalBot(path, bot, parameters)


def _names_module(error: ModuleNotFoundError, module_name: str) -> bool:
    """Whether the module not found is the policy module (or a package on its path) itself."""
    return error.name is not None and (module_name == error.name or module_name.startswith(error.name + "."))


def _import_error_text(error: BaseException, module_name: str) -> str:
    """`Type: message (file.py:line)` of an error raised while importing the policy module: the
    deepest line of the module's own file (a syntax error: its line)."""
    if isinstance(error, SyntaxError):
        return f"{type(error).__name__}: {error.msg} ({Path(error.filename or '?').name}:{error.lineno})"
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        spec = None
    return error_text(error, spec.origin if spec and spec.origin else "")


def external_ids(bots: list[ExternalBot]) -> dict[str, int]:
    """Policy id of each distinct bot path of a run: 100, 101, ... in sorted path order, so
    that every batch of the run (any seating) uses the same compiled engine."""
    return {path: FIRST_EXTERNAL_ID + index for index, path in enumerate(sorted({bot.path for bot in bots}))}
