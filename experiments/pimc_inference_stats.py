"""How pimc's inference samples the deal at real decisions (docs/pimc.md, "Inference").

Plays full games of a table (default: DEFAULT_TABLE: pimc with the posterior alone, pimc without it,
two heuristic seats). At every
bid and card decision of seat 0 with something to infer (a bid or trump choice the posterior
models), before the seat decides, it draws the seat's own samples (pimc.start_sampling and
mc.sample_base with the seat's parameters: `samples` deals at a bid, `play_samples` at a card)
and as many uniform deals (the infer=0 sampler), from a generator of its own (the games are
the games the table plays). It compares them with the true deal, which the simulation knows:

- calibration: for every other seat and unseen card, the predicted probability that the seat
  holds the card (the weighted share of samples) against whether it does, binned; with the
  Brier score (mean squared error) per sampler, the heuristic seats (whose bids the posterior
  models) apart from the others;
- the effective sample size (sum w)^2 / sum w^2 of the seat's samples, the share of decisions
  where it is under half the samples (mc.too_few_effective at pimc.ESS_FLOOR: where infer=4
  falls back), and the share of samples given up;
- how often the samples put a modelled seat's bid where the heuristic would bid from the
  sampled hand (weighted), and whether the true dealt hand is accepted by the model (it must
  always be: the model of a heuristic seat is exact). Both read the exact model (infer=1);
  with infer 2-4 every hand has an acceptance below 1, so they are left out.

`--infer` sets the inference measured (1 by default; 3 and 4 learn each seat from the game's
finished rounds, which are read as the games go: kernels.batch.read_bids). `--split K` reports
the rounds of fewer than K cards and those of K or more apart. Every round is measured, also
the rounds of `mc_from` cards or more (7 at pimc's defaults), which seat 0 plays as mc
without inference; with mc_from=0 it decides on the samples measured in every round.

    python -m experiments.pimc_inference_stats --games 100 --seed 2600
    # docs/pimc.md's figures: wizard-sim 0.1's pimc at the inference tournament's table
    POSTERIOR_ALONE=robust=0,learn_bids=0,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0
    T=pimc:play_samples=96,$POSTERIOR_ALONE,mc_from=0,pimc:play_samples=96,posterior=0,mc_from=0,heuristic,heuristic
    python -m experiments.pimc_inference_stats --games 100 --continuations 0 --policies $T
    python -m experiments.pimc_inference_stats --games 20 --infer 3 --split 12 --policies pimc,heuristic,heuristic,random
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from kernels.game_loop import begin_game, deal_and_seed, new_workspace
from kernels.bits import lowest_bit, popcount
from kernels.cards import N_CARDS
from kernels.search import mc, pimc
from kernels.dispatch import decide
from kernels.search.posterior import OPPONENT_HEURISTIC, acceptance, sample_hands
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PLAYERS, NO_BID, PLAY_DTYPE, SEAT_DTYPE, TABLE_DTYPE, SeatedPolicies
from kernels.rng import seed_stream
from kernels.search.equivalence import distinct_cards, in_play_for_seat, representative
from kernels.policies import heuristic
from kernels.round_state import apply_action, apply_card, begin_round, play_out, restart_bidding
from kernels.rules import round_score
from kernels.search import solver
from kernels.rules import dealer_of_round, unseen_cards
from sim.policies.registry import parse_policies, policy_arrays
from sim.config.rules import Rules
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

NO_LOG = np.zeros(0, dtype=PLAY_DTYPE)
PHASES = ("bid", "card, before the solver", "card, solved")
GROUPS = ("modelled seats", "other seats")
# pimc with the posterior alone (the former infer=1), pimc without it, two heuristic seats.
DEFAULT_TABLE = ("pimc:robust=0,learn_bids=0,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,"
                 "pimc:posterior=0,heuristic,heuristic")
SAMPLERS = ("infer>0", "infer=0")
N_BINS = 10
MEASURE_STREAM = 99  # the measurement's own generator stream (the games' streams are untouched)
# stats[phase]: decisions, ESS sum, given up, samples, decisions with modelled bids, their share
# of (sample, modelled bid) pairs where the heuristic bids the bid seen (weighted for infer=1),
# the same for the uniform deals, modelled bids checked on the true hand, true hands rejected
(S_DECISIONS, S_ESS, S_GIVEN_UP, S_SAMPLES, S_BID_DECISIONS, S_MATCH_1, S_MATCH_0, S_BIDS,
 S_TRUTH_REJECTED, S_LOW_ESS) = range(10)  # fmt: skip


@njit(cache=True)
def measure_in(storage, sampler, me, table, seats, phase, samples, generator, stats, bins, brier):
    """One decision's measurement in `storage` (a pimc.new_memory array, its record taken here)."""
    memory = storage[0]
    deals = memory.deals
    pimc.start_sampling(sampler, me, table, deals, generator)
    posterior = deals.posterior
    if not deals.inferring or posterior.n_constrained == 0:  # infer=5 in a round dealing every card: uniform
        return
    model = deals.model
    n_players = table.n_players
    held_1 = np.zeros((MAX_PLAYERS, N_CARDS))
    held_0 = np.zeros((MAX_PLAYERS, N_CARDS))
    hands_0 = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order = np.zeros(MAX_PLAYERS, dtype=np.int64)
    total = 0.0
    squares = 0.0
    stats[phase, S_DECISIONS] += 1
    for seat in range(n_players):
        if posterior.bid_observed[seat]:
            stats[phase, S_BIDS] += 1
            if acceptance(model, posterior, seat, seats[seat].dealt) < 1.0:
                stats[phase, S_TRUTH_REJECTED] += 1
    matches_1 = 0.0
    matches_0 = 0.0
    drawn_0 = 0
    for _ in range(samples):
        weight = mc.sample_base(me, table, deals, generator)
        stats[phase, S_SAMPLES] += 1
        if weight == 0.0:
            stats[phase, S_GIVEN_UP] += 1
            continue
        total += weight
        squares += weight * weight
        for seat in range(n_players):
            if seat == me.seat:
                continue
            rest = deals.hands[seat]
            while rest:
                card = lowest_bit(rest)
                rest &= rest - 1
                held_1[seat, card] += weight
            if posterior.bid_observed[seat]:
                dealt = deals.hands[seat] | posterior.played_by[seat]
                matches_1 += weight * (acceptance(model, posterior, seat, dealt) >= 1.0)
        sample_hands(me, table, hands_0, order, generator)
        drawn_0 += 1
        for seat in range(n_players):
            if seat == me.seat:
                continue
            rest = hands_0[seat]
            while rest:
                card = lowest_bit(rest)
                rest &= rest - 1
                held_0[seat, card] += 1.0
            if posterior.bid_observed[seat]:
                dealt = hands_0[seat] | posterior.played_by[seat]
                matches_0 += acceptance(model, posterior, seat, dealt) >= 1.0
    # The rule infer=4's fallback applies to these weights (every sample given up included)
    stats[phase, S_LOW_ESS] += mc.too_few_effective(total, squares, samples, pimc.ESS_FLOOR)
    if total == 0.0:
        return
    stats[phase, S_ESS] += total * total / squares
    n_bids = 0
    for seat in range(n_players):
        n_bids += posterior.bid_observed[seat]
    if n_bids > 0:
        stats[phase, S_BID_DECISIONS] += 1
        stats[phase, S_MATCH_1] += matches_1 / (total * n_bids)
        stats[phase, S_MATCH_0] += matches_0 / (drawn_0 * n_bids)
    n_drawn = float(drawn_0)
    pool = unseen_cards(me.hand, table)
    for seat in range(n_players):
        if seat == me.seat:
            continue
        group = 0 if model.kind[seat] == OPPONENT_HEURISTIC else 1
        rest = pool
        while rest:
            card = lowest_bit(rest)
            rest &= rest - 1
            actual = (seats[seat].hand >> card) & 1
            for sampler_index in range(2):
                if sampler_index == 0:
                    p = held_1[seat, card] / total
                else:
                    p = held_0[seat, card] / n_drawn
                b = min(int(p * N_BINS), N_BINS - 1)
                bins[phase, group, sampler_index, b, 0] += 1
                bins[phase, group, sampler_index, b, 1] += p
                bins[phase, group, sampler_index, b, 2] += actual
                brier[phase, group, sampler_index, 0] += 1
                brier[phase, group, sampler_index, 1] += (p - actual) ** 2


