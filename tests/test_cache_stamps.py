"""numba's cache serves a kernel only while every kernel source its code can contain is
unchanged (kernels/cache_stamps.py): its module's import closure, and the closures of the
modules whose functions are passed to it. Checked on the sources' graph, on a scratch copy of
the package with an edited source, and end to end in fresh processes, with the cache next to
the sources and under NUMBA_CACHE_DIR."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import cache_stamps
from kernels.cache_stamps import ClosureLocator, KernelGraph

ROOT = Path(__file__).resolve().parent.parent


def short(modules: frozenset[str]) -> set[str]:
    return {module.removeprefix("kernels.") for module in modules}


def test_a_rule_contains_only_what_it_imports():
    graph = cache_stamps.kernel_graph()
    assert short(graph.contents("kernels.rules", "legal_bids")) == {"kernels", "cache_stamps", "bits", "cards", "records", "rng", "rules"}
    assert "search.pimc" not in short(graph.contents("kernels.round_state", "apply_bid"))
    # the fast path's games reach no searching policy: a run of heuristic seats stays cached
    assert not {"dispatch", "search.mc", "search.pimc"} & short(graph.contents("kernels.fast_games", "play_games"))


def test_a_loop_contains_the_functions_passed_to_it():
    """round_state.play_out is compiled with the core's unbound policy call (kernels.policy_calls,
    which an engine binds: sim.engine.policy_engine) and with mc's rollout policy, so an edit of
    pimc leaves it cached; mc.sampled_choice is compiled with pimc's value functions; neither
    module imports them."""
    graph = cache_stamps.kernel_graph()
    assert "kernels.search.pimc" not in graph.import_closure("kernels.round_state")
    assert {"policy_calls", "search.mc"} <= short(graph.contents("kernels.round_state", "play_out"))
    assert not {"dispatch", "search.pimc"} & short(graph.contents("kernels.round_state", "play_out"))
    assert "kernels.search.pimc" not in graph.import_closure("kernels.search.mc")
    assert "search.pimc" in short(graph.contents("kernels.search.mc", "sampled_choice"))
    # passed on through a parameter: play_until hands its `decide` to decided
    assert {"policy_calls", "search.faceup"} <= short(graph.contents("kernels.round_state", "decided"))


def scratch_package(tmp_path: Path) -> Path:
    """A copy of the kernels package (no caches) under tmp_path/tree."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "kernels", tree / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_an_edit_changes_the_stamps_of_exactly_what_contains_it(tmp_path):
    tree = scratch_package(tmp_path)
    cases = {
        "rules": ("kernels.rules", "legal_bids"),
        "apply_bid": ("kernels.round_state", "apply_bid"),
        "play_out": ("kernels.round_state", "play_out"),
        "fast path": ("kernels.sequencer", "play_on"),
        "fast games": ("kernels.fast_games", "play_games"),
        "pimc": ("kernels.search.pimc", "decide"),
        "dispatch": ("kernels.dispatch", "decide"),
        "sampled_choice": ("kernels.search.mc", "sampled_choice"),
        "heuristic": ("kernels.policies.heuristic", "decide"),
    }

    def stamps() -> dict[str, str]:
        graph = KernelGraph(tree)
        return {case: graph.digest(graph.contents(*where)) for case, where in cases.items()}

    before = stamps()
    edit(tree / "kernels" / "search" / "pimc.py", '"""', '"""An edit. ')
    after_pimc = stamps()
    assert {case for case in cases if after_pimc[case] != before[case]} == {"pimc", "dispatch", "sampled_choice"}
    edit(tree / "kernels" / "rules.py", '"""', '"""An edit. ')
    after_rules = stamps()
    assert all(after_rules[case] != after_pimc[case] for case in cases)


