"""The freshness stamp of numba's on-disk cache: a function's compiled code is reused only while
every kernel source it can contain is unchanged.

numba stamps a cached function with its own source file alone, yet the compiled code also holds
every jitted function it calls (numba links the callees in), so an edit of `kernels/rules.py`
would leave every kernel that calls a rule stale: silently other rules. This module gives numba
a cache locator (`ClosureLocator`) that stamps a function with the digest of the sources it can
contain, wherever the cache lives (next to the sources, or under NUMBA_CACHE_DIR):

- the **import closure** of its module: the kernel modules it imports, their imports, and so on
  (with the packages' `__init__` files);
- and, for a function that takes jitted functions as arguments (a `decide` or a value function
  handed down to a shared loop), the import closure of every module whose functions are passed
  to it, directly or through other functions' parameters (`function_arguments`).

So an edit invalidates exactly the functions whose code can contain the edited file: editing
`kernels/search/pimc.py` recompiles what imports pimc, and the loops pimc's functions are passed
to, and nothing else; editing `kernels/rules.py` recompiles everything that calls a rule. A
jitted function outside `kernels/` (a benchmark's, a test's, an example bot's) is stamped the
same way: its own file and the closure of the kernel modules it imports. A file that imports no
kernel module is left to numba's own locators.

This is the package's one module that is not a kernel: numba consults it while it decorates
(`kernels/__init__.py` installs it before any kernel module is imported). It reads the package's
own source files, never data, and writes nothing; the graph is read once per process.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path

from numba.core import caching, config

PACKAGE = "kernels"
ROOT = Path(__file__).resolve().parent.parent  # the folder that holds the package


def module_name(path: Path, root: Path = ROOT) -> str | None:
    """The dotted name of a kernel source file under `root` (None outside the package)."""
    try:
        relative = path.resolve().relative_to(root)
    except ValueError:
        return None
    if relative.parts[0] != PACKAGE:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def kernel_sources(root: Path = ROOT) -> dict[str, Path]:
    """Every kernel module under `root` by dotted name."""
    package = root / PACKAGE
    return {name: path for path in sorted(package.rglob("*.py")) if (name := module_name(path, root)) is not None}


def _with_packages(name: str) -> set[str]:
    """A module and the packages above it (importing it runs their `__init__`)."""
    parts = name.split(".")
    return {".".join(parts[: length]) for length in range(1, len(parts) + 1)}


def _statements(nodes: list[ast.stmt]):
    """Every statement of `nodes` and of the blocks inside them (function bodies included),
    without walking into expressions: imports are statements, and the graph is read in every
    process."""
    for node in nodes:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)


class _ModuleReading:
    """What one source file says: the kernel modules it imports, its top-level functions, and
    the local names that stand for kernel modules or their functions."""

    def __init__(self, tree: ast.Module, modules: dict[str, Path]) -> None:
        self.imports: set[str] = set()
        self.names: dict[str, tuple[str, str | None]] = {}  # local name -> (module, function or None)
        self.functions: dict[str, ast.FunctionDef] = {
            node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)
        }
        for node in _statements(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == PACKAGE and alias.name in modules:
                        self.imports |= _with_packages(alias.name)
                        if alias.asname:
                            self.names[alias.asname] = (alias.name, None)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module.split(".")[0] != PACKAGE or node.module not in modules:
                    continue
                self.imports |= _with_packages(node.module)
                for alias in node.names:
                    local = alias.asname or alias.name
                    submodule = f"{node.module}.{alias.name}"
                    if submodule in modules:
                        self.imports |= _with_packages(submodule)
                        self.names[local] = (submodule, None)
                    else:
                        self.names[local] = (node.module, alias.name)


class KernelGraph:
    """The kernels' imports and the jitted functions passed as arguments, read from the sources."""

    def __init__(self, root: Path = ROOT) -> None:
        self.modules = modules = kernel_sources(root)
        self.readings = {name: _ModuleReading(ast.parse(path.read_bytes()), modules) for name, path in modules.items()}
        self.passed = self._function_arguments()

    @functools.lru_cache(maxsize=None)
    def import_closure(self, name: str) -> frozenset[str]:
        """`name`, every kernel module it imports, theirs, and so on."""
        seen, pending = set(), [*_with_packages(name)]
        while pending:
            module = pending.pop()
            if module in seen or module not in self.readings:
                continue
            seen.add(module)
            pending += self.readings[module].imports
        return frozenset(seen)

    def _resolve(self, module: str, node: ast.expr) -> tuple[str, str] | None:
        """The (module, function) a name or attribute in `module` stands for, if it is a
        top-level function of a kernel module."""
        reading = self.readings[module]
        if isinstance(node, ast.Name):
            if node.id in reading.functions:
                return module, node.id
            target = reading.names.get(node.id)
            if target and target[1] is not None and target[1] in self.readings[target[0]].functions:
                return target[0], target[1]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = reading.names.get(node.value.id)
            if target and target[1] is None and node.attr in self.readings[target[0]].functions:
                return target[0], node.attr
        return None

    def _function_arguments(self) -> dict[tuple[str, str], set[str]]:
        """(module, function) -> the modules whose jitted functions reach it as an argument,
        passed directly by a caller or through the caller's own parameters (to a fixed point)."""
        # Each call's arguments once: (callee parameter key, module passed, or the caller's
        # parameter key whose functions pass through).
        edges: list[tuple[tuple[str, str, str], str | None, tuple[str, str, str] | None]] = []
        for module, reading in self.readings.items():
            for caller_name, caller in reading.functions.items():
                parameters = {argument.arg for argument in caller.args.args}
                for call in (node for node in ast.walk(caller) if isinstance(node, ast.Call)):
                    callee = self._resolve(module, call.func)
                    if callee is None:
                        continue
                    definition = self.readings[callee[0]].functions[callee[1]]
                    names = [argument.arg for argument in definition.args.args]
                    for parameter, value in [*zip(names, call.args), *((word.arg, word.value) for word in call.keywords)]:
                        key = (*callee, parameter)
                        if (function := self._resolve(module, value)) is not None:
                            edges.append((key, function[0], None))
                        elif isinstance(value, ast.Name) and value.id in parameters:
                            edges.append((key, None, (module, caller_name, value.id)))
        passed: dict[tuple[str, str, str], set[str]] = {}
        changed = True
        while changed:
            changed = False
            for key, source, through in edges:
                sources = {source} if source is not None else passed.get(through, set())
                if sources - passed.get(key, set()):
                    passed.setdefault(key, set()).update(sources)
                    changed = True
        result: dict[tuple[str, str], set[str]] = {}
        for (module, function, _), sources in passed.items():
            result.setdefault((module, function), set()).update(sources)
        return result

    def contents(self, module: str, function: str | None) -> frozenset[str]:
        """The kernel modules whose code a compiled function of `module` can contain: the
        module's import closure and that of every module whose functions are passed to it. A
        function the sources do not define at top level (one made by a factory, such as
        kernels.blocks.parallel_and_serial's) counts whatever reaches any function of its module."""
        if function in self.readings[module].functions:
            sources = self.passed.get((module, function), set())
        else:
            sources = set().union(*(found for (owner, _), found in self.passed.items() if owner == module))
        closure = set(self.import_closure(module))
        for source in sources:
            closure |= self.import_closure(source)
        return frozenset(closure)

    @functools.lru_cache(maxsize=None)
    def digest(self, modules: frozenset[str]) -> str:
        """SHA-256 over the modules' names and source bytes."""
        hashed = hashlib.sha256()
        for module in sorted(modules):
            hashed.update(module.encode() + b"\0" + self.modules[module].read_bytes() + b"\0")
        return hashed.hexdigest()


