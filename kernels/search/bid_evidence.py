"""What a game's finished rounds say about how each seat bids (docs/pimc.md, "Learned inference").

At the end of a round every card has been played, so the public table shows every seat's
whole dealt hand (table.played_by), the trump and every bid (shown at the end in every
bidding mode). `read_round` scores each seat's bid there under five bid models and adds the
log-likelihoods to an evidence array (EVIDENCE_SIZE floats, evidence_index(seat, model)): pimc
keeps one in the state of each of its seats that reads it, which carries over from round to round
like the score pad (kernels.game_loop.begin_game clears every seat's state):

- BID_MODEL_UNIFORM: any legal bid equally likely (a random bidder);
- BID_MODEL_EXACT: the heuristic's bid from the seat's hand and view, exactly;
- BID_MODEL_WIDE + k: a bid near the heuristic's estimated tricks before rounding
  (kernels.search.posterior.wide_likelihood) with WIDE_SPREADS[k] tricks of spread.

The heuristic's parameters for a seat are those of the robust likelihood (seat_model_row):
a heuristic seat's own, an mc or pimc seat's MC_MODEL_PARAMS, any other the defaults. The
seating is public, and so is everything read here, so every seat may read the evidence.

`model_shares` turns a seat's evidence into the posterior probability of each model (from
PRIOR) and so into the per-seat uniform share (the posterior's floor), wide share and wide
spread (the likeliest of WIDE_SPREADS) of the robust likelihood that pimc with `learn_bids` samples
deals with: Bayesian model averaging per seat, the wide models' spread by its most probable
value. Before any round has finished, the shares are exactly those of `robust` alone.
"""
import numpy as np
from numba import njit

from kernels.bits import at, popcount
from kernels.policies import heuristic
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC, POLICY_PIMC
from kernels.round_state import bidding_view, bidder_at
from kernels.records import MAX_PARAMS, MAX_PLAYERS, NO_BID, SEAT_DTYPE, TABLE_DTYPE
from kernels.search.posterior import wide_likelihood

BID_MODEL_UNIFORM = 0
BID_MODEL_EXACT = 1
BID_MODEL_WIDE = 2  # the first of the wide models, one per spread
# Tricks of spread of the wide models: robust's (set a priori, docs/pimc.md), then wider ones
# for seats whose bids stray further from the heuristic's estimate (mc's own spread around it
# grows from 0.5 tricks in 1-3 card rounds to 1.3 in 9-15).
WIDE_SPREADS = np.array([0.6, 1.2, 2.4])
N_BID_MODELS = BID_MODEL_WIDE + WIDE_SPREADS.shape[0]
EVIDENCE_SIZE = MAX_PLAYERS * N_BID_MODELS  # the evidence of every seat under every model

# Before any evidence: 10% uniform (mc's floor of random bids), the rest split evenly between
# the exact model and the wide ones, most on robust's spread, so that the shares are robust's
# (ROBUST_WIDE 0.5, ROBUST_WIDE_SPREAD 0.6).
PRIOR = np.array([0.1, 0.45, 0.25, 0.125, 0.075])  # each exact enough for robust's shares to the bit
# The least likelihood a bid is scored with: the exact model gives 0 to any other bid, and a
# log of 0 would make the evidence of the other models meaningless (nan). A seat that once
# bids off the heuristic's bid keeps about this much belief in the exact model per such bid.
LEAST_LIKELIHOOD = 1e-9

# How an mc or pimc seat's bid is modelled: the heuristic with aggression 1.2 (over the bids
# of 60 mc self-play games that has no mean offset from mc's bid, where the default 1.0 bids
# 0.1-0.45 tricks lower; the spread of mc's bid around it is 0.5 tricks in rounds of 1-3
# cards, 0.85 in 4-8 and 1.3 in 9-15). Their trump choice is the heuristic's.
MC_MODEL_PARAMS = np.array([1.2 if name == "aggression" else default for name, default in heuristic.PARAMETERS])


@njit(cache=True)
def seat_model_row(policies, seat, rows):
    """rows[seat] = the heuristic's parameters the robust likelihood reads `seat` with: its
    own when it plays the heuristic, MC_MODEL_PARAMS when it plays mc or pimc, else the
    defaults (a random seat, a bot's fallback that is not the heuristic)."""
    policy_ids, params = policies.ids, policies.params
    policy = policy_ids[at(seat)]
    for k in range(MAX_PARAMS):
        if policy == POLICY_HEURISTIC:
            rows[seat, k] = params[seat, k]
        elif k >= heuristic.DEFAULT_PARAMS.shape[0]:
            rows[seat, k] = 0.0
        elif policy == POLICY_MC or policy == POLICY_PIMC:
            rows[seat, k] = MC_MODEL_PARAMS[k]
        else:
            rows[seat, k] = heuristic.DEFAULT_PARAMS[k]


