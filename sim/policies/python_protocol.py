"""Python policies: plain-Python bots (numpy, torch, anything) acting on the documented
observation and action mask (docs/env.md), many decisions per call.

`--policy module:Object[:key=value,...]` names one: a class (instantiated once per batch of
games — a run_games call, a chunk of simulate or tournament — with its PARAMETERS as keyword
floats) or an instance, with either method

    act(self, observations, masks[, context]) -> actions       # a batch of decisions
    act_one(self, observation, mask[, context]) -> action       # one decision (convenience)

observations: float32 [n, OBSERVATION_SIZE], masks: bool [n, N_ACTIONS] (the legal actions of
each row); the answer: one integer per row, a legal action (masks[i, action] is True) or
DELEGATE (-1) to hand that decision to the bot's built-in FALLBACK policy. `context` (passed
when the method takes a third argument) is a Decisions: the game index, seat, decision kind
and round size of every row, so a bot may keep memory per game.

Optional attributes of the class (or instance):

    PARAMETERS = (("name", default), ...)   # options `module:Object:name=value`, at most 8
    COUNTS = ("name", ...)                  # parameters that must be whole numbers >= 0
    RANGES = {"name": (low, high), ...}     # a parameter's valid interval (refused outside)
    DECISIONS = ("trump", "bid", "card")    # the decisions the bot is asked; the others are
                                            # played by FALLBACK inside the kernels (fast)
    FALLBACK = "heuristic"                  # a built-in policy, `name[:key=value,...]`
    game_over(self, games, seats, totals)   # called after games end (to free per-game memory):
                                            # int64 arrays, one row per game and seat it played;
                                            # totals: that game's final score pad [m, players]

A run with a Python bot is a pure function of its configuration and seed when the bot is
deterministic (its answers depend only on what it is shown): the batch a row arrives in and
the thread count never change the game.
"""
from __future__ import annotations

import inspect
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.records import DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP, DELEGATE, MAX_PARAMS  # noqa: F401 (DELEGATE: for bots)
from sim.config.errors import BotError, ConfigError

DECISION_KINDS = {"trump": DECIDE_TRUMP, "bid": DECIDE_BID, "card": DECIDE_CARD}
DECISION_NAMES = {kind: name for name, kind in DECISION_KINDS.items()}
DEFAULT_FALLBACK = "heuristic"


@dataclass(frozen=True)
class Decisions:
    """What a batch of decisions is, row by row (int64 arrays [n]; scalars for act_one)."""

    games: np.ndarray  # game index in the run (unique within a run; tournaments: the row's game id)
    seats: np.ndarray  # the seat deciding, 0..players-1
    kinds: np.ndarray  # DECISION_KINDS: 0 trump, 1 bid, 2 card
    round_sizes: np.ndarray  # cards per hand in the round

    def take(self, rows: np.ndarray | slice) -> Decisions:
        """The decisions of `rows` (arrays)."""
        return Decisions(self.games[rows], self.seats[rows], self.kinds[rows], self.round_sizes[rows])

    def row(self, i: int) -> Decisions:
        """Row i with scalar fields (the context act_one gets)."""
        return Decisions(*(int(field[i]) for field in (self.games, self.seats, self.kinds, self.round_sizes)))

    def describe(self, i: int) -> str:
        return (
            f"seat {int(self.seats[i])}, {DECISION_NAMES[int(self.kinds[i])]} decision, "
            f"game {int(self.games[i])}, round of {int(self.round_sizes[i])} card"
            + ("" if int(self.round_sizes[i]) == 1 else "s")
        )


@dataclass(frozen=True)
class PythonBot:
    """A loaded Python policy: its `module:Object` path and what it declares."""

    path: str
    target: object  # the class or instance named by the path
    parameters: tuple[tuple[str, float], ...]
    decisions: frozenset[int]  # DECISION_KINDS the bot is asked
    fallback: str  # built-in policy text for the decisions it does not take or delegates
    batched: bool  # act (True) or act_one (False)
    takes_context: bool
    source: str  # the bot's file, for error messages
    counts: tuple[str, ...] = ()  # parameters that must be whole numbers >= 0 (its COUNTS)
    ranges: tuple[tuple[str, tuple[float, float]], ...] = ()  # valid [low, high] per parameter (its RANGES)

    def instantiate(self, params: tuple[float, ...]) -> object:
        """The object that answers: a new instance of the class with `params` as keywords, or
        the instance itself."""
        if not inspect.isclass(self.target):
            return self.target
        keywords = {name: value for (name, _), value in zip(self.parameters, params)}
        try:
            return self.target(**keywords)
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise BotError(f"policy {self.path}: creating it failed: {error_text(error, self.source)}") from None