@functools.lru_cache(maxsize=1)
def kernel_graph() -> KernelGraph:
    return KernelGraph()


@functools.lru_cache(maxsize=None)
def _outside_imports(path: str, modified: int, size: int) -> frozenset[str]:
    """The kernel modules a source file outside the package imports (keyed by its modification
    time and size, so that an edited file is read again)."""
    reading = _ModuleReading(ast.parse(Path(path).read_bytes()), kernel_graph().modules)
    return frozenset(reading.imports)


def stamp(py_file: str, function: str) -> str | None:
    """The freshness stamp of `function` defined in `py_file`; None for a file that imports no
    kernel module (numba's own stamp serves it)."""
    graph = kernel_graph()
    name = module_name(Path(py_file))
    if name in graph.readings:
        return graph.digest(graph.contents(name, function))
    status = os.stat(py_file)
    imported = _outside_imports(py_file, status.st_mtime_ns, status.st_size)
    if not imported:
        return None
    closure = frozenset().union(*(graph.import_closure(module) for module in imported))
    return hashlib.sha256(Path(py_file).read_bytes() + graph.digest(closure).encode()).hexdigest()


class ClosureLocator(caching._CacheLocator):
    """numba's own locator for the function (the cache directory and file names numba would
    use), with the stamp of `stamp`: the sources of every kernel module its code can contain."""

    def __init__(self, base: caching._CacheLocator, source_stamp: str) -> None:
        self._base = base
        self._stamp = source_stamp

    def ensure_cache_path(self) -> None:
        self._base.ensure_cache_path()

    def get_cache_path(self) -> str:
        return self._base.get_cache_path()

    def get_source_stamp(self) -> str:
        return self._stamp

    def get_disambiguator(self) -> str:
        return self._base.get_disambiguator()

    @classmethod
    def from_function(cls, py_func, py_file: str) -> "ClosureLocator | None":
        if not os.path.exists(py_file):
            return None
        try:
            source_stamp = stamp(py_file, py_func.__name__)
        except (OSError, SyntaxError, ValueError):
            return None  # not a source this module can read: numba's own stamp serves it
        if source_stamp is None:
            return None
        for locator_class in NUMBA_LOCATORS:
            base = locator_class.from_function(py_func, py_file)
            if base is not None:
                return cls(base, source_stamp)
        return None


# numba's locators in numba's order, which ClosureLocator defers to for where a cache lives.
NUMBA_LOCATORS = [locator for locator in caching.CacheImpl._locator_classes if locator is not ClosureLocator]
LOCATOR_PATH = f"{__name__}.ClosureLocator"


def install() -> None:
    """Put ClosureLocator first among numba's cache locators (idempotent; sets no environment
    variable and writes no file). A user's NUMBA_CACHE_LOCATOR_CLASSES keeps its locators for
    the files this one leaves to numba."""
    if ClosureLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, ClosureLocator)
    chosen = getattr(config, "CACHE_LOCATOR_CLASSES", None)
    if chosen and LOCATOR_PATH not in chosen.split(","):
        config.CACHE_LOCATOR_CLASSES = f"{LOCATOR_PATH},{chosen}"
