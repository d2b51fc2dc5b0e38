"""How well pimc's bid evaluation predicts its bid (docs/pimc.md, "Bids without
clairvoyance"): the predicted probability of making the bid it chose against how often it
made it, by round size.

    python -m experiments.pimc_bid_calibration                      # pimc at its defaults, 4 players
    python -m experiments.pimc_bid_calibration --games 100 --samples 64 --json
    # docs/pimc.md's table: wizard-sim 0.1's pimc
    python -m experiments.pimc_bid_calibration --policy pimc:play_samples=96,posterior=0,mc_from=0 --games 30 \
        --samples 64

The bids are real: the pimc seat's (seat 0) bid in `--games` rounds of every round size at
the table POLICY,OPPONENT,OPPONENT,OPPONENT (mc at its defaults unless --opponent says
otherwise), captured with the state the seat saw, and whether the round then made the bid.
Each captured bid is valued again on `--samples` fresh sampled deals (a stream of its own,
so the estimate carries no selection by the bid's own noisy samples), two ways:

    face up    pimc's own evaluation (pimc.bid_value: the playout, then the solver for the
               last `depth` tricks, every seat seeing the sample's cards)
    rollout    mc's (mc.bid_value: the heuristic at every seat to the end, no seat seeing
               another's cards)

and the predicted P(make) is the share of those deals on which the pimc seat takes exactly
its bid. A prediction above the rate made is optimism: the evaluation finds exact bids
easier than they are. The intervals are 95% (normal approximation over the decisions).

In the rounds of `mc_from` cards or more (7 at the defaults) the seat bids as mc, so there
the bid valued is mc's, not pimc's; with mc_from=0 every bid is pimc's.
"""
from __future__ import annotations

import argparse
import json
from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.records import DECIDE_BID, MAX_PLAYERS, MAX_SEAT_STATE, SeatedPolicies
from kernels.rng import STREAM_DECISIONS, seed_stream
from kernels.search import mc, pimc
from sim import Rules
from sim.policies.registry import parse_policies, policy_arrays
from sim.engine.startup import start
from experiments.seat_decisions import capture

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

CAPTURE_SEED = 26
VALUE_SEED = 41
Z_95 = 1.959964


class Made(NamedTuple):
    """The context of made_value: pimc's evaluation, and whether to value by mc's rollout."""

    evaluation: pimc.Evaluation
    rollout: bool


@njit(cache=True)
def made_value(made, me, table, bid, first, generator):
    """1 if the pimc seat makes `bid` on the sampled deal (a round score above 0 is a made
    bid), by pimc's evaluation or mc's rollout."""
    if made.rollout:
        score = mc.bid_value(made.evaluation.memory.deals, me, table, bid, first, generator)
    else:
        score = pimc.bid_value(made.evaluation, me, table, bid, first, generator)
    return 1.0 if score > 0 else 0.0


@njit(cache=True)
def predicted_made(storage, policies, tables, seat_records, bids, samples, rollout, out):
    """out[i]: the share of `samples` fresh deals on which decision i's bid is made."""
    params = policies.params
    generator = np.zeros(1, dtype=np.uint64)
    memory = storage[0]
    for i in range(tables.shape[0]):
        seed_stream(generator, VALUE_SEED, i, tables[i].round_size, STREAM_DECISIONS)
        me = seat_records[i]
        table = tables[i]
        memory.deals.totals[:] = 0.0
        pimc.start_sampling(policies, me, table, memory.deals, generator)
        evaluation = pimc.Evaluation(memory, int(params[me.seat, pimc.P_PLAYOUT]), int(params[me.seat, pimc.P_DEPTH]),
                                     False, False)  # pimc.sampled_bid's, never blended
        bid = bids[i]
        mc.sampled_choice(made_value, Made(evaluation, rollout), me, table, memory.deals, samples, np.int64(1) << bid,
                          bid, generator)  # fmt: skip
        out[i] = memory.deals.totals[bid] / samples


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    return float(values.mean()), float(Z_95 * values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def calibration(policy: str, opponent: str, players: int, sizes: list[int], games: int, samples: int) -> dict:
    rules = Rules(players=players)
    policies = policy_arrays(parse_policies([policy] + [opponent] * (players - 1), players))
    # Each decision is in the first round of its game: no seat's state holds anything yet.
    seated = SeatedPolicies(*policies, np.zeros((MAX_PLAYERS, MAX_SEAT_STATE)))
    rows = []
    every = {"made": [], "face_up": [], "rollout": []}
    for round_size in sizes:
        decisions = capture(rules, policies, round_size, games, CAPTURE_SEED)
        bid_rows = decisions.kinds == DECIDE_BID  # one a game, in game order
        tables, seat_records = decisions.tables[bid_rows], decisions.seat_records[bid_rows]
        bids, tricks = decisions.bids, decisions.tricks
        made = (bids == tricks).astype(np.float64)
        predicted = {}
        for name, rollout in (("face_up", False), ("rollout", True)):
            out = np.zeros(games)
            predicted_made(pimc.new_memory(), seated, tables, seat_records, bids, samples, rollout, out)
            predicted[name] = out
        for name, values in (("made", made), ("face_up", predicted["face_up"]), ("rollout", predicted["rollout"])):
            every[name].append(values)
        row = {"round_size": round_size, "decisions": games}
        for name, values in (("made", made),) + tuple(predicted.items()):
            row[name], row[name + "_ci95"] = mean_ci(values)
        for name in predicted:
            row[name + "_minus_made"], row[name + "_minus_made_ci95"] = mean_ci(predicted[name] - made)
            row[name + "_brier"] = float(np.mean((predicted[name] - made) ** 2))
        rows.append(row)
    total = {"decisions": games * len(sizes)}
    made = np.concatenate(every["made"])
    total["made"], total["made_ci95"] = mean_ci(made)
    for name in ("face_up", "rollout"):
        values = np.concatenate(every[name])
        total[name], total[name + "_ci95"] = mean_ci(values)
        total[name + "_minus_made"], total[name + "_minus_made_ci95"] = mean_ci(values - made)
        total[name + "_brier"] = float(np.mean((values - made) ** 2))
    return {"policy": policy, "opponent": opponent, "players": players, "games": games, "samples": samples,
            "rows": rows, "total": total}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", default="pimc", help="the pimc setting of seat 0")
    parser.add_argument("--opponent", default="mc", help="the policy of the other seats")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--sizes", default=None, help="round sizes (default: every size of a full game)")
    parser.add_argument("--games", type=int, default=60, help="rounds of each size")
    parser.add_argument("--samples", type=int, default=64, help="fresh deals valuing each captured bid")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(1)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else list(range(1, 60 // args.players + 1))
    figures = calibration(args.policy, args.opponent, args.players, sizes, args.games, args.samples)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.policy},{args.opponent} x{args.players - 1}: seat 0's bids, {args.games} rounds of each size, "
          f"P(make) from {args.samples} fresh deals")  # fmt: skip
    print("| round size | made | predicted face up | face up - made | predicted rollout | rollout - made |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in figures["rows"] + [dict(figures["total"], round_size="all")]:
        print(f"| {row['round_size']} | {100 * row['made']:.1f}% | {100 * row['face_up']:.1f}% | "
              f"{100 * row['face_up_minus_made']:+.1f} ± {100 * row['face_up_minus_made_ci95']:.1f} | "
              f"{100 * row['rollout']:.1f}% | {100 * row['rollout_minus_made']:+.1f} ± "
              f"{100 * row['rollout_minus_made_ci95']:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
