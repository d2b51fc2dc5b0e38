"""`mc`: a Monte Carlo player (docs/mc.md).

Bidding: for each legal bid, play out `samples` deals of the unseen cards with the heuristic
for every seat (the mc seat aiming at that bid) and bid the best mean round score. Card play:
flat Monte Carlo over the distinct legal cards with `play_samples` determinized rollouts.

It reads only its own seat record (hand, bid) and the public table: the sampled deals respect
every card seen (own hand, turned-up card, cards played) and every void a seat has shown;
bids the mode hides are estimated by the heuristic from the sampled hands, never read. Its
random numbers all come from the generator it is given (the round's DECISIONS stream).
"""
import numpy as np
from numba import njit

from kernels.bits import at, lowest_bit, popcount
from kernels.cards import N_CARDS
from kernels.search.equivalence import distinct_cards, in_play_for_seat, representative
from kernels.policies import heuristic
from kernels.policies.ids import POLICY_HEURISTIC
from kernels.search.posterior import (
    MODEL_DTYPE,
    OPPONENT_UNINFORMATIVE,
    POSTERIOR_WORK_DTYPE,
    prepare,
    sample_deal,
    sample_hands,
    set_model,
)
from kernels.round_state import NO_PLAY_LOG, apply_card, play_out, restart_bidding
from kernels.rules import round_score
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PLAYERS, NO_BID, SEAT_DTYPE, TABLE_DTYPE

# Parameter vector layout; defaults and names live in the Python registry (sim.policies).
P_SAMPLES = 0  # sampled deals per bid decision (0: the heuristic's bid)
P_PLAY_SAMPLES = 1  # sampled deals per card decision (0: the heuristic's card)
P_INFER = 2  # 1: deals from the posterior given the bids and trump choice shown; 0: uniform
# infer defaults to 0: +5.5 points per game at the same sample counts (20,000 duplicate deals),
# but at its 1.5-1.6x cost more samples gain +11.7 more (docs/mc.md, "Inference").
P_SPREAD = 3  # the posterior's model of a heuristic seat: its bids with this noise (0: exact)
NAME = "mc"
SUMMARY = "Monte Carlo: bids and plays by heuristic rollouts of sampled deals of the unseen cards"
PARAMETERS = (
    ("samples", 16.0),
    ("play_samples", 16.0),
    ("infer", 0.0),
    ("spread", 0.0),
)
# Valid ranges (checked by sim.policies.registry). The sample counts are capped so that one game
# stays well under a second: a run stops within 2 s of Ctrl-C.
MAX_SAMPLES = 256
COUNTS = ("samples", "play_samples", "infer")  # whole numbers
RANGES = {
    "samples": (0.0, float(MAX_SAMPLES)),
    "play_samples": (0.0, float(MAX_SAMPLES)),
    "infer": (0.0, 1.0),
    "spread": (0.0, 10.0),
}

# Every seat of a rollout plays the heuristic with its default parameters.
ROLLOUT_PARAMS = np.tile(heuristic.DEFAULT_PARAMS, (MAX_PLAYERS, 1))

# The posterior sampler as mc runs it (infer=1): a decision takes 16 samples, not estimate's
# 100,000, so fewer pilot draws and candidates than estimate's defaults, and a small cap on
# the candidates per sample (a sample past it is skipped); a floor in the bid likelihood keeps
# an opponent who bids unlike the heuristic (a random bidder, another bot) from making the
# sampler spin. Likelihood weighting was cheaper and measured far weaker (docs/mc.md).
MC_FLOOR = 0.1
MC_PILOT = 8
MC_MAX_TRIES = 8
MC_MAX_PROPOSALS = 200




# --- rollouts ---------------------------------------------------------------------------


# Working memory of one decision, as one record: the rollouts then pass only records and the
# arrays nested in them, which carry no reference count, and share the engine's compiled rules
# (which take the same record types). Tables are one-element arrays so records can be copied.
DECISION_DTYPE = np.dtype(
    [
        ("base_table", TABLE_DTYPE, (1,)),  # a sample's state before the decision
        ("base_seats", SEAT_DTYPE, (MAX_PLAYERS,)),
        ("rollout_table", TABLE_DTYPE, (1,)),  # the state one rollout plays on
        ("rollout_seats", SEAT_DTYPE, (MAX_PLAYERS,)),
        ("hands", np.int64, (MAX_PLAYERS,)),  # the sampled hands
        ("order", np.int64, (MAX_PLAYERS,)),  # the dealing order of the sampler
        ("fixed_bids", np.int64, (MAX_PLAYERS,)),  # bids a rollout imposes (NO_BID: heuristic)
        ("totals", np.float64, (N_CARDS,)),  # summed weighted rollout scores per bid or per card
        # With inference: when the samples' effective number (sampled_choice) is below this
        # share of them, the decision is taken again on uniform deals (0: never; pimc: ess_fallback).
        ("ess_floor", np.float64),
        ("inferring", np.uint8),  # whether this decision deals from the posterior (start_sampling)
        ("model", MODEL_DTYPE),  # with inference: the opponents, as the posterior sees them
        ("posterior", POSTERIOR_WORK_DTYPE),  # with inference: the sampler's observations
    ]
)


