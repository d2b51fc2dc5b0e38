"""A policy decides only from what its seat may know: its own hand and bid, and the public
table (docs/rules.md §4: which bids are visible depends on the bidding mode).

Three kinds of checks:
- dispatch level: kernels.dispatch.decide (for heuristic and random seats its branch for them,
  kernels.policies.without_search: no search compiled) on mid-round states, before and after the
  OTHER seats' hands are replaced by random hands consistent with the public state;
- engine level: the round core's play_until (to the end of the bidding, or of a trick), run twice from one state with the
  hands of the seats that act LATER re-dealt: everything decided before them must not change;
- whole games: every heuristic decision logged by sim.run_games is re-derived from the seat's
  own cards and a public table rebuilt from the log with the bids the mode lets it see, and the
  alternative visibility gives different decisions often enough for the check to mean something.
"""
import numpy as np
import pytest

import sim
from helpers import cards_of, deal_round, decision_with_own_hand_swapped, iter_rounds, mixed_policy, new_stream, new_table, play_round_asking, popcount
from kernels import round_state as R
from kernels import rules as K
from kernels import records as st
from kernels.dispatch import decide
from kernels.policies import without_search
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC, POLICY_RANDOM
from kernels.rng import STREAM_DECISIONS
from kernels.search import bid_evidence, mc
from sim.policies.registry import parse_policies, policy_arrays

NO_BID = st.NO_BID
NO_SEARCH = (POLICY_HEURISTIC, POLICY_RANDOM)
NO_FIXED_BIDS = np.full(st.MAX_PLAYERS, NO_BID, dtype=np.int64)  # every seat bids by its policy


# The bid evidence of some finished earlier rounds (kernels.search.bid_evidence): log-likelihoods
# per seat and bid model, unequal so that learn_bids's shares differ from seat to seat. Every
# seat's state holds it (pimc's: what its seat saw of the earlier rounds, all public).
EARLIER_EVIDENCE = -(np.arange(bid_evidence.EVIDENCE_SIZE, dtype=float) % 7)


def policies_for(spec, players):
    """The seated policies `decide` takes, each seat's state holding EARLIER_EVIDENCE."""
    ids, params = policy_arrays(parse_policies(spec, players))
    state = np.zeros((st.MAX_PLAYERS, st.MAX_SEAT_STATE))
    state[:, : bid_evidence.EVIDENCE_SIZE] = EARLIER_EVIDENCE
    return st.SeatedPolicies(ids, params, state)


# ------------------------------------------------------------------------------ building states


def mc_decide(policies, decision, me, table, legal, generator):
    """The reference dispatch's answer for a table of mc seats: mc's own kernel."""
    return mc.decide(decision, policies, me, table, legal, generator)


def decide_for(policies, players):
    """How the checks ask the seated policies: the reference dispatch's branch for the policies
    seated where that is a branch of its own (heuristic and random seats:
    kernels.policies.without_search; mc seats: mc's own kernel), so that such a check compiles
    no other search policy and stays cheap after an edit of one; else the reference over every
    built-in policy."""
    seated = policies[0][:players]
    if np.isin(seated, NO_SEARCH).all():
        return without_search.decide
    return mc_decide if (seated == POLICY_MC).all() else decide


def started_round(rules, policies, seed, game, r, dealer, totals=None):
    """A table after deal and trump (the engine's own steps), with the round's DECISIONS stream."""
    storage, seats = new_table(rules.to_record()[0])
    table = storage[0]
    if totals is not None:
        storage["totals"][0][: rules.players] = totals
    R.begin_round(table, seats, r, dealer)
    deal_round(seed, game, table, seats)
    generator = new_stream(seed, game, r, STREAM_DECISIONS)
    if table["phase"] == st.PHASE_TRUMP:
        dealer_seat = seats[int(table["dealer"])]
        ask = decide_for(policies, rules.players)
        R.apply_trump(table, ask(policies, st.DECIDE_TRUMP, dealer_seat, table, R.ALL_SUITS, generator))
    return storage, seats, generator


def copy_state(storage, seats, generator):
    return storage.copy(), seats.copy(), generator.copy()


