"""The perfect-information solver (kernels/search/solver.py) against a brute-force enumeration of
max^n play (tests/reference.py max_n), on seeded random positions: 3 to 6 players, 1 to 4
tricks left, with and without trump, a trick in progress (its first cards played by the
engine's rules), and four kinds of deal: any cards; Wizards and Jesters in most hands; low
bids, so seats are already over their bid; the trump suit's top cards and Wizards in play
(sure tricks). One working record solves every position of a test in turn, and each position
twice, so the transposition entries of earlier positions and solves are in the table; none
may change a value. The bounds the search prunes with (solver.trick_bounds) are checked
against the fewest and most tricks of every seat over every legal play (reference.trick_ranges)."""
import hashlib

import numpy as np
import pytest

import reference
import sim
from helpers import make_table
from kernels import records as st
from kernels import rules as K
from kernels.search import solver

SPECIALS = list(range(52, 60))
WIZARDS = list(range(52, 56))
KINDS = ("any", "specials", "low bids", "top trumps")


def random_position(rng, players, tricks_left, kind):
    """(storage, hands, bids, trick): a table in its play phase, every seat's hand, the bids
    and the cards of the current trick in order. `kind` (KINDS): "specials" deals from a pool
    of every Wizard and Jester and a few suited cards; "low bids" bids 0 or 1 (seats over
    their bid); "top trumps" deals from the Wizards, the trump suit's 8 highest cards and a
    few others (never no trump)."""
    earlier = int(rng.integers(0, min(3, 60 // players - tricks_left) + 1))
    round_size = earlier + tricks_left
    trump = int(rng.integers(-1, 4)) if kind != "top trumps" else int(rng.integers(0, 4))
    pool = list(range(60))
    if kind == "specials":
        suited = [int(c) for c in rng.permutation(52)[: max(0, players * tricks_left - 4)]]
        pool = SPECIALS + suited
    elif kind == "top trumps":
        top = [13 * trump + rank for rank in range(5, 13)]
        others = [int(c) for c in rng.permutation(60) if c not in top and c not in WIZARDS][: max(0, players * tricks_left - 12)]
        pool = WIZARDS + top + others
    cards = [int(c) for c in rng.permutation(pool)[: players * tricks_left]]
    hands = [cards[s * tricks_left : (s + 1) * tricks_left] for s in range(players)]
    storage, seats, table = make_table(players=players, round_size=round_size, trump=trump)
    table["phase"] = st.PHASE_PLAY
    table["n_bids"] = players
    table["trick"] = earlier
    leader = int(rng.integers(0, players))
    table["leader"] = leader
    for _ in range(earlier):
        storage["tricks"][0][int(rng.integers(0, players))] += 1
    for seat in range(players):
        seats[seat]["hand"] = sum(1 << c for c in hands[seat])
    trick = []
    for position in range(int(rng.integers(0, players))):
        seat = (leader + position) % players
        legal = reference.legal_cards(hands[seat], trick)
        card = legal[int(rng.integers(0, len(legal)))]
        K.play_card(table, seats, seat, card)
        hands[seat].remove(card)
        trick.append(card)
    bids = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    bids[:players] = rng.integers(0, (2 if kind == "low bids" else round_size + 1), size=players)
    return storage, hands, bids, trick


def solver_answer(work, storage, hands, bids):
    """(final tricks, best card, [(lo, hi)] of trick_bounds) of the solver."""
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    for seat, hand in enumerate(hands):
        seats[seat]["hand"] = sum(1 << c for c in hand)
    seats["bid"] = bids
    solver.set_position(work, storage[0], seats)
    players = len(hands)
    left = solver.trick_bounds(work)
    bounds = [(int(work["lo"][left][seat]), int(work["hi"][left][seat])) for seat in range(players)]
    final = solver.solve(work)
    card = solver.best_card(work)
    again = solver.solve(work)
    assert again == final
    return [int(solver.tricks_of(final, seat)) for seat in range(players)], int(card), bounds


def check_positions(players, tricks_left, count, seed):
    rng = np.random.default_rng(seed)
    storage_work = solver.new_work()
    work = storage_work[0]
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        storage, hands, bids, trick = random_position(rng, players, tricks_left, kind)
        table = storage[0]
        tricks = [int(t) for t in storage["tricks"][0][:players]]
        leader, trump = int(table["leader"]), int(table["trump"])
        expected, expected_card = reference.max_n(hands, [int(b) for b in bids[:players]], tricks, trick, leader, trump)
        got, card, bounds = solver_answer(work, storage, hands, bids)
        where = f"position {i} ({kind})"
        assert got == expected, f"{where}: tricks {got}, brute force {expected}"
        assert card == expected_card, f"{where}: card {card}, brute force {expected_card}"
        ranges = reference.trick_ranges(hands, tricks, trick, leader, trump)
        for seat, ((lo, hi), (fewest, most)) in enumerate(zip(bounds, ranges)):
            assert lo <= fewest and most <= hi, f"{where}, seat {seat}: bounds {lo}..{hi}, every play {fewest}..{most}"


@pytest.mark.parametrize(
    "players, tricks_left, count",
    [(3, 1, 60), (4, 1, 60), (6, 1, 40), (3, 2, 60), (4, 2, 60), (5, 2, 40), (6, 2, 30), (3, 3, 40), (4, 3, 30)],
)
def test_solver_matches_brute_force(players, tricks_left, count):
    check_positions(players, tricks_left, count, seed=100 * players + tricks_left)


@pytest.mark.statistics
@pytest.mark.parametrize("players, tricks_left, count", [(5, 3, 20), (6, 3, 12), (3, 4, 30), (4, 4, 16), (5, 4, 6)])
def test_solver_matches_brute_force_on_bigger_positions(players, tricks_left, count):
    check_positions(players, tricks_left, count, seed=100 * players + tricks_left)



def relabelled(rng, hands, trump):
    """The hands with the ranks of each suit moved to other ranks in the same order, and the
    Wizards and the Jesters exchanged among themselves."""
    cards = sorted(c for hand in hands for c in hand)
    mapping = {}
    for suit in range(4):
        held = [c for c in cards if c < 52 and c // 13 == suit]
        new = sorted(int(r) for r in rng.choice(13, size=len(held), replace=False))
        mapping.update({c: 13 * suit + r for c, r in zip(held, new)})
    for first in (52, 56):
        held = [c for c in cards if first <= c < first + 4]
        new = [int(c) for c in rng.permutation(range(first, first + 4))[: len(held)]]
        mapping.update(zip(held, new))
    return [[mapping[c] for c in hand] for hand in hands]


@pytest.mark.parametrize("players, tricks_left", [(3, 3), (4, 3), (5, 2), (6, 2)])
def test_a_relabelled_position_is_a_transposition_hit(players, tricks_left):
    """At a trick boundary, the position with ranks moved within their suits (order kept),
    Wizards and Jesters exchanged, and every seat's tricks and bid raised alike (the same
    needs) is read from the table: no card tried, the same tricks still to take."""
    rng = np.random.default_rng(7 * players + tricks_left)
    for i in range(20):
        kind = KINDS[i % len(KINDS)]
        storage, hands, bids, trick = random_position(rng, players, tricks_left, kind)
        if trick:
            continue
        table = storage[0]
        storage_work = solver.new_work()  # an empty table
        work = storage_work[0]
        work["nodes"] = 0
        first, _, _ = solver_answer(work, storage, hands, bids)
        assert work["nodes"] > 0
        before = [int(t) for t in storage["tricks"][0][:players]]
        moved = relabelled(rng, hands, int(table["trump"]))
        storage["tricks"][0][:players] += 1
        table["round_size"] += 1
        work["nodes"] = 0
        seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
        for seat, hand in enumerate(moved):
            seats[seat]["hand"] = sum(1 << c for c in hand)
        seats["bid"][:players] = bids[:players] + 1
        solver.set_position(work, storage[0], seats)
        final = solver.solve(work)
        assert work["nodes"] == 0, f"position {i} ({kind}): {work['nodes']} cards tried"
        assert [int(solver.tricks_of(final, s)) - before[s] - 1 for s in range(players)] == [f - b for f, b in zip(first, before)]


# pimc's games at main c422028 (before the solver's bounds, shallow pruning and normalised
# table): the solver's exact speed-ups must not move one card, bid or score. Its defaults then
# (wizard-sim 0.1) spelled out: play_samples=96, posterior=0, mc_from=0.
PIMC_PINNED = [
    pytest.param(dict(players=4), "pimc:play_samples=96,posterior=0,mc_from=0,heuristic,heuristic,random", 6,
                 "920ec8f20c762a5cf857862bcd3cfaa7", marks=pytest.mark.slow),
    (dict(players=3), "pimc:samples=4,play_samples=16,posterior=0,mc_from=0,mc:samples=2,play_samples=2,"
     "pimc:samples=4,play_samples=8,posterior=0,depth=2,mc_from=0", 4,
     "b87b68d15f686e8981023cec4dc6e5df"),
]


@pytest.mark.parametrize("rules, policies, games, digest", PIMC_PINNED)
@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_pimc_games_are_those_before_the_solver_speedups(rules, policies, games, digest):
    batch = sim.run_games(sim.Rules(**rules), policies, seed=2026, games=games, log_plays=True)
    hashed = hashlib.sha256()
    for array in (batch.rounds, batch.seats, batch.games, batch.plays):
        hashed.update(array.tobytes())
    assert hashed.hexdigest()[:32] == digest
