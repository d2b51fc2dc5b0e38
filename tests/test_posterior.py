"""The posterior sampler of the unseen cards (kernels/search/posterior.py, docs/inference.md).

Exactness: on small states every deal of the unseen cards is enumerated, weighted by the
likelihood of the observations computed independently (the bidding replayed from the start
on a full table, as the engine plays it) and compared with the sampler's weighted
frequencies. Hidden and delayed bidding give the uniform deal. The sampler reads only `me`
and the table. Self-play: the posterior predicts how often the second bidder's card takes
the trick of a 1-card round after the first bid, where the uniform deal does not."""
import itertools
import math

import numpy as np
import pytest
from numba import njit

import reference
import sim
from helpers import deal_round, make_table, new_stream, popcount
from kernels.search import posterior as P
from kernels import round_state as R
from kernels import rules as K
from kernels import records as st
from kernels.cards import FIRST_WIZARD, FIRST_JESTER, SUIT_MASKS, WIZARD_MASK
from kernels.policies import heuristic

SIGMAS = 5.0  # per cell; a few hundred cells per state
DEFAULT_ROW = np.array([d for _, d in heuristic.PARAMETERS] + [0.0] * (st.MAX_PARAMS - len(heuristic.PARAMETERS)))
PARAMS = np.tile(DEFAULT_ROW, (st.MAX_PLAYERS, 1))


# --- true states, built as the engine plays them -------------------------------------------


def true_state(players, round_size, seed, me_position, bidding="open", plays=0, even_bids="allowed", totals=None):
    """Deal (game `seed`), choose trump and bid with the heuristic at every seat, then play
    `plays` cards by the heuristic. The seat at `me_position` decides next: the bidding stops
    at its turn unless plays > 0 (then everyone has bid). Returns (storage, seats, table, me)."""
    storage, seats, table = make_table(players=players, round_size=round_size, bidding=bidding, even_bids=even_bids)
    if totals is not None:
        table["totals"][: len(totals)] = totals
    deal_round(20261201, seed, table, seats)
    if table["phase"] == st.PHASE_TRUMP:
        R.apply_trump(table, heuristic.choose_trump(seats[table["dealer"]]["hand"]))
    stop = players if plays > 0 else me_position
    for position in range(stop):
        seat = K.bidder_at(table, position)
        legal = R.legal_actions(table, seats)
        R.apply_bid(table, seats, heuristic.choose_bid(PARAMS, seats[seat], table, legal))
    for _ in range(plays):
        seat = R.current_seat(table)
        legal = R.legal_actions(table, seats)
        R.apply_card(table, seats, heuristic.choose_card(seats[seat], table, legal))
    me = seats[K.bidder_at(table, me_position)]
    return storage, seats, table, me


# --- the exact posterior by enumeration ----------------------------------------------------


