"""The package layout of issues #13 and #36: `sim` is layered and its modules import only downward
(command line -> server -> estimate -> analysis -> training -> play -> OpenSpiel -> environments
-> runs -> storage -> engine -> statistics -> policies -> configuration -> kernels), with no cycles.

Imports are read from the source with `ast`, including those inside functions, so an import
deferred to run time (to save start-up time, or to hide a cycle) counts like any other."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Top to bottom. A module may import its own layer and the layers below it, never one above.
# `sim` itself (sim/__init__.py) is the public API: it gathers from every layer, and no module
# of the package imports it.
LAYERS = (
    "sim", "sim.cli", "sim.serve", "sim.estimation", "sim.analysis", "sim.learn", "sim.play", "sim.openspiel", "sim.env", "sim.runs", "sim.storage", "sim.engine", "sim.stats", "sim.policies", "sim.config", "kernels",
)  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path for package in ("sim", "kernels") for path in sorted((ROOT / package).rglob("*.py"))
}


def imported_modules(name: str) -> set[str]:
    """The modules of the project that module `name` imports, anywhere in its source."""
    tree = ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))
    package = name if MODULES[name].name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per extra dot
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from sim.analysis import report` imports the module sim.analysis.report.
            candidates = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for candidate in candidates:
            # `import sim.runs.games` names the module itself; its packages run too, but the
            # layer rules below apply to what a module names.
            while candidate and candidate not in MODULES:
                candidate = candidate.rpartition(".")[0]
            if candidate:
                found.add(candidate)
    found.discard(name)
    return found


GRAPH = {name: imported_modules(name) for name in MODULES}


def layer(name: str) -> int:
    """Index in LAYERS of the longest layer that is `name` or a package containing it."""
    matches = [index for index, prefix in enumerate(LAYERS) if name == prefix or name.startswith(prefix + ".")]
    return max(matches, key=lambda index: len(LAYERS[index]))


def test_the_architecture_page_lists_the_layers_in_this_order():
    """docs/architecture.md's "Layers" table names sim's folders top to bottom as LAYERS does."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## Layers") : text.index("Inside `kernels/`")]
    folders = re.findall(r"^\| [^|]+ \| `((?:sim|kernels)/[\w/]*)`", section, re.M)
    assert ["sim", *(folder.rstrip("/").replace("/", ".") for folder in folders)] == list(LAYERS)


def test_every_module_has_a_layer():
    assert {layer(name) for name in MODULES} <= set(range(len(LAYERS)))
    assert len(MODULES) > 20  # the walk found the packages


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_import_only_their_layer_or_below(name):
    upward = sorted(target for target in GRAPH[name] if layer(target) < layer(name))
    assert not upward, f"{name} ({LAYERS[layer(name)]}) imports a higher layer: {upward}"


def test_nothing_imports_the_public_api_package():
    assert not [name for name, targets in GRAPH.items() if "sim" in targets]


def test_no_package_of_sim_is_named_as_a_public_name():
    """Importing sim.NAME sets the attribute NAME of `sim` to that package: a package named as a
    public function (sim/estimate/ beside sim.estimate) would replace the function once imported."""
    tree = ast.parse(MODULES["sim"].read_text())
    public = next(ast.literal_eval(node.value) for node in tree.body
                  if isinstance(node, ast.Assign) and [target.id for target in node.targets] == ["__all__"])  # fmt: skip
    packages = {path.parent.name for path in (ROOT / "sim").glob("*/__init__.py")}
    assert packages and not packages & set(public)


