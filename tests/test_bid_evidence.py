"""What a game's finished rounds say about how each seat bids (kernels.search.bid_evidence) and
pimc's `learn_bids`, which samples deals with the bid models weighed by it: the evidence is kept
only at the end of a round, from the public table alone, in the state of each seat that reads it
and of no other; it equals the likelihoods computed here from the finished round's record; it
tells a random bidder from the heuristic; before any round has ended learn_bids plays exactly as
robust alone; and every driver keeps it alike."""
import math

import numpy as np
import pytest

import sim
from test_determinism import assert_same_games
from kernels import game_state as kernel
from kernels import records as st
from kernels.policies import heuristic
from kernels.round_state import bidder_at, bidding_view
from kernels.search import bid_evidence as E
from kernels.search import pimc
from sim.config.rules import Rules
from sim.env.state_api import environment_seating, new_game_states

# The former infer=3 (the posterior, robust and learn_bids), in every round (none played as mc).
LEARNED = "pimc:samples=2,play_samples=2,ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,mc_from=0"


def game_rounds(spec, seed=7, game=3, players=4, rounds=None):
    """Play one game decision by decision through the state API's kernels, each seat's
    seated policy choosing: yields (storage, state, done) after every decision, done True
    when it finished a round (held at PHASE_DONE until the next one begins)."""
    rules = Rules(players=players) if rounds is None else Rules(players=players, rounds=rounds)
    seating = environment_seating(spec, players)
    apply, act = seating.kernel(kernel.apply_single), seating.kernel(kernel.policy_action_single)
    storage = new_game_states(rules, 1, seed, policies=seating)
    storage["records"] = 1  # a finished round waits at PHASE_DONE
    kernel.start_single(storage, game)
    state = storage.view(np.recarray)[0]
    policies = (state.workspace.policy_ids, state.workspace.params)
    while not state.over:
        assert apply(storage, act(storage, policies)) == kernel.APPLIED
        done = state.workspace.table.phase == st.PHASE_DONE
        yield storage, state, done
        if done:
            kernel.next_round(state)


def seated(state):
    """The SeatedPolicies of a stepped game's workspace."""
    workspace = state.workspace
    return st.SeatedPolicies(workspace.policy_ids, workspace.params, workspace.seat_state)


def evidence_of(state, seat):
    """The bid evidence in `seat`'s state (a copy)."""
    return np.array(state.workspace.seat_state[seat, : E.EVIDENCE_SIZE])


def reference_increment(table, policies):
    """log P(bid | dealt hand, view) of each seat's bid under each bid model, from the finished
    round's public table, the likelihoods written out here (in evidence_index order)."""
    increments = np.zeros((st.MAX_PLAYERS, E.N_BID_MODELS))
    view = np.zeros(1, dtype=st.TABLE_DTYPE)
    bidders = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    for position in range(int(table.n_players)):
        seat = int(bidder_at(table, position))
        bid = int(table.bids[seat])
        rows = np.zeros((st.MAX_PLAYERS, st.MAX_PARAMS))
        E.seat_model_row(policies, seat, rows)
        legal = int(bidding_view(table, position, view[0], bidders))
        record = np.zeros(1, dtype=st.SEAT_DTYPE)
        dealt = table.played_by[seat]  # every card played: the seat's whole dealt hand
        record["seat"], record["hand"], record["dealt"], record["bid"] = seat, dealt, dealt, st.NO_BID
        estimate = heuristic.bid_estimate(rows, record[0], view[0])
        legal_bids = [b for b in range(int(table.round_size) + 1) if (legal >> b) & 1]
        exact = heuristic.nearest_bid(estimate, legal, int(table.round_size))
        likelihoods = [1 / len(legal_bids), 1.0 if exact == bid else 0.0]
        for spread in E.WIDE_SPREADS:
            kernel_of = [math.exp(-((b - estimate) ** 2) / (2 * spread**2)) for b in legal_bids]
            likelihoods.append(math.exp(-((bid - estimate) ** 2) / (2 * spread**2)) / sum(kernel_of))
        increments[seat] = [math.log(max(value, E.LEAST_LIKELIHOOD)) for value in likelihoods]
    return increments.ravel()


@pytest.mark.slow  # compiles pimc's engine for the state API (again after an edit of pimc)
def test_evidence_is_kept_only_at_the_end_of_a_round_and_equals_the_likelihoods():
    """Zero when the game starts; unchanged through every decision of a round; at its end, the
    round's likelihoods added; read_round on a copy of the finished public table alone (no seat
    record) adds the same."""
    spec = f"{LEARNED},heuristic,mc:samples=2,play_samples=2,random"
    before = np.zeros(E.EVIDENCE_SIZE)
    rounds = 0
    for storage, state, done in game_rounds(spec, rounds=(1, 3, 6, 10)):
        evidence = evidence_of(state, 0)
        if not done:
            assert np.array_equal(evidence, before)
            continue
        rounds += 1
        table = state.workspace.table
        np.testing.assert_allclose(evidence - before, reference_increment(table, seated(state)), rtol=1e-12, atol=1e-9)
        public = storage["workspace"]["table"].copy()
        read = before.copy()
        E.read_round(seated(state), public[0], read)
        assert np.array_equal(read, evidence)
        before = evidence
    assert rounds == 4


