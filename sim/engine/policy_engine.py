"""The engine: the kernels' entry points compiled for the policies a run seats.

The core kernels ask the seated policies through two unbound calls (kernels.policy_calls:
`decide`, `round_finished`) and import no policy. An engine binds them: every jitted
function that reaches them, directly or through other jitted functions, is recompiled from
its Python source with the dispatch over the policies compiled in (`rebind`), which are

- the built-in policies seated, with `random` and `heuristic` (every engine's: fallbacks
  and the cheap opponents), and every built-in policy whose module a seated one imports
  (pimc plays mc's rounds): `compiled_policies`. So an engine of heuristic seats compiles no
  search, and one with pimc compiles pimc's closure and not another policy's;
- the numba bots seated (sim.policies.external_bots), each answering for its external id;
- the learned models seated (sim.policies.learned_models), each answering for its id with its weights
  bound as constants of the compiled code (`model_calls`).

Every kind reaches the dispatch the same way, as one kernels.dispatch.PolicyCalls: a built-in
policy's module, a bot (`bot_calls`) or a model (`model_calls`) adapted to its `decide`.

The copies are cached on disk (engine_cache), stamped with the sources they can contain, so
only the first process with a given set of policies pays the compile, and an edit of one
policy's sources recompiles only the engines that seat it.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import marshal
import os
import re
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
from numba import njit
from numba.core.caching import CompileResultCacheImpl, FunctionCache, NullCache, _CacheLocator
from numba.core.dispatcher import Dispatcher
from numba.misc.appdirs import AppDirs

from kernels import dispatch, policy_calls
from kernels.policies import learned
from kernels.cache_stamps import kernel_graph, module_name
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_RANDOM
from kernels.records import DECIDE_BID, DECIDE_CARD, DECIDE_TRUMP
from sim.policies.external_bots import ExternalBot, external_ids
from sim.policies.learned_models import LearnedModel
from sim.policies.registry import model_ids

BOT_FUNCTION_OF_DECISION = {DECIDE_BID: "bid", DECIDE_TRUMP: "choose_trump", DECIDE_CARD: "play"}
CACHE_DIR_VARIABLE = "WIZARD_SIM_CACHE_DIR"  # where compiled engines are kept
KERNELS = Path(inspect.getfile(dispatch)).resolve().parent  # the kernels package
# Compiled into every engine: the fallback of Python policies and the cheap opponents.
ALWAYS_COMPILED = (POLICY_RANDOM, POLICY_HEURISTIC)


def bot_calls(bot: ExternalBot, policy_id: int) -> dispatch.PolicyCalls:
    """A numba bot as the dispatch takes a policy, for its seats (`policy_id`): in the built-in
    form its own `decide`, and its `round_finished` called for each of its seats; else a
    `decide` that asks the bot's function of the decision with the seat's parameter row."""
    if bot.decides:
        hook = bot.round_finished
        return dispatch.PolicyCalls(policy_id, bot.bot.decide, None if hook is None else _each_seat(hook, policy_id))
    bid, choose_trump, play = bot.jitted  # BOT_FUNCTIONS, in their order

    @njit(inline="always")
    def decide(decision, policies, me, table, legal, generator):
        row = policies.params[me.seat]
        if decision == DECIDE_BID:
            return bid(me, table, legal, row, generator)
        if decision == DECIDE_TRUMP:
            return choose_trump(me, table, row, generator)
        return play(me, table, legal, row, generator)

    return dispatch.PolicyCalls(policy_id, decide)


def _each_seat(hook: Dispatcher, policy_id: int):
    """round_finished(policies, table) that calls a bot's hook(policies, table, seat) for each of
    its seats (a bot does not know the id its seats have in a run)."""

    @njit(inline="always")
    def round_finished(policies, table):
        for seat in range(table.n_players):
            if policies.ids[seat] == policy_id:
                hook(policies, table, seat)

    return round_finished


def model_calls(model: LearnedModel, policy_id: int) -> dispatch.PolicyCalls:
    """A learned model as the dispatch takes a policy: its seats (`policy_id`) play the learned
    policy with the model's weights (bound as constants of the compiled code)."""
    bid_w1, bid_b1, bid_w2, bid_b2, bid_w3, bid_b3, play_w1, play_b1, play_w2, play_b2, play_w3, play_b3 = model.weights

    @njit(inline="always")
    def decide(decision, policies, me, table, legal, generator):
        weights = (bid_w1, bid_b1, bid_w2, bid_b2, bid_w3, bid_b3, play_w1, play_b1, play_w2, play_b2, play_w3, play_b3)
        return learned.decide(decision, me, table, legal, weights)

    return dispatch.PolicyCalls(policy_id, decide)


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