@njit(cache=True)
def new_decision_memory():
    """Working memory of one decision (one allocation, docs/mc.md): a one-record
    DECISION_DTYPE array. Its record is taken only in a function the array is passed to
    (kernels/blocks.py: numba frees a local array after its last use, records or not)."""
    return np.zeros(1, dtype=DECISION_DTYPE)


@njit(cache=True)
def reset_rollout(scratch, n_players):
    """Copy the base state onto the rollout state; returns the rollout table record."""
    scratch.rollout_table[0] = scratch.base_table[0]
    for seat in range(n_players):
        scratch.rollout_seats[seat] = scratch.base_seats[seat]
    return scratch.rollout_table[0]


@njit(cache=True)
def estimated_bid(table, seats, seat):
    """A bid hidden during play (delayed bidding): the tricks the seat has taken plus the
    heuristic's estimate for the cards it still holds, as if they were a fresh round."""
    if seats[seat].hand == 0:
        return table.tricks[seat]
    round_size = table.round_size
    table.round_size = popcount(seats[seat].hand)
    estimate = heuristic.expected_tricks(seats[seat].hand, table, ROLLOUT_PARAMS, seat)
    table.round_size = round_size
    return table.tricks[seat] + int(estimate + 0.5)


@njit(cache=True)
def set_base(me, table, scratch):
    """Base state of a sample: the public table and seat records with the sampled hands; the
    bids the table shows (own bid from `me`), estimates for the hidden ones."""
    scratch.base_table[0] = table
    base_seats = scratch.base_seats
    for seat in range(table.n_players):
        record = base_seats[seat]
        record.seat = seat
        record.hand = scratch.hands[seat]
        record.dealt = scratch.hands[seat]
        record.bid = me.bid if seat == me.seat else table.bids[seat]
    if table.n_bids == table.n_players:
        for seat in range(table.n_players):
            if base_seats[seat].bid == NO_BID:
                base_seats[seat].bid = estimated_bid(scratch.base_table[0], base_seats, seat)


@njit(cache=True, inline="always")
def rollout_decide(params, decision, me, table, legal, generator):
    """Every seat of a rollout plays the heuristic with the parameter rows `params` (the
    `policies` that kernels.round_state.play_out passes through)."""
    return heuristic.decide(decision, params, me, table, legal, generator)


@njit(cache=True)
def rollout_bidding(scratch, me_seat, my_bid):
    """The bids a rollout imposes: the bids the table shows stand, the mc seat bids `my_bid`;
    every other seat bids the heuristic's bid from its sampled hand, seeing what the mode
    shows. The rollout's bidding restarts from the first bidder."""
    fixed_bids = scratch.fixed_bids
    for seat in range(MAX_PLAYERS):
        fixed_bids[seat] = scratch.base_table[0].bids[seat]
    fixed_bids[me_seat] = my_bid
    return fixed_bids


@njit(cache=True)
def outcome(table, seats, me_seat):
    """The mc seat's round score (docs/mc.md: subtracting the others' scores measured worse)."""
    return round_score(seats[me_seat].bid, table.tricks[me_seat])


# --- decisions --------------------------------------------------------------------------


@njit(cache=True)
def best_choice(totals, choices, preferred):
    """The choice with the highest total; `preferred` (the heuristic's) unless one is
    strictly higher, then the lowest such index."""
    best = preferred
    rest = choices
    while rest:
        choice = lowest_bit(rest)
        rest &= rest - 1
        if totals[choice] > totals[best]:
            best = choice
    return best


