"""Regenerate every reference figure in results/ (seeded: it reproduces exactly), from the
repository root:

    python -m experiments.regenerate_results                  # full size (about 45 minutes on 2 cores;
                                                              # openspiel about 15 more, learned about an hour more)
    python -m experiments.regenerate_results --quick --out /tmp/results   # a small smoke run
    python -m experiments.regenerate_results --only calibration   # one figure; the README from the JSONs
    python -m experiments.regenerate_results --readme             # plays nothing: the README and the docs' blocks

Writes, into --out (default: results/): README.md (tables and links), accuracy.json and
accuracy_vs_baseline.png (heuristic bid accuracy by round size next to the published
baseline), tournament.json and tournament.png (mc / heuristic / random duplicate tournament),
estimate.json and estimate.png (an example per-hand estimate), calibration.json and
calibration.png (estimate's P(take the trick) against round-1 self-play, with and without
inference from the earlier bids; sim/estimation/calibration.py), inference.json
(mc with inference against mc without, a duplicate tournament), pimc.json (wizard-sim 0.1's
pimc player against mc at its defaults, against the heuristic, with and without inference,
and bid accuracy by round size), openspiel.json (OpenSpiel's ISMCTS, openspiel:ismcts, at two
budgets against three heuristic seats and at a table with 0.1's pimc; needs the [openspiel]
extra, else the step is skipped), learned_inference.json (pimc learning how each seat bids,
infer=3, 4 and 5, against 0.1's pimc at four inference tables; infer=5 also against mc at its
defaults and at equal time, and infer=6 at equal time, alone and with its large rounds played
as mc: pimc's defaults since 0.2), fresh_deals.json (0.1's pimc, infer=6 and pimc at its
defaults since 0.2, at the same tables on the deals of seed 4700). The pimc tables were played
by wizard-sim 0.1 and name 0.1's settings by today's labels (former_pimc), which replay them;
infer=K names pimc's former inference level K, each a set of switches today (docs/pimc.md,
"Inference switches").
The datasets behind them go to --runs (default results/runs/, not in git). Every figure
records its seed and the package version that played it, and the README says them section by
section. Writing into results/ also renders the figures the README and docs/*.md show in
generated blocks (experiments/result_figures.py).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import sim
from sim import (LeagueConfig, Rules, SimulationConfig, TournamentConfig, league, parse_policy, resume_tournament,
                 simulate, tournament)  # fmt: skip
# Beyond the public API: reading finished runs back (what `report`, `verify` and `compare` do on
# the command line), the calibration, the shipped model's card and pimc's former labels.
from kernels.search.pimc import former_infer
from sim.analysis.report import accuracy_tables
from sim.estimation.calibration import calibration
from sim.policies.learned_models import SHIPPED_MODEL
from sim.policies.registry import parameter_text
from sim.runs.comparison import compare_tournaments
from sim.runs.tournament import summarize_tournament
from sim.runs.verification import verify_run
from sim.storage import read_run

from experiments import result_figures

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"  # where the published figures go
# Schumacher & Pleines, "Improving Bidding and Playing Strategies in the Trick-Taking game
# Wizard using Deep Q-Networks", IEEE CoG 2022: rule-based agent, 4 players, rounds 1..15.
BASELINE = (0.84, 0.71, 0.59, 0.51, 0.48, 0.46, 0.44, 0.43, 0.42, 0.41, 0.41, 0.41, 0.41, 0.41, 0.40)
# mc at a cheaper setting than its default (samples=16, play_samples=16): 50k deals x 8 seatings
# (the 4 rotations and their mirror images) at the default would take hours on 2 cores; this
# setting takes about 15 minutes.
TOURNAMENT_POLICIES = "mc:samples=8,play_samples=4,heuristic,heuristic,random"
# Issue #14's test of mc's inference: 20,000 deals take about 26 minutes on 2 cores. The two
# compared players sit opposite each other: rotation k+2 swaps them on the same cards, and each
# has a heuristic seat on either side (listed next to each other, one would always play right
# after the other: a seating bias, docs/tournament.md, "Neighbours and mirror images").
INFERENCE_POLICIES = "mc:infer=1,heuristic,mc,heuristic"


# wizard-sim 0.1's pimc, as the changes of today's label: `pimc:play_samples=96,posterior=0,mc_from=0`
# plays exactly as `pimc` did there (mc_from=0 leaves mc_samples and mc_play_samples unused).
FORMER_DEFAULTS = {"play_samples": 96.0, "posterior": 0.0, "mc_from": 0.0}


def former_pimc(infer: int | None = None, **changes: float) -> str:
    """The label today of pimc at wizard-sim 0.1's defaults with `changes`, and with the
    inference switches of the former level `infer` (docs/pimc.md, "Inference switches"): the
    pimc tables below were played before the defaults moved and the levels became switches,
    and these labels replay them bit for bit."""
    switches = {} if infer is None else former_infer(float(infer))
    parameters = {**FORMER_DEFAULTS, **switches, **changes}
    return parse_policy("pimc:" + ",".join(f"{key}={parameter_text(value)}" for key, value in parameters.items())).label


# Issue #26's tournaments of pimc (docs/pimc.md), 4 players, duplicate: each table's policies
# and the most deals it plays (None: sizes.pimc_deals). pimc against mc at equal time
# (mc:samples=128,play_samples=256, benchmarks/bench_pimc.py) is the learned step's
# pimc_vs_mc_equal_time. "pimc" in a table's name or title is FORMER_PIMC.
FORMER_PIMC = former_pimc()
PIMC_TABLES = {
    "pimc_vs_mc": (f"{FORMER_PIMC},mc,mc,mc", None),
    "pimc_vs_heuristic": (f"{FORMER_PIMC},heuristic,heuristic,heuristic", None),
    "pimc_inference": (f"{former_pimc(infer=1)},heuristic,{FORMER_PIMC},heuristic", None),  # opposite, as INFERENCE_POLICIES
    # pimc_vs_heuristic's table with one policy changed: inference, and at about its cost the
    # most bid samples pimc allows (0.17 against 0.19-0.21 s of one core a game, docs/pimc.md)
    "pimc_infer_vs_heuristic": (f"{former_pimc(infer=1)},heuristic,heuristic,heuristic", None),
    "pimc_samples64_vs_heuristic": (f"{former_pimc(samples=64)},heuristic,heuristic,heuristic", None),
}
# Two of those tables that differ in one policy, compared paired over their deals (the same cards
# and the same heuristic seats: wizard-sim compare, sim.runs.comparison): (table A, table B).
PIMC_COMPARISONS = (
    ("pimc_infer_vs_heuristic", "pimc_vs_heuristic"),
    ("pimc_infer_vs_heuristic", "pimc_samples64_vs_heuristic"),
    ("pimc_samples64_vs_heuristic", "pimc_vs_heuristic"),
)
# Issue #37's tables of learned inference (docs/pimc.md, "Learned inference", "Falling back
# to uniform deals" and "When every card is dealt"): infer=3, 4 and 5 against pimc (0.1's, as
# every pimc here), each at its table (policies, most deals, deals per chunk: None, the default),
# compared paired over the deals with the same table played by pimc (pimc_vs_heuristic and
# pimc_vs_mc are the pimc step's tables), infer=4 with infer=3 and infer=5 with infer=4; with
# another pimc opposite, within one tournament. infer=5 also meets mc at its defaults and at
# equal time (MC_EQUAL_TIME's game costs a little more than pimc's and two thirds of infer=5's,
# docs/pimc.md).
LEARNED = former_pimc(infer=3)
FALLBACK = former_pimc(infer=4)
UNLESS_ALL_DEALT = former_pimc(infer=5)
HELD_OUT = "examples.rule_bot:RuleBot,examples.numpy_bot:LinearBidder,mc"  # bots no inference models
RANDOM_BIDDER = "examples.random_bidder:RandomBidder"
MC_EQUAL_TIME = ",".join(["mc:samples=128,play_samples=256"] * 3)
# At equal time (#37's first row): infer=6 with 64 card samples (pimc's own cost), and the same
# with the rounds of 7 cards on played as mc (mc_from; its cost under mc's at 224 card samples):
# pimc's defaults since wizard-sim 0.2.
UNLESS_MOST_DEALT = former_pimc(infer=6)
UNLESS_MOST_DEALT_64 = former_pimc(infer=6, play_samples=64)
SPLIT_BY_ROUND = "pimc"
LEARNED_TABLES = {
    "learned_vs_heuristic": (f"{LEARNED},heuristic,heuristic,heuristic", None, 250),
    "learned_opposite_pimc": (f"{LEARNED},heuristic,{FORMER_PIMC},heuristic", None, 250),
    "learned_with_random": (f"{LEARNED},heuristic,heuristic,random", 1_000, None),
    "pimc_with_random": (f"{FORMER_PIMC},heuristic,heuristic,random", None, 100),
    "learned_vs_held_out": (f"{LEARNED},{HELD_OUT}", None, 100),
    "pimc_vs_held_out": (f"{FORMER_PIMC},{HELD_OUT}", None, 100),
    # A seat that bids at random and plays as the heuristic: the random seat's bids, not its play
    "learned_with_random_bidder": (f"{LEARNED},heuristic,heuristic,{RANDOM_BIDDER}", 1_000, 100),
    "pimc_with_random_bidder": (f"{FORMER_PIMC},heuristic,heuristic,{RANDOM_BIDDER}", 1_000, 100),
    "fallback_vs_heuristic": (f"{FALLBACK},heuristic,heuristic,heuristic", 1_000, 100),
    "fallback_opposite_pimc": (f"{FALLBACK},heuristic,{FORMER_PIMC},heuristic", None, 100),
    "fallback_with_random": (f"{FALLBACK},heuristic,heuristic,random", None, 100),
    "fallback_vs_held_out": (f"{FALLBACK},{HELD_OUT}", None, 100),
    "unless_all_dealt_vs_heuristic": (f"{UNLESS_ALL_DEALT},heuristic,heuristic,heuristic", 1_000, 100),
    "unless_all_dealt_opposite_pimc": (f"{UNLESS_ALL_DEALT},heuristic,{FORMER_PIMC},heuristic", None, 100),
    "unless_all_dealt_with_random": (f"{UNLESS_ALL_DEALT},heuristic,heuristic,random", None, 100),
    "unless_all_dealt_vs_held_out": (f"{UNLESS_ALL_DEALT},{HELD_OUT}", None, 100),
    "unless_all_dealt_vs_mc": (f"{UNLESS_ALL_DEALT},mc,mc,mc", None, 100),
    "pimc_vs_mc_equal_time": (f"{FORMER_PIMC},{MC_EQUAL_TIME}", None, 100),
    "unless_all_dealt_vs_mc_equal_time": (f"{UNLESS_ALL_DEALT},{MC_EQUAL_TIME}", None, 100),
    "unless_most_dealt_64_vs_mc_equal_time": (f"{UNLESS_MOST_DEALT_64},{MC_EQUAL_TIME}", None, 100),
    "split_by_round_vs_mc_equal_time": (f"{SPLIT_BY_ROUND},{MC_EQUAL_TIME}", None, 100),
}
LEARNED_COMPARISONS = (
    ("learned_vs_heuristic", "pimc_vs_heuristic"),
    ("learned_with_random", "pimc_with_random"),
    ("learned_vs_held_out", "pimc_vs_held_out"),
    ("learned_with_random_bidder", "pimc_with_random_bidder"),
    ("fallback_vs_heuristic", "pimc_vs_heuristic"),
    ("fallback_with_random", "pimc_with_random"),
    ("fallback_vs_held_out", "pimc_vs_held_out"),
    ("fallback_vs_heuristic", "learned_vs_heuristic"),
    ("fallback_with_random", "learned_with_random"),
    ("fallback_vs_held_out", "learned_vs_held_out"),
    ("unless_all_dealt_vs_heuristic", "pimc_vs_heuristic"),
    ("unless_all_dealt_with_random", "pimc_with_random"),
    ("unless_all_dealt_vs_held_out", "pimc_vs_held_out"),
    ("unless_all_dealt_vs_heuristic", "fallback_vs_heuristic"),
    ("unless_all_dealt_opposite_pimc", "fallback_opposite_pimc"),
    ("unless_all_dealt_with_random", "fallback_with_random"),
    ("unless_all_dealt_vs_held_out", "fallback_vs_held_out"),
    ("unless_all_dealt_vs_mc", "pimc_vs_mc"),
    ("unless_all_dealt_vs_mc_equal_time", "pimc_vs_mc_equal_time"),
    ("unless_most_dealt_64_vs_mc_equal_time", "pimc_vs_mc_equal_time"),
    ("split_by_round_vs_mc_equal_time", "unless_most_dealt_64_vs_mc_equal_time"),
    ("split_by_round_vs_mc_equal_time", "pimc_vs_mc_equal_time"),
)
# Issue #37's tables on fresh deals (docs/pimc.md, "Uniform deals where most cards are dealt"
# and "`S` at the other tables"): 0.1's pimc, the same with infer=6, and SPLIT_BY_ROUND (pimc's
# defaults since 0.2) each at the same four tables, on deals that chose none of their rules (seed
# 4700), compared paired; each of the last two with 0.1's pimc opposite, within one tournament;
# and SPLIT_BY_ROUND at equal time. Chunks of 100 deals, as the runs were played (a read-back
# needs the same configuration).
FRESH_SETTINGS = {"pimc": FORMER_PIMC, "unless_most_dealt": UNLESS_MOST_DEALT, "split_by_round": SPLIT_BY_ROUND}
FRESH_DESCRIPTIONS = {"pimc": "0.1's pimc", "unless_most_dealt": "0.1's pimc with infer=6",
                      "split_by_round": "pimc at its defaults since 0.2"}
FRESH_SEATS = {  # the other seats of each table: (their policies, most deals, title)
    "vs_mc": ("mc,mc,mc", None, "against three mc seats at their defaults"),
    "with_random": ("heuristic,heuristic,random", None, "one random seat"),
    "vs_held_out": (HELD_OUT, 1_000, "three held-out bots"),
    "vs_heuristic": ("heuristic,heuristic,heuristic", None, "against three heuristic seats"),
}
FRESH_CHUNK_DEALS = 100
FRESH_RUNS = "fresh"  # its runs' folder in RUNS: its table names are also the pimc and learned steps' (seed 2600)
FRESH_TABLES = {
    **{f"{setting}_{seats}": (f"{policy},{others}", most, FRESH_CHUNK_DEALS)
       for setting, policy in FRESH_SETTINGS.items() for seats, (others, most, _) in FRESH_SEATS.items()},
    **{f"{setting}_opposite_pimc": (f"{FRESH_SETTINGS[setting]},heuristic,{FORMER_PIMC},heuristic", None, FRESH_CHUNK_DEALS)
       for setting in ("unless_most_dealt", "split_by_round")},
    "split_by_round_vs_mc_equal_time": (f"{SPLIT_BY_ROUND},{MC_EQUAL_TIME}", None, FRESH_CHUNK_DEALS),
}
FRESH_COMPARISONS = tuple(
    (f"{a}_{seats}", f"{b}_{seats}")
    for seats in FRESH_SEATS
    for a, b in (("unless_most_dealt", "pimc"), ("split_by_round", "pimc"), ("split_by_round", "unless_most_dealt"))
)
COMPARISON_FIELDS = ("policy_a", "policy_b", "deals", "mean_a", "mean_b", "difference", "ci_low", "ci_high",
                     "significant", "verdict")  # fmt: skip
# Issue #38's tournaments of OpenSpiel's ISMCTS (docs/openspiel.md): rounds 1-3 (a Python
# search at every decision: about 5 ms of one core a simulation), 4 players, duplicate.
OPENSPIEL_ROUNDS = (1, 2, 3)
OPENSPIEL_TABLES = {
    "ismcts10_vs_heuristic": "openspiel:ismcts:simulations=10,heuristic,heuristic,heuristic",
    "ismcts40_vs_heuristic": "openspiel:ismcts:simulations=40,heuristic,heuristic,heuristic",
    "ismcts160_vs_heuristic": "openspiel:ismcts:simulations=160,heuristic,heuristic,heuristic",
    # pimc's decision at wizard-sim 0.1's defaults costs about 0.25 ms of one core at these
    # rounds, ISMCTS's cheapest (one simulation) about 5 ms: equal CPU is out of reach, so that pimc
    # meets ISMCTS at 40 simulations (about 800 times pimc's CPU per decision)
    "pimc_vs_ismcts40": f"{FORMER_PIMC},openspiel:ismcts:simulations=40,heuristic,heuristic",
}
# A league of five (ISMCTS at its cheapest budget here: it sits at four of the five tables).
OPENSPIEL_LEAGUE = f"random,heuristic,mc,{FORMER_PIMC},openspiel:ismcts:simulations=10"
# The learned agent (issue 59): the shipped model's training curve (its card's figures) and a
# league of it with the built-in bots, on the deals of the learned agent's card (seed 808).
AGENT_LEAGUE = "learned,heuristic,mc,pimc,mc:samples=8,play_samples=4"
EXAMPLE_HAND = {"hand": "W AS KH 7H J", "trump": "3H", "players": 4, "position": 2, "bids": (1, 0)}


@dataclass(frozen=True)
class Sizes:
    accuracy_games: int
    tournament_deals: int
    estimate_samples: int
    calibration_games: int
    calibration_samples: int
    inference_deals: int
    pimc_deals: int
    openspiel_deals: int
    learned_deals: int
    fresh_deals: int
    agent_deals: int


FULL = Sizes(accuracy_games=200_000, tournament_deals=50_000, estimate_samples=200_000,
             calibration_games=4_000_000, calibration_samples=200_000, inference_deals=20_000, pimc_deals=2_000,
             openspiel_deals=24, learned_deals=2_000, fresh_deals=2_000, agent_deals=100)
QUICK = Sizes(accuracy_games=400, tournament_deals=30, estimate_samples=2_000,
              calibration_games=20_000, calibration_samples=2_000, inference_deals=10, pimc_deals=4, openspiel_deals=2,
              learned_deals=4, fresh_deals=2, agent_deals=2)
SEEDS = {"accuracy": 2022, "tournament": 1, "estimate": 1, "calibration": 11, "inference": 2026, "pimc": 2600,
         "openspiel": 38, "fresh": 4700, "agent": 808}  # fmt: skip
STEPS = ("accuracy", "tournament", "estimate", "calibration", "inference", "pimc", "openspiel", "learned", "fresh", "agent")
FILES = {"accuracy": "accuracy.json", "tournament": "tournament.json", "estimate": "estimate.json",
         "calibration": "calibration.json", "inference": "inference.json", "pimc": "pimc.json",
         "openspiel": "openspiel.json", "learned": "learned_inference.json", "fresh": "fresh_deals.json", "agent": "learned_agent.json"}  # in OUT
OPTIONAL_STEPS = ("openspiel", "learned", "fresh", "agent")  # the README leaves their sections out when they are missing


def provenance(seed: int, **extra) -> dict:
    return {"seed": seed, "wizard_sim": sim.__version__, "generated": time.strftime("%Y-%m-%d"), **extra}


def new_figure(width: float = 8, height: float = 4.5) -> Figure:
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


# -- heuristic bid accuracy next to the baseline --------------------------------------------------
def accuracy(sizes: Sizes, out: Path, runs: Path) -> dict:
    seed = SEEDS["accuracy"]
    config = SimulationConfig.build(Rules(players=4), "heuristic", seed=seed, games=sizes.accuracy_games)
    simulate(config, str(runs / "accuracy"), overwrite=True)
    by_round = accuracy_tables(runs / "accuracy")["by_round"]
    rows = []
    for (_, row), baseline in zip(by_round.iterrows(), BASELINE):
        se = math.sqrt(row["exact_rate"] * (1 - row["exact_rate"]) / row["n"])
        rows.append(
            {
                "round": int(row["round"]),
                "heuristic": round(float(row["exact_rate"]), 4),
                "standard_error": round(se, 4),
                "baseline": baseline,
                "margin_in_se": round((row["exact_rate"] - baseline) / se, 1),
                "beats_baseline": bool(row["exact_rate"] > baseline),
            }
        )
    result = {**provenance(seed, games=sizes.accuracy_games, players=4, policy="heuristic"), "rounds": rows}
    (out / "accuracy.json").write_text(json.dumps(result, indent=2) + "\n")
    figure = new_figure()
    axes = figure.subplots()
    rounds = [row["round"] for row in rows]
    axes.plot(rounds, [row["heuristic"] for row in rows], marker="o", label="wizard-sim heuristic")
    axes.plot(rounds, [row["baseline"] for row in rows], marker="s", linestyle="--", label="Schumacher & Pleines 2022 rule-based")
    axes.set(xlabel="round size (cards per player)", ylabel="exact bids", title="4-player self-play bid accuracy")
    axes.set_xticks(rounds)
    axes.legend()
    figure.savefig(out / "accuracy_vs_baseline.png", dpi=110)
    return result


# -- duplicate tournament ------------------------------------------------------------------------
def tournament_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    seed = SEEDS["tournament"]
    config = TournamentConfig.build(Rules(players=4), TOURNAMENT_POLICIES, seed=seed, deals=sizes.tournament_deals)
    (policies, pairs), seconds = timed_tournament(config, runs / "tournament")
    result = {
        **provenance(seed, deals=sizes.tournament_deals, players=4, policies=TOURNAMENT_POLICIES, duplicate=True,
                     mirrored=bool(config.mirrored)),
        "games_per_s": None if not seconds else round(sizes.tournament_deals * config.rotations / seconds),
        "policies": policies,
        "pairs": pairs,
    }
    (out / "tournament.json").write_text(json.dumps(result, indent=2) + "\n")
    figure = new_figure(7, 4)
    axes = figure.subplots()
    names = [row["policy"] for row in policies]
    means = np.array([row["mean_score"] for row in policies])
    errors = np.array([[m - row["mean_score_ci_low"], row["mean_score_ci_high"] - m] for m, row in zip(means, policies)]).T
    axes.bar(names, means, yerr=errors, capsize=6, color=["C0", "C1", "C3"][: len(names)])
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set(ylabel="mean final score per game (95% CI)", title=f"Duplicate tournament, {sizes.tournament_deals:,} deals")
    figure.savefig(out / "tournament.png", dpi=110)
    return result


# -- tournaments: a finished run of the same configuration is read back --------------------------
def played_tournament(config: TournamentConfig, path: Path) -> tuple[list[dict], list[dict]]:
    """The summary (policies, pairs) of the tournament of `config` in `path`: a finished and
    sound run of this configuration is read without touching it (its run.json keeps its wall
    time), an interrupted or damaged one is resumed, anything else is played afresh."""
    record = path / "run.json"
    if record.exists() and json.loads(record.read_text()).get("config") == config.to_dict():
        if verify_run(str(path)).sound:
            return summarize_tournament(read_run(path))
        return resume_tournament(str(path)).summary
    return tournament(config, str(path), overwrite=True).summary


def played_league(config: LeagueConfig, path: Path) -> tuple[list[dict], list[dict]]:
    """The (ratings, pairs) of the league of `config` in `path`: a finished and sound run of
    this configuration is read back (its summary.json), anything else is played afresh."""
    record, summary = path / "run.json", path / "summary.json"
    if (record.exists() and summary.exists() and json.loads(record.read_text()).get("config") == config.to_dict()
            and verify_run(str(path)).sound):
        summary_data = json.loads(summary.read_text())
        return summary_data["ratings"], summary_data["pairs"]
    return league(config, str(path), overwrite=True).summary


def run_seconds(path: Path) -> int | None:
    """Wall seconds from the start to the finish of the finished, never resumed run in `path`
    (as its run.json says); None otherwise (a resumed run's finish says nothing of its time)."""
    record_path = path / "run.json"
    if not record_path.exists():
        return None
    record = json.loads(record_path.read_text())
    if not record.get("finished") or record.get("resumed"):
        return None
    started, finished = (datetime.fromisoformat(record[key]) for key in ("started", "finished"))
    return round((finished - started).total_seconds())


def timed_tournament(config: TournamentConfig, path: Path) -> tuple[tuple[list[dict], list[dict]], int | None]:
    """(played_tournament(config, path), the run's wall seconds: None if it was resumed)."""
    summary = played_tournament(config, path)
    return summary, run_seconds(path)


# -- mc with and without inference ---------------------------------------------------------------
def inference_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    seed = SEEDS["inference"]
    config = TournamentConfig.build(Rules(players=4), INFERENCE_POLICIES, seed=seed, deals=sizes.inference_deals)
    policies, pairs = played_tournament(config, runs / "mc_inference")
    result = {
        **provenance(seed, deals=sizes.inference_deals, players=4, policies=INFERENCE_POLICIES, duplicate=True,
                     mirrored=bool(config.mirrored)),
        "policies": policies,
        "pairs": pairs,
    }
    (out / "inference.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


# -- pimc: perfect-information Monte Carlo ----------------------------------------------------------
def pimc_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    """The duplicate tournaments of PIMC_TABLES (each with its seconds) and bid accuracy by
    round size of pimc and mc (the pimc_vs_mc table) and of pimc and the heuristic (the
    pimc_vs_heuristic table)."""
    seed = SEEDS["pimc"]
    tables = played_tables({name: (*spec, None) for name, spec in PIMC_TABLES.items()}, sizes.pimc_deals, seed,
                           out / "pimc.json", runs)  # fmt: skip
    accuracy_rows = []
    for name in ("pimc_vs_mc", "pimc_vs_heuristic"):
        by_round = accuracy_tables(runs / name)["by_round"]
        for row in by_round.itertuples(index=False):
            accuracy_rows.append({"table": name, "policy": row.policy, "round": int(row.round), "bids": int(row.n),
                                  "exact_rate": round(float(row.exact_rate), 4)})  # fmt: skip
    comparisons = compared_tables(PIMC_COMPARISONS, runs)
    result = {**provenance(seed, deals=sizes.pimc_deals, players=4, duplicate=True), "tables": tables,
              "comparisons": comparisons, "accuracy_by_round": accuracy_rows}  # fmt: skip
    (out / "pimc.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def played_tables(specs: dict, deals: int, seed: int, published_path: Path, runs: Path) -> dict:
    """The duplicate tournaments of `specs` (name: (policies, most deals or None, deals per
    chunk or None)), 4 players, each with its wall seconds (or those published in
    `published_path` for the same table, when a run was resumed)."""
    published = json.loads(published_path.read_text())["tables"] if published_path.exists() else {}
    tables = {}
    for name, (policies_text, most_deals, chunk_deals) in specs.items():
        table_deals = deals if most_deals is None else min(deals, most_deals)
        config = TournamentConfig.build(Rules(players=4), policies_text, seed=seed, deals=table_deals,
                                        chunk_deals=chunk_deals)  # fmt: skip
        (policies, pairs), seconds = timed_tournament(config, runs / name)
        before = published.get(name, {})
        if seconds is None and (before.get("policies_text"), before.get("deals")) == (policies_text, table_deals):
            seconds = before.get("seconds")  # a run resumed by older read-backs: the time published when played
        tables[name] = {"policies_text": policies_text, "deals": table_deals, "mirrored": bool(config.mirrored),
                        "policies": policies, "pairs": pairs, "seconds": seconds}  # fmt: skip
    return tables


def compared_tables(pairs: tuple, runs: Path) -> list[dict]:
    """wizard-sim compare of each (table A, table B): A's first policy against B's, paired over deals."""
    comparisons = []
    for name_a, name_b in pairs:
        compared = compare_tournaments(runs / name_a, runs / name_b).to_dict()
        comparisons.append({"table_a": name_a, "table_b": name_b, **{key: compared[key] for key in COMPARISON_FIELDS}})
    return comparisons


# -- pimc learning how each seat bids from the game's finished rounds --------------------------------
def learned_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    """The tables of LEARNED_TABLES, the pimc step's pimc_vs_heuristic and pimc_vs_mc (played
    here unless read back), and LEARNED_COMPARISONS."""
    seed = SEEDS["pimc"]  # the pimc step's: pimc_vs_heuristic and pimc_vs_mc are shared
    base = {name: (*PIMC_TABLES[name], None) for name in ("pimc_vs_heuristic", "pimc_vs_mc")}
    tables = played_tables({**LEARNED_TABLES, **base}, sizes.learned_deals, seed, out / "learned_inference.json", runs)
    result = {**provenance(seed, deals=sizes.learned_deals, players=4, duplicate=True), "tables": tables,
              "comparisons": compared_tables(LEARNED_COMPARISONS, runs)}  # fmt: skip
    (out / "learned_inference.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


# -- pimc's settings on fresh deals ------------------------------------------------------------------
def fresh_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    """The tables of FRESH_TABLES and FRESH_COMPARISONS (seed 4700)."""
    seed = SEEDS["fresh"]
    tables = played_tables(FRESH_TABLES, sizes.fresh_deals, seed, out / FILES["fresh"], runs / FRESH_RUNS)
    result = {**provenance(seed, deals=sizes.fresh_deals, players=4, duplicate=True), "tables": tables,
              "comparisons": compared_tables(FRESH_COMPARISONS, runs / FRESH_RUNS)}  # fmt: skip
    (out / FILES["fresh"]).write_text(json.dumps(result, indent=2) + "\n")
    return result


# -- the learned agent -------------------------------------------------------------------------------
def agent_figures(sizes: Sizes, out: Path, runs: Path) -> dict:
    """The shipped model's training curve (read from its card: what `wizard-sim train` measured
    as it trained) drawn as learned_curve.png, and the league AGENT_LEAGUE (seed 808)."""
    seed = SEEDS["agent"]
    card = json.loads((SHIPPED_MODEL / "model.json").read_text())
    curve = card["figures"]["curve"]
    figure = new_figure(7, 4)
    axes = figure.add_subplot()
    axes.plot([point["seconds"] / 60 for point in curve], [point["margin"] for point in curve], marker="o")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("training time (minutes, 2 cores, data generation included)")
    axes.set_ylabel("margin over 3 heuristic seats (points/game)")
    axes.set_title("the shipped learned model while it trained (held-out deals)")
    figure.savefig(out / "learned_curve.png", dpi=110, bbox_inches="tight")
    config = LeagueConfig.build(Rules(players=4), AGENT_LEAGUE, seed=seed, deals=sizes.agent_deals)
    path = runs / "agent_league"
    ratings, pairs = played_league(config, path)
    result = {**provenance(seed, deals=sizes.agent_deals, players=4, duplicate=True),
              "model": {"training": card["training"], "curve": curve},
              "league": {"policies_text": AGENT_LEAGUE, "deals": sizes.agent_deals, "ratings": ratings, "pairs": pairs,
                         "seconds": run_seconds(path)}}  # fmt: skip
    (out / FILES["agent"]).write_text(json.dumps(result, indent=2) + "\n")
    return result


def agent_section(result: dict | None) -> str:
    """The README's section on the learned agent: its training curve and its league."""
    if result is None:
        return ""
    league_result = result["league"]
    ratings = pd.DataFrame(league_result["ratings"])[["policy", "rating", "ci_low", "ci_high", "games", "bid_accuracy"]]
    ratings = ratings.round({"rating": 1, "ci_low": 1, "ci_high": 1, "bid_accuracy": 3})
    seconds = "" if league_result["seconds"] is None else f", {league_result['seconds']} s wall"
    return f"""## The learned agent (issue 59)

{played(result, "agent")} The shipped model (`learned`, `sim/learn/shipped`: [docs/learned.md](../docs/learned.md)) was
trained from nothing by `wizard-sim train --out sim/learn/shipped --seed 1 --minutes 30`; its
margin over three heuristic seats on held-out deals as it trained (200 deals each point, as
its card records them):

![training curve](learned_curve.png)

### League: `{league_result['policies_text']}`

{league_result['deals']} deals (as `wizard-sim league --games {league_result['deals']} --seed {result['seed']}`){seconds}; ratings are
points per game relative to the pool's mean (docs/league.md). `openspiel:ismcts` is not in it:
a Python search at every decision costs about 5 ms of one core a simulation, too slow for
full games here (it meets the bots at rounds 1-3 in the OpenSpiel section above).

{markdown_table(ratings)}
"""


# -- OpenSpiel's ISMCTS at our table ---------------------------------------------------------------
def openspiel_figures(sizes: Sizes, out: Path, runs: Path) -> dict | None:
    """The duplicate tournaments of OPENSPIEL_TABLES, each with its seconds (None without the
    [openspiel] extra: the step is skipped)."""
    if importlib.util.find_spec("pyspiel") is None:
        print("openspiel: skipped (pip install 'wizard-sim[openspiel]')")
        return None
    seed = SEEDS["openspiel"]
    tables = {}
    for name, policies_text in OPENSPIEL_TABLES.items():
        config = TournamentConfig.build(Rules(players=4, rounds=OPENSPIEL_ROUNDS), policies_text, seed=seed,
                                        deals=sizes.openspiel_deals)
        (policies, pairs), seconds = timed_tournament(config, runs / name)
        tables[name] = {"policies_text": policies_text, "deals": sizes.openspiel_deals, "rotations": config.rotations,
                        "policies": policies, "pairs": pairs, "seconds": seconds}  # fmt: skip
    config = LeagueConfig.build(Rules(players=4, rounds=OPENSPIEL_ROUNDS), OPENSPIEL_LEAGUE, seed=seed,
                                deals=sizes.openspiel_deals)
    path = runs / "openspiel_league"
    ratings, pairs = played_league(config, path)
    league_result = {"policies_text": OPENSPIEL_LEAGUE, "deals": sizes.openspiel_deals, "ratings": ratings,
                     "pairs": pairs, "seconds": run_seconds(path)}  # fmt: skip
    result = {**provenance(seed, deals=sizes.openspiel_deals, players=4, rounds=list(OPENSPIEL_ROUNDS), duplicate=True),
              "tables": tables, "league": league_result}  # fmt: skip
    (out / "openspiel.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def openspiel_section(result: dict | None) -> str:
    if not result:
        return ""
    parts = [f"""## OpenSpiel's ISMCTS at our table (docs/openspiel.md)

{played(result, "openspiel")} 4 players, rounds {'-'.join(map(str, (result['rounds'][0], result['rounds'][-1])))}, duplicate tournaments of {result['deals']} deals;
`openspiel:ismcts` is OpenSpiel's Python ISMCTSBot with random rollouts and our resampler.
"""]
    for name, table in result["tables"].items():
        verdicts = "\n".join(f"- {pair['verdict']}" for pair in table["pairs"])
        seconds = "" if table["seconds"] is None else f", {table['seconds']} s wall on a shared 2-core machine"
        parts.append(f"""### `{table['policies_text']}`

{table['deals']} deals x {table['rotations']} seatings{seconds}.

{markdown_table(policy_table(table['policies']))}

{verdicts}
""")
    league_result = result.get("league")
    if league_result:
        columns = ["policy", "rating", "ci_low", "ci_high", "games", "mean_score", "win_rate"]
        ratings = pd.DataFrame(league_result["ratings"])
        ratings = ratings[[column for column in columns if column in ratings.columns]].round(
            {"rating": 1, "ci_low": 1, "ci_high": 1, "mean_score": 1, "win_rate": 3})
        seconds = "" if league_result["seconds"] is None else f", {league_result['seconds']} s wall"
        parts.append(f"""### League: `{league_result['policies_text']}`

{league_result['deals']} deals (as `wizard-sim league --games {league_result['deals']}`){seconds}; ratings are points per game relative to
the pool's mean (docs/league.md).

{markdown_table(ratings)}
""")
    return "\n".join(parts)


# -- an example per-hand estimate ----------------------------------------------------------------
def estimate_figures(sizes: Sizes, out: Path) -> dict:
    seed = SEEDS["estimate"]
    frame: pd.DataFrame = sim.estimate(**EXAMPLE_HAND, samples=sizes.estimate_samples, seed=seed)
    legal = frame[frame["legal"]]
    recommended = int(legal.loc[legal["expected_score"].idxmax(), "bid"])
    result = {
        **provenance(seed, samples=sizes.estimate_samples, **{k: list(v) if isinstance(v, tuple) else v for k, v in EXAMPLE_HAND.items()}),
        "recommended_bid": recommended,
        "bids": json.loads(frame.to_json(orient="records")),
    }
    (out / "estimate.json").write_text(json.dumps(result, indent=2) + "\n")
    figure = new_figure(7, 4)
    axes = figure.subplots()
    axes.bar(legal["bid"], legal["p_make"], yerr=[legal["p_make"] - legal["p_make_lo"], legal["p_make_hi"] - legal["p_make"]], capsize=5)
    axes.set(xlabel="bid", ylabel="P(make the bid), 95% CI", ylim=(0, 1),
             title=f"{EXAMPLE_HAND['hand']}, trump card {EXAMPLE_HAND['trump']}, position {EXAMPLE_HAND['position']}")  # fmt: skip
    axes.set_xticks(legal["bid"])
    figure.savefig(out / "estimate.png", dpi=110)
    return result


# -- estimate against self-play ------------------------------------------------------------------
def calibration_figures(sizes: Sizes, out: Path) -> dict:
    seed = SEEDS["calibration"]
    measured = calibration(sizes.calibration_games, sizes.calibration_samples, seed=seed)
    result = {**provenance(seed, players=4, policy="heuristic", rounds=[1]), **measured}
    (out / "calibration.json").write_text(json.dumps(result, indent=2) + "\n")
    figure = new_figure(7, 6.5)
    axes = figure.subplots()
    axes.plot([0, 1], [0, 1], color="grey", linewidth=0.8, label="y = x")
    for number, row in enumerate(result["classes"], 1):
        if row["self_play"] is None:
            continue
        series = (("estimate", "o", "C0", "with inference"), ("no_infer", "x", "C3", "infer=False"))
        for key, marker, color, name in series:
            if row[key] is None:
                continue
            axes.errorbar(row["self_play"], row[key], xerr=1.96 * row["self_play_se"], yerr=1.96 * row[f"{key}_se"],
                          fmt=marker, color=color, capsize=3, label=name if number == 1 else None)
        axes.annotate(str(number), (row["self_play"], row["estimate"]), textcoords="offset points", xytext=(6, -10),
                      fontsize=8, color="C0")
    axes.set(xlabel="self-play frequency of taking the trick (95% CI)", ylabel="estimate's P(make 1) (95% CI)",
             xlim=(-0.03, 1.03), ylim=(-0.03, 1.03), aspect="equal",
             title=f"Round 1, 4 heuristic players, {result['games']:,} games, a 5 turned up")
    axes.legend(loc="upper left")
    figure.savefig(out / "calibration.png", dpi=110)
    return result


# -- README ------------------------------------------------------------------------------------
def markdown_table(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "| " + " | ".join("---" for _ in frame.columns) + " |"]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def policy_table(policies: list[dict]) -> pd.DataFrame:
    pol = pd.DataFrame(policies)
    return pd.DataFrame(
        {
            "policy": pol["policy"],
            "mean score per game": pol["mean_score"].map("{:.1f}".format),
            "95% CI": [f"{lo:.1f} .. {hi:.1f}" for lo, hi in zip(pol["mean_score_ci_low"], pol["mean_score_ci_high"])],
            "win rate": pol["win_rate"].map("{:.3f}".format),
            "bid accuracy": pol["bid_accuracy"].map("{:.3f}".format),
            "mean abs(bid - tricks)": pol["mean_abs_error"].map("{:.3f}".format),
        }
    )


PIMC_TITLES = {
    "pimc_vs_mc": "pimc against mc at its defaults",
    "pimc_inference": "pimc with inference against pimc without",
    "pimc_vs_heuristic": "pimc against the heuristic",
    "pimc_infer_vs_heuristic": "pimc with inference against the heuristic",
    "pimc_samples64_vs_heuristic": "pimc with 64 bid samples against the heuristic",
}


def table_section(title: str, table: dict) -> str:
    """A published tournament table: its title, policies, deals and wall time, then its
    policies' figures and verdicts."""
    verdicts = "\n".join(f"- {pair['verdict']}" for pair in table["pairs"])
    took = "wall time not recorded: read back" if table["seconds"] is None else f"{table['seconds']:,} s"
    mirrored = ", with mirror images" if table.get("mirrored") else ""
    return f"""### {title}: `{table['policies_text']}`, {table['deals']:,} deals{mirrored} ({took})

{markdown_table(policy_table(table["policies"]))}

{verdicts}"""


def comparison_rows(comparisons: list[dict], runs: str = "results/runs") -> list[str]:
    """A bullet per comparison of two tables (wizard-sim compare of their runs in `runs`)."""
    return [f"- `wizard-sim compare {runs}/{c['table_a']} {runs}/{c['table_b']}`: {c['policy_a']} − "
            f"{c['policy_b']} **{c['difference']:+.1f}** ({c['ci_low']:+.1f} to {c['ci_high']:+.1f}) over {c['deals']:,} "
            f"deals; {c['verdict']}" for c in comparisons]  # fmt: skip


def pimc_section(result: dict) -> str:
    """The README's pimc section: each tournament's table and verdicts, then bid accuracy."""
    parts = [f"""## pimc: perfect-information Monte Carlo (issue #26)

{played(result, "pimc")} Each deal played {pimc_seatings(result)}. `{FORMER_PIMC}` is pimc
at wizard-sim 0.1's defaults, which these tables were played with (pimc's defaults changed in
0.2: [docs/pimc.md](../docs/pimc.md), "Defaults"). It samples deals of the unseen cards, plays
each out (the heuristic at every seat, then the last 3 tricks solved exactly by max^n) and takes
the best mean score, for its cards and its bids, in every round and without inference from the
bids (the wall times of runs read back here: [experiments/2026-12-02](../experiments/2026-12-02-pimc-strength-and-inference-at-0.1.md))."""]
    parts += [table_section(PIMC_TITLES[name], table) for name, table in result["tables"].items()]
    rows = comparison_rows(result["comparisons"])
    parts.append("""### One policy changed at the heuristic table (two tables, paired over deals)

The tables above against three heuristic seats differ only in pimc's settings: each deal was
played with the same cards and the same heuristic seats in each, so one setting's per-deal mean
score minus the other's is a paired sample, as within one tournament (`wizard-sim compare`).

""" + "\n".join(rows))
    accuracy = pd.DataFrame(result["accuracy_by_round"])
    wide = accuracy.pivot_table(index="round", columns=["table", "policy"], values="exact_rate")
    wide.columns = [f"{policy} ({table.removeprefix('pimc_vs_')} table)" for table, policy in wide.columns]
    wide = wide.reset_index()
    parts.append(f"""### Bid accuracy by round size (exact bids / bids)

{markdown_table(wide.round(3))}""")
    return "\n\n".join(parts)


LEARNED_TITLES = {
    "learned_vs_heuristic": "against three heuristic seats",
    "learned_opposite_pimc": "another pimc opposite, two heuristic seats",
    "learned_with_random": "one random seat",
    "pimc_with_random": "one random seat, pimc without inference",
    "learned_vs_held_out": "three held-out bots",
    "pimc_vs_held_out": "three held-out bots, pimc without inference",
    "learned_with_random_bidder": "one seat bidding at random, playing as the heuristic",
    "pimc_with_random_bidder": "one seat bidding at random, playing as the heuristic, pimc without inference",
    "pimc_vs_heuristic": "against three heuristic seats, pimc without inference (the pimc step's table)",
    "fallback_vs_heuristic": "against three heuristic seats, infer=4",
    "fallback_opposite_pimc": "another pimc opposite, two heuristic seats, infer=4",
    "fallback_with_random": "one random seat, infer=4",
    "fallback_vs_held_out": "three held-out bots, infer=4",
    "unless_all_dealt_vs_heuristic": "against three heuristic seats, infer=5",
    "unless_all_dealt_opposite_pimc": "another pimc opposite, two heuristic seats, infer=5",
    "unless_all_dealt_with_random": "one random seat, infer=5",
    "unless_all_dealt_vs_held_out": "three held-out bots, infer=5",
    "unless_all_dealt_vs_mc": "against three mc seats at their defaults, infer=5",
    "pimc_vs_mc_equal_time": "three mc:samples=128,play_samples=256 seats (equal time), pimc without inference",
    "unless_all_dealt_vs_mc_equal_time": "three mc:samples=128,play_samples=256 seats (equal time), infer=5",
    "unless_most_dealt_64_vs_mc_equal_time": ("three mc:samples=128,play_samples=256 seats (equal time), "
                                              "infer=6 with 64 card samples (pimc's own cost)"),
    "split_by_round_vs_mc_equal_time": ("three mc:samples=128,play_samples=256 seats (equal time), pimc at its "
                                        "defaults since 0.2: infer=6 with 64 card samples in rounds 1-6, rounds 7-15 "
                                        "played as mc (mc_from=7, 224 card samples): less CPU per game than an mc seat"),
    "pimc_vs_mc": "against three mc seats at their defaults, pimc without inference (the pimc step's table)",
}


def learned_section(result: dict | None) -> str:
    """The README's section on the former infer=3 to 6: the verdicts of each comparison, then each table."""
    if result is None:
        return ""
    rows = comparison_rows(result["comparisons"])
    parts = [f"""## pimc learning how each seat bids (issue #37)

{played(result, "learned")} pimc without inference is 0.1's pimc,
`{FORMER_PIMC}`, and infer=K is 0.1's pimc with that inference, `{LEARNED}` for infer=3
(pimc's defaults changed in 0.2: [docs/pimc.md](../docs/pimc.md), "Defaults"; infer=K names a
former level, each a set of inference switches today: docs/pimc.md, "Inference switches"). infer=3 samples
its deals from the posterior given the bids shown, each seat's bid read with a mixture of bid models (at random, the heuristic's bid,
near the heuristic's estimate) weighed by that seat's bids in the game's finished rounds
([experiments/2026-12-04](../experiments/2026-12-04-pimc-robust-and-learned-inference.md), "Learned inference"). infer=4 is the same, except
that a decision whose weighted deals have too few effective ones (Kish's effective sample
size under half the samples drawn) is taken again on uniform deals ([experiments/2026-12-04](../experiments/2026-12-04-pimc-robust-and-learned-inference.md), "Falling
back to uniform deals"). infer=5 is infer=4, except in a round that deals every card,
which it plays on uniform deals ([experiments/2026-12-05](../experiments/2026-12-05-pimc-uniform-deals-infer5-infer6.md)); it also meets three
mc seats at their defaults and at equal time (`mc:samples=128,play_samples=256`, whose game costs a
little more than pimc's and two thirds of infer=5's: [experiments/2026-12-05](../experiments/2026-12-05-pimc-uniform-deals-infer5-infer6.md), "`infer=5`
against mc"). At equal time, infer=6 with 64 card samples (`{UNLESS_MOST_DEALT_64}`) and the
same with its rounds of 7 cards on played as mc (`mc_from=7`: [experiments/2026-12-03](../experiments/2026-12-03-pimc-at-equal-time.md), "Rounds by size at
equal time"), each at less CPU per game than an mc seat: the latter is `{SPLIT_BY_ROUND}` at its
defaults since 0.2. Against pimc without inference, infer=4 against infer=3,
infer=5 against infer=4, and the two equal-time settings against pimc and each other:

""" + "\n".join(rows)]
    parts += [table_section(LEARNED_TITLES[name], table) for name, table in result["tables"].items()]
    return "\n\n".join(parts)


def fresh_title(name: str) -> str:
    """A fresh-deals table's title: its other seats, then pimc's setting."""
    if name == "split_by_round_vs_mc_equal_time":
        return f"three mc:samples=128,play_samples=256 seats (equal time), {FRESH_DESCRIPTIONS['split_by_round']}"
    setting = next(setting for setting in sorted(FRESH_SETTINGS, key=len, reverse=True) if name.startswith(setting))
    seats = name[len(setting) + 1:]
    where = "another pimc opposite, two heuristic seats" if seats == "opposite_pimc" else FRESH_SEATS[seats][2]
    return f"{where}, {FRESH_DESCRIPTIONS[setting]}"


def fresh_section(result: dict | None) -> str:
    """The README's section on the fresh deals: each comparison's verdict, then each table."""
    if result is None:
        return ""
    parts = [f"""## pimc's defaults on fresh deals (issue #37)

{played(result, "fresh")} Deals that chose none of these settings.
0.1's pimc is `{FORMER_PIMC}` today. 0.1's pimc with infer=6, `{UNLESS_MOST_DEALT}`, is infer=5
except in the rounds that deal at least 80% of the deck, played on uniform deals
([experiments/2026-12-05](../experiments/2026-12-05-pimc-uniform-deals-infer5-infer6.md), "Uniform deals where most cards are dealt"). `{SPLIT_BY_ROUND}`
at its defaults since 0.2 (docs/pimc.md, "Defaults") is infer=6 with 64 card samples in the
rounds of 1–6 cards and plays the rounds of 7 cards on as an mc seat with 224 card samples
([experiments/2026-12-03](../experiments/2026-12-03-pimc-at-equal-time.md), "Rounds by size at equal time" and "`S` at the other tables"). The three
settings at the same four tables, compared paired over their deals; with 0.1's pimc opposite
and at equal time, the tournament's own pairs:

""" + "\n".join(comparison_rows(result["comparisons"], f"results/runs/{FRESH_RUNS}"))]
    parts += [table_section(fresh_title(name), table) for name, table in result["tables"].items()]
    return "\n\n".join(parts)


def games_per_s(result: dict) -> str:
    speed = result.get("games_per_s")
    return "speed not recorded: the run was resumed" if speed is None else f"{speed:,} games/s"


def seatings(result: dict) -> str:
    """How a published tournament seated each deal."""
    if result.get("mirrored"):
        return ("in all 4 seat rotations and their 4 mirror images "
                "([docs/tournament.md](../docs/tournament.md#neighbours-and-mirror-images))")
    return "in all 4 seat rotations"


def pimc_seatings(result: dict) -> str:
    if any(table.get("mirrored") for table in result["tables"].values()):
        return "in all 4 seat rotations, and their mirror images at the tables that say so"
    return ("in all 4 seat rotations (no table needs mirror images: one policy plays copies of another, or the two "
            "compared sit opposite each other)")


def played(result: dict, step: str) -> str:
    """A section's first sentence: which version played its figures, when, on which seed, and the
    command that replays it (the sections' versions differ when steps were replayed apart)."""
    text = result_figures.provenance(result)
    return f"{text[0].upper()}{text[1:]} (`python -m experiments.regenerate_results --only {step}`)."


def write_readme(out: Path, results: dict[str, dict], command: str) -> None:
    accuracy_result, tournament_result = results["accuracy"], results["tournament"]
    estimate_result, calibration_result = results["estimate"], results["calibration"]
    inference_result, pimc_result = results["inference"], results["pimc"]
    acc = pd.DataFrame(accuracy_result["rounds"])[["round", "heuristic", "standard_error", "baseline", "margin_in_se"]]
    pol = policy_table(tournament_result["policies"])
    verdicts = "\n".join(f"- {pair['verdict']}" for pair in tournament_result["pairs"])
    inference_verdicts = "\n".join(f"- {pair['verdict']}" for pair in inference_result["pairs"])
    est = pd.DataFrame(estimate_result["bids"])
    est = est[est["legal"]][["bid", "p_make", "p_make_lo", "p_make_hi", "expected_score", "expected_score_lo", "expected_score_hi"]].round(3)

    classes = calibration_result["classes"]
    cal = pd.DataFrame(
        {
            "#": range(1, len(classes) + 1),
            "situation (4 players, a 5 turned up)": [row["situation"] for row in classes],
            "games": [f"{row['games']:,}" for row in classes],
            "self-play ± SE": [result_figures.percent(row["self_play"], row["self_play_se"]) for row in classes],
            "estimate": [result_figures.percent(row["estimate"]) for row in classes],
            "z": [row.get("z", "-") for row in classes],
            "infer=False": [result_figures.percent(row["no_infer"]) for row in classes],
        }
    )
    text = f"""# Reference results

Written by `{command}` with wizard-sim {sim.__version__}, from the JSON files beside it. Each
section says which wizard-sim version played its figures, when, and on which seed, and the
command that replays it (seeded: the same figures exactly).

## Heuristic bid accuracy next to the published baseline

{played(accuracy_result, "accuracy")}
4-player self-play of `heuristic`, {accuracy_result['games']:,} full games; exact
bids / bids by round size, with the standard error, next to the rule-based agent of Schumacher &
Pleines (IEEE CoG 2022). `margin_in_se` = (heuristic - baseline) / standard error.

{markdown_table(acc)}

Beats the baseline at every round size: **{all(row['beats_baseline'] for row in accuracy_result['rounds'])}**.

![accuracy](accuracy_vs_baseline.png)

## Duplicate tournament: {tournament_result['deals']:,} deals of `{TOURNAMENT_POLICIES}`

{played(tournament_result, "tournament")} Each deal played {seatings(tournament_result)} ({games_per_s(tournament_result)}).
mc runs at `samples=8, play_samples=4`, cheaper than its default (16, 16), which is stronger
still (docs/mc.md) but would take hours for {tournament_result['deals']:,} deals on 2 cores.

{markdown_table(pol)}

{verdicts}

![tournament](tournament.png)

## Example per-hand estimate

`wizard-sim estimate --hand "{EXAMPLE_HAND['hand']}" --trump {EXAMPLE_HAND['trump']} --players {EXAMPLE_HAND['players']} --position {EXAMPLE_HAND['position']} --bids {','.join(map(str, EXAMPLE_HAND['bids']))} --samples {estimate_result['samples']} --seed {estimate_result['seed']}`
(heuristic opponents and play). {played(estimate_result, "estimate")} Recommended bid: **{estimate_result['recommended_bid']}**.

{markdown_table(est)}

![estimate](estimate.png)

## Estimate against self-play: bids carry information

{played(calibration_result, "calibration")}
Round 1 of {calibration_result['games']:,} 4-player heuristic self-play games (play is
forced, so whether the card takes the trick depends on the cards alone), pooled over suits
(every game with a 5 turned up and the situation's card kind counts), next to estimate's
P(make 1) for the hand and bids shown (trump card 5H, {calibration_result['samples']:,} samples, seed
{calibration_result['estimate_seed']}) with inference (the default) and with `infer=False` (uniform deals).
z = (estimate - self-play) / sqrt(p(1-p)/games + SE(estimate)²), p the estimate. Generated {calibration_result['generated']} by
`sim.estimation.calibration`.

{markdown_table(cal)}

![calibration](calibration.png)

## mc with inference against mc without: {inference_result['deals']:,} deals of `{INFERENCE_POLICIES}`

{played(inference_result, "inference")} Each deal played {seatings(inference_result)}. `mc:infer=1` deals its samples
from the posterior given the heuristic seats' bids (docs/mc.md, "Inference"); `mc` (infer=0)
deals them uniformly. Issue #14 asks for mc with inference to win with its interval above zero.

{markdown_table(policy_table(inference_result["policies"]))}

{inference_verdicts}

{pimc_section(pimc_result)}

{openspiel_section(results.get("openspiel"))}

{learned_section(results.get("learned"))}

{fresh_section(results.get("fresh"))}

{agent_section(results.get("agent"))}
"""
    (out / "README.md").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.regenerate_results", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where the figures and README go")
    parser.add_argument("--runs", type=Path, default=None, help="where the datasets go (default OUT/runs)")
    parser.add_argument("--only", choices=STEPS, action="append",
                        help="run only this step (repeatable); the README reads the others' JSON from OUT")
    parser.add_argument("--readme", action="store_true",
                        help="play nothing: write the README (and, into results/, the docs' blocks) from OUT's JSON")
    arguments = parser.parse_args()
    sizes = QUICK if arguments.quick else FULL
    out = arguments.out
    runs = arguments.runs or out / "runs"
    if arguments.readme and arguments.only:
        parser.error("--readme plays nothing: it takes no --only")
    only = () if arguments.readme else arguments.only or STEPS
    missing = [FILES[name] for name in STEPS if name not in only and name not in OPTIONAL_STEPS
               and not (out / FILES[name]).exists()]  # fmt: skip
    if missing:  # the README needs every required section: refuse before hours of play, not after
        if arguments.readme:
            parser.error(f"--readme reads every step's JSON from {out}, which lacks {', '.join(missing)}: "
                         "play those steps first (--only STEP)")
        parser.error(f"--only reads the other steps' JSON from {out}, which lacks {', '.join(missing)}: "
                     "run every step once (no --only), or name those steps with --only too")
    out.mkdir(parents=True, exist_ok=True)
    if only:
        runs.mkdir(parents=True, exist_ok=True)
    command = ("python -m experiments.regenerate_results" + (" --quick" if arguments.quick else "")
               + (" --readme" if arguments.readme else ""))
    steps = (("accuracy", lambda: accuracy(sizes, out, runs)), ("tournament", lambda: tournament_figures(sizes, out, runs)),
             ("estimate", lambda: estimate_figures(sizes, out)),
             ("calibration", lambda: calibration_figures(sizes, out)),
             ("inference", lambda: inference_figures(sizes, out, runs)),
             ("pimc", lambda: pimc_figures(sizes, out, runs)),
             ("openspiel", lambda: openspiel_figures(sizes, out, runs)),
             ("learned", lambda: learned_figures(sizes, out, runs)),
             ("fresh", lambda: fresh_figures(sizes, out, runs)),
             ("agent", lambda: agent_figures(sizes, out, runs)))  # fmt: skip
    results = {}
    for name, step in steps:
        if name not in only:
            continue
        start = time.perf_counter()
        results[name] = step()
        print(f"{name}: {time.perf_counter() - start:.1f} s")
    for name in STEPS:
        if results.get(name) is None and (out / FILES[name]).exists():
            results[name] = json.loads((out / FILES[name]).read_text())
    if arguments.only:
        command += "".join(f" --only {name}" for name in arguments.only)
    write_readme(out, results, command)
    print(f"wrote {out / 'README.md'}")
    if out.resolve() == RESULTS:  # a smoke run elsewhere must not write its figures into the docs
        for page in result_figures.write_pages(result_figures.published(RESULTS)):
            print(f"wrote {page.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