@njit(cache=False)
def replayed_likelihood(table, me, dealt, params, model, kinds, replay, seats):
    """Likelihood of the observations in `table` for the dealt hands `dealt[seat]`: the
    dealer's trump choice and the bidding replayed from the start on a full table `replay`
    (each seat sees what the engine shows it, the observed bids applied as made). model =
    (spread, trump_miss, wide, wide_spread): with wide > 0 a bid's likelihood is
    (1 - wide) P(bid | heuristic's bid) + wide g(bid - e) / sum over legal b of g(b - e),
    e the heuristic's estimated tricks, g the Gaussian kernel of wide_spread."""
    spread, trump_miss, wide, wide_spread = model
    n = table.n_players
    replay.n_players = n
    replay.bidding = table.bidding
    replay.even_bids = table.even_bids
    R.begin_round(replay, seats, table.round_size, table.dealer)
    replay.trump_card = table.trump_card
    replay.trump = table.trump
    for seat in range(st.MAX_PLAYERS):
        replay.totals[seat] = table.totals[seat]
    for seat in range(n):
        seats[seat].hand = dealt[seat]
        seats[seat].dealt = dealt[seat]
    value = 1.0
    if K.trump_of_turned_card(table.trump_card) == st.DEALER_CHOOSES_TRUMP and table.dealer != me.seat and kinds[table.dealer] == 1:
        match = heuristic.choose_trump(dealt[table.dealer]) == table.trump
        if spread == 0.0 and wide == 0.0:
            value = 1.0 if match else 0.0
        else:
            value = (1.0 - trump_miss) if match else trump_miss / 3.0
    for position in range(n):
        seat = K.bidder_at(replay, position)
        observed = table.bids[seat]
        if seat == me.seat:
            observed = me.bid if observed == st.NO_BID else observed
        if observed == st.NO_BID:
            break  # the bidding has reached `me` (or nothing later is visible)
        legal = K.legal_bids(replay, seats, position)
        if seat != me.seat and kinds[seat] == 1:
            h = heuristic.choose_bid(params, seats[seat], replay, legal)
            if spread == 0.0:
                bid_value = 1.0 if h == observed else 0.0
            else:
                total = 0.0
                for b in range(table.round_size + 1):
                    if (legal >> b) & 1:
                        total += math.exp(-((b - h) ** 2) / (2 * spread * spread))
                bid_value = math.exp(-((observed - h) ** 2) / (2 * spread * spread)) / total
            if wide > 0.0:
                e = heuristic.bid_estimate(params, seats[seat], replay)
                total = 0.0
                for b in range(table.round_size + 1):
                    if (legal >> b) & 1:
                        total += math.exp(-((b - e) ** 2) / (2 * wide_spread * wide_spread))
                around = math.exp(-((observed - e) ** 2) / (2 * wide_spread * wide_spread)) / total
                bid_value = (1.0 - wide) * bid_value + wide * around
            value *= bid_value
        K.record_bid(replay, seats, seat, observed)
        replay.n_bids += 1
    return value


@njit(cache=False)
def enumerate_posterior(table, me, others, subsets, n_subsets, played_by, params, model, kinds, marginals):
    """Sum the likelihood of every deal: subsets[i, :n_subsets[i]] are the hands seat
    others[i] may hold now (2 or 3 other seats); marginals[seat, card] += likelihood for each
    card held. Returns the total likelihood."""
    dealt = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    dealt[me.seat] = me.dealt
    storage = np.zeros(1, dtype=st.TABLE_DTYPE)
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    total = 0.0
    n_others = others.shape[0]
    for a in range(n_subsets[0]):
        ha = subsets[0, a]
        for b in range(n_subsets[1]):
            hb = subsets[1, b]
            if ha & hb:
                continue
            for c in range(n_subsets[2] if n_others == 3 else 1):
                hc = subsets[2, c] if n_others == 3 else np.int64(0)
                if hc & (ha | hb):
                    continue
                dealt[others[0]] = ha | played_by[others[0]]
                dealt[others[1]] = hb | played_by[others[1]]
                if n_others == 3:
                    dealt[others[2]] = hc | played_by[others[2]]
                value = replayed_likelihood(table, me, dealt, params, model, kinds, storage[0], seats)
                if value == 0.0:
                    continue
                total += value
                for i in range(n_others):
                    hand = ha if i == 0 else (hb if i == 1 else hc)
                    for card in range(60):
                        if (hand >> card) & 1:
                            marginals[others[i], card] += value
    return total


def hand_subsets(allowed, need):
    cards = [c for c in range(60) if (allowed >> c) & 1]
    return [sum(1 << c for c in chosen) for chosen in itertools.combinations(cards, need)]


def exact_posterior(table, me, spread=0.0, trump_miss=0.0, kinds=None, wide=0.0, wide_spread=0.5):
    """P(card in seat's current hand) for every other seat, by enumeration."""
    n = int(table["n_players"])
    kinds = np.ones(st.MAX_PLAYERS, np.int64) if kinds is None else np.asarray(kinds, np.int64)
    seen = int(me["hand"]) | int(table["played"]) | (1 << int(table["trump_card"]) if table["trump_card"] >= 0 else 0)
    pool = ((1 << 60) - 1) & ~seen
    others = [s for s in range(n) if s != me["seat"]]
    lists = []
    for s in others:
        allowed = pool
        for suit in range(4):
            if (int(table["voids"][s]) >> suit) & 1:
                allowed &= ~int(SUIT_MASKS[suit])
        position = (s - int(table["leader"])) % n
        need = int(table["round_size"]) - int(table["trick"]) - (1 if position < table["n_in_trick"] else 0)
        lists.append(hand_subsets(allowed, need))
    width = max(len(x) for x in lists)
    subsets = np.zeros((3, width), np.int64)
    counts = np.zeros(3, np.int64)
    for i, x in enumerate(lists):
        subsets[i, : len(x)] = np.array(x, dtype=np.uint64).view(np.int64)
        counts[i] = len(x)
    marginals = np.zeros((st.MAX_PLAYERS, 60))
    played_by = np.array(table["played_by"], np.int64)
    model = (float(spread), float(trump_miss), float(wide), float(wide_spread))
    total = enumerate_posterior(table, me, np.array(others, np.int64), subsets, counts, played_by, PARAMS, model, kinds, marginals)
    assert total > 0
    return marginals / total


