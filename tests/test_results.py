"""`python -m experiments.regenerate_results --quick` writes every reference figure (small sizes), and
results/README.md is what the published JSON gives."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = "python -m experiments.regenerate_results"  # its usage and error lines name it so


@pytest.mark.figures
def test_regenerate_quick(tmp_path):
    # -X faulthandler: a crash in a kernel prints its Python stack (it once was a segfault).
    subprocess.run([sys.executable, "-X", "faulthandler", "-m", "experiments.regenerate_results", "--quick", "--out", str(tmp_path)],
                   check=True, cwd=ROOT)  # fmt: skip
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
    # The pimc tables were played by wizard-sim 0.1: its settings by today's labels (pimc's
    # defaults moved in 0.2, docs/pimc.md "Defaults"); pimc at today's defaults is `pimc`.
    # pimc's former infer levels are spelled as their switches (docs/pimc.md, "Inference switches").
    former = "pimc:play_samples=96,posterior=0,mc_from=0"
    infer = {3: "pimc:play_samples=96,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,mc_from=0",
             4: "pimc:play_samples=96,uniform_when_all_dealt=0,uniform_when_most_dealt=0,mc_from=0",
             5: "pimc:play_samples=96,uniform_when_most_dealt=0,mc_from=0"}
    infer_6, infer_6_64 = "pimc:play_samples=96,mc_from=0", "pimc:mc_from=0"
    assert [(c["policy_a"], c["policy_b"]) for c in learned["comparisons"]] == (
        [(infer[3], former)] * 4 + [(infer[4], former)] * 3 + [(infer[4], infer[3])] * 3
        + [(infer[5], former)] * 3 + [(infer[5], infer[4])] * 4 + [(infer[5], former)] * 2
        + [(infer_6_64, former), ("pimc", infer_6_64), ("pimc", former)])
    assert "pimc learning how each seat bids" in readme
    fresh = json.loads((tmp_path / "fresh_deals.json").read_text())
    assert fresh["seed"] == 4700 and len(fresh["tables"]) == 15
    assert [(c["policy_a"], c["policy_b"]) for c in fresh["comparisons"]] == (
        [(infer_6, former), ("pimc", former), ("pimc", infer_6)] * 4)
    assert "pimc's defaults on fresh deals" in readme
    # The fresh step's tables share names with the pimc step's: its runs keep a folder of their own.
    seeds = [json.loads((tmp_path / where / "pimc_vs_mc" / "run.json").read_text())["config"]["seed"]
             for where in ("runs", "runs/fresh")]  # fmt: skip
    assert seeds == [2600, 4700]


def test_only_refuses_an_out_without_the_other_steps(tmp_path):
    # --only reads the other sections back: without them it must refuse before playing, exit 2
    out = tmp_path / "figures"
    done = subprocess.run([sys.executable, "-m", "experiments.regenerate_results", "--quick", "--only", "learned",
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"{PROGRAM}: error: --only reads the other steps' JSON")
    assert "accuracy.json" in done.stderr and "learned_inference.json" not in done.stderr
    assert not out.exists()


@pytest.mark.figures  # importing regenerate.py (pandas, matplotlib, the package) takes seconds
def test_the_readme_is_what_the_json_gives(tmp_path):
    """results/README.md is written from results/*.json (python -m experiments.regenerate_results --readme):
    a figure changed in a JSON, or in the README by hand, fails here. The header names the
    command that wrote it, so only the sections are compared."""
    from experiments import regenerate_results as regenerate
    results = {name: json.loads((ROOT / "results" / file).read_text()) for name, file in regenerate.FILES.items()
               if (ROOT / "results" / file).exists()}  # fmt: skip
    regenerate.write_readme(tmp_path, results, "python -m experiments.regenerate_results --readme")
    sections = [text.split("\n## ", 1)[1] for text in ((tmp_path / "README.md").read_text(),
                                                       (ROOT / "results" / "README.md").read_text())]
    assert sections[0] == sections[1], "results/README.md differs from its JSON: python -m experiments.regenerate_results --readme"
    for section in sections[1].split("\n## "):  # each says which version played it (they differ after --only)
        assert re.search(r"Played by wizard-sim \d+\.\d+\.\d+ on \d{4}-\d{2}-\d{2}, seed \d+", section), section[:80]


@pytest.mark.figures
def test_readme_refuses_an_out_without_the_json(tmp_path):
    # --readme plays nothing: without the steps' JSON it must refuse, exit 2, and write nothing
    out = tmp_path / "figures"
    done = subprocess.run([sys.executable, "-m", "experiments.regenerate_results", "--readme", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(f"{PROGRAM}: error: --readme reads every step's JSON")
    assert not out.exists()