@njit(cache=True)
def table_model(policies, me, table, model):
    """The opponent model of mc's inference: the seats playing the heuristic bid (and choose
    trump) like it with their own parameters; the bids of seats playing anything else (mc,
    random, a bot) are taken to say nothing: modelling them as the heuristic's made mc weaker,
    not stronger (docs/mc.md, "Inference"). The sampler's tuning is mc's."""
    policy_ids, params = policies.ids, policies.params
    set_model(model, table.n_players, params, params[at(me.seat), P_SPREAD])
    for seat in range(table.n_players):
        if policy_ids[seat] != POLICY_HEURISTIC:
            model.kind[seat] = OPPONENT_UNINFORMATIVE
    for seat in range(MAX_PLAYERS):
        model.floor[seat] = MC_FLOOR
    model.pilot = MC_PILOT
    model.max_tries = MC_MAX_TRIES
    model.max_proposals = MC_MAX_PROPOSALS


@njit(cache=True)
def start_sampling(policies, me, table, scratch, generator):
    """Prepare the decision's deals: with inference, the posterior sampler of the unseen cards
    given the bids and trump choice the table model explains (table_model, kernels.search.posterior)."""
    params = policies.params
    scratch.inferring = params[at(me.seat), P_INFER] != 0
    if not scratch.inferring:
        return
    table_model(policies, me, table, scratch.model)
    prepare(me, table, scratch.model, scratch.posterior, generator)


@njit(cache=True)
def sample_base(me, table, scratch, generator):
    """Deal one sample of the unseen cards and set the rollouts' base state from it; returns
    its weight (0: the posterior sampler gave up on it, skip it). Without inference (as
    start_sampling set scratch.inferring): a uniform deal respecting the voids shown, weight 1."""
    return sample_base_as(scratch.inferring, me, table, scratch, generator)


@njit(cache=True)
def sample_base_as(inferring, me, table, scratch, generator):
    """sample_base from the posterior (`inferring`) or uniformly."""
    weight = 1.0
    if inferring:
        weight, _ = sample_deal(scratch.model, scratch.posterior, scratch.hands, generator)
    else:
        sample_hands(me, table, scratch.hands, scratch.order, generator)
    if weight > 0.0:
        set_base(me, table, scratch)
    return weight


@njit(cache=True)
def too_few_effective(total, squares, samples, floor):
    """Whether weights summing to `total`, their squares to `squares`, give fewer effective
    samples (Kish: total^2 / squares) than `floor` times `samples` (always, when every one
    was given up; never with floor 0)."""
    return floor > 0.0 and (total == 0.0 or total * total < floor * samples * squares)


@njit(cache=True, inline="always")  # inlined: a jitted function passed to a call would not cache
def sampled_choice(value, context, me, table, deals, samples, choices, preferred, generator):
    """The search loop of mc and pimc, bids and cards alike: over `samples` sampled deals
    (sample_base, into the DECISION_DTYPE record `deals`), add each choice's weighted
    value(context, me, table, choice, first, generator) to deals.totals, and return the best
    choice (best_choice). The deals are the same for every choice; `first` is True for a
    deal's first choice (pimc solves a deal's position once for all its cards). With
    inference (deals.inferring, set by start_sampling) and deals.ess_floor > 0, a decision
    whose weighted samples are too few in effect (too_few_effective) is taken again on as
    many uniform deals (the bridge bot BEN's fallback)."""
    inferring = deals.inferring != 0
    total = 0.0
    squares = 0.0
    for _ in range(samples):
        weight = sample_base_as(inferring, me, table, deals, generator)
        total += weight
        squares += weight * weight
        add_values(value, context, me, table, deals, choices, weight, generator)
    if inferring and too_few_effective(total, squares, samples, deals.ess_floor):
        deals.totals[:] = 0.0
        for _ in range(samples):
            add_values(value, context, me, table, deals, choices, sample_base_as(False, me, table, deals, generator),
                       generator)  # fmt: skip
    return best_choice(deals.totals, choices, preferred)


@njit(cache=True, inline="always")  # inlined: it is passed a jitted function (sampled_choice: why)
def add_values(value, context, me, table, deals, choices, weight, generator):
    """Add each choice's weighted value on the sample in `deals` to deals.totals (nothing for a
    sample given up, weight 0)."""
    if weight == 0.0:
        return
    rest = choices
    first = True
    while rest:
        choice = lowest_bit(rest)
        rest &= rest - 1
        deals.totals[choice] += weight * value(context, me, table, choice, first, generator)
        first = False