def callable_attribute(target: object, name: str):
    method = getattr(target, name, None)
    return method if callable(method) else None


def _positional_count(function) -> int:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return 2
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = [p for p in signature.parameters.values() if p.kind in kinds]
    if any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in signature.parameters.values()):
        return 3
    return len(parameters)


def is_python_policy(target: object) -> bool:
    return callable_attribute(target, "act") is not None or callable_attribute(target, "act_one") is not None


def load_python_bot(path: str, target: object) -> PythonBot:
    """Check what `target` (the object named by `path`) declares; ConfigError if malformed."""
    batched = callable_attribute(target, "act") is not None
    name = "act" if batched else "act_one"
    function = getattr(target, name)
    # Unbound on a class: self counts; bound on an instance: it does not.
    count = _positional_count(function) - (1 if inspect.isclass(target) else 0)
    if count not in (2, 3):
        raise ConfigError(f"{path}.{name} must take (observations, masks) or (observations, masks, context)")
    raw_parameters = getattr(target, "PARAMETERS", ())
    try:
        parameters = tuple((str(key), float(value)) for key, value in raw_parameters)
    except (TypeError, ValueError):
        raise ConfigError(f"{path}.PARAMETERS must be ((name, default), ...)") from None
    if len(parameters) > MAX_PARAMS:
        raise ConfigError(f"{path} has {len(parameters)} parameters; at most {MAX_PARAMS}")
    if parameters and not inspect.isclass(target):
        raise ConfigError(f"{path} has PARAMETERS but is an instance: name the class so they can be passed")
    counts, ranges = declared_limits(path, target, [key for key, _ in parameters])
    decision_names = getattr(target, "DECISIONS", tuple(DECISION_KINDS))
    if isinstance(decision_names, str):
        decision_names = (decision_names,)
    unknown = [d for d in decision_names if d not in DECISION_KINDS]
    if unknown or not decision_names:
        raise ConfigError(f"{path}.DECISIONS must name some of {', '.join(DECISION_KINDS)}, got {decision_names!r}")
    fallback = getattr(target, "FALLBACK", DEFAULT_FALLBACK)
    if not isinstance(fallback, str) or not fallback.strip():
        raise ConfigError(f"{path}.FALLBACK must name a built-in policy, got {fallback!r}")
    try:
        source = inspect.getsourcefile(target if inspect.isclass(target) else type(target)) or ""
    except TypeError:
        source = ""
    return PythonBot(
        path,
        target,
        parameters,
        frozenset(DECISION_KINDS[d] for d in decision_names),
        fallback,
        batched,
        count == 3,
        source,
        counts,
        ranges,
    )


def declared_limits(path: str, target: object, names: list[str]) -> tuple[tuple[str, ...], tuple]:
    """A Python policy's COUNTS and RANGES, as a built-in policy declares them: each names its
    PARAMETERS; a range is (low, high) with low <= high."""
    counts = getattr(target, "COUNTS", ())
    ranges = getattr(target, "RANGES", {})
    if isinstance(counts, str) or not all(isinstance(name, str) and name in names for name in counts):
        raise ConfigError(f"{path}.COUNTS must name some of its PARAMETERS, got {counts!r}")
    try:
        limits = tuple((str(name), (float(low), float(high))) for name, (low, high) in dict(ranges).items())
    except (TypeError, ValueError):
        raise ConfigError(f"{path}.RANGES must be {{name: (low, high), ...}}, got {ranges!r}") from None
    if not all(name in names and low <= high for name, (low, high) in limits):
        raise ConfigError(f"{path}.RANGES must give (low, high) with low <= high for some of its PARAMETERS, got {ranges!r}")
    return tuple(counts), limits


def error_text(error: BaseException, source: str) -> str:
    """`TypeError: message (bot.py:12)`: the exception and the deepest line of the bot's own
    file in its traceback (the last frame when the bot's file is unknown)."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    frames = traceback.extract_tb(error.__traceback__)
    own = [frame for frame in frames if source and Path(frame.filename) == Path(source)]
    where = (own or frames[-1:])
    place = f" ({Path(where[-1].filename).name}:{where[-1].lineno})" if where else ""
    return f"{type(error).__name__}: {message}{place}"