@dataclass
class _Engine:
    """One set of policies' engine in this process: the jitted calls its copies bind
    (replacements), the copies made so far (memo: original -> copy), its on-disk cache (None:
    not writable) and the tag its copies' names carry."""

    replacements: dict
    memo: dict
    cache: EngineCache | None
    tag: str


def rebind(function: Dispatcher, engine: _Engine) -> Dispatcher:
    """`function`, recompiled wherever it reaches a replaced jitted function; a recompiled copy
    of a cached function is cached in the engine's cache (if any)."""
    if function in engine.replacements:
        return engine.replacements[function]
    if function in engine.memo:
        return engine.memo[function]
    source = function.py_func
    engine.memo[function] = function  # co_names also lists attribute names, which may repeat this name
    overrides = {}
    for name in _global_names(source.__code__):
        value = source.__globals__.get(name)
        if isinstance(value, Dispatcher):
            rebound = rebind(value, engine)
            if rebound is not value:
                overrides[name] = rebound
    if not overrides:
        return function
    copy = types.FunctionType(
        source.__code__, {**source.__globals__, **overrides}, source.__name__, source.__defaults__, source.__closure__
    )
    # numba links compiled code by name: its module, its qualified name and a number counted per
    # process. Named as its original, a copy compiled in one process could take the name of
    # another engine's copy (or of the original) compiled in another, and once both were loaded
    # from the cache one engine ran the other's code. The engine's tag keeps the names apart.
    copy.__qualname__ = f"{source.__qualname__}__{engine.tag}"
    options = {key: value for key, value in function.targetoptions.items() if key != "nopython"}  # njit implies it
    rebound = njit(**options)(copy)
    if engine.cache is not None and not isinstance(function._cache, NullCache):
        engine.cache.attach(rebound, function)
    engine.memo[function] = rebound
    return rebound


# --- the on-disk cache of rebound engines -----------------------------------------------
#
# numba's own cache cannot hold a rebound copy: it files a function under its source file
# and line, which the copy shares with the built-in original, and checks only that file.
# An engine's entry is filed instead under a name made of the original's identity and the
# bots' identity (their paths and files), and stamped with a digest of everything compiled
# into it: the kernels package, the source files and global values the bots' jitted code
# reaches, and the Python and numba versions. A changed stamp makes numba recompile (and
# overwrite the entry), so an edited bot or kernel never loads a stale engine.


def cache_directory() -> Path:
    """$WIZARD_SIM_CACHE_DIR, else $NUMBA_CACHE_DIR/wizard-sim, else the user's cache
    directory (~/.cache/wizard-sim on Linux); compiled engines go to its engines/."""
    if os.environ.get(CACHE_DIR_VARIABLE):
        root = Path(os.environ[CACHE_DIR_VARIABLE])
    elif numba.config.CACHE_DIR:
        root = Path(numba.config.CACHE_DIR) / "wizard-sim"
    else:
        root = Path(AppDirs(appname="wizard-sim", appauthor=False).user_cache_dir)
    return root.expanduser() / "engines"


