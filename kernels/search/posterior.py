"""Posterior sampling of the unseen cards given what one seat may know (docs/inference.md).

The uniform deal of the unseen cards (kernels.search.mc.sample_hands) ignores what the
other seats' bids, and a dealer's trump choice after a turned-up Wizard, say about their
hands. Here each other seat is modelled as bidding (and choosing trump) by a policy; the
likelihood of the observations then factorises over the seats,
L(deal) = prod_p l_p(dealt hand of p), and the posterior over the deals consistent with the
seen cards and the shown voids is proportional to L.

Usage (all compiled; one working record per thread, no allocation per sample):

    storage = new_work()                    # POSTERIOR_WORK_DTYPE, keep it referenced
    work = storage[0]
    prepare(me, table, model, work, generator)   # once per decision: the observations
    weight, proposals = sample_deal(model, work, hands, generator)   # per sample

`hands[seat]` receives every seat's current hand (me's own at me.seat); `weight` is the
sample's importance weight (0.0 only when the proposal cap was reached: the hands are then
unspecified); estimates are weighted means sum(w f) / sum(w). `proposals` counts the
candidate hands whose likelihood was evaluated (replays of a bid). Only `me` (the deciding
seat's own record) and the public `table` are read: never another seat's record.

Method: sequential importance sampling over the seats with a likelihood ("constrained"
seats, least likely first after a pilot). The first draws hands uniformly from the pool
until its likelihood accepts one (its acceptance probability is the same for every sample);
each later one draws M candidates from the cards still in the pool, keeps one picked by
likelihood and weights the sample by their mean likelihood, an unbiased estimate of its
acceptance probability (or Haldane's inverse-sampling estimate, as an option); rejection
control trims the small weights. The other seats take the rest uniformly (respecting voids
with mc's exact binomial weights). docs/inference.md gives the proof and the measurements.
"""
import numpy as np
from numba import njit

from kernels.bits import at, nth_set_bit, popcount
from kernels.cards import N_SUITS, NO_CARD, card_bit, suit_mask
from kernels.policies import heuristic
from kernels.rng import below, uniform
from kernels.round_state import bidding_view
from kernels.rules import bidder_at, seat_after, trump_of_turned_card, unseen_cards
from kernels.records import (
    DEALER_CHOOSES_TRUMP,
    MAX_PARAMS,
    MAX_PLAYERS,
    MAX_ROUND_SIZE,
    NO_BID,
    SEAT_DTYPE,
    TABLE_DTYPE,
)

_i8 = np.int64
_f8 = np.float64

# How a seat is modelled (MODEL_DTYPE.kind).
OPPONENT_UNINFORMATIVE = 0  # e.g. the `random` policy: its bid and trump choice say nothing
OPPONENT_HEURISTIC = 1  # bids and chooses trump like kernels.policies.heuristic

# How a later constrained seat's acceptance probability Z is estimated (MODEL_DTYPE.estimator).
ESTIMATOR_FIXED = 0  # M candidate hands, Z ~ mean likelihood, one picked by likelihood (default)
ESTIMATOR_HALDANE = 1  # candidates until k accept, Z ~ (k-1)/(draws-1) (unbounded: see docs)
ESTIMATOR_WEIGHTING = 2  # no rejection: every seat dealt uniformly, the sample weighted by the likelihoods
DEFAULT_EXPECTED_ACCEPTS = 2.0  # fixed estimator: M = expected_accepts / pilot acceptance
DEFAULT_MAX_TRIES = 256  # fixed estimator: largest M
DEFAULT_ACCEPTANCES = 2  # Haldane's k
DEFAULT_MAX_PROPOSALS = 20_000  # candidate hands per sample before it is rejected
DEFAULT_PILOT = 32  # pilot draws per constrained seat
DEFAULT_CONTROL = 1.0  # rejection control at the pilot acceptance (0: off)
DEFAULT_TRUMP_MISS = 0.1  # tolerant model: chance the dealer picks another suit than the heuristic
DEFAULT_WIDE_SPREAD = 0.5  # the wide bid model's spread (tricks) when its share is set

