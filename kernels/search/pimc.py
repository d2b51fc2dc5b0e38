"""`pimc`: perfect-information Monte Carlo (docs/pimc.md).

Card play: flat Monte Carlo over the distinct legal cards on `play_samples` sampled deals of
the unseen cards (the same deals for every card), each deal evaluated with the cards face up:
the last `depth` tricks by the max^n solver (kernels.search.solver), the tricks before them by a
playout that reads the sampled hands (kernels.search.faceup, or the heuristic). Bidding:
`mc`'s rollouts (heuristic play, expected score) or the same face-up evaluation, by the
`bidding` parameter.

It reads only its own seat record (hand, bid) and the public table: the deals are mc's,
uniform given the voids shown or, with `posterior`, from the posterior given the bids and trump
choice shown; the switches `robust`, `learn_bids`, `ess_fallback`, `uniform_when_all_dealt` and
`uniform_when_most_dealt` each change one rule of that posterior (docs/pimc.md, "Inference
switches"; learn_bids reads the evidence of the game's finished rounds, kernels.search.bid_evidence,
which the seat keeps in its own state from the public table). Bids the mode hides are mc's estimates.
Its random numbers all come from the generator it is given (the round's DECISIONS stream).
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from kernels.bits import at
from kernels.cards import N_CARDS
from kernels.policies import heuristic
from kernels.search import faceup, mc
from kernels.search.bid_evidence import EVIDENCE_SIZE, WIDE_SPREADS, model_shares, read_round, seat_model_row
from kernels.policies.ids import POLICY_MC, POLICY_PIMC
from kernels.search.posterior import DEFAULT_TRUMP_MISS, OPPONENT_HEURISTIC, prepare
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_ROUND_SIZE, PHASE_PLAY, SeatedPolicies
from kernels.round_state import NO_PLAY_LOG, apply_card, play_until, restart_bidding
from kernels.rules import cards_dealt, every_card_dealt, round_score
from kernels.search import solver

# Parameter vector layout. The first four are mc's (samples, play_samples, infer, spread), so
# mc's sampling and rollout bidding read them for a pimc seat as for an mc seat: pimc's
# `posterior` is mc's `infer`.
P_SAMPLES = mc.P_SAMPLES  # sampled deals per bid decision (0: the heuristic's bid)
P_PLAY_SAMPLES = mc.P_PLAY_SAMPLES  # sampled deals per card decision (0: the heuristic's card)
P_POSTERIOR = mc.P_INFER  # 1: deals from the posterior given the bids and trump choice shown
P_SPREAD = mc.P_SPREAD  # the posterior's model of a heuristic seat: its bids with this noise
# The switches below each change one rule of the posterior: with posterior=0 (uniform deals)
# none of them has an effect, and learn_bids has none without robust (docs/pimc.md).
# robust: every other seat's bid is read with the robust likelihood (kernels/search/posterior.py):
# a heuristic seat's (own parameters) or any other's (mc and pimc: MC_MODEL_PARAMS; the rest: the
# default heuristic's) modelled ROBUST_WIDE of the time around the heuristic's estimated tricks
# before rounding, ROBUST_WIDE_SPREAD of spread, mc's floor of random bids (docs/pimc.md).
P_ROBUST = 4
ROBUST_WIDE = 0.5
ROBUST_WIDE_SPREAD = WIDE_SPREADS[0]
# learn_bids: the robust likelihood with each seat's uniform share, wide share and wide spread
# learned from its bids in the game's finished rounds (kernels.search.bid_evidence); before the
# first round ends, exactly robust's.
P_LEARN_BIDS = 5
# ess_fallback: a decision whose samples are fewer than ESS_FLOOR of them in effect is taken
# again on uniform deals (mc.sampled_choice).
P_ESS_FALLBACK = 6
ESS_FLOOR = 0.5
# uniform_when_all_dealt: a round dealing every card (kernels.rules.every_card_dealt) is played
# on uniform deals: there inference lost at each table measured (docs/pimc.md, "When every card
# is dealt").
P_UNIFORM_WHEN_ALL_DEALT = 7
# uniform_when_most_dealt: every round dealing at least MOST_DEALT_SHARE of the deck (4 players:
# rounds 12-15, the round dealing every card among them) on uniform deals: against seats that are
# not the heuristic, inference lost in those rounds at every table measured (docs/pimc.md,
# "Uniform deals where most cards are dealt").
P_UNIFORM_WHEN_MOST_DEALT = 8
MOST_DEALT_SHARE = 0.8
P_MC_SPREAD = 9  # posterior: mc and pimc seats bid like the heuristic (MC_MODEL_PARAMS) with this noise; 0: say nothing
P_DEPTH = 10  # tricks left at which the solver takes over from the playout
P_PLAYOUT = 11  # PLAYOUT_*: how the tricks before the solver's are played in a sample
P_BIDDING = 12  # BIDDING_*: how a bid is chosen
# From round size `mc_from` on (0: never) the seat plays the round as mc, bids and cards, with
# mc_samples and mc_play_samples and no inference: at equal time mc's rollouts beat pimc's face-up
# evaluation in the large rounds, and pimc with inference beats mc in the small ones (docs/pimc.md,
# "Rounds by size at equal time").
P_MC_FROM = 13
P_MC_SAMPLES = 14
P_MC_PLAY_SAMPLES = 15

PLAYOUT_FACEUP = 1  # kernels.search.faceup: every seat plays to its bid seeing every hand
PLAYOUT_HEURISTIC = 0  # the heuristic at every seat (what mc's rollouts play)
# mc's rollouts to the end of the round, no seat seeing another's cards; the solver plays only
# a decision within the last `depth` tricks. With depth 1 (the last trick is forced) and
# bidding=0 it plays exactly as mc (tests/test_pimc.py), so it measures what the solver adds.
PLAYOUT_ROLLOUT = 2
BIDDING_ROLLOUTS = 0  # mc's bid: heuristic rollouts of sampled deals, the best mean score
BIDDING_FACEUP = 1  # the best mean score of the face-up evaluation (playout and solver)
BIDDING_BLEND = 2  # each deal valued by the mean of the face-up evaluation and mc's rollout

NAME = "pimc"
SUMMARY = "perfect-information Monte Carlo: sampled deals played face up, the last tricks solved exactly"
# Each pimc seat's own state: the bid evidence of the game's finished rounds it reads with
# learn_bids (kernels.search.bid_evidence; kept up by round_finished only where it is read).
STATE_SIZE = EVIDENCE_SIZE
# The defaults (wizard-sim 0.2): inference with every switch on (so uniform deals where most
# cards are dealt), 64 card samples, and rounds of 7 cards or more played as mc at 128/224
# samples. Stronger than 0.1's defaults (`pimc:play_samples=96,posterior=0,mc_from=0`) at every
# table measured, and than mc at equal time, for about 0.09 s of one core per 4-player game
# (docs/pimc.md, "Defaults").
SWITCHES = ("posterior", "robust", "learn_bids", "ess_fallback", "uniform_when_all_dealt", "uniform_when_most_dealt")
PARAMETERS = (
    ("samples", 16.0),
    ("play_samples", 64.0),
    ("posterior", 1.0),
    ("spread", 0.0),
    ("robust", 1.0),
    ("learn_bids", 1.0),
    ("ess_fallback", 1.0),
    ("uniform_when_all_dealt", 1.0),
    ("uniform_when_most_dealt", 1.0),
    ("mc_spread", 0.0),
    ("depth", 3.0),
    ("playout", float(PLAYOUT_HEURISTIC)),
    ("bidding", float(BIDDING_FACEUP)),
    ("mc_from", 7.0),
    ("mc_samples", 128.0),
    ("mc_play_samples", 224.0),
)


def former_infer(level: float) -> dict[str, float] | None:
    """The switches that play as the retired `infer=level` (0-6; None for any other value),
    where each level added one rule to the one before: its rules on, the rest off; infer=0 is
    posterior=0 alone (without the posterior no other switch has an effect)."""
    if not (level.is_integer() and 0 <= level <= len(SWITCHES)):
        return None
    if level == 0:
        return {"posterior": 0.0}
    return {name: float(level >= rank) for rank, name in enumerate(SWITCHES, start=1)}


# Parameters pimc no longer has, each with the parameters that play as a value of it: a label
# naming one is refused with its new spelling (sim.policies.registry).
RETIRED = {"infer": former_infer}
# The caps keep one game with every seat pimc at the largest setting (inference and the
# face-up playout on) under about a second of one core (measured, docs/pimc.md "Costs"), so a
# run sees Ctrl-C promptly: a kernel call holds at least one game. Card samples cost the most;
# a deeper solve grows fast (depth 5 with 256 samples: 14 s a game with one pimc seat).
MAX_SAMPLES = 64  # bid samples
MAX_PLAY_SAMPLES = 96  # card samples (wizard-sim 0.1's default)
MAX_DEPTH = 3
COUNTS = ("samples", "play_samples", *SWITCHES, "depth", "playout", "bidding", "mc_from", "mc_samples",
          "mc_play_samples")
RANGES = {
    "samples": (0.0, float(MAX_SAMPLES)),
    "play_samples": (0.0, float(MAX_PLAY_SAMPLES)),
    **{name: (0.0, 1.0) for name in SWITCHES},
    "spread": (0.0, 10.0),
    "depth": (1.0, float(MAX_DEPTH)),
    "playout": (0.0, float(PLAYOUT_ROLLOUT)),
    "bidding": (0.0, float(BIDDING_BLEND)),
    "mc_spread": (0.0, 10.0),
    "mc_from": (0.0, float(MAX_ROUND_SIZE)),
    # The rounds played as mc cost what mc's do at these counts, within mc's own caps.
    "mc_samples": mc.RANGES["samples"],
    "mc_play_samples": mc.RANGES["play_samples"],
}

# Working memory of one decision: mc's (sampled deals, rollout state, totals, posterior) and
# the solver's.
MEMORY_DTYPE = np.dtype([("deals", mc.DECISION_DTYPE), ("solver", solver.SOLVER_DTYPE)])


@njit(cache=True)
def new_memory():
    """A one-record MEMORY_DTYPE array (its record is taken only where it is passed in)."""
    return np.zeros(1, dtype=MEMORY_DTYPE)


@njit(cache=True)
def start_sampling(policies, me, table, deals, generator):
    """Prepare the decision's deals: with inference, the posterior sampler given what mc's
    table model explains (mc.table_model: heuristic seats by their parameters) and, with
    mc_spread > 0, the bids of the mc and pimc seats as the heuristic's (MC_MODEL_PARAMS) with
    that much noise."""
    policy_ids, params = policies.ids, policies.params
    row = params[at(me.seat)]
    deals.inferring = row[P_POSTERIOR] != 0.0 and not uniform_round(row, table)
    if not deals.inferring:
        return
    model = deals.model
    mc.table_model(policies, me, table, model)
    spread = params[at(me.seat), P_MC_SPREAD]
    if spread > 0.0:
        for seat in range(table.n_players):
            if seat != me.seat and (policy_ids[seat] == POLICY_MC or policy_ids[seat] == POLICY_PIMC):
                model.kind[seat] = OPPONENT_HEURISTIC
                model.seat_spread[seat] = spread
                seat_model_row(policies, seat, model.params)  # MC_MODEL_PARAMS
    if row[P_ROBUST] != 0.0:
        robust_model(policies, me, table, model, row[P_LEARN_BIDS] != 0.0)
    if row[P_ESS_FALLBACK] != 0.0:
        deals.ess_floor = ESS_FLOOR
    prepare(me, table, model, deals.posterior, generator)


@njit(cache=True)
def uniform_round(row, table):
    """Whether the seat of parameter row `row` plays this round on uniform deals, by
    uniform_when_all_dealt and uniform_when_most_dealt."""
    if row[P_UNIFORM_WHEN_MOST_DEALT] != 0.0 and cards_dealt(table) >= MOST_DEALT_SHARE * N_CARDS:
        return True
    return row[P_UNIFORM_WHEN_ALL_DEALT] != 0.0 and every_card_dealt(table)


@njit(cache=True)
def robust_model(policies, me, table, model, learned):
    """robust: every other seat read with the robust likelihood (P_ROBUST); a seat the
    table model leaves unread is modelled from the heuristic's defaults (mc and pimc seats:
    MC_MODEL_PARAMS: bid_evidence.seat_model_row). `learned` (learn_bids): each seat's uniform
    share (at least mc's floor), wide share and wide spread from the evidence of the game's
    finished rounds."""
    for seat in range(table.n_players):
        if seat == me.seat:
            continue
        if model.kind[seat] != OPPONENT_HEURISTIC:
            model.kind[seat] = OPPONENT_HEURISTIC
            seat_model_row(policies, seat, model.params)
        model.wide[seat] = ROBUST_WIDE
        model.wide_spread[seat] = ROBUST_WIDE_SPREAD
        if learned:
            evidence = policies.state[at(me.seat)]  # this seat's own (round_finished)
            uniform, model.wide[seat], model.wide_spread[seat] = model_shares(evidence, seat)
            # Never below mc's floor (table_model's): it keeps the sampler from spinning, and
            # from skipping samples at its cap, on bids the likelihood makes rare.
            model.floor[seat] = max(model.floor[seat], uniform)
    model.trump_miss = DEFAULT_TRUMP_MISS


@njit(cache=True)
def learns_bids(policies, seat):
    """Whether `seat` plays pimc with posterior, robust and learn_bids, which reads the bid
    evidence in the seat's state (so the game loops keep it up: round_finished)."""
    # learn_bids acts only with the posterior and robust (start_sampling).
    row = policies.params[seat]
    learning = row[P_POSTERIOR] != 0.0 and row[P_ROBUST] != 0.0 and row[P_LEARN_BIDS] != 0.0
    return policies.ids[seat] == POLICY_PIMC and learning


@njit(cache=True)
def round_finished(policies, table):
    """pimc's hook when a round has finished (kernels.policy_calls): add what its bids say to
    the bid evidence in the state of each seat that reads it (read once, from the public table,
    so every such seat holds the same). Every round on the decision step ends there; the fast
    path's twin seats no pimc, so it has none to keep."""
    first = 0
    while first < table.n_players and not learns_bids(policies, first):
        first += 1
    if first == table.n_players:
        return  # no seat reads it: nothing is read or allocated
    increments = np.zeros(EVIDENCE_SIZE)
    read_round(policies, table, increments)
    for seat in range(first, table.n_players):
        if learns_bids(policies, seat):
            evidence = policies.state[seat]
            for k in range(EVIDENCE_SIZE):
                evidence[k] += increments[k]


@njit(cache=True, inline="always")
def play_to(playout, table, seats, generator, fixed_bids, end_trick):
    """Play a sample's round on (bidding first, if it is still bidding) until trick
    `end_trick` starts or the round ends: the playout at every card, heuristic bids except
    the fixed ones."""
    play_until(mc.rollout_decide, mc.ROLLOUT_PARAMS, table, seats, generator, fixed_bids, NO_PLAY_LOG, 0)
    if playout == PLAYOUT_FACEUP:
        play_until(faceup.decide, seats, table, seats, generator, fixed_bids, NO_PLAY_LOG, end_trick)
    else:
        play_until(mc.rollout_decide, mc.ROLLOUT_PARAMS, table, seats, generator, fixed_bids, NO_PLAY_LOG, end_trick)


@njit(cache=True)
def play_to_solver(memory, playout, depth, generator):
    """Play the rollout state on by the playout until `depth` tricks are left (or the round
    is over)."""
    deals = memory.deals
    table = deals.rollout_table[0]
    play_to(playout, table, deals.rollout_seats, generator, deals.fixed_bids, table.round_size - depth)


@njit(cache=True)
def solved_score(memory, me_seat):
    """The pimc seat's round score from the rollout state on: solved, unless it is over."""
    deals = memory.deals
    table = deals.rollout_table[0]
    seats = deals.rollout_seats
    if table.phase != PHASE_PLAY:
        return round_score(seats[me_seat].bid, table.tricks[me_seat])
    work = memory.solver
    solver.set_position(work, table, seats)
    return round_score(seats[me_seat].bid, solver.tricks_of(solver.solve(work), me_seat))


@njit(cache=True)
def faceup_score(memory, me_seat, playout, depth, generator):
    """The pimc seat's round score on the rollout state: played on by the playout until
    `depth` tricks are left, then solved."""
    play_to_solver(memory, playout, depth, generator)
    return solved_score(memory, me_seat)


class Evaluation(NamedTuple):
    """How a pimc decision evaluates a sampled deal: its memory (a MEMORY_DTYPE record), the
    playout, the tricks left at which it hands over to the solver, whether the solver takes
    the whole rest of the round, and whether a bid's value is blended with mc's rollout
    (BIDDING_BLEND)."""

    memory: np.record
    playout: int
    depth: int
    solved_now: bool
    blend: bool


@njit(cache=True, inline="always")
def new_evaluation(memory, row, solved_now, blend):
    """The Evaluation of a decision by the seat's parameter row: the playout hands over to the
    solver with `depth` tricks left, or with none (played to the end) under PLAYOUT_ROLLOUT."""
    playout = int(row[P_PLAYOUT])
    return Evaluation(memory, playout, 0 if playout == PLAYOUT_ROLLOUT else int(row[P_DEPTH]), solved_now, blend)


@njit(cache=True)
def bid_value(evaluation, me, table, bid, first, generator):
    """pimc's score of bidding `bid` on the sampled deal: played face up, the last tricks
    solved; blended, the mean of that and mc's rollout of the same deal (no seat seeing
    another's cards)."""
    start_bid_sample(evaluation.memory.deals, me, table, bid)
    score = faceup_score(evaluation.memory, me.seat, evaluation.playout, evaluation.depth, generator)
    if evaluation.blend:
        return 0.5 * (score + mc.bid_value(evaluation.memory.deals, me, table, bid, first, generator))
    return score


@njit(cache=True)
def start_bid_sample(deals, me, table, bid):
    """The rollout state of a sampled deal at the start of the bidding, the pimc seat to bid `bid`."""
    rollout_table = mc.reset_rollout(deals, table.n_players)
    restart_bidding(rollout_table, deals.rollout_seats)
    mc.rollout_bidding(deals, me.seat, bid)


@njit(cache=True)
def start_card_sample(deals, table, card):
    """The rollout state of a sampled deal after the pimc seat plays `card`."""
    rollout_table = mc.reset_rollout(deals, table.n_players)
    apply_card(rollout_table, deals.rollout_seats, card)


@njit(cache=True)
def card_value(evaluation, me, table, card, first, generator):
    """pimc's score of playing `card` on the sampled deal: the solver's value of the card when
    it takes the rest of the round (one position per deal, set at its first card), else played
    face up and the last tricks solved."""
    memory = evaluation.memory
    deals = memory.deals
    if evaluation.solved_now:
        if first:
            solver.set_position(memory.solver, deals.base_table[0], deals.base_seats)
        return round_score(me.bid, solver.tricks_of(solver.final_after(memory.solver, card), me.seat))
    start_card_sample(deals, table, card)
    return faceup_score(memory, me.seat, evaluation.playout, evaluation.depth, generator)


@njit(cache=True)
def choose_bid(policies, me, table, legal, generator):
    params = policies.params
    if params[at(me.seat), P_BIDDING] == BIDDING_ROLLOUTS:
        return mc.choose_bid(policies, me, table, legal, generator)
    return mc.sampled_or_heuristic_bid(sampled_bid, new_memory, policies, me, table, legal, generator)


@njit(cache=True)
def sampled_bid(storage, policies, me, table, legal, preferred, generator):
    """choose_bid's samples in `storage` (a new_memory array), whose record is taken here,
    where the caller holds the array (mc.sampled_bid: why)."""
    params = policies.params
    memory = storage[0]
    start_sampling(policies, me, table, memory.deals, generator)
    evaluation = new_evaluation(memory, params[at(me.seat)], False, params[at(me.seat), P_BIDDING] == BIDDING_BLEND)
    samples = int(params[at(me.seat), P_SAMPLES])
    return mc.sampled_choice(bid_value, evaluation, me, table, memory.deals, samples, legal, preferred, generator)


@njit(cache=True)
def choose_card(policies, me, table, legal, generator):
    return mc.sampled_or_heuristic_card(sampled_card, new_memory, policies, me, table, legal, generator)


@njit(cache=True)
def sampled_card(storage, policies, me, table, choices, preferred_choice, generator):
    """choose_card's samples over `choices` in `storage` (as sampled_bid)."""
    params = policies.params
    memory = storage[0]
    start_sampling(policies, me, table, memory.deals, generator)
    solved_now = table.round_size - table.trick <= int(params[at(me.seat), P_DEPTH])
    evaluation = new_evaluation(memory, params[at(me.seat)], solved_now, False)
    samples = int(params[at(me.seat), P_PLAY_SAMPLES])
    return mc.sampled_choice(card_value, evaluation, me, table, memory.deals, samples, choices, preferred_choice,
                             generator)


@njit(cache=True)
def plays_as_mc(row, table):
    """Whether the seat of parameter row `row` plays this round as mc (its size is mc_from or more)."""
    mc_from = row[P_MC_FROM]
    return mc_from > 0.0 and table.round_size >= mc_from


@njit(cache=True)
def as_mc(policies, seat):
    """The policies as mc reads them for `seat` in a round it plays as mc: its row's sample counts
    mc_samples and mc_play_samples, no inference (a copy: the seating's rows are never written)."""
    policy_ids, params = policies.ids, policies.params
    rows = params.copy()
    rows[seat, mc.P_SAMPLES] = params[seat, P_MC_SAMPLES]
    rows[seat, mc.P_PLAY_SAMPLES] = params[seat, P_MC_PLAY_SAMPLES]
    rows[seat, mc.P_INFER] = 0.0
    rows[seat, mc.P_SPREAD] = 0.0
    return SeatedPolicies(policy_ids, rows, policies.state)


@njit(cache=True, inline="always")
def decide(decision, policies, me, table, legal, generator):
    """policies: the kernels.records.SeatedPolicies, as the dispatch has them."""
    params = policies.params
    if plays_as_mc(params[at(me.seat)], table):
        return mc.decide(decision, as_mc(policies, me.seat), me, table, legal, generator)
    if decision == DECIDE_BID:
        return choose_bid(policies, me, table, legal, generator)
    if decision == DECIDE_CARD:
        return choose_card(policies, me, table, legal, generator)
    return heuristic.choose_trump(me.hand)