def test_no_import_cycles():
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            cycle = path[path.index(name) :] + (name,)
            pytest.fail("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for target in sorted(GRAPH[name]):
            visit(target, path + (name,))
        done.add(name)

    for name in sorted(GRAPH):
        visit(name, ())


def test_the_checker_sees_imports_inside_functions():
    """sim.cli.main imports the Dask executor only when --engine dask is given."""
    assert "sim.runs.cluster" in GRAPH["sim.cli.main"]
    assert "sim.analysis.report" in GRAPH["sim.cli.report"]


# Inside kernels/, bottom to top (docs/architecture.md, "Inside kernels/"): a module may import
# its own layer and the layers below it. The packages' __init__ modules hold no code, but for
# kernels/__init__.py, which installs numba's cache stamps (kernels.cache_stamps) first.
KERNEL_LAYERS = (
    ("kernels", "kernels.cache_stamps", "kernels.cards", "kernels.bits", "kernels.rng", "kernels.blocks"),  # foundations
    ("kernels.records",),  # record layouts and constants
    ("kernels.rules",),  # one function per rule
    # the round as a state machine and its decision step; what a round leaves; a seat's view
    ("kernels.round_state", "kernels.results", "kernels.columns", "kernels.seating", "kernels.observation"),
    # a whole game's loop, given the function that plays a round; the policies' calls, unbound
    ("kernels.game_loop", "kernels.policy_calls"),
    # the policies below the posterior: they decide from the seat's own view, without search
    ("kernels.policies", "kernels.policies.ids", "kernels.policies.heuristic", "kernels.policies.random_policy",
     "kernels.policies.learned", "kernels.policies.without_search"),
    ("kernels.sequencer",),  # the fast path: rounds of built-in non-search seats (the decision step's twin)
    # search: equivalent cards, the perfect-information solver, the face-up playout; the posterior
    # (it models seats by the heuristic); the policies that search (they sample with it)
    ("kernels.search", "kernels.search.equivalence", "kernels.search.solver", "kernels.search.faceup"),
    ("kernels.search.posterior",),
    ("kernels.search.bid_evidence",),  # what finished rounds say about how each seat bids
    ("kernels.search.mc", "kernels.search.pimc"),
    ("kernels.dispatch",),  # a policy by id
    ("kernels.batch", "kernels.fast_games"),  # whole games (on the decision step; on the fast path)
    ("kernels.game_state", "kernels.estimate", "kernels.estimate.situation"),  # a game a decision at a time; a situation
    # drivers: estimate's rollouts, the Python-seat pool, the vector environment
    ("kernels.estimate.rollouts", "kernels.estimate.stepped", "kernels.estimate.proposals", "kernels.bot_pool",
     "kernels.chance_state",
     "kernels.vector_env", "kernels.learn", "kernels.learn.games"),
)  # fmt: skip
KERNEL_LAYER = {name: index for index, names in enumerate(KERNEL_LAYERS) for name in names}


def test_every_kernel_module_has_a_kernel_layer():
    unplaced = sorted(name for name in MODULES if name.startswith("kernels") and name not in KERNEL_LAYER)
    assert not unplaced, f"add these modules to KERNEL_LAYERS (and docs/architecture.md): {unplaced}"
    assert not sorted(set(KERNEL_LAYER) - set(MODULES)), "KERNEL_LAYERS names a module that does not exist"


@pytest.mark.parametrize("name", sorted(name for name in MODULES if name.startswith("kernels")))
def test_kernel_modules_import_only_their_layer_or_below(name):
    upward = sorted(target for target in GRAPH[name] if KERNEL_LAYER.get(target, -1) > KERNEL_LAYER.get(name, -1))
    assert not upward, f"{name} imports a higher kernel layer: {upward}"


def test_search_sits_above_the_policies_and_below_the_dispatch():
    """kernels/policies/ holds what sits below the posterior, kernels/search/ what sits above it
    (issue #36): no arrow runs back up from a policy to the search that uses it."""
    policies = [KERNEL_LAYER[name] for name in KERNEL_LAYER if name.startswith("kernels.policies")]
    search = [KERNEL_LAYER[name] for name in KERNEL_LAYER if name.startswith("kernels.search")]
    assert max(policies) < min(search) and max(search) < KERNEL_LAYER["kernels.dispatch"]
    assert {name for name in MODULES if name.startswith("kernels.search.")} == {
        f"kernels.search.{module}" for module in ("equivalence", "solver", "faceup", "posterior", "bid_evidence", "mc", "pimc")
    }


# The core: the rules, the round's and the game's state machines, the loops and the drivers'
# kernels. They ask the seated policies only through kernels.policy_calls, which an engine
# binds to the policies a run seats (sim.engine.policy_engine). The fast path's twins
# (kernels.sequencer, fast_games) are the random and heuristic policies' own loops, and
# estimate's kernels and OpenSpiel's resampling (chance_state) sample with the posterior:
# none of them is core.
CORE = ("kernels.records", "kernels.rules", "kernels.round_state", "kernels.results", "kernels.observation",
        "kernels.game_loop", "kernels.policy_calls", "kernels.batch", "kernels.game_state", "kernels.vector_env",
        "kernels.bot_pool")  # fmt: skip
POLICY_MODULES = {"kernels.dispatch"} | {
    name for name in MODULES if name.startswith(("kernels.policies.", "kernels.search.")) and name != "kernels.policies.ids"
}


def import_closure(name: str) -> set[str]:
    seen, pending = set(), [name]
    while pending:
        module = pending.pop()
        if module not in seen:
            seen.add(module)
            pending += GRAPH.get(module, ())
    return seen


@pytest.mark.parametrize("name", CORE)
def test_the_core_imports_no_policy(name):
    reached = sorted(import_closure(name) & POLICY_MODULES)
    assert not reached, f"{name} reaches policy modules {reached}: ask them through kernels.policy_calls"


def test_the_policies_state_is_their_own():
    """The core keeps no policy's state: a round's end is one unbound call
    (kernels.policy_calls.round_finished) that pimc binds to read the bids, and what pimc keeps
    of them is in its seats' own state (the workspace's seat_state, which the core only clears),
    never in the public table or another core record."""
    for name in ("kernels.batch", "kernels.game_state"):
        source = MODULES[name].read_text()
        assert "round_finished(" in source and "pimc" not in source, name
    for name in ("kernels.batch", "kernels.game_state", "kernels.game_loop", "kernels.records"):
        assert "bid_evidence" not in MODULES[name].read_text() and "BID_MODEL" not in MODULES[name].read_text(), name


def test_the_engine_layer_alone_runs_kernels_for_the_layers_above():
    """sim.config and sim.policies are validation only (they never import the engine, by the
    layers); the environments and analysis call kernels through sim.engine, not through sim.runs."""
    below = [LAYERS.index(name) for name in ("sim.runs", "sim.engine", "sim.policies", "sim.config")]
    assert below == sorted(below)
    assert not [target for name in GRAPH if name.startswith("sim.env") for target in GRAPH[name] if target.startswith("sim.runs")]
    for name in ("sim.estimation.run", "sim.estimation.bot_rollouts", "sim.estimation.slices", "sim.env.vector"):
        assert "sim.runs.games" not in GRAPH[name]
    assert {name for name in MODULES if name.startswith("sim.engine.")} == {
        f"sim.engine.{module}" for module in ("bot_caller", "calls", "policy_engine", "seating", "startup", "threads")
    }


# The kernels that step games a decision at a time, for callers in Python.
STEPPING_KERNELS = {"kernels.vector_env", "kernels.game_state", "kernels.bot_pool", "kernels.estimate.stepped"}


def names_imported_from(name: str, module: str) -> set[str]:
    """The names module `name` imports from `module` (`from module import a, b`)."""
    tree = ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == module
        for alias in node.names
    }