# The opponent model: one record.
MODEL_DTYPE = np.dtype(
    [
        ("kind", _i8, (MAX_PLAYERS,)),  # OPPONENT_* per seat (the deciding seat's entry is ignored)
        ("params", _f8, (MAX_PLAYERS, MAX_PARAMS)),  # heuristic parameter row per seat
        ("spread", _f8),  # 0: exact model; > 0: tolerant, bid likelihood exp(-(b-h)^2 / 2 spread^2)
        ("seat_spread", _f8, (MAX_PLAYERS,)),  # the bid model's spread per seat (set_model: `spread` for all)
        ("floor", _f8, (MAX_PLAYERS,)),  # per seat: share of a uniform bid over the legal bids in its bid likelihood
        ("wide", _f8, (MAX_PLAYERS,)),  # per seat: share of the wide bid model in its bid likelihood (0: off)
        ("wide_spread", _f8, (MAX_PLAYERS,)),  # per seat: the wide model's spread around the heuristic's estimate
        ("trump_miss", _f8),  # tolerant: P(dealer's trump differs from the heuristic's), split over 3 suits
        ("estimator", _i8),  # ESTIMATOR_*: how a later constrained seat's acceptance is estimated
        ("expected_accepts", _f8),  # fixed: candidates per seat = this / its pilot acceptance
        ("max_tries", _i8),  # fixed: at most this many candidates per seat and sample
        ("acceptances", _i8),  # Haldane k >= 2: accepted hands drawn per later constrained seat
        ("max_proposals", _i8),  # cap on candidate hands per sample (then weight 0)
        ("pilot", _i8),  # draws per constrained seat (>= 1): their order, M and control levels
        ("control", _f8),  # rejection control level, relative to the pilot acceptance (0: off)
    ]
)

# Working memory of one thread: the observations compiled by `prepare`, read by `sample_deal`.
POSTERIOR_WORK_DTYPE = np.dtype(
    [
        ("views", TABLE_DTYPE, (MAX_PLAYERS,)),  # each constrained seat's table when it bid
        ("legal", _i8, (MAX_PLAYERS,)),  # the bids legal at its turn
        ("bid_weight", _f8, (MAX_PLAYERS, MAX_ROUND_SIZE + 1)),  # acceptance if the heuristic bids h
        ("wide_weight", _f8, (MAX_PLAYERS,)),  # the wide model's term, scaled as bid_weight (0: none)
        ("trump_weight", _f8, (MAX_PLAYERS, N_SUITS)),  # acceptance if the heuristic picks suit s
        ("bid_observed", np.uint8, (MAX_PLAYERS,)),
        ("observed_bid", _i8, (MAX_PLAYERS,)),  # the bid seen, where bid_observed
        ("trump_observed", np.uint8, (MAX_PLAYERS,)),
        ("record", SEAT_DTYPE, (1,)),  # the replayed seat's record
        ("bidders", SEAT_DTYPE, (MAX_PLAYERS,)),  # the bids legal_bids reads
        ("order", _i8, (MAX_PLAYERS,)),  # dealing order: constrained seats, void seats, the rest
        ("most", _i8, (MAX_PLAYERS,)),  # per place in the order: the largest `available` can be
        ("n_order", _i8),
        ("n_constrained", _i8),
        ("pilot_acceptance", _f8, (MAX_PLAYERS,)),  # per constrained seat: estimated acceptance
        ("control_level", _f8, (MAX_PLAYERS,)),  # per seat: rejection control level (0: none)
        ("tries", _i8, (MAX_PLAYERS,)),  # fixed estimator: candidates per sample, per seat
        ("need", _i8, (MAX_PLAYERS,)),  # cards each seat holds now
        ("allowed", _i8, (MAX_PLAYERS,)),  # pool cards each seat may hold (its voids)
        ("played_by", _i8, (MAX_PLAYERS,)),  # cards each seat played this round
        ("pool", _i8),  # the cards `me` has not seen
        ("me_seat", _i8),
        ("me_hand", _i8),
    ]
)


