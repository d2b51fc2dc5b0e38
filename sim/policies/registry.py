"""Policy registry: `name[:key=value,...]` -> kernel policy id and parameter vector.

Adding a built-in policy takes no change here: its kernel module and the dispatch's BUILT_IN
table (kernels/dispatch.py) describe it.
"""
from __future__ import annotations

import importlib.util
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from kernels.dispatch import BUILT_IN
from kernels.policies import learned
from kernels.records import MAX_PARAMS, MAX_PLAYERS, MAX_SEAT_STATE
from sim.config.errors import ConfigError, cut, echo
from sim.config.limits import MAX_BOT_PARAMETER, check_parameter
from sim.policies.external_bots import ExternalBot, check_bot_path, external_ids, load_bot
from sim.policies.learned_models import SHIPPED_MODEL, LearnedModel, load_model
from sim.policies.python_protocol import PythonBot, is_python_policy, load_python_bot

FIRST_MODEL_ID = 200  # ids of the learned policy's models in one run: 200, 201, ... (bots: 100, ...)
DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")  # a policy parameter's value


@dataclass(frozen=True)
class PolicyKind:
    name: str
    policy_id: int
    parameters: tuple[tuple[str, float], ...]  # (name, default), in parameter-vector order
    summary: str
    counts: tuple[str, ...] = ()  # parameters that must be whole numbers >= 0
    bot: ExternalBot | None = None  # set for bots from outside the package (module:Object)
    ranges: tuple[tuple[str, tuple[float, float]], ...] = ()  # valid [low, high] per parameter
    python: PythonBot | None = None  # set for Python policies (module:Object with act/act_one)
    fallback: Policy | None = None  # a Python policy's FALLBACK, parsed once (when it is loaded)
    model: LearnedModel | None = None  # set for the learned policy: its model, checked (sim.policies.learned_models)
    # Parameters the policy no longer has: each maps a value to the parameters that play as it
    # (None: a value it never took), so a label naming one is refused with its new spelling.
    retired: tuple[tuple[str, Callable[[float], dict[str, float] | None]], ...] = ()

    def range_of(self, key: str) -> tuple[float, float]:
        return dict(self.ranges).get(key, (-MAX_BOT_PARAMETER, MAX_BOT_PARAMETER))


def _built_in_kind(policy_id: int, module: object) -> PolicyKind:
    """A built-in policy's kind from its kernel module, which carries its name, summary,
    parameters, their valid ranges and its retired parameters (docs/runs.md, Options)."""
    if len(module.PARAMETERS) > MAX_PARAMS:
        raise ImportError(f"policy {module.NAME} has {len(module.PARAMETERS)} parameters; a row holds at most "
                          f"{MAX_PARAMS} (kernels.records.MAX_PARAMS)")  # fmt: skip
    if getattr(module, "STATE_SIZE", 0) > MAX_SEAT_STATE:
        raise ImportError(f"policy {module.NAME} keeps {module.STATE_SIZE} floats of state per seat; a seat holds "
                          f"at most {MAX_SEAT_STATE} (kernels.records.MAX_SEAT_STATE)")  # fmt: skip
    return PolicyKind(
        module.NAME,
        policy_id,
        module.PARAMETERS,
        module.SUMMARY,
        counts=getattr(module, "COUNTS", ()),
        ranges=tuple(getattr(module, "RANGES", {}).items()),
        retired=tuple(getattr(module, "RETIRED", {}).items()),
    )


REGISTRY: dict[str, PolicyKind] = {module.NAME: _built_in_kind(policy_id, module) for policy_id, module in BUILT_IN}
# `learned[:model=DIR]`: the learned policy (kernels.policies.learned) with a model directory's
# weights, the shipped model's when none is named (docs/learned.md).
LEARNED = learned.NAME
# The forms a policy takes, in the help of every option that names policies.
POLICY_FORMS = (
    f"a built-in policy ({', '.join(REGISTRY)}, learned; parameters as name:key=value, learned:model=DIR a trained "
    "model), or module:Object, a Python policy or a numba bot from the current directory or PYTHONPATH "
    "(docs/bots.md, docs/numba-bots.md)"
)