# The working memory of read_round: each bidder's view rebuilt, its record, the parameter rows
# and the likelihoods of one bid.
READ_DTYPE = np.dtype(
    [
        ("bidder_view", TABLE_DTYPE),  # (not "view": a record has a view method)
        ("bidders", SEAT_DTYPE, (MAX_PLAYERS,)),  # the bids legal_bids reads
        ("record", SEAT_DTYPE),  # the bidder, holding its dealt hand
        ("rows", np.float64, (MAX_PLAYERS, MAX_PARAMS)),
        ("likelihoods", np.float64, (N_BID_MODELS,)),
    ]
)


@njit(cache=True, inline="always")
def evidence_index(seat, model):
    """Where an evidence array holds the log-likelihood of `seat`'s bids under `model`."""
    return seat * N_BID_MODELS + model


@njit(cache=True)
def bid_likelihoods(rows, record, view, legal, bid, likelihoods):
    """likelihoods[model] = P(bid | the dealt hand of `record`, and its view) under each model."""
    estimate = heuristic.bid_estimate(rows, record, view)
    likelihoods[BID_MODEL_UNIFORM] = 1.0 / popcount(legal)
    likelihoods[BID_MODEL_EXACT] = 1.0 if heuristic.nearest_bid(estimate, legal, view.round_size) == bid else 0.0
    for k in range(WIDE_SPREADS.shape[0]):
        likelihoods[BID_MODEL_WIDE + k] = wide_likelihood(bid, estimate, legal, view.round_size, WIDE_SPREADS[k])


@njit(cache=True)
def read_round(policies, table, evidence):
    """Add the log-likelihoods of every seat's bid in the finished round on `table`
    (PHASE_DONE: every card played, every bid shown) to `evidence`. Reads only the public
    table and the seating."""
    read_round_in(np.zeros(1, dtype=READ_DTYPE), policies, table, evidence)


@njit(cache=True)
def read_round_in(storage, policies, table, evidence):
    """read_round in `storage` (a one-record READ_DTYPE array), whose record is taken here,
    where the caller holds the array (kernels/blocks.py)."""
    work = storage[0]
    for position in range(table.n_players):
        seat = bidder_at(table, position)
        bid = table.bids[seat]
        if bid == NO_BID:
            continue
        seat_model_row(policies, seat, work.rows)
        legal = bidding_view(table, position, work.bidder_view, work.bidders)
        record = work.record
        record.seat = seat
        record.hand = table.played_by[seat]  # every card played: the seat's whole dealt hand
        record.dealt = record.hand
        record.bid = NO_BID
        bid_likelihoods(work.rows, record, work.bidder_view, legal, bid, work.likelihoods)
        for model in range(N_BID_MODELS):
            evidence[evidence_index(seat, model)] += np.log(max(work.likelihoods[model], LEAST_LIKELIHOOD))


@njit(cache=True)
def model_shares(evidence, seat):
    """(uniform share, wide share, wide spread) of the seat's bid likelihood from its
    evidence: the posterior probability of the uniform model; that of the wide models among
    all but the uniform one (kernels.search.posterior.set_bid_weights mixes them so); the
    spread of the likeliest wide model."""
    largest = -np.inf
    for model in range(N_BID_MODELS):
        largest = max(largest, evidence[evidence_index(seat, model)])
    weights = np.zeros(N_BID_MODELS)
    for model in range(N_BID_MODELS):
        # Without evidence (every entry 0) the weights are PRIOR exactly: robust's shares.
        weights[model] = PRIOR[model] * np.exp(evidence[evidence_index(seat, model)] - largest)
    wide = 0.0
    likeliest = BID_MODEL_WIDE
    for model in range(BID_MODEL_WIDE, N_BID_MODELS):
        wide += weights[model]
        if weights[model] > weights[likeliest]:
            likeliest = model
    total = weights[BID_MODEL_UNIFORM] + weights[BID_MODEL_EXACT] + wide
    spread = WIDE_SPREADS[likeliest - BID_MODEL_WIDE]
    return weights[BID_MODEL_UNIFORM] / total, wide / (weights[BID_MODEL_EXACT] + wide), spread
