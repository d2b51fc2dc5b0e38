"""What the one decision step costs: `random` games played by a loop that keeps the round in
local variables, next to the engine and the bare prototype, measured side by side.

    python benchmarks/bench_register_loop.py                  # table
    python benchmarks/bench_register_loop.py --runs 3 --json

The loop below is a yardstick, not a second engine: it plays 4-player `random` games with the
engine's own rule helpers (kernels.rules: the follow masks, the trick powers, the led suit,
the trump, the score, the first-dealer draw), the engine's counter-keyed streams
(docs/randomness.md) and the engine's result records, but without the table and seat records
and the decision step that every driver shares (kernels.round_state). Before timing, it checks
that its games are bit-identical to `run_games`' (every round, seat and game record), so the
difference in speed is the state machine's alone. Issue #24 asks for the engine at the
prototype's speed with every guarantee kept; this measures how far that is
(docs/performance.md, Engine).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_vs_prototype import BLOCK, DEFAULT_PROTOTYPE, load_prototype, prototype  # noqa: E402
from kernels import records  # noqa: E402
from kernels.bits import nth_set_bit, popcount  # noqa: E402
from kernels.cards import N_CARDS, NO_CARD  # noqa: E402
from kernels.rng import STREAM_DEAL, STREAM_DECISIONS, below_from_state, mix64  # noqa: E402
from kernels.rules import (  # noqa: E402
    TRICK_POWERS,
    draw_first_dealer,
    legal_cards,
    led_suit_after,
    round_score,
    trump_of_turned_card,
)
from sim import Rules, run_games  # noqa: E402
from sim.engine.startup import start  # noqa: E402

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

PLAYERS = 4
ROUNDS = N_CARDS // PLAYERS


@njit(cache=True, inline="always")
def stream_state(seed, game, round_size, stream):
    """kernels.rng.seed_stream's state, in a local variable."""
    key = mix64(mix64(np.uint64(seed)) ^ np.uint64(game))
    return mix64(key ^ np.uint64(round_size * 256 + stream))


@njit(cache=True)
def new_scratch():
    return np.zeros(1, dtype=records.SCRATCH_DTYPE)


@njit(cache=True)
def new_seat_values():
    return np.zeros(records.MAX_PLAYERS, dtype=np.int64)


@njit(cache=True)
def play_round_locally(seed, game, round_size, dealer, deck, dealt, hands, bids, tricks):
    """Deal (each seat's hand also into `dealt`), bid and play one round as `random` does at
    every seat (the same draws in the same order); returns (turned-up card, trump)."""
    state = stream_state(seed, game, round_size, STREAM_DEAL)
    for card in range(N_CARDS):
        deck[card] = card
    position = 0
    for seat in range(PLAYERS):
        hand = np.int64(0)
        for _ in range(round_size):
            offset, state = below_from_state(state, N_CARDS - position)
            pick = position + offset
            hand |= np.int64(1) << deck[pick]
            deck[pick] = deck[position]
            position += 1
        hands[seat] = hand
        dealt[seat] = hand
        tricks[seat] = 0
    turned = NO_CARD
    if position < N_CARDS:
        offset, state = below_from_state(state, N_CARDS - position)
        turned = deck[position + offset]
    trump = trump_of_turned_card(turned)
    decisions = stream_state(seed, game, round_size, STREAM_DECISIONS)
    if trump == records.DEALER_CHOOSES_TRUMP:
        trump, decisions = below_from_state(decisions, 4)  # the n-th of the four suits
    for position in range(PLAYERS):
        seat = (dealer + 1 + position) % PLAYERS
        bids[seat], decisions = below_from_state(decisions, round_size + 1)  # any bid is legal
    leader = (dealer + 1) % PLAYERS
    for _ in range(round_size):
        led = records.LED_NONE
        best = 0
        winning_position = 0
        seat = leader
        for position in range(PLAYERS):
            hand = hands[seat]
            legal = legal_cards(hand, led)
            choice, decisions = below_from_state(decisions, popcount(legal))
            card = nth_set_bit(legal, choice)
            hands[seat] = hand ^ (np.int64(1) << card)
            led = led_suit_after(led, card)
            power = np.int64(TRICK_POWERS[trump + 1, led + 1, card])
            winning_position = position if power > best else winning_position
            best = max(power, best)
            seat = seat + 1 if seat + 1 < PLAYERS else 0
        winner = (leader + winning_position) % PLAYERS
        tricks[winner] += 1
        leader = winner
    return turned, trump