@dataclass(frozen=True)
class Policy:
    """A parsed policy: its kind and the full parameter vector (defaults filled in)."""

    kind: PolicyKind
    params: tuple[float, ...]

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def label(self) -> str:
        """Canonical text: the name plus every parameter that differs from its default."""
        changed = [
            f"{key}={parameter_text(value)}"
            for (key, default), value in zip(self.kind.parameters, self.params)
            if value != default
        ]
        return self.kind.name + (":" + ",".join(changed) if changed else "")

    def parameter_record(self) -> dict[str, float | str]:
        """Every parameter by name, the defaults included: what its label means in this
        wizard-sim (run.json's policy_parameters); a learned policy's model by its digest."""
        if self.kind.model is not None:
            return {"model_sha256": self.kind.model.digest}
        return {name: value for (name, _), value in zip(self.kind.parameters, self.params)}


def parameter_text(value: float) -> str:
    """A parameter value as a label writes it: short (`1.2`, `16`) when that reads back as the
    same number, else every digit it needs (`0.1500001`): run.json records policies by label,
    and a resumed run or a cluster worker rebuilds them from it."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def _check_external_path(path: str) -> None:
    """What `module:Object` must be, checked without importing it."""
    module_name, _, object_name = path.partition(":")
    check_bot_path(path)
    # The labels of policy objects (policy_of_object) that no import can find again.
    if module_name == "__main__":
        raise ConfigError(
            f"policy {path} is defined in __main__ (a script or notebook), which cannot be imported again"
            " (to resume a run, or on Dask workers): move it into a module"
        )
    if "<locals>" in object_name:
        raise ConfigError(
            f"policy {path} is defined inside a function, which cannot be imported again"
            " (to resume a run, or on Dask workers): define it at the top level of a module"
        )


def _external_kind(path: str) -> PolicyKind:
    _check_external_path(path)
    bot = load_bot(path)
    if isinstance(bot, PythonBot):
        return _python_kind(bot)
    return PolicyKind(path, -1, bot.parameters, f"external bot {path}", bot=bot)


def _python_kind(bot: PythonBot) -> PolicyKind:
    try:
        fallback = parse_policy(bot.fallback)
    except ConfigError as error:
        raise ConfigError(f"{bot.path}.FALLBACK: {error}") from None
    if fallback.kind.bot is not None or fallback.kind.python is not None:
        raise ConfigError(f"{bot.path}.FALLBACK must be a built-in policy, got {bot.fallback!r}")
    return PolicyKind(bot.path, -1, bot.parameters, f"Python policy {bot.path}", counts=bot.counts, ranges=bot.ranges,
                      python=bot, fallback=fallback)  # fmt: skip


def policy_of_object(target: object) -> Policy:
    """A Python policy given as an object (a class, instantiated with its default PARAMETERS,
    or an instance, used as it is), labelled `module:Class` by its class."""
    if not is_python_policy(target):
        raise ConfigError(
            f"policy {target!r} is not a policy: give a name (`heuristic`, `module:Object`) or a Python policy"
            " (a class or instance with a method act or act_one)"
        )
    cls = target if inspect.isclass(target) else type(target)
    kind = _python_kind(load_python_bot(f"{cls.__module__}:{cls.__qualname__}", target))
    return Policy(kind, tuple(default for _, default in kind.parameters))


def as_policy(item: object) -> Policy:
    """A Policy, a policy text (parse_policy) or a Python policy object (policy_of_object)."""
    if isinstance(item, Policy):
        return item
    if isinstance(item, str):
        return parse_policy(item)
    return policy_of_object(item)


# `openspiel:NAME[:key=value,...]`: OpenSpiel's search bots (docs/openspiel.md), Python policies
# imported by name from sim.openspiel.bots when the optional extra is installed.
OPENSPIEL_BOTS = {"ismcts": "ISMCTS"}


def _openspiel_kind(bot: str) -> PolicyKind:
    if bot not in OPENSPIEL_BOTS:
        raise ConfigError(f"unknown OpenSpiel policy openspiel:{bot}; known: {', '.join(OPENSPIEL_BOTS)}")
    if importlib.util.find_spec("pyspiel") is None:
        raise ConfigError("openspiel: policies need OpenSpiel: pip install 'wizard-sim[openspiel]'")
    kind = _external_kind(f"sim.openspiel.bots:{OPENSPIEL_BOTS[bot]}")
    return replace(kind, name=f"openspiel:{bot}", summary=f"OpenSpiel's {bot} (docs/openspiel.md)")


def _split(text: str) -> tuple[str, str, str]:
    """(name, object, arguments) of a policy text: `name[:arguments]`, `module:Object[:arguments]`
    or `openspiel:bot[:arguments]` (object empty for a built-in policy)."""
    name, _, arguments = text.strip().partition(":")
    object_name, _, bot_arguments = arguments.partition(":")
    if name in REGISTRY or name == LEARNED:
        return name, "", arguments
    if name == "openspiel" or (object_name and "=" not in object_name and "," not in object_name):
        return name, object_name, bot_arguments
    raise ConfigError(
        f"unknown policy {echo(name)}; known: {', '.join(REGISTRY)}, {LEARNED}[:model=DIR], or module:Object for an external bot"
    )


def _given_values(name: str, arguments: str) -> dict[str, float]:
    """The `key=value,...` of a policy text: each key once, each value a plain decimal number
    (which keys the policy has is checked once it is known)."""
    given: dict[str, float] = {}
    for pair in arguments.split(",") if arguments else []:
        key, equals, value = pair.partition("=")
        key = key.strip()
        if not equals or not key:
            raise ConfigError(f"policy {echo(name)} has no parameter {echo(pair.strip())}: give key=value")
        if key in given:
            raise ConfigError(f"policy {echo(name)} sets its parameter {cut(key)} twice ({cut(arguments.strip())}): give it once")
        # A plain decimal number: float() also reads 1_0 (as 10), inf and nan.
        if not DECIMAL.fullmatch(value.strip()):
            raise ConfigError(f"policy parameter {cut(key)} needs a number (a plain decimal such as 1.2), got {echo(value.strip())}")
        given[key] = float(value)
    return given


def check_policy_text(item: object) -> str:
    """What a policy text says that needs no import, checked: a built-in policy is parsed
    whole; `module:Object` (or `openspiel:bot`) has valid names and `key=value` numbers, each
    key once. Returns a key, the policy's label as far as the text tells it: two items with one
    key are one policy. A command checks every policy text of its options with this before it
    imports any module they name (parse_policy imports)."""
    if isinstance(item, Policy):
        return item.label
    if not isinstance(item, str):  # a Python policy object: labelled by its class
        cls = item if inspect.isclass(item) else type(item)
        return f"{cls.__module__}:{cls.__qualname__}"
    name, object_name, arguments = _split(item)
    if name == LEARNED:
        directory = model_directory(arguments)
        return LEARNED if directory is None else f"{LEARNED}:model={directory}"
    if not object_name:
        return parse_policy(item).label
    if name == "openspiel":
        if object_name not in OPENSPIEL_BOTS:
            raise ConfigError(f"unknown OpenSpiel policy openspiel:{cut(object_name)}; known: {', '.join(OPENSPIEL_BOTS)}")
    else:
        _check_external_path(f"{name}:{object_name}")
    given = _given_values(f"{name}:{object_name}", arguments)
    changed = ",".join(f"{key}={parameter_text(value)}" for key, value in sorted(given.items()))
    return f"{name}:{object_name}" + (f":{changed}" if changed else "")


def check_policy_texts(items: list) -> list[str]:
    """check_policy_text of every item, in order: a mistake anywhere in a list is found before
    any of its modules is imported."""
    return [check_policy_text(item) for item in items]


def model_directory(arguments: str) -> str | None:
    """The DIR of `learned:model=DIR` (None: `learned`, the shipped model)."""
    if not arguments.strip():
        return None
    key, equals, value = arguments.partition("=")
    if key.strip() != "model" or not equals or not value.strip():
        raise ConfigError(f"policy {LEARNED} takes one parameter, model=DIR (a model directory), got {echo(arguments.strip())}")
    return value.strip()


def learned_policy(arguments: str) -> Policy:
    """`learned` (the shipped model) or `learned:model=DIR`, its model loaded and checked; the
    label names the model's directory (absolute), the run records its digest."""
    directory = model_directory(arguments)
    model = load_model(SHIPPED_MODEL if directory is None else directory)
    name = LEARNED if directory is None else f"{LEARNED}:model={model.directory}"
    return Policy(PolicyKind(name, -1, (), learned.SUMMARY, model=model), ())


