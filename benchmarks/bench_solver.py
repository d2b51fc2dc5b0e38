"""Speed of the perfect-information solver (kernels/search/solver.py, docs/pimc.md): solves per
second and cards tried per solve, by players and tricks left, on one thread.

    python -m benchmarks.bench_solver                    # table
    python -m benchmarks.bench_solver --positions 2000 --json

The positions are real: rounds of `heuristic` self-play (seed 0; round size tricks left + 3,
or the largest round), taken at the start of the trick that leaves `tricks left` tricks to
play, with every hand, the bids and the tricks taken so far as they were. Each position is
solved once (`solve`: the max^n value) and once for every distinct legal card of the seat to
act (`moves`: what pimc asks, the value of each card). One working record solves every
position of a cell in turn, as one pimc decision solves its samples (the transposition
entries of earlier positions stay). Rates are in CPU time (time.process_time), ranges over
`--repeats` runs after `--warmup` (benchmarks.harness), the microseconds a solve at their
median; the cards tried are exact and do not depend on the machine's load.
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from numba import njit

from benchmarks.harness import measure, parser, rate, report
from kernels import records as st
from kernels import round_state as R
from kernels import rules as K
from kernels.search import solver
from kernels.bits import lowest_bit
from sim import Rules, run_games
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

PLAYERS = (3, 4, 5, 6)
TRICKS_LEFT = (1, 2, 3, 4, 5, 6)


def positions(players: int, tricks_left: int, count: int):
    """(tables, seat records) of `count` positions with `tricks_left` tricks to play."""
    round_size = min(60 // players, tricks_left + 3)
    rules = Rules(players=players, rounds=(round_size,))
    batch = run_games(rules, "heuristic", seed=0, games=count, log_plays=True)
    tables = np.zeros(count, dtype=st.TABLE_DTYPE)
    hands = np.zeros((count, st.MAX_PLAYERS), dtype=st.SEAT_DTYPE)
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    record = rules.to_record()[0]
    for g in range(count):
        table = tables[g : g + 1][0]
        R.set_rules(table, record)
        R.begin_round(table, seats, round_size, int(batch.rounds[g, 0]["dealer"]))
        table["trump_card"] = batch.rounds[g, 0]["trump_card"]
        table["trump"] = batch.rounds[g, 0]["trump"]
        table["phase"] = st.PHASE_PLAY
        for seat in range(players):
            seats[seat]["hand"] = batch.seats[g, 0, seat]["hand"]
            hands[g, seat]["bid"] = batch.seats[g, 0, seat]["bid"]
        for play in batch.plays[g, : players * (round_size - tricks_left)]:
            K.play_card(table, seats, int(play["seat"]), int(play["card"]))
            if table["n_in_trick"] == players:
                K.finish_trick(table)
        hands[g, :players]["hand"] = seats["hand"][:players]
    return tables, hands


@njit(cache=True)
def solve_all(tables, seats, moves):
    """Solve every position (moves: also every distinct card of the seat to act); returns
    the cards tried."""
    storage = solver.new_work()
    work = storage[0]
    nodes = 0
    for i in range(tables.shape[0]):
        solver.set_position(work, tables[i], seats[i])
        work.nodes = 0
        if moves:
            rest = solver.candidates(work, solver.seat_to_play(work))
            while rest:
                card = lowest_bit(rest)
                rest &= rest - 1
                solver.final_after(work, card)
        else:
            solver.solve(work)
        nodes += work.nodes
    return nodes


def cell(players: int, tricks_left: int, count: int, repeats: int, warmup: int) -> dict:
    """Solves a second in CPU time (ranges), microseconds a solve at the median, and the cards
    tried a solve, of one cell, for `solve` and `moves`."""
    tables, seats = positions(players, tricks_left, count)
    figures: dict[str, object] = {"players": players, "tricks_left": tricks_left, "positions": count}
    for name, moves in (("solve", False), ("moves", True)):
        nodes: list[int] = []
        per_s = measure(lambda: rate(lambda: nodes.append(solve_all(tables, seats, moves)), count, time.process_time),
                        repeats, warmup)  # fmt: skip
        figures[f"{name}_per_s"] = per_s
        figures[f"{name}_us"] = round(1e6 / per_s.median, 2)
        figures[f"{name}_nodes"] = round(nodes[-1] / count, 1)
    return figures


def main() -> None:
    arguments = parser(__doc__)
    arguments.formatter_class = argparse.RawDescriptionHelpFormatter
    arguments.add_argument("--positions", type=int, default=1000, help="positions per cell")
    arguments.add_argument("--players", default=",".join(map(str, PLAYERS)))
    arguments.add_argument("--tricks", default=",".join(map(str, TRICKS_LEFT)), help="tricks left")
    args = arguments.parse_args()
    numba.set_num_threads(1)
    rows = [cell(players, tricks_left, args.positions, args.repeats, args.warmup)
            for players in map(int, args.players.split(","))
            for tricks_left in map(int, args.tricks.split(",")) if tricks_left <= 60 // players]  # fmt: skip
    lines = [f"{row['players']} players, {row['tricks_left']} tricks left: solve {row['solve_per_s'].text()}/s"
             f" ({row['solve_us']} us, {row['solve_nodes']} cards tried);"
             f" every move {row['moves_per_s'].text()}/s ({row['moves_us']} us, {row['moves_nodes']})" for row in rows]  # fmt: skip
    report({"rows": rows}, lines, args.json)


if __name__ == "__main__":
    main()