@njit(cache=True)
def bid_value(scratch, me, table, bid, first, generator):
    """mc's score of bidding `bid` on the sampled deal in `scratch`: one heuristic rollout."""
    rollout_table = reset_rollout(scratch, table.n_players)
    restart_bidding(rollout_table, scratch.rollout_seats)
    fixed_bids = rollout_bidding(scratch, me.seat, bid)
    play_out(rollout_decide, ROLLOUT_PARAMS, rollout_table, scratch.rollout_seats, generator, fixed_bids, NO_PLAY_LOG)
    return outcome(rollout_table, scratch.rollout_seats, me.seat)


@njit(cache=True)
def card_value(scratch, me, table, card, first, generator):
    """mc's score of playing `card` on the sampled deal in `scratch`: one heuristic rollout."""
    rollout_table = reset_rollout(scratch, table.n_players)
    apply_card(rollout_table, scratch.rollout_seats, card)
    play_out(rollout_decide, ROLLOUT_PARAMS, rollout_table, scratch.rollout_seats, generator, scratch.fixed_bids,
             NO_PLAY_LOG)
    return outcome(rollout_table, scratch.rollout_seats, me.seat)


@njit(cache=True, inline="always")  # inlined: it is passed jitted functions (sampled_choice: why)
def sampled_or_heuristic_bid(sampled_bid, new_storage, policies, me, table, legal, generator):
    """The bid decision of mc and pimc: the heuristic's bid when there is nothing to sample
    (`samples` 0 or one legal bid), else sampled_bid(new_storage(), ..., preferred, ...)."""
    params = policies.params
    preferred = heuristic.choose_bid(ROLLOUT_PARAMS, me, table, legal)
    samples = int(params[at(me.seat), P_SAMPLES])
    if samples == 0 or popcount(legal) == 1:
        return preferred
    return sampled_bid(new_storage(), policies, me, table, legal, preferred, generator)


@njit(cache=True, inline="always")
def sampled_or_heuristic_card(sampled_card, new_storage, policies, me, table, legal, generator):
    """The card decision of mc and pimc: over the distinct legal cards (equivalent cards
    pruned), the heuristic's card when there is nothing to sample (`play_samples` 0 or one
    distinct card), else sampled_card(new_storage(), ...); a choice equivalent to the
    heuristic's card is played as that card."""
    params = policies.params
    preferred = heuristic.choose_card(me, table, legal)
    samples = int(params[at(me.seat), P_PLAY_SAMPLES])
    choices = distinct_cards(legal, in_play_for_seat(me, table))
    if samples == 0 or popcount(choices) == 1:
        return preferred
    preferred_choice = representative(preferred, choices)
    best = sampled_card(new_storage(), policies, me, table, choices, preferred_choice, generator)
    return preferred if best == preferred_choice else best


@njit(cache=True)
def choose_bid(policies, me, table, legal, generator):
    return sampled_or_heuristic_bid(sampled_bid, new_decision_memory, policies, me, table, legal, generator)


@njit(cache=True)
def sampled_bid(storage, policies, me, table, legal, preferred, generator):
    """choose_bid's rollouts in `storage` (a new_decision_memory array). Its record is taken
    here, where the caller holds the array: numba frees a local array right after its last
    use, even while a record taken from it is still read (kernels/blocks.py)."""
    params = policies.params
    scratch = storage[0]
    start_sampling(policies, me, table, scratch, generator)
    samples = int(params[me.seat, P_SAMPLES])
    return sampled_choice(bid_value, scratch, me, table, scratch, samples, legal, preferred, generator)


@njit(cache=True)
def choose_card(policies, me, table, legal, generator):
    return sampled_or_heuristic_card(sampled_card, new_decision_memory, policies, me, table, legal, generator)


@njit(cache=True)
def sampled_card(storage, policies, me, table, choices, preferred_choice, generator):
    """choose_card's rollouts over `choices` in `storage` (as sampled_bid)."""
    params = policies.params
    scratch = storage[0]
    start_sampling(policies, me, table, scratch, generator)
    samples = int(params[me.seat, P_PLAY_SAMPLES])
    return sampled_choice(card_value, scratch, me, table, scratch, samples, choices, preferred_choice, generator)


@njit(cache=True, inline="always")
def decide(decision, policies, me, table, legal, generator):
    """policies: the kernels.records.SeatedPolicies, as the dispatch has them: the opponent
    model of inference reads which seats play the heuristic."""
    if decision == DECIDE_BID:
        return choose_bid(policies, me, table, legal, generator)
    if decision == DECIDE_CARD:
        return choose_card(policies, me, table, legal, generator)
    return heuristic.choose_trump(me.hand)