def parse_policy(text: str) -> Policy:
    """`heuristic`, `heuristic:aggression=1.1,crowding=0.2`, `openspiel:ismcts:simulations=50`,
    `learned:model=DIR`, or an external bot `mymodule:MyBot` / `mymodule:MyBot:key=value` (imported)."""
    name, object_name, arguments = _split(text)
    if name == LEARNED:
        return learned_policy(arguments)
    given = _given_values(f"{name}:{object_name}" if object_name else name, arguments)  # before any import
    if not object_name:
        kind = REGISTRY[name]
    else:
        kind = _openspiel_kind(object_name) if name == "openspiel" else _external_kind(f"{name}:{object_name}")
        name = kind.name
    values = dict(kind.parameters)
    for key in given:
        if key in dict(kind.retired):
            raise ConfigError(retired_message(kind, given, key))
        if key not in values:
            known = ", ".join(values) or "none"
            raise ConfigError(f"policy {echo(name)} has no parameter {echo(key + '=' + parameter_text(given[key]))}; its parameters: {known}")
    values.update(given)
    for key in kind.counts:
        if not (values[key] >= 0 and values[key].is_integer()):
            raise ConfigError(f"policy parameter {key} must be a whole number >= 0, got {values[key]:g}")
    for key, value in values.items():
        check_parameter(value, key, *kind.range_of(key))
    return Policy(kind, tuple(values[key] for key, _ in kind.parameters))