def sampled_posterior(table, me, model, n_samples, seed=7):
    hands = np.zeros((n_samples, st.MAX_PLAYERS), np.int64)
    weights = np.zeros(n_samples)
    P.sample_deals(me, table, model[0], new_stream(seed, 0, 0, 1), hands, weights)
    return hands, weights


def weighted_marginals(hands, weights, players):
    bits = ((hands[:, :players, None].view(np.uint64) >> np.arange(60, dtype=np.uint64)) & np.uint64(1)).astype(np.float64)
    return np.einsum("i,isc->sc", weights, bits) / weights.sum()


def assert_matches(exact, hands, weights, table, me):
    """Every (seat, card) frequency and each seat's P(holds a Wizard) / P(holds a trump)
    within SIGMAS of the exact posterior, sigma from the effective sample size."""
    n = int(table["n_players"])
    ess = P.effective_samples(weights)
    assert ess > 0.2 * weights.shape[0], f"effective sample size {ess:.0f} of {weights.shape[0]}"
    sampled = weighted_marginals(hands, weights, n)
    others = [s for s in range(n) if s != me["seat"]]
    for s in others:
        p = exact[s]
        q = sampled[s]
        assert np.all(q[p == 0] == 0), f"seat {s} got a card of zero posterior probability"
        sigma = np.sqrt(np.maximum(p * (1 - p), 1e-12) / ess)
        z = np.abs(q - p) / sigma
        assert z.max() < SIGMAS, f"seat {s} card {z.argmax()}: {q[z.argmax()]:.4f} vs exact {p[z.argmax()]:.4f} ({z.max():.1f} sigma)"
    # Features that mix cards: holding a Wizard, holding a trump (from the same weights).
    trump = int(table["trump"])
    for s in others:
        for feature in (WIZARD_MASK, int(SUIT_MASKS[trump]) if trump >= 0 else 0):
            if feature == 0:
                continue
            flags = (hands[:, s] & np.int64(feature if feature < 2**63 else feature - 2**64)) != 0
            q = (weights * flags).sum() / weights.sum()
            # exact: only for 1-card hands is it the sum of card marginals; compare those.
            if int(table["round_size"]) == 1:
                cards = [c for c in range(60) if (feature >> c) & 1]
                p = exact[s, cards].sum()
                sigma = math.sqrt(max(p * (1 - p), 1e-12) / ess)
                assert abs(q - p) < SIGMAS * sigma, f"seat {s} feature: {q:.4f} vs {p:.4f}"


def find_state(predicate, **kwargs):
    for seed in range(500):
        state = true_state(seed=seed, **kwargs)
        if predicate(*state):
            return state
    raise AssertionError("no such state in 500 deals")


def informative(storage, seats, table, me):
    """At least one visible bid of 1 or more (a bid of 1 in a 1-card round is informative)."""
    return any(table["bids"][s] > 0 for s in range(int(table["n_players"])) if s != me["seat"])


def wizard_turned(storage, seats, table, me):
    return FIRST_WIZARD <= table["trump_card"] < FIRST_JESTER and table["dealer"] != me["seat"]


def void_shown(storage, seats, table, me):
    return any(table["voids"][s] for s in range(int(table["n_players"])) if s != me["seat"]) and informative(storage, seats, table, me)


