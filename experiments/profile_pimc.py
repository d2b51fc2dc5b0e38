"""Where pimc's CPU goes (docs/pimc.md, "Where the time goes"): one decision split into
sampling, playouts, solver and bookkeeping, for bids and cards, by round size.

    python -m experiments.profile_pimc                          # pimc at its defaults, 4 players
    python -m experiments.profile_pimc --policy pimc:depth=2 --games 20 --sizes 1,5,10,15 --json
    # docs/pimc.md's profiles: wizard-sim 0.1's pimc
    python -m experiments.profile_pimc --policy pimc:play_samples=96,posterior=0,mc_from=0 --games 10 --repeats 2

The decisions are real: the pimc seat's (seat 0) bid and card decisions of `--games` rounds of
every round size at the table POLICY,heuristic,heuristic,random (what bench_pimc.py and
bench_mc.py time), captured with the state the seat saw. Each decision is then taken again on
one thread, with a random stream of its own, five times over, each time stopping at a later
stage of pimc's own loop (mc.sampled_choice as kernels/search/pimc.py's sampled_bid and
sampled_card run it, with a value function that stops at the stage):

    setup      the heuristic's choice, the distinct candidates, the decision's working memory
    sampling   + start_sampling and mc.sample_base for every sample (the deals)
    playouts   + for every sample and candidate: the rollout state reset, the candidate
               applied (a bid: the bidding completed), the playout until `depth` tricks are left
    solver     + solver.set_position and solve / final_after for every sample and candidate
    full       pimc.choose_bid / choose_card itself

The heuristic playout draws no random number, so every stage sees the same deals. The parts
are the differences: sampling = sampling - setup, playouts = playouts - sampling, solver =
solver - playouts, bookkeeping = setup + (full - solver) (the memory, the heuristic's choice,
the totals and the best choice). Each stage is timed as the least CPU time (time.process_time)
of `--repeats` runs over all decisions of a kind and round size, the stages alternating; the
solver's cards tried (its nodes) are counted exactly. A forced decision (one distinct choice)
costs only its setup. The full game's row sums every round size once (rounds 1 to 60/players).

Every round size is taken again as pimc's own decision, also the rounds of `mc_from` cards or
more (7 at the defaults), which the seat plays as mc in a game. There, and in the full game's
row, the profile is not what the seat spends (bench_pimc.py times that); with mc_from=0 the
seat plays every round as profiled.

numba caches this script's kernels under experiments/__pycache__, stamped with the kernel
sources they import (kernels/cache_stamps.py), so a profile never runs old code.
"""
from __future__ import annotations

import argparse
import json
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import at, popcount
from kernels.search.equivalence import distinct_cards, in_play_for_seat, representative
from kernels.policies import heuristic
from kernels.search import mc, pimc
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PLAYERS, MAX_SEAT_STATE, SeatedPolicies
from kernels.rng import STREAM_DECISIONS, seed_stream
from sim import Rules
from sim.policies.registry import parse_policies, policy_arrays
from sim.engine.startup import start
from experiments.seat_decisions import capture

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

OPPONENTS = ["heuristic", "heuristic", "random"]
SETUP, SAMPLING, PLAYOUTS, SOLVER, FULL = range(5)
STAGES = ("setup", "sampling", "playouts", "solver", "full")
PARTS = ("sampling", "playouts", "solver", "bookkeeping")
CAPTURE_SEED = 26
PROFILE_SEED = 37


# --- one decision, stopped at a stage ------------------------------------------------------
# pimc.sampled_bid / sampled_card with a value function that stops at the stage: pimc's own
# loop (mc.sampled_choice) and pimc's own steps, up to the stage.


class Staged(NamedTuple):
    """A pimc.Evaluation and the stage to stop at (the context of the staged values)."""

    evaluation: pimc.Evaluation
    stage: int