def retired_message(kind: PolicyKind, given: dict[str, float], key: str) -> str:
    """Why a label naming the retired parameter `key` is refused: one line with the label that
    plays as it (as far as its other parameters allow)."""
    value = given[key]
    refused = f"policy {kind.name} no longer has the parameter {key} (docs/{kind.name}.md)"
    replacement = dict(kind.retired)[key](value)
    if replacement is None:
        return f"{refused}, and {key}={parameter_text(value)} was never one of its values"
    rest = {name: v for name, v in given.items() if name != key}
    spelled = ",".join(f"{name}={parameter_text(v)}" for name, v in replacement.items())
    if set(rest) & set(replacement):  # the label also sets a switch itself: no one translation
        return f"{refused}: {key}={parameter_text(value)} is {spelled}"
    try:
        spelled_now = ",".join(f"{name}={parameter_text(v)}" for name, v in {**rest, **replacement}.items())
        now = parse_policy(f"{kind.name}:{spelled_now}")
    except ConfigError:  # another parameter of the label is wrong too: named once this is fixed
        return f"{refused}: {key}={parameter_text(value)} is {spelled}"
    then = f"{kind.name}:" + ",".join(f"{name}={parameter_text(v)}" for name, v in given.items())
    return f"{refused}: {then} is now {now.label}"