def redeal(storage, seats, movable, rng, swaps=200):
    """Give the seats in `movable` random hands consistent with the public state: the unseen
    cards (their hands plus the undealt cards; never a played card, the turned-up card or a
    hand of another seat) are reshuffled by random swaps that keep every hand size and never
    give a seat a card of a suit it has shown to be void in. Returns how many swaps happened."""
    table = storage[0]
    n = int(table["n_players"])
    fixed = 0
    for seat in range(n):
        if seat not in movable:
            fixed |= int(seats[seat]["hand"])
    seen = fixed | int(table["played"])
    if table["trump_card"] >= 0:
        seen |= 1 << int(table["trump_card"])
    location = {}
    for c in range(60):
        if (seen >> c) & 1:
            continue
        owner = next((s for s in movable if (int(seats[s]["hand"]) >> c) & 1), -1)
        location[c] = owner  # -1: undealt
    voids = {s: int(storage["voids"][0][s]) for s in movable}

    def accepts(seat, c):
        return seat == -1 or c >= 52 or not (voids[seat] >> (c // 13)) & 1

    pool = list(location)
    done = 0
    if len(pool) < 2:
        return 0
    for a, b in rng.integers(0, len(pool), size=(swaps, 2)).tolist():
        a, b = pool[a], pool[b]
        la, lb = location[a], location[b]
        if la != lb and accepts(la, b) and accepts(lb, a):
            location[a], location[b] = lb, la
            done += 1
    for seat in movable:
        seats[seat]["hand"] = sum(1 << c for c, owner in location.items() if owner == seat)
    return done


# ------------------------------------------------------------------------------ dispatch level


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("bidding", ["open", "hidden"])
def test_heuristic_decisions_unchanged_when_other_hands_change(players, bidding):
    """At every bid and card decision of a round, re-deal the other seats' hands at random
    (consistently with the public state) and ask the heuristic again: same answer. Changing
    the deciding seat's own hand does change some answers (the check is not vacuous)."""
    rules = sim.Rules(players=players, bidding=bidding)
    policies = policies_for("heuristic", players)
    ask_policy = decide_for(policies, players)
    rng = np.random.default_rng(players)
    checked = changed_by_own_hand = swaps = 0
    last = 60 // players
    for game, r in enumerate((1, 3, 5, last - 1, last)):
        storage, seats, generator = started_round(rules, policies, 17, game, r, dealer=game % players)
        table = storage[0]

        def ask(decision, seat, legal):
            nonlocal checked, changed_by_own_hand, swaps
            answer = ask_policy(policies, decision, seats[seat], table, legal, generator)
            saved = seats.copy()
            others = [s for s in range(players) if s != seat]
            for _ in range(2):
                swaps += redeal(storage, seats, others, rng)
                assert ask_policy(policies, decision, seats[seat], table, legal, generator) == answer
                checked += 1
            seats[:] = saved
            own_hand_answer = decision_with_own_hand_swapped(
                policies, decision, seats, seat, others[0], table, legal, generator, ask=ask_policy
            )
            changed_by_own_hand += own_hand_answer != answer
            return answer

        play_round_asking(table, seats, ask)
        assert int(table["played"]) == sum(int(seats[s]["dealt"]) for s in range(players))
    assert checked > 0 and swaps > 0 and changed_by_own_hand > 0


def test_heuristic_trump_choice_reads_only_the_dealers_hand():
    rules = sim.Rules(players=4)
    policies = policies_for("heuristic", 4)
    rng = np.random.default_rng(1)
    storage, seats, generator = started_round(rules, policies, 3, 0, 5, dealer=2)
    table = storage[0]
    answer = without_search.decide(policies, st.DECIDE_TRUMP, seats[2], table, 0b1111, generator)
    for _ in range(5):
        redeal(storage, seats, [0, 1, 3], rng)
        assert without_search.decide(policies, st.DECIDE_TRUMP, seats[2], table, 0b1111, generator) == answer


@pytest.mark.slow
def test_heuristic_draws_no_random_numbers():
    """A deterministic policy leaves the DECISIONS stream untouched (docs/randomness.md)."""
    rules = sim.Rules(players=4)
    policies = policies_for("heuristic", 4)
    storage, seats, generator = started_round(rules, policies, 3, 1, 6, dealer=0)
    before = generator.copy()
    R.play_until(without_search.decide, policies, storage[0], seats, generator, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
    plays = np.zeros(st.MAX_PLAYS_PER_ROUND, dtype=st.PLAY_DTYPE)
    for t in range(6):
        R.play_until(without_search.decide, policies, storage[0], seats, generator, NO_FIXED_BIDS, plays, int(storage[0]["trick"]) + 1)
    assert np.array_equal(generator, before)


# ------------------------------------------------------------------------------ sampling policies

# (policy at seat 0 and at every other seat, players). With inference the others play the
# heuristic: mc and pimc model only heuristic seats' bids. mc_from=0: pimc in every round (its
# default plays the rounds of 7 cards on as mc, as the spec with mc_from=3 does from 3).
UNIFORM_OFF = "uniform_when_all_dealt=0,uniform_when_most_dealt=0"  # inference in every round too
SAMPLING_POLICIES = [
    ("mc:samples=3,play_samples=2,infer=0", 3),
    ("mc:samples=3,play_samples=2,infer=1", 4),
    ("pimc:samples=2,play_samples=2,posterior=0,depth=2,playout=1,bidding=0,mc_from=0", 3),
    (f"pimc:samples=2,play_samples=2,learn_bids=0,ess_fallback=0,{UNIFORM_OFF},depth=3,mc_from=0", 4),  # robust
    (f"pimc:samples=2,play_samples=2,ess_fallback=0,{UNIFORM_OFF},depth=2,mc_from=0", 4),  # and learn_bids
    (f"pimc:samples=4,play_samples=4,{UNIFORM_OFF},depth=2,mc_from=0", 4),  # and ess_fallback
    ("pimc:samples=4,play_samples=4,uniform_when_most_dealt=0,depth=2,mc_from=0", 4),  # and uniform_when_all_dealt
    ("pimc:samples=4,play_samples=4,depth=2,mc_from=0", 4),  # every switch: and uniform_when_most_dealt
    ("pimc:samples=2,play_samples=2,mc_from=3,mc_samples=2,mc_play_samples=3", 4),  # mc's rounds from 3 cards
    ("pimc:samples=2,play_samples=2,mc_samples=2,mc_play_samples=3", 4),  # the defaults (mc from 7 cards)
    ("pimc:samples=2,play_samples=2,posterior=0,depth=1,playout=1,mc_from=0", 5),
]


def swap_keeps_voids(storage, seats, seat, other):
    """Whether seats `seat` and `other` may exchange hands without either holding a card of
    a suit it has shown void in."""
    voids = storage["voids"][0]

    def respects(hand, void_suits):
        return all(not (int(void_suits) >> suit) & 1 or int(hand) >> (13 * suit) & 0x1FFF == 0 for suit in range(4))

    return respects(seats[other]["hand"], voids[seat]) and respects(seats[seat]["hand"], voids[other])


@pytest.mark.slow  # compiles the searching policies for these records (again after an edit of one)
@pytest.mark.parametrize("spec, players", SAMPLING_POLICIES)
@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
def test_sampling_policy_decisions_unchanged_when_other_seats_change(spec, players, bidding):
    """mc and pimc: at every bid and card decision of some rounds, re-deal the other seats'
    hands at random (consistently with the public state) and change their bid records: with
    the same random numbers, the policy answers the same and draws the same numbers. Changing
    its own hand does change some answers. The rounds include the last, which deals every card
    (no trump card is turned up and no card is left unseen but the others' hands)."""
    rules = sim.Rules(players=players, bidding=bidding)
    others = "" if "infer=0" in spec or "posterior=0" in spec else ",heuristic" * (players - 1)
    policies = policies_for(spec + others, players)
    rng = np.random.default_rng(players)
    checked = changed_by_own_hand = 0
    for game, r in enumerate((2, 5, 60 // players - 1, 60 // players)):
        storage, seats, generator = started_round(rules, policies, 19, game, r, dealer=game % players)
        table = storage[0]

        def ask(decision, seat, legal):
            nonlocal checked, changed_by_own_hand
            start = generator.copy()
            answer = decide(policies, decision, seats[seat], table, legal, generator)
            saved = seats.copy()
            others = [s for s in range(players) if s != seat]
            for _ in range(2):
                redeal(storage, seats, others, rng)
                for other in others:
                    seats[other]["bid"] = rng.integers(0, r + 1)
                replay = start.copy()
                assert decide(policies, decision, seats[seat], table, legal, replay) == answer
                assert np.array_equal(replay, generator), "a different count of random numbers"
                checked += 1
            seats[:] = saved
            # A hand of the same size that breaks neither seat's shown voids keeps the state
            # consistent (the policy samples deals of it and plays them to the end; with no
            # consistent deal its sampler would never finish).
            size = popcount(seats[seat]["hand"])
            same_size = [s for s in others if popcount(seats[s]["hand"]) == size and swap_keeps_voids(storage, seats, seat, s)]
            if same_size:
                own_hand_answer = decision_with_own_hand_swapped(
                    policies, decision, seats, seat, same_size[0], table, legal, start.copy()
                )
                changed_by_own_hand += own_hand_answer != answer
            return answer

        play_round_asking(table, seats, ask)
    assert checked > 0 and changed_by_own_hand > 0


# ------------------------------------------------------------------------------ engine level


def batch_and_states(players, bidding, spec, games=8, seed=21):
    """A logged batch plus, for every round, a function giving a fresh engine state after the
    deal and trump (checked against the batch: the same bids and cards come out)."""
    rules = sim.Rules(players=players, bidding=bidding)
    policies = policies_for(spec, players)
    batch = sim.run_games(rules, spec, seed=seed, games=games, log_plays=True)
    for g, k, r, plays in iter_rounds(batch):
        totals = batch.seats["total"][g, k - 1] if k else np.zeros(players, dtype=np.int64)
        dealer = int(batch.rounds[g, k]["dealer"])

        def fresh(g=g, r=r, dealer=dealer, totals=totals):
            return started_round(rules, policies, seed, g, r, dealer, totals)

        yield rules, policies, batch, g, k, r, plays, fresh


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
def test_engine_bids_ignore_hands_of_seats_bidding_later(players, bidding):
    """The engine's bidding (round_state.play_until, to the end of the bidding) from one post-deal state, once as dealt and once with the
    hands of the seats bidding after position p re-dealt: the bids up to p are unchanged.
    Under hidden and delayed bidding, no bid depends on any other seat's hand at all."""
    rng = np.random.default_rng(5)
    spec = mixed_policy(players)
    some_bid_moved = 0
    for rules, policies, batch, g, k, r, plays, fresh in batch_and_states(players, bidding, spec):
        storage, seats, generator = fresh()
        table = storage[0]
        R.play_until(without_search.decide, policies, table, seats, generator, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
        assert [int(b) for b in seats["bid"][:players]] == [int(b) for b in batch.seats["bid"][g, k]]
        order = [K.bidder_at(table, p) for p in range(players)]
        for p in range(players - 1):
            storage2, seats2, generator2 = fresh()
            later = order[p + 1 :]
            redeal(storage2, seats2, later, rng)
            R.play_until(without_search.decide, policies, storage2[0], seats2, generator2, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
            for seat in order[: p + 1]:
                assert seats2[seat]["bid"] == seats[seat]["bid"], f"round {r}: bid of seat {seat} moved"
            some_bid_moved += any(seats2[s]["bid"] != seats[s]["bid"] for s in later)
            if bidding != "open":
                # No visible bids while bidding: nobody's bid depends on another seat's hand,
                # whichever seats are re-dealt.
                storage3, seats3, generator3 = fresh()
                redeal(storage3, seats3, order[:p] + later, rng)
                R.play_until(without_search.decide, policies, storage3[0], seats3, generator3, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
                assert seats3[order[p]]["bid"] == seats[order[p]]["bid"]
    assert some_bid_moved > 0  # re-dealing does change the re-dealt seats' bids


@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("bidding", ["open", "delayed"])
def test_engine_plays_ignore_hands_of_seats_playing_later(players, bidding):
    """Before each trick, run the engine's play (round_state.play_until, to the end of the trick) for one trick twice: as dealt, and with the hands of
    the seats after position p in this trick re-dealt (consistently with the voids shown so
    far). The cards of positions 0..p are the same."""
    rng = np.random.default_rng(9)
    spec = "heuristic" if bidding == "open" else mixed_policy(players, "random", "heuristic")
    checked = later_changed = 0
    for rules, policies, batch, g, k, r, plays, fresh in batch_and_states(players, bidding, spec, games=4):
        if r < 2:
            continue
        storage, seats, generator = fresh()
        table = storage[0]
        R.play_until(without_search.decide, policies, table, seats, generator, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
        log = np.zeros(st.MAX_PLAYS_PER_ROUND, dtype=st.PLAY_DTYPE)
        for t in range(r):
            p = int(rng.integers(0, players - 1))
            leader = int(table["leader"])
            later = [(leader + q) % players for q in range(p + 1, players)]
            storage2, seats2, generator2 = copy_state(storage, seats, generator)
            redeal(storage2, seats2, later, rng)
            other_log = np.zeros(st.MAX_PLAYS_PER_ROUND, dtype=st.PLAY_DTYPE)
            R.play_until(without_search.decide, policies, storage2[0], seats2, generator2, NO_FIXED_BIDS, other_log, int(storage2[0]["trick"]) + 1)
            R.play_until(without_search.decide, policies, table, seats, generator, NO_FIXED_BIDS, log, int(table["trick"]) + 1)
            mine = log[t * players : (t + 1) * players]
            theirs = other_log[t * players : (t + 1) * players]
            assert list(theirs["card"][: p + 1]) == list(mine["card"][: p + 1]), f"round {r} trick {t}"
            later_changed += list(theirs["card"][p + 1 :]) != list(mine["card"][p + 1 :])
            checked += 1
        assert np.array_equal(log[: players * r], plays), "the driven round differs from run_games"
    assert checked > 0 and later_changed > 0


def test_delayed_bidding_keeps_table_bids_hidden_until_after_play():
    """Under delayed bidding the public table shows no bid during bidding or play, and every
    bid once the last trick is played; under hidden bidding all bids appear after the
    bidding and stay during play; under open each bid appears as it is made."""
    for bidding in ("open", "hidden", "delayed"):
        for rules, policies, batch, g, k, r, plays, fresh in batch_and_states(4, bidding, "heuristic", games=2):
            storage, seats, generator = fresh()
            table = storage[0]
            R.play_until(without_search.decide, policies, table, seats, generator, NO_FIXED_BIDS, R.NO_PLAY_LOG, 0)
            bids = [int(b) for b in batch.seats["bid"][g, k]]
            public = [int(b) for b in storage["bids"][0][:4]]
            if bidding == "delayed":
                assert public == [NO_BID] * 4
            else:
                assert public == bids
            log = np.zeros(st.MAX_PLAYS_PER_ROUND, dtype=st.PLAY_DTYPE)
            for t in range(r):
                R.play_until(without_search.decide, policies, table, seats, generator, NO_FIXED_BIDS, log, int(table["trick"]) + 1)
                if t < r - 1:
                    assert [int(b) for b in storage["bids"][0][:4]] == public, f"bids changed during trick {t}"
            assert [int(b) for b in seats["bid"][:4]] == bids
            assert table["phase"] == st.PHASE_DONE
            assert [int(b) for b in storage["bids"][0][:4]] == bids  # every mode shows them at the end


# ------------------------------------------------------------------------------ whole games


def bid_decision(rules, policies, batch, g, k, r, position, visible):
    """The heuristic's bid at `position` of round k of game g, from its own dealt hand and a
    public table showing the earlier bids or not."""
    n = rules.players
    storage, seats = new_table(rules.to_record()[0])
    table = storage[0]
    dealer = int(batch.rounds[g, k]["dealer"])
    R.begin_round(table, seats, r, dealer)
    if k:
        storage["totals"][0][:n] = batch.seats["total"][g, k - 1]
    table["trump_card"] = batch.rounds[g, k]["trump_card"]
    table["trump"] = batch.rounds[g, k]["trump"]
    for p in range(position):
        seat = K.bidder_at(table, p)
        bid = int(batch.seats["bid"][g, k, seat])
        seats[seat]["bid"] = bid  # the engine keeps every bid in the bidder's record
        if visible:
            storage["bids"][0][seat] = bid
    table["n_bids"] = position
    seat = K.bidder_at(table, position)
    seats[seat]["hand"] = seats[seat]["dealt"] = batch.seats["hand"][g, k, seat]
    legal = K.legal_bids(table, seats, position)
    generator = new_stream(batch.seed, int(batch.game_ids[g]), r, STREAM_DECISIONS)
    return seat, without_search.decide(policies, st.DECIDE_BID, seats[seat], table, legal, generator)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
def test_logged_bids_follow_the_bidding_mode_visibility(players, bidding):
    """Under open bidding the heuristic's logged bid is the bid it makes seeing the earlier
    bids; under hidden and delayed bidding it is the bid it makes seeing none. Both views give
    different bids in some rounds, so a leak (or a missing bid) would be caught."""
    rules = sim.Rules(players=players, bidding=bidding)
    spec = mixed_policy(players, "random", "heuristic")  # random seats make the earlier bids vary
    policies = policies_for(spec, players)
    batch = sim.run_games(rules, spec, seed=606, games=25)
    views_differ = 0
    for g, k, r, _ in iter_rounds(batch):
        for position in range(players):
            seat, seeing = bid_decision(rules, policies, batch, g, k, r, position, visible=True)
            if batch.policies[seat].name != "heuristic":
                continue
            _, blind = bid_decision(rules, policies, batch, g, k, r, position, visible=False)
            logged = int(batch.seats["bid"][g, k, seat])
            expected = seeing if bidding == "open" else blind
            assert logged == expected, f"game {g} round {r} seat {seat}: bid {logged}, expected {expected}"
            views_differ += seeing != blind
    assert views_differ > 0


@pytest.mark.parametrize("bidding", ["open", "hidden", "delayed"])
@pytest.mark.parametrize("players", [4, 5])
def test_logged_cards_follow_from_own_hand_and_public_table(players, bidding):
    """Replay every round on a public table rebuilt from the log (bids visible during play for
    open and hidden bidding, all NO_BID for delayed): every heuristic card decision equals the
    logged card, every legal mask and trick winner too."""
    rules = sim.Rules(players=players, bidding=bidding)
    spec = mixed_policy(players)
    policies = policies_for(spec, players)
    batch = sim.run_games(rules, spec, seed=707, games=6, log_plays=True)
    names = [p.name for p in batch.policies]
    decisions = 0
    for g, k, r, plays in iter_rounds(batch):
        storage, seats = new_table(rules.to_record()[0])
        table = storage[0]
        R.begin_round(table, seats, r, int(batch.rounds[g, k]["dealer"]))
        table["trump_card"] = batch.rounds[g, k]["trump_card"]
        table["trump"] = batch.rounds[g, k]["trump"]
        table["n_bids"] = players
        for seat in range(players):
            seats[seat]["hand"] = seats[seat]["dealt"] = batch.seats["hand"][g, k, seat]
            seats[seat]["bid"] = batch.seats["bid"][g, k, seat]
            storage["bids"][0][seat] = NO_BID if bidding == "delayed" else seats[seat]["bid"]
        generator = new_stream(batch.seed, int(batch.game_ids[g]), r, STREAM_DECISIONS)
        for i, play in enumerate(plays):
            seat, card = int(play["seat"]), int(play["card"])
            legal = K.legal_cards(seats[seat]["hand"], table["led_suit"])
            assert legal == play["legal"]
            if names[seat] == "heuristic":
                assert without_search.decide(policies, st.DECIDE_CARD, seats[seat], table, legal, generator) == card, (
                    f"game {g} round {r} play {i}: seat {seat}"
                )
                decisions += 1
            K.play_card(table, seats, seat, card)
            if table["n_in_trick"] == players:
                assert K.finish_trick(table) == play["winner"]
        assert cards_of(table["played"]) == sorted(int(c) for c in plays["card"])
    assert decisions > 0