def distance_from_uniform(table, me, exact):
    """The largest total variation (summed over cards) of a seat's card marginals in `exact`
    from those of the uniform deal of the same unseen cards."""
    uniform = exact_posterior(table, me, kinds=np.zeros(st.MAX_PLAYERS, np.int64))
    return np.abs(exact - uniform).sum(axis=1).max()


def bids_matter(storage, seats, table, me):
    """A void shown, and a posterior given the bids away from the uniform deal."""
    return void_shown(storage, seats, table, me) and distance_from_uniform(table, me, exact_posterior(table, me)) > 0.1


STATES = {
    "3p-r1-last": dict(players=3, round_size=1, me_position=2, predicate=informative),
    "3p-r2-last": dict(players=3, round_size=2, me_position=2, predicate=informative),
    "3p-r2-wizard-turned": dict(players=3, round_size=2, me_position=1, predicate=wizard_turned),
    "4p-r1-last": dict(players=4, round_size=1, me_position=3, predicate=informative),
    "4p-r1-wizard-turned": dict(players=4, round_size=1, me_position=2, predicate=wizard_turned),
    "3p-r2-play-void": dict(players=3, round_size=2, me_position=2, plays=2, predicate=void_shown),
    "3p-r2-hidden-play": dict(players=3, round_size=2, me_position=2, plays=1, bidding="hidden", predicate=informative),
    # The dealer bid last under an even-bids restriction (its legal bids depend on the others').
    "3p-r2-forbidden-play": dict(players=3, round_size=2, me_position=1, plays=1, even_bids="forbidden", predicate=informative),
    "3p-r2-leader-play": dict(players=3, round_size=2, me_position=1, plays=1, even_bids="leader", totals=[0, 10, 30], predicate=informative),
    # Every card dealt (no trump card, no card left over): the last 3 tricks of round 15 / 20
    "4p-r15-all-dealt": dict(players=4, round_size=15, me_position=0, plays=48, predicate=bids_matter),
    "3p-r20-all-dealt": dict(players=3, round_size=20, me_position=0, plays=51, predicate=bids_matter),
}


CONFIGS = {
    "exact": {},
    "tolerant": {"spread": 0.7},
    "exact-no-control": {"control": 0.0},
    "tolerant-no-control": {"spread": 0.7, "control": 0.0},
    "exact-haldane": {"estimator": P.ESTIMATOR_HALDANE, "control": 0.0},
    "robust": {"wide": 0.6, "wide_spread": 0.4},  # the robust likelihood, exact elsewhere
}
CASES = [(name, config) for name in STATES for config in ("exact", "tolerant")] + [
    (name, config)
    for name in ("3p-r2-last", "3p-r2-play-void", "4p-r1-last")
    for config in ("exact-no-control", "tolerant-no-control", "exact-haldane")
] + [(name, "robust") for name in ("3p-r2-wizard-turned", "3p-r2-forbidden-play", "4p-r1-last")]


@pytest.mark.statistics
@pytest.mark.parametrize("name,config", CASES)
def test_sampler_matches_the_enumerated_posterior(name, config):
    """Weighted frequencies of the sampler = the exact posterior (enumeration), for the exact
    and the tolerant model (with and without rejection control, and with Haldane's
    estimator) and the robust likelihood, before and during play, after a turned-up Wizard."""
    spec = dict(STATES[name])
    predicate = spec.pop("predicate")
    storage, seats, table, me = find_state(predicate, **spec)
    spread = CONFIGS[config].get("spread", 0.0)
    model = P.new_model(int(table["n_players"]), **CONFIGS[config])
    trump_miss = float(model["trump_miss"][0])
    wide = {key: CONFIGS[config][key] for key in ("wide", "wide_spread") if key in CONFIGS[config]}
    exact = exact_posterior(table, me, spread=spread, trump_miss=trump_miss, **wide)
    hands, weights = sampled_posterior(table, me, model, 100_000)
    assert_matches(exact, hands, weights, table, me)
    # The observations matter here: the exact posterior is far from the uniform deal.
    assert distance_from_uniform(table, me, exact) > 0.1