def new_model(
    n_players,
    kinds=None,
    params=None,
    spread=0.0,
    trump_miss=None,
    estimator=ESTIMATOR_FIXED,
    expected_accepts=DEFAULT_EXPECTED_ACCEPTS,
    max_tries=DEFAULT_MAX_TRIES,
    acceptances=DEFAULT_ACCEPTANCES,
    max_proposals=DEFAULT_MAX_PROPOSALS,
    pilot=DEFAULT_PILOT,
    control=DEFAULT_CONTROL,
    wide=0.0,
    wide_spread=DEFAULT_WIDE_SPREAD,
):
    """A one-record MODEL_DTYPE array (Python helper). kinds: OPPONENT_* per seat (default:
    every seat heuristic); params: a parameter row per seat or one row for all (default: the
    heuristic's defaults); spread 0 is the exact model; wide: every seat's share of the wide
    bid model (set_bid_weights), with wide_spread. trump_miss defaults to 0 for the exact
    model and DEFAULT_TRUMP_MISS for the tolerant and robust ones."""
    if spread < 0:
        raise ValueError("spread must be >= 0")
    if not 0 <= wide <= 1 or wide_spread <= 0:
        raise ValueError("wide must be in 0..1 and wide_spread > 0")
    if acceptances < 2:
        raise ValueError("acceptances must be >= 2 (Haldane's estimator)")
    if pilot < 1:
        raise ValueError("pilot must be >= 1 (it orders the seats and sizes the fixed estimator)")
    if expected_accepts <= 0 or max_tries < 1:
        raise ValueError("expected_accepts must be > 0 and max_tries >= 1")
    rows = np.zeros((MAX_PLAYERS, MAX_PARAMS))
    for seat in range(MAX_PLAYERS):
        row = heuristic.DEFAULT_PARAMS if params is None else (params[seat] if np.ndim(params) == 2 else params)
        rows[seat, : len(row)] = row
    model = np.zeros(1, dtype=MODEL_DTYPE)
    set_model(model[0], n_players, rows, spread)  # every seat the heuristic, default tuning
    if kinds is not None:
        model["kind"][0, :n_players] = kinds[:n_players]
    model["wide"][0, :n_players] = wide
    model["wide_spread"] = wide_spread
    if trump_miss is None and wide > 0:
        trump_miss = DEFAULT_TRUMP_MISS
    if trump_miss is not None:
        model["trump_miss"] = trump_miss
    model["estimator"] = estimator
    model["expected_accepts"] = expected_accepts
    model["max_tries"] = max_tries
    model["acceptances"] = acceptances
    model["max_proposals"] = max_proposals
    model["pilot"] = pilot
    model["control"] = control
    return model


@njit(cache=True)
def set_model(model, n_players, params, spread):
    """Model every seat as the heuristic with its row of `params` (spread 0: exactly; > 0:
    with that much bid noise, the tolerant model), with the sampler's default tuning (what
    new_model starts from; policies that infer call it in their kernels)."""
    for seat in range(MAX_PLAYERS):
        model.kind[seat] = OPPONENT_HEURISTIC if seat < n_players else OPPONENT_UNINFORMATIVE
        for k in range(MAX_PARAMS):
            model.params[seat, k] = params[seat, k] if k < params.shape[1] else 0.0
    model.spread = spread
    for seat in range(MAX_PLAYERS):
        model.seat_spread[seat] = spread
    for seat in range(MAX_PLAYERS):
        model.floor[seat] = 0.0
        model.wide[seat] = 0.0
    for seat in range(MAX_PLAYERS):
        model.wide_spread[seat] = DEFAULT_WIDE_SPREAD
    model.trump_miss = 0.0 if spread == 0.0 else DEFAULT_TRUMP_MISS
    model.estimator = ESTIMATOR_FIXED
    model.expected_accepts = DEFAULT_EXPECTED_ACCEPTS
    model.max_tries = DEFAULT_MAX_TRIES
    model.acceptances = DEFAULT_ACCEPTANCES
    model.max_proposals = DEFAULT_MAX_PROPOSALS
    model.pilot = DEFAULT_PILOT
    model.control = DEFAULT_CONTROL


@njit(cache=True)
def new_work():
    """A one-record POSTERIOR_WORK_DTYPE array; keep it referenced while its record is used."""
    return np.zeros(1, dtype=POSTERIOR_WORK_DTYPE)