@functools.lru_cache(maxsize=None)
def _file_digest(path: str, modified: float, size: int) -> str:
    """Keyed by the file's modification time and size too, so that an edit is read again."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _digest_of_file(path: str) -> str:
    try:
        status = os.stat(path)
    except OSError:  # not a file (e.g. <string>): its code is known only by its bytecode
        return "missing"
    return _file_digest(path, status.st_mtime, status.st_size)


def _value_digest(value: object) -> str | None:
    """A digest of a global value numba freezes into compiled code (None: not such a value)."""
    if isinstance(value, np.ndarray):
        layout = f"{value.dtype.str}{value.shape}".encode()
        return hashlib.sha256(layout + np.ascontiguousarray(value).tobytes()).hexdigest()
    if isinstance(value, tuple):
        parts = [_value_digest(item) for item in value]
        return None if None in parts else hashlib.sha256(repr(parts).encode()).hexdigest()
    if isinstance(value, (bool, int, float, complex, str, bytes, np.generic, np.dtype)):
        return repr(value)
    return None


def _read_values(function: Dispatcher) -> list[tuple[str, object]]:
    """The (name, value) of the globals, module attributes and closure cells `function` reads."""
    source = function.py_func
    names = _global_names(source.__code__)
    read = [(name, source.__globals__[name]) for name in sorted(names) if name in source.__globals__]
    attributes = [  # module.NAME, Class.function(...): co_names holds the attribute names too
        (f"{name}.{attribute}", getattr(value, attribute))
        for name, value in read
        if isinstance(value, (types.ModuleType, type))
        for attribute in sorted(names)
        if hasattr(value, attribute)
    ]
    cells = [(f"<closure {index}>", cell.cell_contents) for index, cell in enumerate(source.__closure__ or ())]
    return read + attributes + cells


def reached_functions(functions: list[Dispatcher]) -> list[Dispatcher]:
    """Every jitted function reached from `functions` (through globals, module attributes and
    closures), `functions` first."""
    reached: list[Dispatcher] = []
    pending, seen = list(reversed(functions)), set()
    while pending:
        function = pending.pop()
        if id(function) not in seen:
            seen.add(id(function))
            reached.append(function)
            pending += reversed([value for _, value in _read_values(function) if isinstance(value, Dispatcher)])
    return reached


def reached_code(functions: list[Dispatcher]) -> tuple[set[str], list[str]]:
    """The source files of every jitted function reached from `functions`, and a description
    of their code and of the global values they read (numba freezes those into the compiled
    code)."""
    files: set[str] = set()
    described: list[str] = []
    for function in reached_functions(functions):
        source = function.py_func
        files.add(os.path.abspath(inspect.getfile(source)))
        code = hashlib.sha256(marshal.dumps(source.__code__)).hexdigest()
        described.append(f"{source.__qualname__}:{code}")
        for name, value in _read_values(function):
            if isinstance(value, types.FunctionType):  # e.g. numba.extending.register_jitable
                files.add(os.path.abspath(inspect.getfile(value)))
            elif not isinstance(value, Dispatcher) and (digest := _value_digest(value)) is not None:
                described.append(f"{source.__qualname__}.{name}={digest}")
    return files, described


# --- a bot's failures, in one line ------------------------------------------------------


def function_place(function: Dispatcher) -> str:
    """`file.py:line` of a jitted function's `def` line (after its decorators)."""
    source = function.py_func
    try:
        lines, first = inspect.getsourcelines(source)
    except (OSError, TypeError):
        lines, first = [], source.__code__.co_firstlineno
    offset = next((index for index, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    return f"{Path(inspect.getfile(source)).name}:{first + offset}"


def _lines_of(function: Dispatcher) -> tuple[str, range]:
    source = function.py_func
    try:
        lines, first = inspect.getsourcelines(source)
    except (OSError, TypeError):
        lines, first = [], source.__code__.co_firstlineno
    return os.path.abspath(inspect.getfile(source)), range(first, first + len(lines))


# numba's compile errors quote each function of the failing chain as `File "path", line N:`
# followed by its source line, innermost first.
_QUOTED_LINE = re.compile(r'^File "(?P<path>[^"]+)", line (?P<line>\d+):\n(?:.*\n)*?(?P<code>.*)\n\s*\^', re.MULTILINE)


def compile_failure(bots: list[ExternalBot], error: Exception) -> str:
    """One line for a numba compile error in the engine of `bots`: the bot whose own code the
    error points at, numba's reason, and the bot's file:line and source line."""
    text = str(error)
    reason_lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("Failed in ")]
    reason = reason_lines[0] if reason_lines else type(error).__name__
    if reason.endswith(":") and len(reason_lines) > 1:  # e.g. "... found for signature:" and the signature
        reason = f"{reason} {reason_lines[1].lstrip('>').strip()}"
    own_lines = {  # the bots' own functions: not the kernels they call
        bot.path: [_lines_of(function) for function in reached_functions(bot.jitted)
                   if not Path(inspect.getfile(function.py_func)).resolve().is_relative_to(KERNELS)]
        for bot in bots
    }  # fmt: skip
    for match in _QUOTED_LINE.finditer(text):
        path, line = os.path.abspath(match["path"]), int(match["line"])
        for bot_path, ranges in own_lines.items():
            if any(path == file and line in lines for file, lines in ranges):
                place = f"{Path(path).name}:{line}: {match['code'].strip()}"
                return f"policy {bot_path} does not compile: {reason} ({place})"
    labels = ", ".join(dict.fromkeys(bot.path for bot in bots))
    return f"an external bot does not compile: {reason} (bots: {labels})"


class _EngineLocator(_CacheLocator):
    """Where and under which stamp a rebound engine's entries are kept."""

    def __init__(self, directory: Path, stamp: str, original: Dispatcher) -> None:
        self._directory = str(directory)
        self._stamp = stamp
        self._py_file = inspect.getfile(original.py_func)  # named in numba's can't-cache warnings

    def get_cache_path(self) -> str:
        return self._directory

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        raise NotImplementedError  # the filename base is set whole by _EngineCacheImpl


class _EngineCacheImpl(CompileResultCacheImpl):
    def __init__(self, py_func, *, locator: _EngineLocator, filename_base: str) -> None:  # noqa: ANN001
        # Not CacheImpl.__init__: it would look the locator up by the source file.
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        self._filename_base = filename_base


class _EngineFunctionCache(FunctionCache):
    def __init__(self, py_func, locator: _EngineLocator, filename_base: str) -> None:  # noqa: ANN001
        self._impl_class = functools.partial(_EngineCacheImpl, locator=locator, filename_base=filename_base)
        super().__init__(py_func)


@dataclass(frozen=True)
class EngineCache:
    """The cache of one engine (a set of policies): `name` tells it apart from other sets and
    other checkouts (its entries' file names), `stamp` says whether an entry is up to date
    with the code of its policies; each entry adds the stamp of its own function's sources
    (kernels.cache_stamps: the import closure of its module)."""

    directory: Path
    name: str
    stamp: str

    def attach(self, rebound: Dispatcher, original: Dispatcher) -> None:
        """Cache `rebound`, the copy of `original`, here (as numba's enable_caching would)."""
        source = original.py_func
        path = inspect.getfile(source)
        module = Path(path).stem
        identity = f"{module}.{source.__qualname__}-{source.__code__.co_firstlineno}".replace("<", "").replace(">", "")
        python = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
        own = _function_stamp(path, source.__name__)
        stamp = hashlib.sha256(f"{self.stamp}\n{own}".encode()).hexdigest()
        locator = _EngineLocator(self.directory, stamp, original)
        rebound._cache = _EngineFunctionCache(rebound.py_func, locator, f"{identity}-{self.name}.{python}")


def _function_stamp(path: str, function: str) -> str:
    """The sources a kernel function's own code can contain (kernels.cache_stamps), or its
    file's bytes for a function outside the package."""
    if module_name(Path(path)) is not None:
        return kernel_graph().digest(kernel_graph().contents(module_name(Path(path)), function))
    return f"{path}:{_digest_of_file(path)}"


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def compiled_policies(seated: tuple[int, ...]) -> tuple[int, ...]:
    """The built-in policies an engine seating `seated` compiles in: those, ALWAYS_COMPILED,
    and every built-in whose module a compiled one imports (its code is in the engine anyway),
    so that the engines of a suite or a user's runs come in a few sizes."""
    graph = kernel_graph()
    modules = {policy_id: module.__name__ for policy_id, module in dispatch.BUILT_IN}
    chosen = set(seated) | set(ALWAYS_COMPILED)
    closure = set().union(*(graph.import_closure(modules[policy_id]) for policy_id in chosen))
    return tuple(sorted(policy_id for policy_id, module in modules.items() if policy_id in chosen or module in closure))


def engine_cache(bots: list[ExternalBot], built_in: tuple[int, ...], models: tuple[str, ...] = ()) -> EngineCache | None:
    """The on-disk cache of the engine of `bots` and of the learned models of digests `models`
    beside the built-in policies `built_in` (None if the cache directory is not writable: the
    engine is then compiled in every process, as without a cache). Its stamp covers the
    dispatch's own source, the import closure of the policies compiled in (the learned
    policy's with a model), and the code the bots reach; its name, the models' digests (their
    weights are compiled in)."""
    directory = cache_directory()
    if not _writable(directory):
        return None
    graph = kernel_graph()
    modules = dict(dispatch.BUILT_IN)
    policy_sources = set().union(*(graph.import_closure(modules[policy_id].__name__) for policy_id in built_in))
    if models:
        policy_sources |= graph.import_closure(learned.__name__)
    own = {dispatch.__name__, policy_calls.__name__}  # their own bytes: dispatch imports every policy
    identity = [f"built-in {list(built_in)}", str(KERNELS)]  # one checkout's entries never replace another's
    identity += [f"model {digest}" for digest in models]
    # This module's own bytes too: how it copies and names the kernels is in every entry.
    stamp = [f"numba {numba.__version__}", sys.version, graph.digest(frozenset(policy_sources | own)),
             f"engine {_digest_of_file(__file__)}"]  # fmt: skip
    by_path = {bot.path: bot for bot in bots}
    for path, policy_id in external_ids(bots).items():
        files, values = reached_code(by_path[path].jitted)
        identity.append(f"{policy_id} {path} {sorted(files)}")
        stamp += [f"{policy_id} {path}", *values]
        stamp += [f"{file}:{_digest_of_file(file)}" for file in sorted(files)]
    digest = hashlib.sha256("\n".join(identity).encode()).hexdigest()[:20]
    return EngineCache(directory, digest, hashlib.sha256("\n".join(stamp).encode()).hexdigest())


_ENGINES: dict[tuple, _Engine] = {}


def compiled_engine(
    entry: Dispatcher, seated: tuple[int, ...], bots: list[ExternalBot] = (), models: list[LearnedModel] = ()
) -> Dispatcher:
    """The kernel entry point `entry`, compiled with the built-in policies `seated` (their ids:
    the run's seats, and its Python policies' fallbacks; compiled_policies adds what they
    need), the numba `bots`, each answering for its external id, and the learned `models`,
    each for its id (sim.policies.registry.model_ids). Compiled on the first call
    (tens of seconds) or loaded from the on-disk cache of an earlier process with the same
    policies and code (engine_cache)."""
    bots = list(bots)
    ids = external_ids(bots)
    by_path = {bot.path: bot for bot in bots}
    learned_ids = model_ids(list(models))
    by_digest = {model.digest: model for model in models}
    built_in = compiled_policies(tuple(int(policy_id) for policy_id in seated))
    key = (tuple(ids), built_in, tuple(learned_ids))
    if key not in _ENGINES:
        calls = dispatch.built_in_calls(built_in)
        calls += [bot_calls(by_path[path], policy_id) for path, policy_id in ids.items()]
        calls += [model_calls(by_digest[digest], policy_id) for digest, policy_id in learned_ids.items()]
        replacements = {policy_calls.decide: dispatch.decide_of(calls), policy_calls.round_finished: dispatch.round_finished_of(calls)}
        tag = "engine_" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]  # one per set of policies
        _ENGINES[key] = _Engine(replacements, {}, engine_cache(bots, built_in, tuple(learned_ids)), tag)
    return rebind(entry, _ENGINES[key])
