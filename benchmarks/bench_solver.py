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
entries of earlier positions stay). Times are the least CPU time (time.process_time) of
`--repeats` runs; the cards tried are exact and do not depend on the machine's load.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

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


def measure(players: int, tricks_left: int, count: int, repeats: int) -> dict:
    tables, seats = positions(players, tricks_left, count)
    figures = {"players": players, "tricks_left": tricks_left, "positions": count}
    for name, moves in (("solve", False), ("moves", True)):
        solve_all(tables[:2], seats[:2], moves)
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            nodes = solve_all(tables, seats, moves)
            best = min(best, time.process_time() - start)
        figures[f"{name}_per_s"] = round(count / best)
        figures[f"{name}_us"] = round(1e6 * best / count, 2)
        figures[f"{name}_nodes"] = round(nodes / count, 1)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=1000, help="positions per cell")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--players", default=",".join(map(str, PLAYERS)))
    parser.add_argument("--tricks", default=",".join(map(str, TRICKS_LEFT)), help="tricks left")
    parser.add_argument("--json", action="store_true", help="print one JSON list")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(1)
    rows = []
    for players in map(int, args.players.split(",")):
        for tricks_left in map(int, args.tricks.split(",")):
            if tricks_left > 60 // players:
                continue
            rows.append(measure(players, tricks_left, args.positions, args.repeats))
            if not args.json:
                row = rows[-1]
                print(
                    f"{players} players, {tricks_left} tricks left: solve {row['solve_per_s']:>9,}/s"
                    f" ({row['solve_us']:>8} us, {row['solve_nodes']:>8} cards tried);"
                    f" every move {row['moves_per_s']:>9,}/s ({row['moves_us']:>8} us, {row['moves_nodes']:>8})",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