# --- the uniform deal, respecting voids (also mc's sampler without inference) ---------


# Proposals of the void-respecting sampler accepted by their exact weight before it takes the
# first feasible one (only reached when several seats' voids make acceptance very unlikely).
WEIGHTED_ATTEMPTS = 256


@njit(cache=True)
def cards_left(table, seat):
    """Cards `seat` still holds: the round size less its cards played this round."""
    position = (seat - table.leader) % table.n_players
    played_this_trick = 1 if position < table.n_in_trick else 0
    return table.round_size - table.trick - played_this_trick


@njit(cache=True)
def allowed_cards(pool, voids):
    """Cards of `pool` a seat void in the suits of `voids` may hold (Wizards and Jesters
    always)."""
    allowed = pool
    for suit in range(N_SUITS):
        if (voids >> suit) & 1:
            allowed &= ~suit_mask(suit)
    return allowed


# --- sampling the unseen cards ----------------------------------------------------------


@njit(cache=True, inline="always")
def insert_by_slack(order, first, end, seat, slack):
    """Insert `seat` into order[first:end], kept in ascending slack[seat] (spare allowed cards:
    the tightest seat is dealt first); a seat goes after those of equal slack. Returns end + 1."""
    place = end
    while place > first and slack[order[place - 1]] > slack[seat]:
        order[place] = order[place - 1]
        place -= 1
    order[place] = seat
    return end + 1


@njit(cache=True)
def deal_order(me, table, pool, order):
    """Fill `order` with the other seats, those with shown voids first, tightest (fewest
    spare allowed cards) first. Returns how many seats have voids."""
    n_constrained = 0
    n_free = 0
    n_others = table.n_players - 1
    slack = np.empty(MAX_PLAYERS, dtype=np.int64)
    for step in range(1, table.n_players):
        seat = seat_after(me.seat, step, table.n_players)
        if table.voids[seat] == 0:
            order[n_others - 1 - n_free] = seat
            n_free += 1
            continue
        slack[seat] = popcount(allowed_cards(pool, table.voids[seat])) - cards_left(table, seat)
        n_constrained = insert_by_slack(order, 0, n_constrained, seat, slack)
    return n_constrained


@njit(cache=True)
def draw_cards(available, count, generator):
    """`count` cards drawn uniformly without replacement from the mask `available`."""
    drawn = np.int64(0)
    n_available = popcount(available)
    for i in range(count):
        card = nth_set_bit(available, below(generator, n_available - i))
        available &= ~card_bit(card)
        drawn |= card_bit(card)
    return drawn


@njit(cache=True)
def binomial_ratio(available, most, count):
    """C(available, count) / C(most, count) for count <= available <= most."""
    ratio = 1.0
    for i in range(count):
        ratio *= (available - i) / (most - i)
    return ratio


@njit(cache=True)
def propose_deal(plan, table, hands, generator):
    """Deal the seats of plan = (pool, order, n_ordered, n_constrained) in order, each drawing
    its cards uniformly from the pool cards it may hold that are still undealt. Returns the
    proposal's acceptance weight: 0 when a seat could not be served, otherwise the product over
    the constrained seats of C(available, need) / C(most, need), `most` being the largest
    `available` could be; it makes accepted deals uniform over all deals consistent with the
    voids (docs/mc.md)."""
    pool, order, n_ordered, n_constrained = plan
    remaining = pool
    weight = 1.0
    for i in range(n_ordered):
        seat = order[i]
        need = cards_left(table, seat)
        allowed = allowed_cards(pool, table.voids[seat])
        available = allowed & remaining
        n_available = popcount(available)
        if n_available < need:
            return 0.0
        if i < n_constrained:
            # The most this seat could find available, whatever the earlier seats drew.
            most = min(popcount(allowed), popcount(remaining))
            weight *= binomial_ratio(n_available, most, need)
        hands[seat] = draw_cards(available, need, generator)
        remaining &= ~hands[seat]
    return weight


