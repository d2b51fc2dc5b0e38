"""The fast path (kernels.sequencer, kernels.fast_games) against the decision step it twins
(kernels.round_state through kernels.batch): every round, seat, game and play record, bit for
bit, over a seeded sweep of randomized configurations — players, bidding mode, even-bids
rule, round list, first dealer drawn or given, `random`/`heuristic` seats with random
heuristic parameters, one seating per row — and the hand-off: which batches take it.
"""
import numpy as np
import pytest

import sim
from kernels import batch, fast_games
from kernels.records import MAX_PLAYERS
from sim.policies.registry import as_policy, parse_policies, policy_arrays
from sim.runs.games import builtin_only, empty_results
from sim.engine.seating import Seating

HEURISTIC_RANGES = {
    "aggression": (0.3, 2.5),
    "wizard_win": (0.0, 1.0),
    "wizard_timing": (0.0, 12.0),
    "trump_timing": (0.0, 12.0),
    "side_timing": (0.0, 20.0),
    "crowding": (0.0, 1.5),
}
BIDDING = [("open", "allowed"), ("open", "forbidden"), ("open", "leader"), ("hidden", "allowed"), ("delayed", "allowed")]


def random_policy_text(rng: np.random.Generator) -> str:
    """`random`, `heuristic` or `heuristic` with some parameters drawn in range."""
    kind = rng.integers(3)
    if kind == 0:
        return "random"
    if kind == 1:
        return "heuristic"
    chosen = [name for name in HEURISTIC_RANGES if rng.random() < 0.5] or ["aggression"]
    values = ",".join(f"{name}={rng.uniform(*HEURISTIC_RANGES[name]):.4f}" for name in chosen)
    return f"heuristic:{values}"


def random_config(rng: np.random.Generator):
    players = int(rng.integers(3, 7))
    bidding, even_bids = BIDDING[rng.integers(len(BIDDING))]
    largest = 60 // players
    if rng.random() < 0.3:
        rounds = None
    else:
        count = int(rng.integers(1, largest + 1))
        rounds = tuple(int(r) for r in rng.choice(np.arange(1, largest + 1), size=count, replace=False))
    first_dealer = "draw" if rng.random() < 0.6 else int(rng.integers(players))
    rules = sim.Rules(players=players, rounds=rounds, bidding=bidding, even_bids=even_bids, first_dealer=first_dealer)
    listed = [as_policy(random_policy_text(rng)) for _ in range(int(rng.integers(1, MAX_PLAYERS + 1)))]
    return rules, listed


def assert_same(reference, fast, where):
    for name, ours, theirs in zip(reference._fields, fast, reference):
        assert np.array_equal(ours, theirs), f"{where}: the {name} records differ"


def play_both(rules, policies, seed, game_ids, log_plays, seatings=None):
    """(the decision step's results, the fast path's) for the same games."""
    record, sizes, arrays = rules.to_record(), rules.round_sizes_array(), policy_arrays(policies)
    outputs = []
    seating = Seating.of(policies)
    for engine in (batch, fast_games):
        results = empty_results(rules, game_ids.shape[0], log_plays)
        if seatings is None:
            failed = seating.kernel(engine.play_games)(seed, game_ids, record, sizes, arrays, results)
        else:
            failed = seating.kernel(engine.play_seated_games)(seed, game_ids, seatings, record, sizes, arrays, results)
        assert failed == -1
        outputs.append(results)
    return outputs


def sweep(n_configs: int, master_seed: int, games: int) -> None:
    rng = np.random.default_rng(master_seed)
    for config in range(n_configs):
        rules, listed = random_config(rng)
        seed = int(rng.integers(0, 2**63 - 1))
        game_ids = np.sort(rng.choice(10**6, size=games, replace=False)).astype(np.int64)
        log_plays = bool(rng.random() < 0.7)
        where = f"config {config} ({rules}, {[p.label for p in listed]}, seed {seed})"
        if rng.random() < 0.5:
            seated = [listed[int(i)] for i in rng.integers(len(listed), size=rules.players)]
            reference, fast = play_both(rules, seated, seed, game_ids, log_plays)
        else:
            seatings = rng.integers(len(listed), size=(games, rules.players)).astype(np.int64)
            reference, fast = play_both(rules, listed, seed, game_ids, log_plays, seatings)
        assert_same(reference, fast, where)


def test_fast_path_is_bit_identical_to_the_decision_step():
    """A seeded sweep of 300 randomized configurations, 4 games each (every record)."""
    sweep(300, master_seed=39, games=4)


@pytest.mark.slow
def test_fast_path_is_bit_identical_over_a_larger_sweep():
    sweep(3000, master_seed=3939, games=12)


@pytest.mark.parametrize(
    "policies, fast",
    [
        ("random", True),
        ("heuristic", True),
        ("heuristic:aggression=1.2,random,random,heuristic", True),
        ("mc,heuristic,heuristic,heuristic", False),
        ("pimc,random,random,random", False),
        ("heuristic,heuristic,random,mc:samples=4", False),
    ],
)
def test_only_builtin_non_search_seats_take_the_fast_path(policies, fast):
    """The hand-off: a batch takes the fast path only when every seat is `random` or
    `heuristic` (Python seats and numba bots go to their own drivers before this choice); mc
    and pimc batches take the decision step, and their games are the decision step's."""
    parsed = parse_policies(policies, 4)
    assert builtin_only(parsed, policy_arrays(parsed)) == fast


def test_a_handed_off_batch_plays_the_decision_steps_games():
    """run_games with an mc seat equals kernels.batch.play_games called directly."""
    rules = sim.Rules(players=3, rounds=(1, 2, 3))
    policies = parse_policies("mc:samples=2,play_samples=2,heuristic,random", 3)
    ran = sim.run_games(rules, policies, seed=5, games=3, log_plays=True)
    results = empty_results(rules, 3, True)
    Seating.of(policies).kernel(batch.play_games)(5, np.arange(3, dtype=np.int64), rules.to_record(),
                                                  rules.round_sizes_array(), policy_arrays(policies), results)  # fmt: skip
    for name, theirs in zip(results._fields, results):
        assert np.array_equal(getattr(ran, name), theirs), name
