"""`python results/regenerate.py --quick` writes every reference figure (small sizes)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_regenerate_quick(tmp_path):
    # -X faulthandler: a crash in a kernel prints its Python stack (it once was a segfault).
    subprocess.run([sys.executable, "-X", "faulthandler", str(ROOT / "results" / "regenerate.py"), "--quick", "--out", str(tmp_path)],
                   check=True)  # fmt: skip
    for name in ("README.md", "accuracy.json", "accuracy_vs_baseline.png", "tournament.json", "tournament.png",
                 "estimate.json", "estimate.png", "inference.json", "learned_inference.json",
                 "fresh_deals.json"):  # fmt: skip
        assert (tmp_path / name).stat().st_size > 0, name
    accuracy = json.loads((tmp_path / "accuracy.json").read_text())
    assert [row["round"] for row in accuracy["rounds"]] == list(range(1, 16)) and accuracy["seed"] == 2022
    tournament = json.loads((tmp_path / "tournament.json").read_text())
    assert len(tournament["policies"]) == 3 and tournament["deals"] == 30
    estimate = json.loads((tmp_path / "estimate.json").read_text())
    assert estimate["recommended_bid"] in [row["bid"] for row in estimate["bids"] if row["legal"]]
    inference = json.loads((tmp_path / "inference.json").read_text())
    assert [row["policy"] for row in inference["policies"]] == ["mc:infer=1", "heuristic", "mc"]  # listed opposite
    assert ("mc:infer=1", "mc") in [(pair["policy_a"], pair["policy_b"]) for pair in inference["pairs"]]
    readme = (tmp_path / "README.md").read_text()
    assert "Schumacher" in readme and "Recommended bid" in readme and "--quick" in readme
    assert "mc with inference against mc without" in readme
    learned = json.loads((tmp_path / "learned_inference.json").read_text())
    infer_6 = "pimc:play_samples=64,infer=6"
    split = f"{infer_6},mc_from=7,mc_samples=128,mc_play_samples=224"
    assert [(c["policy_a"], c["policy_b"]) for c in learned["comparisons"]] == (
        [("pimc:infer=3", "pimc")] * 4 + [("pimc:infer=4", "pimc")] * 3 + [("pimc:infer=4", "pimc:infer=3")] * 3
        + [("pimc:infer=5", "pimc")] * 3 + [("pimc:infer=5", "pimc:infer=4")] * 4 + [("pimc:infer=5", "pimc")] * 2
        + [(infer_6, "pimc"), (split, infer_6), (split, "pimc")])
    assert "pimc learning how each seat bids" in readme
    fresh = json.loads((tmp_path / "fresh_deals.json").read_text())
    assert fresh["seed"] == 4700 and len(fresh["tables"]) == 15
    assert [(c["policy_a"], c["policy_b"]) for c in fresh["comparisons"]] == (
        [("pimc:infer=6", "pimc"), (split, "pimc"), (split, "pimc:infer=6")] * 4)
    assert "pimc's candidate default on fresh deals" in readme
    # The fresh step's tables share names with the pimc step's: its runs keep a folder of their own.
    seeds = [json.loads((tmp_path / where / "pimc_vs_mc" / "run.json").read_text())["config"]["seed"]
             for where in ("runs", "runs/fresh")]  # fmt: skip
    assert seeds == [2600, 4700]


def test_only_refuses_an_out_without_the_other_steps(tmp_path):
    # --only reads the other sections back: without them it must refuse before playing, exit 2
    out = tmp_path / "figures"
    done = subprocess.run([sys.executable, str(ROOT / "results" / "regenerate.py"), "--quick", "--only", "learned",
                           "--out", str(out)], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith("regenerate.py: error: --only reads the other steps' JSON")
    assert "accuracy.json" in done.stderr and "learned_inference.json" not in done.stderr
    assert not out.exists()