def test_a_game_starts_with_no_evidence():
    spec = f"{LEARNED},heuristic,heuristic,random"
    storage = new_game_states(Rules(players=4, rounds=(2, 3)), 1, 5, policies=spec, controlled=())
    storage["workspace"]["seat_state"] = 7.0  # a previous game's
    kernel.start_single(storage, 0)
    assert not storage["workspace"]["seat_state"].any()


@pytest.mark.slow  # compiles pimc's engine for the state API (again after an edit of pimc)
def test_no_evidence_is_kept_where_no_seat_reads_it():
    """pimc without learn_bids, or with it but without the posterior or robust (where it has no
    effect), and other policies leave it at zero (the cost is paid only where it is read)."""
    for switches in ("learn_bids=0", "posterior=0", "robust=0"):
        spec = f"pimc:samples=2,play_samples=2,{switches},heuristic,random,heuristic"
        for _, state, done in game_rounds(spec, rounds=(3, 5)):
            assert not np.array(state.workspace.seat_state).any(), switches


@pytest.mark.slow  # compiles pimc's engine for the state API (again after an edit of pimc)
def test_each_seat_that_reads_the_evidence_keeps_its_own():
    """Two learn_bids seats hold the same evidence, each in its own state; the others none."""
    spec = f"{LEARNED},heuristic,{LEARNED},random"
    rounds = 0
    for _, state, done in game_rounds(spec, rounds=(2, 5)):
        if done:
            rounds += 1
            assert evidence_of(state, 0).any() and np.array_equal(evidence_of(state, 0), evidence_of(state, 2))
            assert not state.workspace.seat_state[[1, 3]].any()
    assert rounds == 2


@pytest.mark.slow  # compiles pimc's engine for the state API (again after an edit of pimc)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_full_game_tells_a_random_bidder_from_the_heuristic(seed):
    """After the 15 rounds of a 4-player game the random seat's bids are read as uniform and
    the heuristic seat's as its exact bid; a pimc seat's as a wide model, not uniform."""
    spec = f"{LEARNED},heuristic,pimc:samples=2,play_samples=2,posterior=0,mc_from=0,random"
    evidence = None
    for _, state, done in game_rounds(spec, seed=seed):
        evidence = evidence_of(state, 0)
    uniform, wide, _ = E.model_shares(evidence, 3)
    assert uniform > 0.9
    uniform, wide, _ = E.model_shares(evidence, 1)
    assert uniform < 0.01 and wide < 0.01
    uniform, wide, _ = E.model_shares(evidence, 2)
    assert uniform < 0.5 and wide > 0.99


def test_no_evidence_gives_robusts_shares_to_the_bit():
    assert E.model_shares(np.zeros(E.EVIDENCE_SIZE), 0) == (0.1, pimc.ROBUST_WIDE, pimc.ROBUST_WIDE_SPREAD)


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_learn_bids_plays_as_robust_alone_until_a_round_has_ended():
    """Games of one round: the same games; games of several: not the same (the evidence is read)."""
    one_round = sim.Rules(players=4, rounds=(6,))
    others = "heuristic,mc:samples=2,play_samples=2,random"
    robust = f"{LEARNED},learn_bids=0"
    learned = sim.run_games(one_round, f"{LEARNED},{others}", seed=9, games=12, log_plays=True)
    assert_same_games(learned, sim.run_games(one_round, f"{robust},{others}", seed=9, games=12, log_plays=True))
    rounds = sim.Rules(players=4, rounds=(5, 6, 7, 8))
    learned = sim.run_games(rounds, f"{LEARNED},{others}", seed=9, games=12, log_plays=True)
    robustly = sim.run_games(rounds, f"{robust},{others}", seed=9, games=12, log_plays=True)
    assert not np.array_equal(learned.plays, robustly.plays)


@pytest.mark.slow  # compiles pimc's engine (again after an edit of pimc)
def test_the_stepped_driver_keeps_the_evidence_as_the_batch_does():
    """The state API (kernels.game_state, every stepped driver's record) and the batch engine
    play the same games with a learn_bids seat: the evidence is kept alike at every round's end."""
    spec = f"{LEARNED},heuristic,random,heuristic"
    rules = sim.Rules(players=4, rounds=(2, 4, 7))
    batch = sim.run_games(rules, spec, seed=7, first_game=3, games=1, log_plays=True)
    bids = [list(state.workspace.table.bids[:4]) for _, state, done in game_rounds(spec, rounds=(2, 4, 7)) if done]
    assert bids == batch.seats["bid"].reshape(3, 4).tolist()
