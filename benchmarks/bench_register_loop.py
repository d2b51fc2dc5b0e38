"""What the one decision step costs: `random` games played by a loop that keeps the round in
local variables, next to the engine and the bare prototype, measured side by side.

    python -m benchmarks.bench_register_loop                  # table
    python -m benchmarks.bench_register_loop --runs 3 --json
    python -m benchmarks.bench_register_loop --bound          # what keeps it near the prototype

The loop below is a yardstick, not a second engine: it plays 4-player `random` games with the
engine's own rule helpers (kernels.rules: the follow masks, the trick powers, the led suit,
the trump, the score, the first-dealer draw), the engine's counter-keyed streams
(docs/randomness.md) and the engine's result records, but without the table and seat records
and the decision step that every driver shares (kernels.round_state). Before timing, it checks
that its games are bit-identical to `run_games`' (every round, seat and game record), so the
difference in speed is the state machine's alone. Issue #24 asks for the engine at the
prototype's speed with every guarantee kept; this measures how far that is
(docs/performance.md, Engine).

--bound times the same loop with the prototype's generator instead of the engine's streams
(one xorshift64* state per block of games, a biased multiply per draw, the deck carried over
between rounds, no first-dealer draw: not the randomness contract, so not the same games)
and with its result records fresh (allocated by the timing, as run_games' are), reused (the
pages already touched) or not written, next to the prototype; then the cost of touching
fresh memory (np.zeros of 200 MB, a write per page) right after freeing the same amount and
after it has sat free for 2 s.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from benchmarks.bench_vs_prototype import BLOCK, DEFAULT_PROTOTYPE, load_prototype, prototype
from kernels import records
from kernels.bits import nth_set_bit, popcount
from kernels.cards import N_CARDS, NO_CARD
from kernels.rng import STREAM_DEAL, STREAM_DECISIONS, below_from_state, mix64
from kernels.rules import (
    TRICK_POWERS,
    draw_first_dealer,
    legal_cards,
    led_suit_after,
    round_score,
    trump_of_turned_card,
)
from sim import Rules, run_games
from sim.engine.startup import start

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


@njit(cache=True, inline="always")
def draw(state, n, prototype_rng):
    """(uniform integer in [0, n), the state after it): the engine's below_from_state, or
    (--bound) the prototype's xorshift64* step and biased multiply-shift."""
    if not prototype_rng:
        return below_from_state(state, n)
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    word = (state * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
    return np.int64((word * np.uint64(n)) >> np.uint64(32)), state


@njit(cache=True)
def play_round_locally(seed, game, round_size, dealer, deck, dealt, hands, bids, tricks, prototype_rng, carried):
    """Deal (each seat's hand also into `dealt`), bid and play one round as `random` does at
    every seat (the same draws in the same order); returns (turned-up card, trump, generator
    state). With prototype_rng, every draw continues the state `carried` and the deck is not
    reset (--bound)."""
    state = carried
    if not prototype_rng:
        state = stream_state(seed, game, round_size, STREAM_DEAL)
        for card in range(N_CARDS):
            deck[card] = card
    position = 0
    for seat in range(PLAYERS):
        hand = np.int64(0)
        for _ in range(round_size):
            offset, state = draw(state, N_CARDS - position, prototype_rng)
            pick = position + offset
            card = deck[pick]
            hand |= np.int64(1) << card
            deck[pick] = deck[position]
            deck[position] = card  # a permutation to carry over (a reset deck never reads it)
            position += 1
        hands[seat] = hand
        dealt[seat] = hand
        tricks[seat] = 0
    turned = NO_CARD
    if position < N_CARDS:
        offset, state = draw(state, N_CARDS - position, prototype_rng)
        turned = deck[position + offset]
    trump = trump_of_turned_card(turned)
    decisions = state if prototype_rng else stream_state(seed, game, round_size, STREAM_DECISIONS)
    if trump == records.DEALER_CHOOSES_TRUMP:
        trump, decisions = draw(decisions, 4, prototype_rng)  # the n-th of the four suits
    for position in range(PLAYERS):
        seat = (dealer + 1 + position) % PLAYERS
        bids[seat], decisions = draw(decisions, round_size + 1, prototype_rng)  # any bid is legal
    leader = (dealer + 1) % PLAYERS
    for _ in range(round_size):
        led = records.LED_NONE
        best = 0
        winning_position = 0
        seat = leader
        for position in range(PLAYERS):
            hand = hands[seat]
            legal = legal_cards(hand, led)
            choice, decisions = draw(decisions, popcount(legal), prototype_rng)
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
    return turned, trump, decisions


@njit(cache=True, parallel=True)
def play_games_locally(seed, n_games, rounds, seats, games, prototype_rng=False, keep_records=True):
    """`random` 4-player games 0..n_games-1 of `seed` into the engine's result records.
    --bound: prototype_rng (draw) and, without keep_records, a checksum of the results in
    games[block, 0].total instead of the records (games then has a row per block)."""
    for block in prange((n_games + BLOCK - 1) // BLOCK):
        scratch = new_scratch()
        deck = np.arange(N_CARDS)
        dealt, hands, bids, tricks, totals = (new_seat_values(), new_seat_values(), new_seat_values(),
                                              new_seat_values(), new_seat_values())  # fmt: skip
        state = mix64(np.uint64(seed) ^ np.uint64(block)) | np.uint64(1)  # prototype_rng: never zero
        checksum = 0
        for game in range(block * BLOCK, min(n_games, (block + 1) * BLOCK)):
            first = game % PLAYERS if prototype_rng else draw_first_dealer(seed, game, PLAYERS, scratch[0])
            totals[:] = 0
            for index in range(ROUNDS):
                round_size = index + 1
                dealer = (first + round_size - 1) % PLAYERS
                turned, trump, state = play_round_locally(seed, game, round_size, dealer, deck, dealt, hands, bids,
                                                          tricks, prototype_rng, state)  # fmt: skip
                if keep_records:
                    result = rounds[game, index]
                    result.dealer, result.trump_card, result.trump = dealer, turned, trump
                for seat in range(PLAYERS):
                    score = round_score(bids[seat], tricks[seat])
                    totals[seat] += score
                    if keep_records:
                        record = seats[game, index, seat]
                        record.hand, record.bid, record.tricks = dealt[seat], bids[seat], tricks[seat]
                        record.score, record.total = score, totals[seat]
                    else:
                        checksum += dealt[seat] ^ score
            if keep_records:
                best = totals[:PLAYERS].max()
                for seat in range(PLAYERS):
                    games[game, seat].total = totals[seat]
                    games[game, seat].winner = totals[seat] == best
        if not keep_records:
            games[block, 0].total = checksum


def result_records(n_games: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed result records of n_games games, as run_games allocates them."""
    return (np.zeros((n_games, ROUNDS), dtype=records.ROUND_RESULT_DTYPE),
            np.zeros((n_games, ROUNDS, PLAYERS), dtype=records.SEAT_RESULT_DTYPE),
            np.zeros((n_games, PLAYERS), dtype=records.GAME_RESULT_DTYPE))  # fmt: skip


def local(n_games: int, seed: int) -> tuple[float, tuple]:
    """Seconds for `n_games` games of the local loop (its results allocated as run_games')."""
    start = time.perf_counter()
    results = result_records(n_games)
    play_games_locally(seed, n_games, *results)
    return time.perf_counter() - start, results


BOUND_RECORDS = ("fresh", "reused", "none")


def bound_variant(n_games: int, seed: int, prototype_rng: bool, kept: str, reused: tuple) -> float:
    """Seconds for the local loop with the --bound choices (its fresh records allocated inside)."""
    start = time.perf_counter()
    if kept == "fresh":
        results = result_records(n_games)
    elif kept == "reused":
        results = reused
    else:  # "none": a row per block, for the checksums (play_games_locally)
        results = result_records((n_games + BLOCK - 1) // BLOCK)
    play_games_locally(seed, n_games, *results, prototype_rng, kept != "none")
    return time.perf_counter() - start


def touch_fresh(idle: float, size: int = 200_000_000) -> float:
    """CPU seconds to zero and touch `size` bytes, `idle` seconds after freeing as many."""
    np.zeros(size, np.uint8)[::4096] = 1
    time.sleep(idle)
    started = time.process_time()
    np.zeros(size, np.uint8)[::4096] = 1
    return time.process_time() - started


def bound(proto, games: int, repeats: int) -> dict:
    """Best seconds a game of each --bound variant and of the prototype, alternating, on each
    thread count; then touch_fresh."""
    reused = result_records(games)
    variants = [(rng, kept) for rng in (False, True) for kept in BOUND_RECORDS]
    for rng, kept in variants:
        bound_variant(2 * BLOCK, 0, rng, kept, reused)
    out = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        best = {}
        for repeat in range(repeats):
            for rng, kept in variants:
                name = f"{'prototype' if rng else 'engine'}_rng_records_{kept}"
                best[name] = min(best.get(name, 1e9), bound_variant(games, repeat + 1, rng, kept, reused))
            best["prototype"] = min(best.get("prototype", 1e9), prototype(proto, "random", games, repeat + 1))
        out[f"{threads}_thread{'s' if threads > 1 else ''}"] = {
            name: {"us_a_game": round(seconds / games * 1e6, 2), "over_prototype": round(best["prototype"] / seconds, 3)}
            for name, seconds in best.items()}  # fmt: skip
    out["touch_200MB_cpu_s"] = {"just_freed": round(touch_fresh(0.0), 3), "freed_2s_before": round(touch_fresh(2.0), 3)}
    return out


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
    parser.add_argument("--bound", action="store_true", help="time the variants that show what bounds the loop")
    arguments = parser.parse_args()
    proto = load_prototype(arguments.prototype)
    games = max(BLOCK, arguments.games // BLOCK * BLOCK)
    check_identical()
    prototype(proto, "random", 2 * BLOCK, 0)
    if arguments.bound:
        figures = bound(proto, games, arguments.repeats)
        if arguments.json:
            print(json.dumps({"players": PLAYERS, "games": games, "bound": figures}))
            return
        print(f"random, {PLAYERS} players, {games:,} games, best of {arguments.repeats} alternating timings")
        for key, value in figures.items():
            print(f"{key}:")
            for name, numbers in value.items():
                shown = numbers.items() if isinstance(numbers, dict) else [("", numbers)]
                print(f"  {name:>32}: " + ", ".join(f"{field} {number}".strip() for field, number in shown))
        return
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
