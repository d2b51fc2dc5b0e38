"""Which opponent model should `estimate` use for players whose bidding we do not know?

Calibration against self-play (docs/estimate.md, "Unknown opponents"): 4-player 1-card rounds
(play is forced there, so who takes the trick depends on the cards alone and an estimate's
P(make 1) is the chance the seat's card wins) of tables of different bidders. For each table
and each situation — the seat's card (a Wizard, a Jester, a trump or a side card by rank), its
bidding position and the bids before it, with a 5 turned up (suits pooled: they are symmetric)
or a Jester (no trump) — the share of self-play games in which the seat took the trick is
compared with estimate's P(make 1) under each opponent model: the exact heuristic, the
tolerant models of a grid (spread x floor, docs/estimate.md), the robust ones (a share of the
bids around the heuristic's estimated tricks before rounding: wide x wide spread x floor), and the table's own policy for
the earlier bidders (a Python bot inferred on through its own answers, with fewer samples:
--own-samples).

A model in --models may also name the opponents' policy (`opponents`, e.g. the heuristic at
another aggression): the best such model of each table, chosen with hindsight, bounds what a
model fitted to that table's own finished rounds could reach (docs/estimate.md).

The unknown-opponents model is chosen on the BUILD tables only (heuristic variants and random:
what the model is made of) — the grid point with the lowest mean |error| over them — and
reported on the HOLD_OUT tables (mc, the rule bot of examples/rule_bot.py at two settings, the
linear bidder of examples/numpy_bot.py), which it never saw.

    python -m experiments.calibrate_opponents                 # about 45 minutes on 2 shared cores
    python -m experiments.calibrate_opponents --json results/opponent_calibration.json
    python -m experiments.calibrate_opponents --cache selfplay.json   # keep self-play and estimates for a rerun
    python -m experiments.calibrate_opponents --quick         # a smoke run
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

import sim
from sim.estimation.run import run_estimate
from sim.config.errors import ConfigError

PLAYERS = 4
BUILD = {"heuristic": "heuristic", "cautious heuristic": "heuristic:aggression=0.7",
         "bold heuristic": "heuristic:aggression=1.4", "random": "random"}  # fmt: skip
HOLD_OUT = {"mc": "mc", "rule bot": "examples.rule_bot:RuleBot",
            "cautious rule bot": "examples.rule_bot:RuleBot:caution=0.6",
            "linear bidder": "examples.numpy_bot:LinearBidder"}  # fmt: skip
SLOW = {"rule bot", "cautious rule bot"}  # plain-Python bots: fewer games (about 450 us a game)
SPREADS = (0.0, 0.5, 1.0, 2.0)
FLOORS = (0.0, 0.1, 0.3)
# The robust likelihood (kernels/search/posterior.py): a share `wide` of the bids modelled around
# the heuristic's estimated tricks before rounding, with spread `wide_spread`, the rest exactly.
WIDES = (0.3, 0.6, 1.0)
WIDE_SPREADS = (0.15, 0.3, 0.5)
WIDE_FLOORS = (0.0, 0.05)
FIVE = 3  # rank index of a 5 (ranks 2..A are 0..12)
SUITS = "CDHS"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def card_class(card: int, turned: int) -> str | None:
    """The seat's card as estimate is asked it: W, J, or a rank in the trump suit (hearts,
    with 5H turned up) or a side suit (spades); None when the turned card is not in a family."""
    if card >= 56:
        return "J"
    if card >= 52:
        return "W"
    if turned >= 56:  # a Jester turned up: no trump, every suit alike
        return RANKS[card % 13] + "S"
    return RANKS[card % 13] + ("H" if card // 13 == turned // 13 else "S")


def self_play(policy: str, games: int, seed: int) -> dict:
    """Per situation (family, card, position, earlier bids): [games, tricks taken]."""
    batch = sim.run_games(sim.Rules(players=PLAYERS, rounds=[1]), policy, seed=seed, games=games)
    hands, bids, tricks = (batch.seats[name][:, 0, :] for name in ("hand", "bid", "tricks"))
    turned = batch.rounds["trump_card"][:, 0].astype(np.int64)
    dealer = batch.rounds["dealer"][:, 0].astype(np.int64)
    cards = np.log2(hands.astype(np.float64)).astype(np.int64)
    counts: dict = {}
    for game in range(games):
        turn = int(turned[game])
        if turn >= 56:
            family = "J"
        elif turn < 52 and turn % 13 == FIVE:
            family = "5"
        else:
            continue
        order = [(int(dealer[game]) + 1 + p) % PLAYERS for p in range(PLAYERS)]
        for position, seat in enumerate(order):
            key = (family, card_class(int(cards[game, seat]), turn), position,
                   tuple(int(bids[game, s]) for s in order[:position]))  # fmt: skip
            entry = counts.setdefault(key, [0, 0])
            entry[0] += 1
            entry[1] += int(tricks[game, seat])
    return counts


def model_label(model: dict) -> str:
    """A model's name in the tables: its options in order, `spread 0.5, floor 0.1`."""
    return ", ".join(f"{key.replace('_', ' ')} {value:g}" if isinstance(value, (int, float)) else f"{key} {value}"
                     for key, value in model.items())  # fmt: skip