@njit(cache=True)
def sample_hands(me, table, hands, order, generator):
    """Fill hands[seat] for every other seat with a deal of the unseen cards drawn uniformly
    among the deals consistent with what `me` has seen: the right number of cards per seat and
    no card of a suit a seat has shown void in (the cards nobody holds stay undealt).
    `order` is scratch of MAX_PLAYERS seats."""
    pool = unseen_cards(me.hand, table)
    n_constrained = deal_order(me, table, pool, order)
    plan = (pool, order, table.n_players - 1, n_constrained)
    attempt = 0
    while True:
        weight = propose_deal(plan, table, hands, generator)
        if weight >= 1.0 or (weight > 0.0 and (attempt >= WEIGHTED_ATTEMPTS or uniform(generator) < weight)):
            hands[me.seat] = me.hand
            return
        attempt += 1


# --- preparing the observations ---------------------------------------------------------


@njit(cache=True)
def set_bid_weights(model, work, seat, bid):
    """bid_weight[seat, h]: the acceptance probability of a hand on which the heuristic bids h
    when `bid` was seen, with the seat's spread (model.seat_spread). Exact: 1 if h == bid.
    Tolerant: P(bid | h) = g(bid - h) / sum over the
    legal bids b' of g(b' - h), g(x) = exp(-x^2 / 2 spread^2), scaled so its largest value
    over h is 1 (a constant factor per seat changes no posterior). model.floor[seat] mixes in
    a uniform bid: (1 - floor) P(bid | h) + floor / (legal bids).

    The robust likelihood (model.wide[seat] = w > 0) mixes in the wide model: P(bid | hand)
    = (1 - floor) ((1 - w) P(bid | h) + w P_wide(bid | e)) + floor / (legal bids), P_wide
    the Gaussian kernel of wide_likelihood around the heuristic's estimated tricks e of the
    hand (not its rounded bid h: a hand near a bid's edge is nearly as likely to bid either
    side). Its term is evaluated per hand (acceptance); wide_weight[seat] holds its factor,
    and the scale is the bound 1 on P_wide so that no acceptance exceeds 1."""
    round_size = work.views[seat].round_size
    legal = work.legal[seat]
    spread = model.seat_spread[seat]
    wide = model.wide[seat]
    floor = model.floor[seat]
    largest = 0.0
    for h in range(round_size + 1):
        if spread == 0.0:
            value = 1.0 if h == bid else 0.0
        else:
            total = 0.0
            for other in range(round_size + 1):
                if (legal >> other) & 1:
                    total += np.exp(-((other - h) ** 2) / (2.0 * spread * spread))
            value = np.exp(-((bid - h) ** 2) / (2.0 * spread * spread)) / total
        if wide > 0.0:
            value *= 1.0 - wide
        if floor > 0.0:  # a bid the model cannot explain still says little, never "impossible"
            value = (1.0 - floor) * value + floor / popcount(legal)
        work.bid_weight[seat, h] = value
        largest = max(largest, value)
    wide_factor = (1.0 - floor) * wide
    largest += wide_factor
    work.wide_weight[seat] = wide_factor / largest if largest > 0.0 else 0.0
    for h in range(round_size + 1):
        work.bid_weight[seat, h] = work.bid_weight[seat, h] / largest if largest > 0.0 else 0.0


@njit(cache=True)
def wide_likelihood(bid, estimate, legal, round_size, spread):
    """The wide bid model: P(bid | e) = g(bid - e) / sum over the legal bids b' of g(b' - e),
    g(x) = exp(-x^2 / 2 spread^2), e the heuristic's estimated tricks before rounding
    (heuristic.bid_estimate). At most 1."""
    total = 0.0
    for other in range(round_size + 1):
        if (legal >> other) & 1:
            total += np.exp(-((other - estimate) ** 2) / (2.0 * spread * spread))
    return np.exp(-((bid - estimate) ** 2) / (2.0 * spread * spread)) / total if total > 0.0 else 0.0


@njit(cache=True)
def set_trump_weights(model, work, seat, trump):
    """trump_weight[seat, s]: acceptance of a dealt hand on which the heuristic picks suit s
    when the dealer chose `trump`: 1 for s == trump; otherwise 0 (exact) or
    (trump_miss / 3) / (1 - trump_miss) (tolerant or robust, scaled so the observed suit's is 1)."""
    miss = 0.0
    if (model.spread > 0.0 or model.wide[seat] > 0.0) and model.trump_miss > 0.0:
        miss = min(1.0, (model.trump_miss / 3.0) / (1.0 - model.trump_miss)) if model.trump_miss < 1.0 else 1.0
    for suit in range(N_SUITS):
        work.trump_weight[seat, suit] = 1.0 if suit == trump else miss