# choices[phase]: decisions with more than one distinct choice, infer=1 and infer=0 choose
# differently, the best total tied (infer=1), tied (infer=0), the value on the true deal (the
# evaluator's: playout then solver, the true hands face up) of infer=1's choice minus
# infer=0's, its sum of squares, how often each choice is the evaluator's best on the true
# deal; two infer=0 runs (other random numbers) choose differently; the real continuation
# (the round played on from the true state by the table's policies, each choice on the same
# `continuations` random streams): seat 0's round score with infer=1's choice minus with
# infer=0's (mean over the continuations), its square, and the same for seat 0 minus seat 1
(C_DECISIONS, C_DIFFER, C_TIED_1, C_TIED_0, C_TRUE_GAIN, C_TRUE_GAIN_SQ, C_TRUE_BEST_1, C_TRUE_BEST_0,
 C_DIFFER_0, C_REAL_GAIN, C_REAL_GAIN_SQ, C_REAL_EDGE, C_REAL_EDGE_SQ) = range(13)  # fmt: skip
N_CHOICE_STATS = 13
CONTINUATION_STREAM = 98


@njit(cache=True)
def continue_round(tables, seats_copy, table, seats, choice, policies, generator, fixed_bids):
    """Seat 0's and seat 1's round score when the seat to act answers `choice` in the true state
    and the table's policies play the round on (tables: a one-record TABLE_DTYPE array,
    seats_copy: SEAT_DTYPE records; the records are taken here)."""
    tables[0] = table
    for seat in range(table.n_players):
        seats_copy[seat] = seats[seat]
    copy = tables[0]
    apply_action(copy, seats_copy, choice)
    play_out(decide, policies, copy, seats_copy, generator, fixed_bids, NO_LOG)
    return round_score(seats_copy[0].bid, copy.tricks[0]), round_score(seats_copy[1].bid, copy.tricks[1])