def parameter_changes(first: dict, second: dict, first_name: str, second_name: str) -> str:
    """The parameters two records of one label (run.json's policy_parameters) disagree on, as
    one line's text: `aggression 1.0 then, 1.1 now`."""
    return ", ".join(
        f"{name} {first.get(name, 'absent')!r} {first_name}, {second.get(name, 'absent')!r} {second_name}"
        for name in dict.fromkeys([*first, *second])
        if first.get(name) != second.get(name)
    )


def is_external(label: str) -> bool:
    """Whether a policy label names an external bot (module:Object), without importing it."""
    return label.strip().partition(":")[0] not in (*REGISTRY, LEARNED)


def bot_name(label: str) -> str | None:
    """The `module:Object` a policy label would import (None: a built-in policy), read from the
    text alone."""
    if not is_external(label):
        return None
    return ":".join(label.strip().split(":")[:2])


def split_policy_list(text: str) -> list[str]:
    """Split `heuristic:aggression=1.1,crowding=0.2,random` into policies: a comma starts a new
    policy unless the next item is a key=value parameter."""
    items: list[str] = []
    for part in text.split(","):
        if items and "=" in part and ":" not in part:
            items[-1] += "," + part
        else:
            items.append(part)
    return [item.strip() for item in items]


def policy_list(text: str | list, players: int) -> list:
    """One policy (text or object) per seat: `text` is one for every seat, or a comma list (or
    a list) with exactly one per seat."""
    names = split_policy_list(text) if isinstance(text, str) else list(text)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ConfigError(f"got {len(names)} policies for {players} players: give one, or one per seat")
    return names


def parse_policies(text: str | list, players: int) -> list[Policy]:
    """One policy for every seat, or a comma list with exactly one per seat; a list may hold
    texts, Policy objects and Python policy objects (as_policy). Every text is checked before
    any module is imported."""
    names = policy_list(text, players)
    check_policy_texts(names)
    return [as_policy(name) for name in names]


def fallback_of(policy: Policy) -> Policy:
    """The built-in policy that plays a Python policy's delegated decisions (the policy itself
    for any other)."""
    return policy.kind.fallback if policy.kind.fallback is not None else policy


def external_bots(policies: list[Policy]) -> list[ExternalBot]:
    return [policy.kind.bot for policy in policies if policy.kind.bot is not None]


def learned_models(policies: list[Policy]) -> list[LearnedModel]:
    """The distinct models of the learned policies among `policies`."""
    seated = [fallback_of(policy) for policy in policies]  # a Python policy's fallback may be learned
    return list({policy.kind.model.digest: policy.kind.model for policy in seated if policy.kind.model is not None}.values())


def model_ids(models: list[LearnedModel]) -> dict[str, int]:
    """Policy id of each distinct model (by digest) of a run: FIRST_MODEL_ID, ... in digest
    order, so that every batch of the run (any seating) uses the same compiled engine."""
    return {digest: FIRST_MODEL_ID + index for index, digest in enumerate(sorted({model.digest for model in models}))}


def policy_arrays(policies: list[Policy]) -> tuple[np.ndarray, np.ndarray]:
    """The (policy id per seat, parameter row per seat) pair the kernels take; for a seating
    per game (kernels.seating), the same per listed policy (at least MAX_PLAYERS rows)."""
    rows = max(MAX_PLAYERS, len(policies))
    ids = np.zeros(rows, dtype=np.int64)
    params = np.zeros((rows, MAX_PARAMS), dtype=np.float64)
    bot_ids = external_ids(external_bots(policies))
    learned_ids = model_ids(learned_models(policies))
    for seat, policy in enumerate(policies):
        # A Python policy's seat is seated with its fallback, which plays the decisions the
        # bot does not take (and those it delegates) inside the kernels.
        policy = fallback_of(policy)
        if policy.kind.bot is not None:
            ids[seat] = bot_ids[policy.kind.name]
        elif policy.kind.model is not None:
            ids[seat] = learned_ids[policy.kind.model.digest]
        else:
            ids[seat] = policy.kind.policy_id
        params[seat, : len(policy.params)] = policy.params
    return ids, params