def test_an_edit_of_pimc_changes_only_the_stamps_of_engines_that_seat_it(tmp_path, monkeypatch):
    """An engine (sim.engine.policy_engine) is stamped with the import closure of the policies
    compiled in: an edit of pimc leaves the engines of heuristic and of mc seats cached; an edit
    of mc changes mc's engine and pimc's (pimc imports mc), and one of the rules every engine."""
    from sim.engine import policy_engine
    from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC, POLICY_PIMC

    tree = scratch_package(tmp_path)
    monkeypatch.setenv(policy_engine.CACHE_DIR_VARIABLE, str(tmp_path / "cache"))
    engines = {name: policy_engine.compiled_policies(seated)
               for name, seated in (("heuristic", (POLICY_HEURISTIC,)), ("mc", (POLICY_MC,)), ("pimc", (POLICY_PIMC,)))}
    assert engines["heuristic"] == (0, 1) and engines["mc"] == (0, 1, 2) and engines["pimc"] == (0, 1, 2, 3)

    def stamps() -> dict[str, str]:
        graph = KernelGraph(tree)
        monkeypatch.setattr(policy_engine, "kernel_graph", lambda: graph)
        return {name: policy_engine.engine_cache([], built_in).stamp for name, built_in in engines.items()}

    before = stamps()
    edit(tree / "kernels" / "search" / "pimc.py", '"""', '"""An edit. ')
    after_pimc = stamps()
    assert {name for name in engines if after_pimc[name] != before[name]} == {"pimc"}
    edit(tree / "kernels" / "search" / "mc.py", '"""', '"""An edit. ')
    after_mc = stamps()
    assert {name for name in engines if after_mc[name] != after_pimc[name]} == {"mc", "pimc"}
    edit(tree / "kernels" / "rules.py", '"""', '"""An edit. ')
    assert all(stamps()[name] != after_mc[name] for name in engines)


PROBE = """
from numba import njit
from kernels.rules import round_score

@njit(cache=True)
def exact_two():
    return round_score(2, 2)

print("score", exact_two())
"""


def run_probe(tree: Path, environment: dict[str, str]) -> tuple[int, bool]:
    """The probe's score, and whether numba loaded it from its cache."""
    done = subprocess.run([sys.executable, str(tree / "probe.py")], env=environment, capture_output=True, text=True,
                          timeout=300, cwd=tree)  # fmt: skip
    assert done.returncode == 0, done.stderr
    score = next(int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("score"))
    return score, "data loaded from" in done.stdout and "probe.exact_two" in done.stdout


@pytest.mark.processes
@pytest.mark.parametrize("location", ["next to the sources", "NUMBA_CACHE_DIR"])
def test_an_edited_rule_is_never_served_stale(tmp_path, location):
    """A jitted function in another file calls a rule: numba alone would keep serving the old
    rule (it stamps a function with its own file). After an edit of kernels/rules.py the new
    rule is compiled in; after an edit of pimc the cached function is served as it was."""
    tree = scratch_package(tmp_path)
    (tree / "probe.py").write_text(PROBE)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_")}
    environment.update(PYTHONPATH=str(tree), NUMBA_DEBUG_CACHE="1")
    if location == "NUMBA_CACHE_DIR":
        environment["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    assert run_probe(tree, environment) == (40, False)
    assert run_probe(tree, environment) == (40, True)
    edit(tree / "kernels" / "search" / "pimc.py", '"""', '"""An edit. ')
    assert run_probe(tree, environment) == (40, True)  # pimc is not in the probe's code
    edit(tree / "kernels" / "rules.py", "return EXACT_BID_BONUS + POINTS_PER_TRICK * tricks",
         "return 1000 + POINTS_PER_TRICK * tricks")  # fmt: skip
    assert run_probe(tree, environment) == (1020, False)
    assert run_probe(tree, environment) == (1020, True)


def test_a_file_that_imports_no_kernel_is_left_to_numba(tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("import numpy\n")
    assert cache_stamps.stamp(str(plain), "anything") is None
    assert ClosureLocator.from_function(test_a_file_that_imports_no_kernel_is_left_to_numba, str(plain)) is None


def test_the_locator_comes_first():
    from numba.core.caching import CacheImpl

    assert CacheImpl._locator_classes[0] is ClosureLocator
