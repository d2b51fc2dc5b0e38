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

The sides of a comparison are interleaved (benchmarks.harness: each going first in turn,
--repeats rounds a run, --warmup before the first), every figure a range and every ratio
taken round by round; the rounds of --runs runs are joined.
"""
from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from benchmarks.bench_vs_prototype import BLOCK, DEFAULT_PROTOTYPE, load_prototype, ours, prototype
from benchmarks.harness import Range, Rate, interleave, parser, rate, ratio, report
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


def local(n_games: int, seed: int) -> tuple:
    """The result records of `n_games` games of the local loop (allocated as run_games')."""
    results = result_records(n_games)
    play_games_locally(seed, n_games, *results)
    return results


def local_rate(n_games: int, threads: int) -> Rate:
    """Games/s of the local loop on `threads` threads, call n on seed n."""
    seeds = itertools.count()

    def one_run() -> None:
        numba.set_num_threads(threads)
        local(n_games, next(seeds))

    return lambda: rate(one_run, n_games)


BOUND_RECORDS = ("fresh", "reused", "none")


def bound_variant(n_games: int, threads: int, prototype_rng: bool, kept: str, reused: tuple) -> Rate:
    """Games/s of the local loop with the --bound choices (its fresh records allocated inside)."""
    seeds = itertools.count()

    def one_run() -> None:
        numba.set_num_threads(threads)
        if kept == "fresh":
            results = result_records(n_games)
        elif kept == "reused":
            results = reused
        else:  # "none": a row per block, for the checksums (play_games_locally)
            results = result_records((n_games + BLOCK - 1) // BLOCK)
        play_games_locally(next(seeds), n_games, *results, prototype_rng, kept != "none")

    return lambda: rate(one_run, n_games)


def touch_fresh(idle: float, size: int = 200_000_000) -> float:
    """CPU seconds to zero and touch `size` bytes, `idle` seconds after freeing as many."""
    np.zeros(size, np.uint8)[::4096] = 1
    time.sleep(idle)
    started = time.process_time()
    np.zeros(size, np.uint8)[::4096] = 1
    return time.process_time() - started


def bound(proto, games: int, repeats: int, warmup: int) -> dict:
    """Microseconds a game of each --bound variant and of the prototype, interleaved, and each
    variant's speed over the prototype's round by round, on each thread count; then
    touch_fresh."""
    reused = result_records(games)
    variants = [(rng, kept) for rng in (False, True) for kept in BOUND_RECORDS]
    names = [f"{'prototype' if rng else 'engine'}_rng_records_{kept}" for rng, kept in variants] + ["prototype"]
    out = {}
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        sides = [bound_variant(games, threads, rng, kept, reused) for rng, kept in variants]
        rates = dict(zip(names, interleave(sides + [prototype(proto, "random", games, threads)], repeats, warmup)))
        out[f"{threads}_thread{'s' if threads > 1 else ''}"] = {
            name: {"us_a_game": Range(tuple(1e6 / value for value in games_per_s.samples), 2),
                   "over_prototype": ratio(games_per_s, rates["prototype"])}
            for name, games_per_s in rates.items()}  # fmt: skip
    out["touch_200MB_cpu_s"] = {"just_freed": round(touch_fresh(0.0), 3), "freed_2s_before": round(touch_fresh(2.0), 3)}
    return out


def check_identical(n_games: int = 2000, seed: int = 7) -> None:
    rounds, seats, games = local(n_games, seed)
    batch = run_games(Rules(players=PLAYERS), "random", seed=seed, games=n_games)
    for name, ours, theirs in (("rounds", rounds, batch.rounds), ("seats", seats, batch.seats), ("games", games, batch.games)):
        if not np.array_equal(ours, theirs):
            raise SystemExit(f"the local loop's {name} records differ from run_games': the comparison would be void")


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--games", type=int, default=200_000)
    arguments.add_argument("--runs", type=int, default=2, help="runs over every thread count, each of --repeats rounds")
    arguments.add_argument("--prototype", type=Path, default=DEFAULT_PROTOTYPE)
    arguments.add_argument("--bound", action="store_true", help="time the variants that show what bounds the loop")
    options = arguments.parse_args()
    proto = load_prototype(options.prototype)
    games = max(BLOCK, options.games // BLOCK * BLOCK)
    check_identical()
    if options.bound:
        figures = bound(proto, games, options.repeats, options.warmup)
        lines = [f"random, {PLAYERS} players, {games:,} games, {options.repeats} interleaved rounds"]
        for key, value in figures.items():
            lines.append(f"{key}:")
            for name, numbers in value.items():
                shown = numbers.items() if isinstance(numbers, dict) else [("", numbers)]
                lines.append(f"  {name:>32}: " + ", ".join(
                    f"{field} {number.text('.2f') if isinstance(number, Range) else number}".strip() for field, number in shown))  # fmt: skip
        report({"players": PLAYERS, "games": games, "bound": figures}, lines, options.json)
        return
    names = ("engine", "local_loop", "prototype")
    thread_counts = sorted({1, numba.config.NUMBA_NUM_THREADS})
    sides = {threads: (ours("random", games, threads), local_rate(games, threads), prototype(proto, "random", games, threads))
             for threads in thread_counts}  # fmt: skip
    runs: dict[int, list[list[Range]]] = {threads: [] for threads in thread_counts}
    for run in range(options.runs):  # every thread count once a run, so each run sees the machine as it is then
        for threads in thread_counts:
            runs[threads].append(interleave(sides[threads], options.repeats, options.warmup if run == 0 else 0))
    figures = {}
    for threads, cell in runs.items():
        rates = dict(zip(names, map(Range.joined, zip(*cell))))
        figures[f"{threads}_thread{'s' if threads > 1 else ''}"] = {
            **rates, "local_over_engine": ratio(rates["local_loop"], rates["engine"]),
            "local_over_prototype": ratio(rates["local_loop"], rates["prototype"])}  # fmt: skip
    lines = [f"random, {PLAYERS} players, {games:,} games; the local loop's games are run_games' (checked); "
             f"{options.runs} runs of {options.repeats} interleaved rounds"]  # fmt: skip
    lines += [f"{key:>9}: local loop {cell['local_over_engine'].text('.2f')}x the engine, "
              f"{cell['local_over_prototype'].text('.2f')}x the prototype (engine {cell['engine'].text()}, "
              f"local loop {cell['local_loop'].text()}, prototype {cell['prototype'].text()} games/s)"
              for key, cell in figures.items()]  # fmt: skip
    report({"players": PLAYERS, "games": games, "figures": figures}, lines, options.json)


if __name__ == "__main__":
    main()
