"""How mc's posterior samples come out in real games (docs/mc.md, "Inference").

Plays full games with the heuristic at every seat; at each bid and card decision of seat 0
with something to infer, it runs mc's own sampler setup (mc.start_sampling, infer=1 with the
given spread) and draws mc's `samples` weighted deals, recording the effective sample size
(sum w)^2 / sum w^2, the share of samples given up (weight 0) and the candidate hands whose
likelihood was evaluated (the sampler's cost: a replay of the heuristic's bid each).

    python -m experiments.mc_inference_stats --games 300 --spread 0
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from kernels.game_loop import begin_game, deal_and_seed, new_workspace
from kernels.search import mc
from kernels.dispatch import decide
from kernels.search.posterior import sample_deal
from kernels.round_state import begin_round, play_out
from kernels.rules import dealer_of_round
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PLAYERS, MAX_SEAT_STATE, PLAY_DTYPE, SeatedPolicies
from sim.policies.registry import parse_policies, policy_arrays
from sim.config.rules import Rules
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

NO_LOG = np.zeros(0, dtype=PLAY_DTYPE)
ROWS = ("bid", "trick 1", "trick 2", "trick 3", "later tricks")
STAT_DECISIONS, STAT_ESS, STAT_GIVEN_UP, STAT_CANDIDATES = range(4)


@njit(cache=True)
def measure_in(storage, sampler_policies, samples, stats, decision, me, table, generator):
    """mc's sampler statistics at one decision, in `storage` (a new_decision_memory array):
    its record is taken here, where the caller holds the array (numba frees a local array
    after its last use, even while a record of it is read: kernels/blocks.py)."""
    scratch = storage[0]
    mc.start_sampling(sampler_policies, me, table, scratch, generator)
    if scratch.posterior.n_constrained == 0:
        return
    total = 0.0
    squares = 0.0
    given_up = 0
    candidates = 0
    for _ in range(samples):
        weight, proposals = sample_deal(scratch.model, scratch.posterior, scratch.hands, generator)
        candidates += proposals
        total += weight
        squares += weight * weight
        given_up += weight == 0.0
    row = 0 if decision == DECIDE_BID else 1 + min(table.trick, 3)
    stats[row, STAT_DECISIONS] += 1
    stats[row, STAT_ESS] += total * total / squares if squares > 0.0 else 0.0
    stats[row, STAT_GIVEN_UP] += given_up
    stats[row, STAT_CANDIDATES] += candidates


@njit(cache=True)
def measuring_decide(policies, decision, me, table, legal, generator):
    """The seated policy's decision; before it, at seat 0, mc's sampler statistics."""
    seated, sampler_policies, samples, stats = policies
    if me.seat == 0 and (decision == DECIDE_BID or decision == DECIDE_CARD):
        measure_in(mc.new_decision_memory(), sampler_policies, samples, stats, decision, me, table, generator)
    return decide(seated, decision, me, table, legal, generator)


@njit(cache=True)
def play(seed, games, rules, round_sizes, policies):
    seated = policies[0]
    play_in(new_workspace(rules, (seated.ids, seated.params)), seed, games, rules, round_sizes, policies)


@njit(cache=True)
def play_in(storage, seed, games, rules, round_sizes, policies):
    """play's games in `storage` (a new_workspace array), its record taken here (measure_in: why)."""
    workspace = storage[0]
    for game in range(games):
        first = begin_game((seed, game), rules, workspace)
        for size in round_sizes:
            begin_round(workspace.table, workspace.seats, size, dealer_of_round(first, size, rules.n_players))
            deal_and_seed((seed, game), workspace)
            play_out(measuring_decide, policies, workspace.table, workspace.seats, workspace.scratch.generator,
                     workspace.fixed_bids, NO_LOG)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--spread", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rules = Rules(players=4)
    # Heuristic seats and an mc sampler: neither keeps any state of its own.
    no_state = np.zeros((MAX_PLAYERS, MAX_SEAT_STATE))
    seated = SeatedPolicies(*policy_arrays(parse_policies("heuristic", 4)), no_state)
    sampler = SeatedPolicies(*policy_arrays(parse_policies(f"mc:infer=1,spread={args.spread},heuristic,heuristic,heuristic", 4)),
                             no_state)  # fmt: skip
    samples = int(sampler[1][0, mc.P_SAMPLES])
    stats = np.zeros((len(ROWS), 4))
    began = time.perf_counter()
    play(args.seed, args.games, rules.to_record()[0], rules.round_sizes_array(), (seated, sampler, samples, stats))
    print(f"{args.games} heuristic games, 4 players, mc's sampler at seat 0 (spread {args.spread:g}, "
          f"{samples} samples a decision), {time.perf_counter() - began:.0f} s")  # fmt: skip
    print("| decision | decisions | effective samples | given up | candidate hands a decision |")
    print("| --- | --- | --- | --- | --- |")
    for row, name in enumerate(ROWS):
        n = stats[row, STAT_DECISIONS]
        print(f"| {name} | {int(n)} | {stats[row, STAT_ESS] / n:.2f} | {stats[row, STAT_GIVEN_UP] / n / samples:.1%} "
              f"| {stats[row, STAT_CANDIDATES] / n:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