@njit(cache=True)
def staged_bid_value(staged, me, table, bid, first, generator):
    """pimc.bid_value up to the stage (0 before the solver's)."""
    evaluation = staged.evaluation
    if staged.stage == SOLVER:
        return pimc.bid_value(evaluation, me, table, bid, first, generator)
    if staged.stage == PLAYOUTS:
        pimc.start_bid_sample(evaluation.memory.deals, me, table, bid)
        pimc.play_to_solver(evaluation.memory, evaluation.playout, evaluation.depth, generator)
    return 0.0


@njit(cache=True)
def staged_card_value(staged, me, table, card, first, generator):
    """pimc.card_value up to the stage (0 before the solver's)."""
    evaluation = staged.evaluation
    if staged.stage == SOLVER:
        return pimc.card_value(evaluation, me, table, card, first, generator)
    if staged.stage == PLAYOUTS and not evaluation.solved_now:
        pimc.start_card_sample(evaluation.memory.deals, table, card)
        pimc.play_to_solver(evaluation.memory, evaluation.playout, evaluation.depth, generator)
    return 0.0


@njit(cache=True)
def bid_until(storage, policies, me, table, legal, generator, stage, nodes):
    """pimc.choose_bid (bidding=1) up to the stage."""
    params = policies.params
    preferred = heuristic.choose_bid(mc.ROLLOUT_PARAMS, me, table, legal)
    samples = int(params[at(me.seat), pimc.P_SAMPLES])
    if samples == 0 or popcount(legal) == 1 or stage == SETUP:
        return
    memory = storage[0]
    pimc.start_sampling(policies, me, table, memory.deals, generator)
    evaluation = pimc.Evaluation(memory, int(params[at(me.seat), pimc.P_PLAYOUT]), int(params[at(me.seat), pimc.P_DEPTH]),
                                 False, params[at(me.seat), pimc.P_BIDDING] == pimc.BIDDING_BLEND)  # as pimc.sampled_bid
    mc.sampled_choice(staged_bid_value, Staged(evaluation, stage), me, table, memory.deals, samples, legal,
                      preferred, generator)  # fmt: skip
    nodes[0] += memory.solver.nodes


@njit(cache=True)
def card_until(storage, policies, me, table, legal, generator, stage, nodes):
    """pimc.choose_card up to the stage."""
    params = policies.params
    preferred = heuristic.choose_card(me, table, legal)
    samples = int(params[at(me.seat), pimc.P_PLAY_SAMPLES])
    choices = distinct_cards(legal, in_play_for_seat(me, table))
    if samples == 0 or popcount(choices) == 1:
        return
    preferred_choice = representative(preferred, choices)
    if stage == SETUP:
        return
    memory = storage[0]
    pimc.start_sampling(policies, me, table, memory.deals, generator)
    depth = int(params[at(me.seat), pimc.P_DEPTH])
    solved_now = table.round_size - table.trick <= depth
    evaluation = pimc.Evaluation(memory, int(params[at(me.seat), pimc.P_PLAYOUT]), depth, solved_now, False)  # as pimc.sampled_card
    mc.sampled_choice(staged_card_value, Staged(evaluation, stage), me, table, memory.deals, samples, choices,
                      preferred_choice, generator)  # fmt: skip
    nodes[0] += memory.solver.nodes


@njit(cache=True)
def run_stage(policies, tables, seat_records, kinds, legals, stage, nodes):
    """Take every decision again up to `stage` (FULL: pimc's own), each with its own stream."""
    generator = np.zeros(1, dtype=np.uint64)
    for i in range(tables.shape[0]):
        seed_stream(generator, PROFILE_SEED, i, tables[i].round_size, STREAM_DECISIONS)
        me = seat_records[i]
        table = tables[i]
        if kinds[i] == DECIDE_BID:
            if stage == FULL:
                pimc.choose_bid(policies, me, table, legals[i], generator)
            else:
                bid_until(pimc.new_memory(), policies, me, table, legals[i], generator, stage, nodes)
        elif stage == FULL:
            pimc.choose_card(policies, me, table, legals[i], generator)
        else:
            card_until(pimc.new_memory(), policies, me, table, legals[i], generator, stage, nodes)


# --- the measurement --------------------------------------------------------------------