@njit(cache=True)
def best_of(values, choices):
    """The largest of values[c] over the choices c (bits of `choices`)."""
    best = -1e300
    rest = choices
    while rest:
        choice = lowest_bit(rest)
        rest &= rest - 1
        best = max(best, values[choice])
    return best


@njit(cache=True)
def tied_at_best(totals, choices):
    best = best_of(totals, choices)
    ties = 0
    rest = choices
    while rest:
        choice = lowest_bit(rest)
        rest &= rest - 1
        ties += totals[choice] == best
    return ties > 1


@njit(cache=True)
def tied_in(storage, choices):
    """tied_at_best of the totals in `storage` (a pimc.new_memory array, its record taken here)."""
    return tied_at_best(storage[0].deals.totals, choices)


@njit(cache=True)
def true_values_in(storage, decision, me, table, seats, choices, params, values):
    """The evaluator of pimc (playout until `depth` tricks are left, then the solver) on the
    true deal, for every choice: values[choice] (a pimc.new_memory array, its record taken here)."""
    memory = storage[0]
    deals = memory.deals
    depth = int(params[me.seat, pimc.P_DEPTH])
    playout = int(params[me.seat, pimc.P_PLAYOUT])
    deals.base_table[0] = table
    for seat in range(table.n_players):
        deals.base_seats[seat] = seats[seat]
        deals.hands[seat] = seats[seat].hand
    generator = np.zeros(1, dtype=np.uint64)  # the evaluator draws nothing (heuristic, solver)
    rest = choices
    while rest:
        choice = lowest_bit(rest)
        rest &= rest - 1
        rollout_table = mc.reset_rollout(deals, table.n_players)
        if decision == DECIDE_BID:
            restart_bidding(rollout_table, deals.rollout_seats)
            mc.rollout_bidding(deals, me.seat, choice)
            values[choice] = pimc.faceup_score(memory, me.seat, playout, depth, generator)
        elif table.round_size - table.trick <= depth:
            solver.set_position(memory.solver, deals.base_table[0], deals.base_seats)
            values[choice] = round_score(me.bid, solver.tricks_of(solver.final_after(memory.solver, choice), me.seat))
        else:
            apply_card(rollout_table, deals.rollout_seats, choice)
            values[choice] = pimc.faceup_score(memory, me.seat, playout, depth, generator)