def test_random_opponents_leave_the_deal_uniform():
    """A seat modelled as uninformative (the random policy) gives a uniform posterior."""
    storage, seats, table, me = find_state(informative, players=4, round_size=1, me_position=3)
    model = P.new_model(4, kinds=[P.OPPONENT_UNINFORMATIVE] * 6)
    hands, weights = sampled_posterior(table, me, model, 20_000)
    assert np.all(weights == 1.0)


@pytest.mark.statistics
@pytest.mark.parametrize("bidding,plays", [("hidden", 0), ("delayed", 0), ("delayed", 4)])
def test_hidden_bids_give_the_uniform_deal(bidding, plays):
    """Under hidden bidding while bidding and delayed bidding before the end of play the
    table shows no bid: no seat is constrained, every weight is 1, the frequencies are the
    uniform deal's (here with a void when play has started)."""
    storage, seats, table, me = true_state(players=3, round_size=2, seed=3, me_position=2, bidding=bidding, plays=plays)
    assert np.all(np.asarray(table["bids"]) == st.NO_BID)
    work = P.new_work()
    assert P.prepare(me, table, P.new_model(3)[0], work[0], new_stream(1, 0, 0, 1)) == 0
    hands, weights = sampled_posterior(table, me, P.new_model(3), 100_000)
    uniform = exact_posterior(table, me, kinds=np.zeros(st.MAX_PLAYERS, np.int64))
    assert_matches(uniform, hands, weights, table, me)


@pytest.mark.parametrize("wide", [0.0, 0.5])
def test_the_sampler_reads_only_me_and_the_table(wide):
    """Replacing the other seats' records (hands, dealt hands, bids) by garbage changes
    nothing: same weights, same hands, same proposals (the exact model and the robust one)."""
    storage, seats, table, me = true_state(players=4, round_size=5, seed=11, me_position=3)
    model = P.new_model(4, wide=wide)
    first = sampled_posterior(table, me, model, 2000, seed=3)
    for seat in range(4):
        if seat != me["seat"]:
            seats[seat]["hand"] = seats[seat]["dealt"] = (1 << (seat + 1)) - 1
            seats[seat]["bid"] = 3
    second = sampled_posterior(table, me, model, 2000, seed=3)
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
    # Every sample keeps the counts and deals only unseen cards.
    hands, weights = first
    seen = int(me["hand"]) | (1 << int(table["trump_card"]))
    for i in np.flatnonzero(weights > 0)[:200]:
        union = 0
        for seat in range(4):
            assert popcount(hands[i, seat]) == 5
            assert seat == me["seat"] or hands[i, seat] & seen == 0
            union |= int(hands[i, seat]) & ((1 << 64) - 1)
        assert popcount(union) == 20


def test_table_records_who_played_what():
    """table.played_by[seat]: the cards the seat played this round (dealt minus held), reset
    by begin_round."""
    storage, seats, table, me = true_state(players=4, round_size=5, seed=1, me_position=0, plays=11)
    union = 0
    for seat in range(4):
        assert int(table["played_by"][seat]) == int(seats[seat]["dealt"]) & ~int(seats[seat]["hand"])
        union |= int(table["played_by"][seat])
    assert union == int(table["played"])
    R.begin_round(table, seats, 5, 3)
    assert not np.any(np.asarray(table["played_by"]))


def test_impossible_observations_are_rejected_not_looped():
    """A bid the modelled heuristic never makes (aggression 0: it always bids 0, yet the
    table shows 2) leaves no deal under the exact model: every sample stops at the proposal
    cap with weight 0 (no endless loop). The tolerant model keeps every sample."""
    storage, seats, table, me = true_state(players=4, round_size=5, seed=2, me_position=2)
    first = K.bidder_at(table, 0)
    table["bids"][first] = 2
    never = DEFAULT_ROW.copy()
    never[heuristic.P_AGGRESSION] = 0.0
    params = np.tile(DEFAULT_ROW, (st.MAX_PLAYERS, 1))
    params[first] = never
    model = P.new_model(4, params=params, max_proposals=300)
    hands = np.zeros((50, st.MAX_PLAYERS), np.int64)
    weights = np.ones(50)
    proposals = P.sample_deals(me, table, model[0], new_stream(1, 0, 0, 1), hands, weights)
    assert np.all(weights == 0.0) and proposals == 50 * 300
    tolerant = P.new_model(4, params=params, spread=0.7)
    hands, weights = sampled_posterior(table, me, tolerant, 50)
    assert np.all(weights > 0)