@njit(cache=True, parallel=True)
def play_games_locally(seed, n_games, rounds, seats, games):
    """`random` 4-player games 0..n_games-1 of `seed` into the engine's result records."""
    for block in prange((n_games + BLOCK - 1) // BLOCK):
        scratch = new_scratch()
        deck = np.arange(N_CARDS)
        dealt, hands, bids, tricks, totals = (new_seat_values(), new_seat_values(), new_seat_values(),
                                              new_seat_values(), new_seat_values())  # fmt: skip
        for game in range(block * BLOCK, min(n_games, (block + 1) * BLOCK)):
            first = draw_first_dealer(seed, game, PLAYERS, scratch[0])
            totals[:] = 0
            for index in range(ROUNDS):
                round_size = index + 1
                dealer = (first + round_size - 1) % PLAYERS
                turned, trump = play_round_locally(seed, game, round_size, dealer, deck, dealt, hands, bids, tricks)
                result = rounds[game, index]
                result.dealer, result.trump_card, result.trump = dealer, turned, trump
                for seat in range(PLAYERS):
                    score = round_score(bids[seat], tricks[seat])
                    totals[seat] += score
                    record = seats[game, index, seat]
                    record.hand, record.bid, record.tricks = dealt[seat], bids[seat], tricks[seat]
                    record.score, record.total = score, totals[seat]
            best = totals[:PLAYERS].max()
            for seat in range(PLAYERS):
                games[game, seat].total = totals[seat]
                games[game, seat].winner = totals[seat] == best


def local(n_games: int, seed: int) -> tuple[float, tuple]:
    """Seconds for `n_games` games of the local loop (its results allocated as run_games')."""
    start = time.perf_counter()
    rounds = np.zeros((n_games, ROUNDS), dtype=records.ROUND_RESULT_DTYPE)
    seats = np.zeros((n_games, ROUNDS, PLAYERS), dtype=records.SEAT_RESULT_DTYPE)
    games = np.zeros((n_games, PLAYERS), dtype=records.GAME_RESULT_DTYPE)
    play_games_locally(seed, n_games, rounds, seats, games)
    return time.perf_counter() - start, (rounds, seats, games)


def engine(n_games: int, seed: int, threads: int | None = None) -> float:
    start = time.perf_counter()
    run_games(Rules(players=PLAYERS), "random", seed=seed, games=n_games, threads=threads)
    return time.perf_counter() - start


def check_identical(n_games: int = 2000, seed: int = 7) -> None:
    _, (rounds, seats, games) = local(n_games, seed)
    batch = run_games(Rules(players=PLAYERS), "random", seed=seed, games=n_games)
    for name, ours, theirs in (("rounds", rounds, batch.rounds), ("seats", seats, batch.seats), ("games", games, batch.games)):
        if not np.array_equal(ours, theirs):
            raise SystemExit(f"the local loop's {name} records differ from run_games': the comparison would be void")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3, help="alternating timings per loop in a run")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--prototype", type=Path, default=DEFAULT_PROTOTYPE)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    proto = load_prototype(arguments.prototype)
    games = max(BLOCK, arguments.games // BLOCK * BLOCK)
    check_identical()
    prototype(proto, "random", 2 * BLOCK, 0)
    figures: dict[str, list[dict]] = {}
    for run in range(arguments.runs):
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            best = {"engine": 0.0, "local_loop": 0.0, "prototype": 0.0}
            for repeat in range(arguments.repeats):
                seed = 1000 * run + repeat + 1
                best["engine"] = max(best["engine"], games / engine(games, seed, threads))
                numba.set_num_threads(threads)  # run_games set it; the other two follow it
                best["local_loop"] = max(best["local_loop"], games / local(games, seed)[0])
                best["prototype"] = max(best["prototype"], games / prototype(proto, "random", games, seed))
            figures.setdefault(f"{threads}_thread{'s' if threads > 1 else ''}", []).append(
                {**{name: round(rate) for name, rate in best.items()},
                 "local_over_engine": round(best["local_loop"] / best["engine"], 3),
                 "local_over_prototype": round(best["local_loop"] / best["prototype"], 3)})  # fmt: skip
    if arguments.json:
        print(json.dumps({"players": PLAYERS, "games": games, "runs": figures}))
        return
    print(f"random, {PLAYERS} players, {games:,} games; the local loop's games are run_games' (checked); "
          f"best of {arguments.repeats} alternating timings per run, {arguments.runs} runs")  # fmt: skip
    for key, runs in figures.items():
        def span(name: str) -> str:
            return f"{min(run[name] for run in runs):,}-{max(run[name] for run in runs):,}"

        print(f"{key:>9}: local loop {span('local_over_engine')}x the engine, {span('local_over_prototype')}x the "
              f"prototype (engine {span('engine')}, local loop {span('local_loop')}, prototype {span('prototype')} games/s)")


if __name__ == "__main__":
    main()