# What the bots' side may take from kernels.game_state: the layout of the turns, not a step.
TURN_LAYOUT = {"Turns", "OBSERVATION_DTYPE", "MASK_DTYPE"}


def test_games_are_stepped_from_python_only_by_the_drivers():
    """Issue #36: the modules that step games from Python are the environments (sim.env, and
    OpenSpiel's game on them), a run's games with Python seats (sim.runs.bot_games), estimate's
    samples with Python policies (sim.estimation.bot_rollouts) and play's game (sim.play.session);
    analysis ("what the games say") holds none.
    They all ask Python policies through one core, sim.engine.bot_caller.BotTable, which
    takes only the turns' layout from the kernels (it steps nothing)."""
    stepping = sorted(name for name in GRAPH if name.startswith("sim") and GRAPH[name] & STEPPING_KERNELS)
    allowed = ("sim.env.", "sim.play.session", "sim.estimation.bot_rollouts", "sim.openspiel.game",
               "sim.runs.bot_games", "sim.engine.bot_caller")
    assert [name for name in stepping if not name.startswith(allowed)] == []
    assert GRAPH["sim.engine.bot_caller"] & STEPPING_KERNELS == {"kernels.game_state"}
    assert names_imported_from("sim.engine.bot_caller", "kernels.game_state") <= TURN_LAYOUT
    assert not [name for name in MODULES if name.startswith("sim.analysis") and GRAPH[name] & STEPPING_KERNELS]
    asking = sorted(name for name in GRAPH if "sim.engine.bot_caller" in GRAPH[name])
    assert asking == ["sim.estimation.bot_rollouts", "sim.play.session", "sim.runs.bot_games"]


def test_the_batched_drivers_share_one_turn_core():
    """The Python-seat pool and estimate's stepped rollouts write each game's turn with one
    kernel (kernels.game_state.report_turn) into one layout (Turns), and their Python sides
    ask the bots for it with one method (BotTable.ask_turns on new_turns' buffers). One game
    held in a one-record array (the state API, OpenSpiel's game) is game_state's too: only
    the vector and Gymnasium environments use kernels.vector_env."""
    for kernel in ("kernels.bot_pool", "kernels.estimate.stepped"):
        assert "report_turn" in names_imported_from(kernel, "kernels.game_state"), kernel
        source = MODULES[kernel].read_text()
        assert "def observe(" not in source and "namedtuple(\"Turns\"" not in source, kernel
    for driver in ("sim.runs.bot_games", "sim.estimation.bot_rollouts"):
        source = MODULES[driver].read_text()
        assert ".ask_turns(" in source and "new_turns(" in source, driver
    users = sorted(name for name in GRAPH if name.startswith("sim") and "kernels.vector_env" in GRAPH[name])
    assert users == ["sim.env.gymnasium_env", "sim.env.vector"]