@njit(cache=True)
def order_by_acceptance(model, work, generator):
    """Estimate each constrained seat's acceptance probability on hands drawn from the whole
    pool (model.pilot draws each, the mean acceptance value) and put the least likely first:
    the first seat's acceptance is the same for every sample, so it costs draws but no weight
    variance, and the later seats, more likely to accept, need fewer draws."""
    n = work.n_constrained
    for i in range(n):
        seat = work.order[i]
        available = work.allowed[seat]
        total = 0.0
        for _ in range(model.pilot):
            hand = draw_cards(available, work.need[seat], generator)
            total += acceptance(model, work, seat, hand | work.played_by[seat])
        work.pilot_acceptance[seat] = total / model.pilot
    for i in range(1, n):  # insertion sort, ascending acceptance, stable
        seat = work.order[i]
        place = i
        while place > 0 and work.pilot_acceptance[work.order[place - 1]] > work.pilot_acceptance[seat]:
            work.order[place] = work.order[place - 1]
            place -= 1
        work.order[place] = seat


@njit(cache=True)
def prepare(me, table, model, work, generator):
    """Compile what `me` may know into `work`: the pool of unseen cards, each other seat's
    card count, voids and played cards, and the observations with a likelihood (the visible
    bids of seats modelled by the heuristic, the dealer's trump choice after a turned-up
    Wizard), each bidder's view of the table rebuilt. Reads only `me` and `table`. With two
    or more constrained seats it draws model.pilot hands per seat from `generator`
    (order_by_acceptance) to order them and set their candidate counts M and rejection
    control levels. Returns the number of constrained seats."""
    n_players = table.n_players
    pool = unseen_cards(me.hand, table)
    work.pool = pool
    work.me_seat = me.seat
    work.me_hand = me.hand
    wizard_turned = table.trump_card != NO_CARD and trump_of_turned_card(table.trump_card) == DEALER_CHOOSES_TRUMP
    for seat in range(MAX_PLAYERS):
        work.bid_observed[seat] = 0
        work.trump_observed[seat] = 0
        work.need[seat] = 0
        work.allowed[seat] = 0
        work.played_by[seat] = 0
        work.wide_weight[seat] = 0.0
    for position in range(n_players):
        seat = bidder_at(table, position)
        if seat == me.seat:
            continue
        work.need[seat] = cards_left(table, seat)
        work.allowed[seat] = allowed_cards(pool, table.voids[seat])
        work.played_by[seat] = table.played_by[seat]
        if model.kind[seat] != OPPONENT_HEURISTIC:
            continue
        work.legal[seat] = bidding_view(table, position, work.views[seat], work.bidders)
        if table.bids[seat] != NO_BID:
            work.bid_observed[seat] = 1
            work.observed_bid[seat] = table.bids[seat]
            set_bid_weights(model, work, seat, table.bids[seat])
        if wizard_turned and seat == table.dealer and table.trump >= 0:
            work.trump_observed[seat] = 1
            set_trump_weights(model, work, seat, table.trump)
    # Dealing order: constrained seats (reordered by the pilot below), then seats with voids
    # (tightest first, as in mc), then the others.
    n = 0
    for position in range(n_players):
        seat = bidder_at(table, position)
        if seat != me.seat and (work.bid_observed[seat] or work.trump_observed[seat]):
            work.order[n] = seat
            n += 1
    work.n_constrained = n
    first_free = n
    slack = np.empty(MAX_PLAYERS, dtype=np.int64)
    for position in range(n_players):
        seat = bidder_at(table, position)
        if seat == me.seat or work.bid_observed[seat] or work.trump_observed[seat]:
            continue
        if table.voids[seat] == 0:
            continue
        slack[seat] = popcount(work.allowed[seat]) - work.need[seat]
        n = insert_by_slack(work.order, first_free, n, seat, slack)
    for position in range(n_players):
        seat = bidder_at(table, position)
        if seat != me.seat and not (work.bid_observed[seat] or work.trump_observed[seat]) and table.voids[seat] == 0:
            work.order[n] = seat
            n += 1
    work.n_order = n
    for seat in range(MAX_PLAYERS):
        work.control_level[seat] = 0.0
    if work.n_constrained > 1 and model.estimator != ESTIMATOR_WEIGHTING:
        order_by_acceptance(model, work, generator)
        for i in range(1, work.n_constrained):
            seat = work.order[i]
            estimate = work.pilot_acceptance[seat]
            tries = model.max_tries if estimate <= 0.0 else int(np.ceil(model.expected_accepts / estimate))
            work.tries[seat] = max(1, min(model.max_tries, tries))
            if model.control > 0.0:
                work.control_level[seat] = min(1.0, model.control * estimate)
    remaining = popcount(pool)
    for i in range(n):
        seat = work.order[i]
        work.most[i] = min(popcount(work.allowed[seat]), remaining)
        remaining -= work.need[seat]
    return work.n_constrained


