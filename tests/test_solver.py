"""The perfect-information solver (kernels/search/solver.py) against a brute-force enumeration of
max^n play (tests/reference.py max_n), on seeded random positions: 3 to 6 players, 1 to 4
tricks left, with and without trump, Wizards and Jesters often in hand, a trick in progress
(its first cards played by the engine's rules). Each position is solved twice (the second
time from the transposition table's entries of the first solve must not matter)."""
import numpy as np
import pytest

import reference
from helpers import make_table
from kernels import records as st
from kernels import rules as K
from kernels.search import solver

SPECIALS = list(range(52, 60))


def random_position(rng, players, tricks_left, rich):
    """(storage, hands, bids, trick): a table in its play phase, every seat's hand, the bids
    and the cards of the current trick in order. `rich`: the cards come from a pool holding
    every Wizard and Jester and a few suited cards, so specials are in most hands."""
    earlier = int(rng.integers(0, min(3, 60 // players - tricks_left) + 1))
    round_size = earlier + tricks_left
    pool = list(range(60))
    if rich:
        suited = [int(c) for c in rng.permutation(52)[: max(0, players * tricks_left - 4)]]
        pool = SPECIALS + suited
    cards = [int(c) for c in rng.permutation(pool)[: players * tricks_left]]
    hands = [cards[s * tricks_left : (s + 1) * tricks_left] for s in range(players)]
    storage, seats, table = make_table(players=players, round_size=round_size, trump=int(rng.integers(-1, 4)))
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
    bids[:players] = rng.integers(0, round_size + 1, size=players)
    return storage, hands, bids, trick


def solver_answer(work, storage, hands, bids):
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    for seat, hand in enumerate(hands):
        seats[seat]["hand"] = sum(1 << c for c in hand)
    seats["bid"] = bids
    solver.set_position(work, storage[0], seats)
    final = solver.solve(work)
    card = solver.best_card(work)
    again = solver.solve(work)
    assert again == final
    players = len(hands)
    return [int(solver.tricks_of(final, seat)) for seat in range(players)], int(card)


def check_positions(players, tricks_left, count, seed):
    rng = np.random.default_rng(seed)
    storage_work = solver.new_work()
    work = storage_work[0]
    for i in range(count):
        storage, hands, bids, trick = random_position(rng, players, tricks_left, rich=i % 2 == 1)
        table = storage[0]
        tricks = [int(t) for t in storage["tricks"][0][:players]]
        expected, expected_card = reference.max_n(hands, [int(b) for b in bids[:players]], tricks, trick, int(table["leader"]), int(table["trump"]))
        got, card = solver_answer(work, storage, hands, bids)
        assert got == expected, f"position {i}: tricks {got}, brute force {expected}"
        assert card == expected_card, f"position {i}: card {card}, brute force {expected_card}"


@pytest.mark.parametrize(
    "players, tricks_left, count",
    [(3, 1, 60), (4, 1, 60), (6, 1, 40), (3, 2, 60), (4, 2, 60), (5, 2, 40), (6, 2, 30), (3, 3, 40), (4, 3, 30)],
)
def test_solver_matches_brute_force(players, tricks_left, count):
    check_positions(players, tricks_left, count, seed=100 * players + tricks_left)


@pytest.mark.slow
@pytest.mark.parametrize("players, tricks_left, count", [(5, 3, 20), (6, 3, 12), (3, 4, 30), (4, 4, 16), (5, 4, 6)])
def test_solver_matches_brute_force_on_bigger_positions(players, tricks_left, count):
    check_positions(players, tricks_left, count, seed=100 * players + tricks_left)