def test_built_in_policies_are_asked_only_inside_the_kernels():
    """Every driver has a built-in policy answer through kernels.game_state.policy_answer (play
    too, through the state API's policy_action): no module of sim calls the dispatch itself.
    sim.policies.registry reads its table of policies; sim.engine.policy_engine binds it."""
    calling = sorted(name for name in GRAPH if name.startswith("sim") and "kernels.dispatch" in GRAPH[name])
    assert calling == ["sim.engine.policy_engine", "sim.policies.registry"]
    assert names_imported_from("sim.policies.registry", "kernels.dispatch") == {"BUILT_IN"}


def test_each_thing_has_its_own_name():
    """Three things were called python_seats (issue #36): the pool's kernels (kernels.bot_pool),
    a run's games with Python policies (sim.runs.bot_games) and the seats of a list of policies
    held by Python policies (now Seating.python, sim.engine.seating). Two classes were called
    WizardGame and WizardState (issue #60): the state API's and OpenSpiel's game and state (now
    OpenSpielWizardGame and OpenSpielWizardState), and two named tuples Samples (issue #60):
    estimate's samples and the learner's teacher samples (now TeacherSamples). A class or named
    tuple's name means one thing in sim/ and kernels/."""
    assert not [name for name in MODULES if name.rpartition(".")[2] == "python_seats"]
    assert {"kernels.bot_pool", "sim.runs.bot_games", "sim.engine.seating"} <= set(MODULES)
    assert "def python_seats(" not in MODULES["sim.policies.registry"].read_text()
    defined: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ClassDef):
                defined.setdefault(node.name, []).append(name)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "namedtuple":
                defined.setdefault(node.targets[0].id, []).append(name)
    assert {cls: modules for cls, modules in defined.items() if len(modules) > 1} == {}
    assert defined["WizardState"] == ["sim.env.state_api"] and defined["OpenSpielWizardState"] == ["sim.openspiel.game"]


# What a folder may import beyond itself, for the folders whose table row in
# docs/architecture.md ("Folders") is narrower than the layers above allow.
FOLDER_IMPORTS = {
    # statistics compute from additive sums: no run machinery, storage, engine or kernels
    "sim.stats": ("sim.config.errors",),
    # estimate stores nothing and calls the kernels through the engine; the one run it plays is
    # its calibration's self-play (run_games)
    "sim.estimation": ("sim.play.session", "sim.runs.games", "sim.engine", "sim.stats", "sim.policies", "sim.config",
                       "kernels"),  # fmt: skip
    # configuration is values: the kernels' constants and layouts, no dispatch, policy or user module
    "sim.config": ("kernels.records", "kernels.cards", "kernels.observation"),
}


@pytest.mark.parametrize("folder", sorted(FOLDER_IMPORTS))
def test_folders_import_only_what_their_row_allows(folder):
    allowed = (folder, *FOLDER_IMPORTS[folder])
    inside = [name for name in MODULES if name == folder or name.startswith(folder + ".")]
    assert inside, f"{folder} holds no module"
    outside = sorted(
        f"{name} -> {target}" for name in inside for target in GRAPH[name]
        if not any(target == prefix or target.startswith(prefix + ".") for prefix in allowed)
    )
    assert not outside, f"{folder} may import only {allowed}: {outside}"


# The script folders (docs/architecture.md, "Folders"): packages run as `python -m FOLDER.NAME`
# from the repository root, which import the project and the folders named here, never tests/,
# and never edit sys.path to reach them.
SCRIPT_FOLDERS = {
    "benchmarks": ("sim", "kernels", "benchmarks"),
    "experiments": ("sim", "kernels", "benchmarks", "experiments"),
}
PROJECT_NAMES = {"sim", "kernels", "benchmarks", "experiments", "tests", "examples", "results", "notebooks"}
TEST_MODULES = {path.stem for path in (ROOT / "tests").glob("*.py")} | {"bots"}
SCRIPTS = sorted(path for folder in SCRIPT_FOLDERS for path in (ROOT / folder).glob("*.py"))


def top_level_imports(path: Path) -> set[str]:
    """The first name of every absolute import in the file, anywhere in its source."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.partition(".")[0])
    return names


def edits_sys_path(path: Path) -> bool:
    """Whether the file touches sys.path (sys.path.insert(...), sys.path = ...)."""
    return any(
        isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "sys"
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
    )


def test_the_script_folders_are_packages():
    assert all((ROOT / folder / "__init__.py").exists() for folder in SCRIPT_FOLDERS)
    assert len(SCRIPTS) > 20  # the walk found the scripts


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_scripts_import_the_project_and_no_tests(path):
    folder = path.parent.name
    project = top_level_imports(path) & (PROJECT_NAMES | TEST_MODULES)
    outside = sorted(project - set(SCRIPT_FOLDERS[folder]))
    assert not outside, f"{path.relative_to(ROOT)} may import only {SCRIPT_FOLDERS[folder]}, imports {outside}"
    assert not edits_sys_path(path), f"{path.relative_to(ROOT)} edits sys.path: run it as python -m {folder}.{path.stem}"