# --- sampling ---------------------------------------------------------------------------


@njit(cache=True)
def acceptance(model, work, seat, dealt):
    """Acceptance probability (the likelihood scaled to at most 1) of `dealt` as the hand
    seat was dealt: the product of its bid and trump-choice terms."""
    value = 1.0
    if work.trump_observed[seat]:
        value = work.trump_weight[seat, heuristic.choose_trump(dealt)]
        if value == 0.0:
            return 0.0
    if work.bid_observed[seat]:
        record = work.record[0]
        record.seat = seat
        record.hand = dealt
        record.dealt = dealt
        record.bid = NO_BID
        view = work.views[seat]
        if work.wide_weight[seat] > 0.0:
            estimate = heuristic.bid_estimate(model.params, record, view)
            bid = heuristic.nearest_bid(estimate, work.legal[seat], view.round_size)
            spread = model.wide_spread[seat]
            wide = wide_likelihood(work.observed_bid[seat], estimate, work.legal[seat], view.round_size, spread)
            value *= min(1.0, work.bid_weight[seat, bid] + work.wide_weight[seat] * wide)
        else:
            bid = heuristic.choose_bid(model.params, record, view, work.legal[seat])
            value *= work.bid_weight[seat, bid]
    return value


@njit(cache=True)
def fixed_tries_hand(model, work, seat, available, need, generator):
    """work.tries[seat] candidate hands from `available`: returns (hand, factor, drawn) with
    factor = their mean acceptance (an unbiased estimate of the seat's acceptance
    probability) and hand one of them picked with probability proportional to its acceptance
    (0 and any hand when none accepts)."""
    tries = work.tries[seat]
    total = 0.0
    hand = np.int64(0)
    for _ in range(tries):
        candidate = draw_cards(available, need, generator)
        value = acceptance(model, work, seat, candidate | work.played_by[seat])
        if value > 0.0:
            total += value
            # Weighted reservoir of one: the candidate replaces the kept one with chance
            # value / total, so it is kept in the end with chance value / final total.
            if value >= total or uniform(generator) * total < value:
                hand = candidate
    return hand, total / tries, tries


@njit(cache=True)
def haldane_hand(model, work, seat, available, need, budget, generator):
    """Candidate hands until model.acceptances of them accept (Bernoulli of the acceptance):
    returns (the first accepted hand, Haldane's unbiased (k-1)/(draws-1), draws); factor -1
    when the budget of draws ran out."""
    k = model.acceptances
    accepted = 0
    draws = 0
    hand = np.int64(0)
    while accepted < k:
        if draws >= budget:
            return hand, -1.0, draws
        candidate = draw_cards(available, need, generator)
        draws += 1
        value = acceptance(model, work, seat, candidate | work.played_by[seat])
        if value >= 1.0 or (value > 0.0 and uniform(generator) < value):
            if accepted == 0:
                hand = candidate
            accepted += 1
    return hand, (k - 1) / (draws - 1), draws