@njit(cache=True)
def compare_choices(seated, decision, me, table, seats, legal, phase, generator, choice_stats,
                    continuations):  # fmt: skip
    """The seat's choice (its own inference) and infer=0's at this decision (each from a copy of
    `generator`), and their value on the true deal."""
    params = seated.params
    params_0 = params.copy()
    params_0[me.seat, pimc.P_POSTERIOR] = 0.0
    seated_0 = SeatedPolicies(seated.ids, params_0, seated.state)
    storage_1 = pimc.new_memory()
    storage_0 = pimc.new_memory()
    storage_0b = pimc.new_memory()
    generator_1 = generator.copy()
    generator_0 = generator.copy()
    generator_0b = np.zeros(1, dtype=np.uint64)
    key = int(choice_stats[:, C_DECISIONS].sum())
    seed_stream(generator_0b, int(generator[0] >> np.uint64(1)), key, 1, CONTINUATION_STREAM)
    if decision == DECIDE_BID:
        choices = legal
        preferred = heuristic.choose_bid(mc.ROLLOUT_PARAMS, me, table, legal)
        if popcount(choices) < 2:
            return
        best_1 = pimc.sampled_bid(storage_1, seated, me, table, legal, preferred, generator_1)
        best_0 = pimc.sampled_bid(storage_0, seated_0, me, table, legal, preferred, generator_0)
        best_0b = pimc.sampled_bid(storage_0b, seated_0, me, table, legal, preferred, generator_0b)
    else:
        choices = distinct_cards(legal, in_play_for_seat(me, table))
        if popcount(choices) < 2:
            return
        preferred = representative(heuristic.choose_card(me, table, legal), choices)
        best_1 = pimc.sampled_card(storage_1, seated, me, table, choices, preferred, generator_1)
        best_0 = pimc.sampled_card(storage_0, seated_0, me, table, choices, preferred, generator_0)
        best_0b = pimc.sampled_card(storage_0b, seated_0, me, table, choices, preferred, generator_0b)
    advanced = generator_1[0]  # the measurement's generator moves on as infer=1's sampling did
    generator[0] = advanced
    values = np.zeros(N_CARDS)
    true_values_in(pimc.new_memory(), decision, me, table, seats, choices, params, values)
    best_value = best_of(values, choices)
    choice_stats[phase, C_DECISIONS] += 1
    choice_stats[phase, C_DIFFER] += best_1 != best_0
    choice_stats[phase, C_TIED_1] += tied_in(storage_1, choices)
    choice_stats[phase, C_TIED_0] += tied_in(storage_0, choices)
    gain = values[best_1] - values[best_0]
    choice_stats[phase, C_TRUE_GAIN] += gain
    choice_stats[phase, C_TRUE_GAIN_SQ] += gain * gain
    choice_stats[phase, C_TRUE_BEST_1] += values[best_1] == best_value
    choice_stats[phase, C_TRUE_BEST_0] += values[best_0] == best_value
    choice_stats[phase, C_DIFFER_0] += best_0b != best_0
    if best_1 == best_0 or continuations == 0:
        return
    tables = np.zeros(1, dtype=TABLE_DTYPE)
    seats_copy = np.zeros(MAX_PLAYERS, dtype=SEAT_DTYPE)
    fixed_bids = np.full(MAX_PLAYERS, NO_BID, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    gain = 0.0
    edge = 0.0
    for k in range(continuations):
        seed_stream(stream, int(generator[0] >> np.uint64(1)), key, k + 2, CONTINUATION_STREAM)
        own_1, other_1 = continue_round(tables, seats_copy, table, seats, best_1, seated, stream, fixed_bids)
        seed_stream(stream, int(generator[0] >> np.uint64(1)), key, k + 2, CONTINUATION_STREAM)
        own_0, other_0 = continue_round(tables, seats_copy, table, seats, best_0, seated, stream, fixed_bids)
        gain += (own_1 - own_0) / continuations
        edge += ((own_1 - other_1) - (own_0 - other_0)) / continuations
    choice_stats[phase, C_REAL_GAIN] += gain
    choice_stats[phase, C_REAL_GAIN_SQ] += gain * gain
    choice_stats[phase, C_REAL_EDGE] += edge
    choice_stats[phase, C_REAL_EDGE_SQ] += edge * edge


@njit(cache=True)
def measuring_decide(policies, decision, me, table, legal, generator):
    """The seated policy's decision; before it, at seat 0, the measurement."""
    seated, seats, measure_generator, stats, bins, brier, choice_stats, continuations, split = policies
    params = seated.params
    if me.seat == 0 and (decision == DECIDE_BID or decision == DECIDE_CARD):
        if decision == DECIDE_BID:
            phase = 0
            samples = int(params[0, pimc.P_SAMPLES])
        else:
            phase = 2 if table.round_size - table.trick <= int(params[0, pimc.P_DEPTH]) else 1
            samples = int(params[0, pimc.P_PLAY_SAMPLES])
        if split > 0 and table.round_size >= split:
            phase += len(PHASES)  # the large rounds' rows follow the others
        measure_in(pimc.new_memory(), seated, me, table, seats, phase, samples, measure_generator,
                   stats, bins, brier)  # fmt: skip
        compare_choices(seated, decision, me, table, seats, legal, phase, measure_generator, choice_stats,
                        continuations)  # fmt: skip
    return decide(seated, decision, me, table, legal, generator)


@njit(cache=True)
def play(seed, first_game, games, rules, round_sizes, policy_ids, params, stats, bins, brier, choice_stats, continuations,
         split):  # fmt: skip
    play_in(new_workspace(rules, (policy_ids, params)), seed, first_game, games, rules, round_sizes, policy_ids, params,
            stats, bins, brier, choice_stats, continuations, split)  # fmt: skip


@njit(cache=True)
def play_in(storage, seed, first_game, games, rules, round_sizes, policy_ids, params, stats, bins, brier, choice_stats,
            continuations, split):  # fmt: skip
    """play's games in `storage` (a new_workspace array), whose record is taken here, where the
    caller holds the array (numba frees a local array after its last use: kernels/blocks.py)."""
    workspace = storage[0]
    measure_generator = np.zeros(1, dtype=np.uint64)
    seed_stream(measure_generator, seed, first_game, 0, MEASURE_STREAM)
    for game in range(first_game, first_game + games):
        first = begin_game((seed, game), rules, workspace)
        for size in round_sizes:
            begin_round(workspace.table, workspace.seats, size, dealer_of_round(first, size, rules.n_players))
            deal_and_seed((seed, game), workspace)
            seated = SeatedPolicies(policy_ids, params, workspace.seat_state)
            policies = (seated, workspace.seats, measure_generator, stats, bins, brier, choice_stats,
                        continuations, split)  # fmt: skip
            play_out(measuring_decide, policies, workspace.table, workspace.seats, workspace.scratch.generator,
                     workspace.fixed_bids, NO_LOG)  # fmt: skip
            pimc.round_finished(seated, workspace.table)  # as every round on the decision step ends (learn_bids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2600)
    parser.add_argument("--first-game", type=int, default=0)
    parser.add_argument("--continuations", type=int, default=8,
                        help="real continuations per choice where infer=1 and infer=0 choose differently (0: none)")  # fmt: skip
    parser.add_argument("--policies", default=DEFAULT_TABLE,
                        help="one policy per seat; seat 0's set the sampler (its switches: --infer's)")  # fmt: skip
    parser.add_argument("--infer", type=int, choices=(1, 2, 3, 4), default=1,
                        help="seat 0's inference, measured: pimc's former level (docs/pimc.md)")  # fmt: skip
    parser.add_argument("--split", type=int, default=0,
                        help="report rounds of fewer than K cards and of K or more apart (0: together)")  # fmt: skip
    args = parser.parse_args()
    policies = parse_policies(args.policies, 4)
    ids, params = policy_arrays(policies)
    params = params.copy()
    # What is measured is the inference; the seat plays with it on.
    columns = [name for name, _ in pimc.PARAMETERS]
    for name, value in pimc.former_infer(float(args.infer)).items():
        params[0, columns.index(name)] = value
    rules = Rules(players=4)
    names = list(PHASES)
    if args.split > 0:
        names = [f"{name}, rounds < {args.split}" for name in PHASES]
        names += [f"{name}, rounds >= {args.split}" for name in PHASES]
    stats = np.zeros((len(names), 10))
    bins = np.zeros((len(names), len(GROUPS), len(SAMPLERS), N_BINS, 3))
    brier = np.zeros((len(names), len(GROUPS), len(SAMPLERS), 2))
    began = time.perf_counter()
    record = rules.to_record()[0]
    choice_stats = np.zeros((len(names), N_CHOICE_STATS))
    play(args.seed, args.first_game, args.games, record, rules.round_sizes_array(), ids, params, stats, bins, brier,
         choice_stats, args.continuations, args.split)  # fmt: skip
    print(f"{args.games} games of {args.policies} (seed {args.seed}, games {args.first_game}-"
          f"{args.first_game + args.games - 1}), seat 0 measured with infer={args.infer}, "
          f"{time.perf_counter() - began:.0f} s")  # fmt: skip
    print()
    print(f"| decision | decisions | samples a decision | effective samples (infer={args.infer}) | "
          f"decisions with under {pimc.ESS_FLOOR:.0%} effective | given up | "
          f"modelled bids where the heuristic bids: infer={args.infer} / infer=0 | true hand rejected |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase, name in enumerate(names):
        s = stats[phase]
        n = max(s[S_DECISIONS], 1)
        exact = (f"{s[S_MATCH_1] / max(s[S_BID_DECISIONS], 1):.1%} / {s[S_MATCH_0] / max(s[S_BID_DECISIONS], 1):.1%} | "
                 f"{int(s[S_TRUTH_REJECTED])} of {int(s[S_BIDS])}")  # fmt: skip
        if args.infer != 1:
            exact = "- | -"  # both read an acceptance of 1 as the heuristic's bid: the exact model's
        print(f"| {name} | {int(s[S_DECISIONS])} | {s[S_SAMPLES] / n:.0f} | {s[S_ESS] / n:.1f} | "
              f"{s[S_LOW_ESS] / n:.1%} | {s[S_GIVEN_UP] / max(s[S_SAMPLES], 1):.1%} | {exact} |")  # fmt: skip
    print()
    print("Brier score of P(seat holds card) (lower is better; pairs of seat and unseen card):")
    print(f"| decision | seats | pairs | infer={args.infer} | infer=0 |")
    print("| --- | --- | --- | --- | --- |")
    for phase, name in enumerate(names):
        for group, group_name in enumerate(GROUPS):
            b = brier[phase, group]
            if b[0, 0] == 0:
                continue
            print(f"| {name} | {group_name} | {int(b[0, 0])} | {b[0, 1] / b[0, 0]:.4f} | {b[1, 1] / b[1, 0]:.4f} |")
    print()
    print("Choices at the decisions with 2+ distinct choices (each sampler from the same random numbers); "
          "'on the true deal': pimc's evaluator (playout, then the solver) with the true hands face up")  # fmt: skip
    seat = f"infer={args.infer}"
    print(f"| decision | decisions | choices differ (two infer=0 runs differ) | best total tied: {seat} / infer=0 | "
          f"{seat}'s choice - infer=0's on the true deal (points, 95%) | best on the true deal: {seat} / infer=0 | "
          f"real continuation: seat 0's score, {seat}'s choice - infer=0's, a decision | the same, seat 0 - seat 1 | "
          "a game |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase, name in enumerate(names):
        c = choice_stats[phase]
        n = max(c[C_DECISIONS], 1)
        mean = c[C_TRUE_GAIN] / n
        half = 1.96 * np.sqrt(max(c[C_TRUE_GAIN_SQ] / n - mean * mean, 0.0) / n)
        real = c[C_REAL_GAIN] / n
        real_half = 1.96 * np.sqrt(max(c[C_REAL_GAIN_SQ] / n - real * real, 0.0) / n)
        edge = c[C_REAL_EDGE] / n
        edge_half = 1.96 * np.sqrt(max(c[C_REAL_EDGE_SQ] / n - edge * edge, 0.0) / n)
        per_game = c[C_REAL_EDGE] / args.games
        per_game_half = edge_half * n / args.games
        print(f"| {name} | {int(c[C_DECISIONS])} | {c[C_DIFFER] / n:.1%} ({c[C_DIFFER_0] / n:.1%}) | "
              f"{c[C_TIED_1] / n:.1%} / {c[C_TIED_0] / n:.1%} | {mean:+.2f} +- {half:.2f} | "
              f"{c[C_TRUE_BEST_1] / n:.1%} / {c[C_TRUE_BEST_0] / n:.1%} | {real:+.2f} +- {real_half:.2f} | "
              f"{edge:+.2f} +- {edge_half:.2f} | {per_game:+.1f} +- {per_game_half:.1f} |")  # fmt: skip
    print()
    print("Calibration, modelled seats, all decisions: predicted -> actual frequency (pairs)")
    print(f"| bin | infer={args.infer} | infer=0 |")
    print("| --- | --- | --- |")
    for b in range(N_BINS):
        cells = []
        for sampler in range(2):
            c = bins[:, 0, sampler, b].sum(axis=0)
            cells.append(f"{c[1] / c[0]:.3f} -> {c[2] / c[0]:.3f} ({int(c[0])})" if c[0] else "-")
        print(f"| {b / N_BINS:.1f}-{(b + 1) / N_BINS:.1f} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