# --- self-play -------------------------------------------------------------------------------


@pytest.mark.statistics
def test_posterior_predicts_self_play():
    """1-card rounds of 4 heuristic players: how often the second bidder's (suited) card
    takes the trick after the first bidder bid 0 or 1. The posterior-weighted prediction,
    averaged over the same situations, matches the self-play frequency; the uniform deal
    (heuristic.one_card_win_chance, exact for it) does not after a bid of 1."""
    games = sim.run_games(sim.Rules(players=4, rounds=[1]), "heuristic", seed=5, games=30_000)
    rounds = games.rounds[:, 0]
    hands = games.seats[:, 0, :]["hand"]
    bids = games.seats[:, 0, :]["bid"]
    model = P.new_model(4)
    work_storage = P.new_work()
    work = work_storage[0]
    generator = new_stream(9, 0, 0, 1)
    sample_hands = np.zeros(st.MAX_PLAYERS, np.int64)
    storage, seats, table = make_table(players=4, round_size=1)
    results = {0: [], 1: []}
    for g in range(rounds.shape[0]):
        dealer = int(rounds["dealer"][g])
        first, second = (dealer + 1) % 4, (dealer + 2) % 4
        card = int(hands[g, second]).bit_length() - 1
        if card >= FIRST_WIZARD or bids[g, first] not in (0, 1):
            continue
        R.begin_round(table, seats, 1, dealer)
        table["trump_card"] = rounds["trump_card"][g]
        table["trump"] = rounds["trump"][g]
        table["bids"][first] = bids[g, first]
        table["n_bids"] = 1
        seats[second]["hand"] = seats[second]["dealt"] = hands[g, second]
        me = seats[second]
        cards = np.array([int(hands[g, (dealer + 1 + p) % 4]).bit_length() - 1 for p in range(4)], np.int64)
        won = reference.trick_winner(cards.tolist(), int(table["trump"])) == 1
        uniform = heuristic.one_card_win_chance(card, 1, table)
        predicted = posterior_win_chance(me, table, model, work, sample_hands, generator, 64)
        results[int(bids[g, first])].append((won, uniform, predicted))
    summary = {}
    for bid, rows in results.items():
        rows = np.array(rows, dtype=float)
        n = rows.shape[0]
        observed, uniform, predicted = rows.mean(axis=0)
        sigma = math.sqrt(observed * (1 - observed) / n + rows[:, 2].var() / n)
        summary[bid] = (n, observed, uniform, predicted, sigma)
        assert abs(predicted - observed) < 4 * sigma, f"first bid {bid}: {summary[bid]}"
    n, observed, uniform, predicted, sigma = summary[1]
    assert abs(uniform - observed) > 10 * sigma, summary
    assert summary[0][1] - summary[1][1] > 0.1, summary  # the first bid says a lot


@njit(cache=False)
def trick_winner(cards, trump):
    """Position of the winning card of a complete trick, played on a scratch table."""
    storage = np.zeros(1, dtype=st.TABLE_DTYPE)
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    table = storage[0]
    table.n_players = cards.shape[0]
    table.trump = trump
    table.led_suit = st.LED_NONE
    for position in range(cards.shape[0]):
        seats[position].hand = np.int64(1) << cards[position]
        K.play_card(table, seats, position, cards[position])
    return table.winning_position


@njit(cache=False)
def posterior_win_chance(me, table, model, work, hands, generator, n_samples):
    """Posterior-weighted chance that me's card (bidding second of 4) takes the trick."""
    P.prepare(me, table, model[0], work, generator)
    cards = np.zeros(4, np.int64)
    total = 0.0
    wins = 0.0
    for _ in range(n_samples):
        weight, _ = P.sample_deal(model[0], work, hands, generator)
        if weight == 0.0:
            continue
        for p in range(4):
            seat = K.bidder_at(table, p)
            hand = hands[seat]
            card = 0
            while (hand >> card) & 1 == 0:
                card += 1
            cards[p] = card
        total += weight
        if trick_winner(cards, table.trump) == 1:
            wins += weight
    return wins / total
