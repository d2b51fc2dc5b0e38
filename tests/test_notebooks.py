"""Every notebook runs end to end on a tiny dataset (parameters injected after the cell tagged
`parameters`, as papermill does), and notebooks are stored without outputs."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from sim.config.rules import Rules
from sim.runs.league import LeagueConfig, league
from sim.runs.simulation import SimulationConfig, simulate
from sim.runs.tournament import TournamentConfig, tournament

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def execute(name: str, parameters: dict) -> nbformat.NotebookNode:
    book = nbformat.read(NOTEBOOKS / name, as_version=4)
    index = next(i for i, cell in enumerate(book.cells) if "parameters" in cell.metadata.get("tags", []))
    injected = nbformat.v4.new_code_cell("\n".join(f"{key} = {value!r}" for key, value in parameters.items()))
    injected.metadata["tags"] = ["injected-parameters"]
    book.cells.insert(index + 1, injected)
    NotebookClient(book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return book


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("notebook-data")
    rules = Rules(players=4, rounds=(1, 2, 3, 4))
    simulate(SimulationConfig.build(rules, "heuristic,random,random,random", seed=1, games=300), str(root / "simulate"))
    tournament(TournamentConfig.build(rules, "heuristic,heuristic,random,random", seed=1, deals=40), str(root / "tournament"))
    policies = "heuristic,random,heuristic:aggression=1.2,heuristic:crowding=0.3,mc:samples=2,play_samples=2"
    league(LeagueConfig.build(rules, policies, seed=1, deals=30), str(root / "league"))
    return root


@pytest.mark.figures
def test_bid_accuracy_notebook(datasets):
    book = execute("bid_accuracy.ipynb", {"DATASET": str(datasets / "simulate"), "ESTIMATE_SAMPLES": 500, "SEED": 3})
    text = "".join(output.get("text", "") for cell in book.cells for output in cell.get("outputs", []))
    assert "4,800 bids of 2 policies" in text


@pytest.mark.figures
def test_policy_comparison_notebook(datasets):
    book = execute("policy_comparison.ipynb", {"DATASET": str(datasets / "tournament")})
    text = "".join(output.get("text", "") for cell in book.cells for output in cell.get("outputs", []))
    assert "40 deals, 4 players, duplicate=True" in text and "heuristic beats random" in text


def test_league_notebook(datasets):
    book = execute("league.ipynb", {"DATASET": str(datasets / "league")})
    text = "".join(output.get("text", "") for cell in book.cells for output in cell.get("outputs", []))
    assert "30 deals, 4 players, 5 policies at 5 tables" in text and "heuristic beats random" in text


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda path: path.name)
def test_notebooks_are_stored_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: strip outputs before committing"
    assert any("parameters" in cell.metadata.get("tags", []) for cell in book.cells)