def situation_key(text: str) -> tuple:
    """A situation from its JSON form in the cache: [family, card, position, [bids]]."""
    family, card, position, bids = json.loads(text)
    return family, card, position, tuple(bids)


def estimate_of(key: tuple, samples: int, seed: int, **model) -> float | None:
    """estimate's P(make 1) for a situation (None: the exact model finds no deal that fits)."""
    family, card, position, bids = key
    trump = {"trump": "5H"} if family == "5" else {"no_trump": True}
    try:
        result = run_estimate(card, players=PLAYERS, position=position, bids=list(bids), samples=samples, seed=seed,
                              **trump, **model)  # fmt: skip
    except ConfigError:
        return None
    return result.stats[1].p_make


def errors_of(table: dict, predictions: dict, min_games: int) -> dict:
    """Mean and largest |estimate - self-play| (points of probability) over the table's
    situations with at least min_games games; failures: situations the model had no deal for."""
    errors, noise, failures = [], [], 0
    for key, (games, taken) in table.items():
        if games < min_games:
            continue
        predicted = predictions.get(key)
        if predicted is None:
            failures += 1
            continue
        observed = taken / games
        errors.append(100 * abs(predicted - observed))
        noise.append(100 * math.sqrt(max(observed * (1 - observed), 1e-12) / games))
    return {"situations": len(errors), "mean": float(np.mean(errors)) if errors else None,
            "max": float(np.max(errors)) if errors else None, "failures": failures,
            "self_play_se": float(np.mean(noise)) if noise else None}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="self-play games per fast table")
    parser.add_argument("--slow-games", type=int, default=300_000, help="self-play games per plain-Python table")
    parser.add_argument("--samples", type=int, default=10_000, help="estimate samples per situation and model")
    parser.add_argument("--own-samples", type=int, default=1_000, help="samples with a Python bot's own answers")
    parser.add_argument("--min-games", type=int, default=600, help="situations with fewer games are left out")
    parser.add_argument("--cache", type=Path, help="keep the self-play counts in this JSON file (reused if present)")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="a smoke run (small sizes)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--models", type=json.loads, help='only these models (and the exact one): a JSON list of '
                        'estimate options, e.g. \'[{"spread": 0.5}, {"wide": 1, "wide_spread": 0.3, "floor": 0.1}, '
                        '{"opponents": "heuristic:aggression=1.2", "spread": 0.5}]\'')
    parser.add_argument("--no-own", action="store_true", help="skip the tables' own-policy estimates (the slow part)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.slow_games, args.samples, args.own_samples, args.min_games = 100_000, 10_000, 2_000, 500, 100
    began = time.perf_counter()
    tables = {}
    cached = json.loads(args.cache.read_text()) if args.cache and args.cache.exists() else {}
    for name, policy in {**BUILD, **HOLD_OUT}.items():
        games = args.slow_games if name in SLOW else args.games
        tag = f"{policy} {games} {args.seed}"
        if tag in cached:
            tables[name] = {situation_key(key): value for key, value in cached[tag].items()}
            continue
        start = time.perf_counter()
        tables[name] = self_play(policy, games, args.seed)
        print(f"self-play {name} ({policy}): {games:,} games in {time.perf_counter() - start:.0f} s", flush=True)
        if args.cache:
            cached[tag] = {json.dumps(list(key)): value for key, value in tables[name].items()}
            args.cache.write_text(json.dumps(cached))
    keys = sorted({key for table in tables.values() for key, (games, _) in table.items() if games >= args.min_games})
    models = {"exact": {}, **{f"spread {s:g}, floor {f:g}": {"spread": s, "floor": f}
                              for s in SPREADS for f in FLOORS if s or f},
              **{f"wide {w:g}, wide spread {ws:g}, floor {f:g}": {"wide": w, "wide_spread": ws, "floor": f}
                 for w in WIDES for ws in WIDE_SPREADS for f in WIDE_FLOORS}}  # fmt: skip
    if args.models is not None:
        models = {"exact": {}, **{model_label(model): model for model in args.models}}
    predictions = {}
    for label, model in models.items():
        tag = f"estimates {label} {args.samples} {args.seed}"
        if tag in cached and set(map(situation_key, cached[tag])) >= set(keys):
            predictions[label] = {situation_key(key): value for key, value in cached[tag].items()}
            continue
        start = time.perf_counter()
        predictions[label] = {key: estimate_of(key, args.samples, args.seed, **model) for key in keys}
        print(f"estimates, {label}: {len(keys)} situations in {time.perf_counter() - start:.0f} s", flush=True)
        if args.cache:
            cached[tag] = {json.dumps(list(key)): value for key, value in predictions[label].items()}
            args.cache.write_text(json.dumps(cached))
    own = {}
    for name, policy in {} if args.no_own else {**BUILD, **HOLD_OUT}.items():
        # The table's own policy for the earlier bidders, whose bids are read; the later bidders and
        # the seat's own play change nothing in a 1-card round (play is forced): random, which is fast.
        start = time.perf_counter()
        samples = args.own_samples if name in SLOW or "numpy_bot" in policy else args.samples
        table_keys = [key for key in keys if tables[name].get(key, (0, 0))[0] >= args.min_games]
        tag = f"own {policy} {samples} {args.seed}"
        if tag in cached and set(map(situation_key, cached[tag])) >= set(table_keys):
            own[name] = {situation_key(key): value for key, value in cached[tag].items()}
            continue
        own[name] = {key: estimate_of(key, samples, args.seed, policy="random",
                                      opponents=[policy] * key[2] + ["random"] * (PLAYERS - 1 - key[2]))
                     for key in table_keys}  # fmt: skip
        print(f"estimates, {name}'s own policy: {len(table_keys)} situations in {time.perf_counter() - start:.0f} s",
              flush=True)  # fmt: skip
        if args.cache:
            cached[tag] = {json.dumps(list(key)): value for key, value in own[name].items()}
            args.cache.write_text(json.dumps(cached))
    report = {name: {label: errors_of(tables[name], predictions[label], args.min_games) for label in models}
              for name in tables}  # fmt: skip
    for name in own:
        report[name]["own policy"] = errors_of(tables[name], own[name], args.min_games)
    grid = [label for label in models if label != "exact"]
    build_mean = {label: float(np.mean([report[name][label]["mean"] for name in BUILD])) for label in grid}
    chosen = min(grid, key=lambda label: build_mean[label])
    figures = {
        "command": " ".join(["python -m experiments.calibrate_opponents", *sys.argv[1:]]),
        "settings": {k: v for k, v in vars(args).items() if k not in ("json", "cache")},
        "build": BUILD, "hold_out": HOLD_OUT, "chosen": chosen, "chosen_model": models[chosen],
        "build_mean_error": build_mean, "tables": report, "seconds": round(time.perf_counter() - began),
    }  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
        print(f"wrote {args.json}")
    print(f"\nchosen on the build tables: {chosen} (mean |error| over them {build_mean[chosen]:.2f} points)")
    columns = ["exact", "spread 1, floor 0", chosen, "own policy"]  # spread 1: the docs' old advice for people
    if args.models is not None:
        columns = list(models) + (["own policy"] if own else [])
    print("| table | situations | self-play SE | " + " | ".join(f"{c}: mean / max" for c in columns) + " |")
    for name in tables:
        row = report[name]
        cells = []
        for column in columns:
            entry = row[column]
            failed = f" ({entry['failures']} no deal)" if entry["failures"] else ""
            cells.append("-" if entry["mean"] is None else f"{entry['mean']:.2f} / {entry['max']:.1f}{failed}")
        kind = "build" if name in BUILD else "hold-out"
        situations = row["exact"]["situations"] + row["exact"]["failures"]
        noise = "-" if row["exact"]["self_play_se"] is None else f"{row['exact']['self_play_se']:.2f}"
        print(f"| {name} ({kind}) | {situations} | {noise} | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
