"""Bots from outside the package: `--policy mymodule:MyBot[:key=value,...]`.

A bot is any object (a class, a module, a namespace) with numba-jitted functions, in one of two
forms. Three functions, one per decision:

    bid(me, table, legal, params, generator) -> int           # a set bit of legal (the bid)
    choose_trump(me, table, params, generator) -> int         # suit 0..3, when a Wizard is turned up
    play(me, table, legal, params, generator) -> int          # a set bit of legal (the card id)

or a built-in policy's form (kernels.dispatch.PolicyCalls), for a bot that reads who sits where
or keeps state across the rounds of a game:

    decide(decision, policies, me, table, legal, generator) -> int   # kernels.records.DECIDE_*
    round_finished(policies, table, seat)                     # optional: after each round, per seat of the bot
    STATE_SIZE = n                                            # floats of state per seat, policies.state[seat, :n]

and optionally PARAMETERS = (("name", default), ...) (at most MAX_PARAMS). `me` is the bot's
own seat record, `table` the public table (docs/policies.md, Guarantees), `params` its
float64 parameter row (policies.params[me.seat] in the second form), `generator` the game's
seeded random stream (kernels.rng.below, kernels.rng.uniform) — use nothing else, so runs stay
reproducible. A seat's state is cleared when a game begins.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from numba.core.dispatcher import Dispatcher

from kernels.records import MAX_PARAMS, MAX_SEAT_STATE
from sim.config.errors import BotError, ConfigError, echo
from sim.policies.python_protocol import PythonBot, error_text, is_python_policy, load_python_bot

BOT_FUNCTIONS = ("bid", "choose_trump", "play")  # the first form: one function per decision
DECIDE_FUNCTIONS = ("decide", "round_finished")  # the second: a built-in policy's (round_finished optional)
FIRST_EXTERNAL_ID = 100  # ids of external bots in one run: 100, 101, ...


@dataclass(frozen=True)
class ExternalBot:
    """A loaded bot: its `module:object` path, the object holding its functions, the names of
    the jitted functions it has (BOT_FUNCTIONS, or `decide` and maybe `round_finished`) and
    the floats of state it keeps per seat."""

    path: str
    bot: object
    parameters: tuple[tuple[str, float], ...]
    functions: tuple[str, ...] = BOT_FUNCTIONS
    state_size: int = 0

    @property
    def decides(self) -> bool:
        """Whether it has the built-in form, `decide` (else one function per decision)."""
        return self.functions[0] == "decide"

    @property
    def jitted(self) -> list[Dispatcher]:
        """Its jitted functions: what an engine compiles in of it."""
        return [getattr(self.bot, name) for name in self.functions]

    @property
    def round_finished(self) -> Dispatcher | None:
        """Its hook after each round (the built-in form's, optional), or None."""
        return self.bot.round_finished if "round_finished" in self.functions else None

    def function_of(self, decision_function: str) -> Dispatcher:
        """Its jitted function that answers a decision (`bid`, `choose_trump`, `play`): that one,
        or `decide` in the built-in form."""
        return getattr(self.bot, "decide" if self.decides else decision_function)


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
    functions = _bot_functions(path, bot)
    parameters = tuple((str(key), float(value)) for key, value in getattr(bot, "PARAMETERS", ()))
    if len(parameters) > MAX_PARAMS:
        raise ConfigError(f"{path} has {len(parameters)} parameters; at most {MAX_PARAMS}")
    state_size = getattr(bot, "STATE_SIZE", 0)
    if functions == BOT_FUNCTIONS and state_size:
        raise ConfigError(f"{path} keeps state (STATE_SIZE) but has no decide to read it with; see docs/numba-bots.md")
    if isinstance(state_size, bool) or not isinstance(state_size, int) or not 0 <= state_size <= MAX_SEAT_STATE:
        raise ConfigError(f"{path}: STATE_SIZE must be a whole number 0..{MAX_SEAT_STATE} (floats per seat)")
    return ExternalBot(path, bot, parameters, functions, state_size)


def _bot_functions(path: str, bot: object) -> tuple[str, ...]:
    """The names of the bot's jitted functions: the built-in form's if it has `decide`, else
    the three of one function per decision (each checked to be numba-jitted)."""
    names = tuple(name for name in DECIDE_FUNCTIONS if hasattr(bot, name)) if hasattr(bot, "decide") else BOT_FUNCTIONS
    for name in names:
        if not isinstance(getattr(bot, name, None), Dispatcher):
            raise ConfigError(
                f"{path} must be a Python policy or a numba bot (a Python policy has a method act or act_one; "
                f"in a numba bot, {name} must be a numba-jitted function); see docs/numba-bots.md"
            )
    return names


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
