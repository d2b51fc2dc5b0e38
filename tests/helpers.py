"""Shared helpers of the kernel/sim test files: card ids, masks, hand-built tables and
walking the rounds of a GameBatch.

Test modules import it by name: pytest puts tests/ on the path (pyproject.toml, pythonpath).
"""
from __future__ import annotations

import dataclasses

import numpy as np

import sim
from kernels import round_state as R
from kernels import rules as K
from kernels import records as st
from kernels.dispatch import decide
from kernels.rng import seed_stream

C, D, H, S = 0, 1, 2, 3
WIZARDS = (52, 53, 54, 55)
JESTERS = (56, 57, 58, 59)
W1, W2, W3, W4 = WIZARDS
J1, J2, J3, J4 = JESTERS
FULL_DECK = (1 << 60) - 1


def new_stream(seed, game, round_size, stream):
    """A new generator for the stream (seed, game, round, stream id)."""
    generator = np.empty(1, dtype=np.uint64)
    seed_stream(generator, seed, game, round_size, stream)
    return generator


def card(rank: int, suit: int) -> int:
    """Card id of a suited card; rank 2..14 (J=11, Q=12, K=13, A=14)."""
    return suit * 13 + rank - 2


def mask(cards) -> int:
    """Hand mask of an iterable of card ids."""
    result = 0
    for c in cards:
        result |= 1 << int(c)
    return result


def cards_of(hand_mask) -> list[int]:
    """Ascending card ids of a hand mask."""
    value = int(hand_mask)
    return [c for c in range(60) if (value >> c) & 1]


def popcount(value) -> int:
    return bin(int(value) & ((1 << 64) - 1)).count("1")


def new_table(rules_record):
    """A fresh one-record table array and seat records for `rules_record`, laid out as in the
    engine's workspace (kernels.records.WORKSPACE_DTYPE) but as separate arrays, which tests can
    copy and edit one by one."""
    storage = np.zeros(1, dtype=st.TABLE_DTYPE)
    for field in ("n_players", "bidding", "even_bids"):
        storage[field] = rules_record[field]
    return storage, np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)


def make_table(players=4, round_size=5, dealer=None, trump=-1, bidding="open", even_bids="allowed"):
    """A started round on a fresh kernel table: returns (storage, seats, table) where table is
    storage[0] (a record view: writes from Python and from the kernels go to storage).
    The default dealer is the last seat, so seat 0 leads the first trick."""
    record = sim.Rules(players=players, bidding=bidding, even_bids=even_bids).to_record()
    storage, seats = new_table(record[0])
    table = storage[0]
    R.begin_round(table, seats, round_size, players - 1 if dealer is None else dealer)
    table["trump"] = trump
    table["phase"] = st.PHASE_BID
    return storage, seats, table


def deal_round(seed, game, table, seats):
    """kernels.round_state.deal_round on a begun table: the engine's deal and turned-up card."""
    scratch = np.zeros(1, dtype=st.SCRATCH_DTYPE)
    R.deal_round(seed, game, table, seats, scratch[0])


def round_offsets(rules: sim.Rules) -> list[int]:
    """Index in a game's plays log of the first play of each round of rules.round_sizes."""
    offsets, offset = [], 0
    for size in rules.round_sizes:
        offsets.append(offset)
        offset += size * rules.players
    return offsets


def iter_rounds(batch):
    """Yield (g, k, r, plays) for every game row g and round index k of a batch, with the
    round's slice of the plays log (empty when plays were not logged)."""
    offsets = round_offsets(batch.rules)
    n = batch.rules.players
    for g in range(batch.game_ids.shape[0]):
        for k, r in enumerate(batch.rules.round_sizes):
            plays = batch.plays[g, offsets[k] : offsets[k] + n * r] if batch.plays.shape[1] else batch.plays[g, :0]
            yield g, k, r, plays


def mixed_policy(players: int, first: str = "heuristic", second: str = "random") -> str:
    """`heuristic,random,heuristic,...` with one entry per seat."""
    return ",".join(first if seat % 2 == 0 else second for seat in range(players))


def play_round_asking(table, seats, ask) -> None:
    """Bid and play one dealt round in Python through the round's transitions, asking
    ask(decision, seat, legal) for every bid and card (the information tests wrap a policy
    with their checks in `ask`)."""
    while table["phase"] in (st.PHASE_BID, st.PHASE_PLAY):
        decision = int(table["phase"])
        seat = R.current_seat(table)
        R.apply_action(table, seats, ask(decision, seat, R.legal_actions(table, seats)))


def decision_with_own_hand_swapped(policies, decision, seats, seat, other, table, legal, generator, ask=decide):
    """The deciding seat's answer after its hand is swapped with `other`'s (same size). It may
    differ, a seat sees its own hand: this shows an unchanged-answer check is not vacuous.
    The seats are restored. `ask` is how the policy is asked (the dispatch's arguments)."""
    saved = seats.copy()
    mine, theirs = int(seats[seat]["hand"]), int(seats[other]["hand"])
    seats[seat]["hand"], seats[other]["hand"] = theirs, mine
    own_legal = legal if decision == st.DECIDE_BID else K.legal_cards(theirs, table["led_suit"])
    try:
        return ask(policies, decision, seats[seat], table, own_legal, generator)
    finally:
        seats[:] = saved


def invoke(*arguments):
    """Run the wizard-sim command line in process (typer's CliRunner) with these arguments."""
    from typer.testing import CliRunner

    from sim.cli import app

    return CliRunner().invoke(app, [str(argument) for argument in arguments])


def made_run(out, command: str, *arguments):
    """`out` after the command line ran `command` with `arguments` into it, successfully."""
    result = invoke(command, *arguments, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def copy_of(reference, tmp_path):
    """A copy of the run directory `reference` at tmp_path/run (its links copied as links)."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(reference, out, symlinks=True)
    return out


def one_line(result, code: int, *words: str) -> None:
    """The command exited with `code` and said one `wizard-sim: error:` line naming `words`."""
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wizard-sim: error:"), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def move_heuristic_default(monkeypatch) -> None:
    """As if a later wizard-sim had moved heuristic's default aggression from 1.0 to 1.1: the
    label `heuristic` then names another policy (run.json's policy_parameters)."""
    from sim.policies.registry import REGISTRY

    kind = REGISTRY["heuristic"]
    moved = tuple((name, 1.1 if name == "aggression" else default) for name, default in kind.parameters)
    monkeypatch.setitem(REGISTRY, "heuristic", dataclasses.replace(kind, parameters=moved))