def profile(policy: str, players: int, sizes: list[int], games: int, repeats: int) -> dict:
    rules = Rules(players=players)
    policies = policy_arrays(parse_policies([policy] + OPPONENTS[: players - 1] + ["heuristic"] * max(0, players - 4), players))
    # Each decision is in the first round of its game: no seat's state holds anything yet.
    seated = SeatedPolicies(*policies, np.zeros((MAX_PLAYERS, MAX_SEAT_STATE)))
    rows = []
    for round_size in sizes:
        tables, seat_records, kinds, legals, _, _ = capture(rules, policies, round_size, games, CAPTURE_SEED)
        for kind, name in ((DECIDE_BID, "bid"), (DECIDE_CARD, "card")):
            chosen = kinds == kind
            arrays = (tables[chosen], seat_records[chosen], kinds[chosen], legals[chosen])
            nodes = np.zeros(1, dtype=np.int64)
            for stage in range(len(STAGES)):  # compiled or loaded, and warm
                run_stage(seated, *(a[:2] for a in arrays), stage, nodes)
            best = [float("inf")] * len(STAGES)
            for _ in range(repeats):
                for stage in range(len(STAGES)):
                    nodes[0] = 0
                    start = time.process_time()
                    run_stage(seated, *arrays, stage, nodes)
                    best[stage] = min(best[stage], time.process_time() - start)
                    if stage == SOLVER:
                        solver_nodes = int(nodes[0])
            seconds = dict(zip(STAGES, best))
            parts = {
                "sampling": seconds["sampling"] - seconds["setup"],
                "playouts": seconds["playouts"] - seconds["sampling"],
                "solver": seconds["solver"] - seconds["playouts"],
                "bookkeeping": seconds["setup"] + seconds["full"] - seconds["solver"],
            }
            decisions = int(chosen.sum())
            rows.append({
                "round_size": round_size, "decision": name, "decisions": decisions,
                "us_per_decision": round(1e6 * seconds["full"] / decisions, 1),
                "ms_per_round": round(1e3 * seconds["full"] / games, 3),
                "share": {part: round(parts[part] / seconds["full"], 3) for part in PARTS},
                "solver_nodes_per_decision": round(solver_nodes / decisions, 1),
            })  # fmt: skip
    return {"policy": policy, "players": players, "games": games, "repeats": repeats, "rows": rows}


def full_game(rows: list[dict], kind: str | None) -> dict:
    """Every round size once (a full game, if every size was profiled): ms and shares."""
    chosen = [row for row in rows if kind is None or row["decision"] == kind]
    total = sum(row["ms_per_round"] for row in chosen)
    share = {part: round(sum(row["ms_per_round"] * row["share"][part] for row in chosen) / total, 3) for part in PARTS}
    return {"ms": round(total, 2), "share": share}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="pimc", help="the pimc setting of seat 0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--sizes", default=None, help="round sizes (default: every size of a full game)")
    parser.add_argument("--games", type=int, default=20, help="rounds of each size")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each stage (the least counts)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(1)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(range(1, 60 // args.players + 1))
    figures = profile(args.policy, args.players, sizes, args.games, args.repeats)
    figures["full_game"] = {kind or "all": full_game(figures["rows"], kind) for kind in ("bid", "card", None)}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.policy},{','.join(OPPONENTS)}: seat 0's decisions, {args.games} rounds of each size, one thread")
    print("| round size | decision | us per decision | ms per round | sampling | playouts | solver | bookkeeping | solver nodes per decision |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in figures["rows"]:
        shares = " | ".join(f"{100 * row['share'][part]:.0f}%" for part in PARTS)
        print(f"| {row['round_size']} | {row['decision']} | {row['us_per_decision']:,.1f} | {row['ms_per_round']:.2f} | {shares} | {row['solver_nodes_per_decision']:,.0f} |")
    for kind, game in figures["full_game"].items():
        shares = " | ".join(f"{100 * game['share'][part]:.0f}%" for part in PARTS)
        print(f"| sizes {sizes[0]}-{sizes[-1]} | {kind} | | {game['ms']:.2f} | {shares} | |")


if __name__ == "__main__":
    main()