@njit(cache=True)
def sample_deal(model, work, hands, generator):
    """One weighted sample of the other seats' current hands from the posterior prepared in
    `work`. Returns (weight, proposals): weight 0.0 when the proposal cap was reached (the
    hands are then unspecified); proposals = candidate hands evaluated by a likelihood plus
    deals abandoned because a void seat could not be served (over every restart). A partial
    deal of weight 0 (no candidate accepted, a void seat short) is dropped and a new one
    drawn; under rejection control (model.control > 0) so is one whose seat factor falls
    below its level, with the right probability."""
    proposals = 0
    cap = model.max_proposals
    while True:
        weight = 1.0
        remaining = work.pool
        restart = False
        for i in range(work.n_order):
            seat = work.order[i]
            need = work.need[seat]
            available = work.allowed[seat] & remaining
            n_available = popcount(available)
            if n_available < need:
                proposals += 1  # a void seat cannot be served: this deal has weight 0
                restart = True
                break
            if n_available < work.most[i]:  # a void seat: mc's exact weight C(a, k) / C(most, k)
                weight *= binomial_ratio(n_available, work.most[i], need)
            if model.estimator == ESTIMATOR_WEIGHTING and i < work.n_constrained:
                # Likelihood weighting: a uniform hand, weighted by its likelihood (cheapest
                # per sample, lower effective sample size; mc's choice).
                hand = draw_cards(available, need, generator)
                proposals += 1
                weight *= acceptance(model, work, seat, hand | work.played_by[seat])
            elif i == 0 and work.n_constrained > 0:
                # The first constrained seat draws from the whole pool: its acceptance
                # probability is the same for every sample, so one accepted hand needs no
                # weight (plain rejection, one seat).
                while True:
                    if proposals >= cap:
                        return 0.0, proposals
                    hand = draw_cards(available, need, generator)
                    proposals += 1
                    value = acceptance(model, work, seat, hand | work.played_by[seat])
                    if value >= 1.0 or (value > 0.0 and uniform(generator) < value):
                        break
            elif i < work.n_constrained:
                # A later seat: the sample is weighted by an unbiased estimate of its
                # acceptance probability from the cards still in the pool.
                if model.estimator == ESTIMATOR_HALDANE:
                    hand, factor, drawn = haldane_hand(model, work, seat, available, need, cap - proposals, generator)
                else:
                    hand, factor, drawn = fixed_tries_hand(model, work, seat, available, need, generator)
                proposals += drawn
                if factor < 0.0:
                    return 0.0, proposals
                level = work.control_level[seat]
                if factor < level:
                    # Rejection control (Liu): keep with chance factor / level, then weigh by
                    # the level; E[weight] is unchanged, its spread much smaller.
                    if factor == 0.0 or uniform(generator) * level >= factor:
                        restart = True
                        break
                    factor = level
                if factor == 0.0:
                    restart = True
                    break
                weight *= factor
            else:
                hand = draw_cards(available, need, generator)
            hands[at(seat)] = hand
            remaining &= ~hand
        if restart:
            if proposals >= cap:
                return 0.0, proposals
            continue
        hands[at(work.me_seat)] = work.me_hand
        return weight, proposals


@njit(cache=True)
def sample_deals(me, table, model, generator, hands, weights):
    """Prepare and draw weights.shape[0] samples: hands[i, seat], weights[i]. Returns the
    total proposals. (A convenience loop for tests and benchmarks.)"""
    return sample_deals_in(new_work(), me, table, model, generator, hands, weights)


@njit(cache=True)
def sample_deals_in(storage, me, table, model, generator, hands, weights):
    """sample_deals in `storage` (a new_work array), whose record is taken here, where the
    caller holds the array (numba frees a local array after its last use, even while a
    record of it is read: kernels/blocks.py)."""
    work = storage[0]
    prepare(me, table, model, work, generator)
    total = 0
    for i in range(weights.shape[0]):
        weight, proposals = sample_deal(model, work, hands[i], generator)
        weights[i] = weight
        total += proposals
    return total


@njit(cache=True)
def effective_samples(weights):
    """Kish's effective sample size (sum w)^2 / sum w^2 (0 when every weight is 0)."""
    total = 0.0
    squares = 0.0
    for w in weights:
        total += w
        squares += w * w
    return total * total / squares if squares > 0.0 else 0.0
