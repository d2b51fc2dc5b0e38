"""Cost of the posterior sampler (kernels/posterior.py, docs/inference.md): effective
samples per second and acceptance, one thread, 4 players, heuristic opponents, for 1, 2 and
3 earlier (visible) bids at round sizes 1, 5 and 10, exact and tolerant models.

    python benchmarks/bench_posterior.py                 # table
    python benchmarks/bench_posterior.py --json
    python benchmarks/bench_posterior.py --methods sis,sis-k3,rejection   # compare methods

Each cell averages `--deals` real situations: a deal of the engine (game g of a fixed seed),
the dealer's trump choice and the heuristic bids of the positions before the deciding seat.
Per situation the sampler draws `--samples` samples; the effective sample size (Kish,
(sum w)^2 / sum w^2) is computed per situation (weights of different situations are not
comparable) and summed; the time includes `prepare` (with its pilot draws). Methods: `sis`
(the sampler's defaults: Haldane k=2, 32 pilot draws per constrained seat), `sis-k3`, `sis-k4`
(k=3, 4), `sis-nopilot` (constrained seats in bidding order) and `rejection` (deal every other seat uniformly, keep the deal when every
likelihood accepts it: exact, weight 1, no Haldane factor).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from kernels import posterior as P  # noqa: E402
from kernels import rules as K  # noqa: E402
from kernels import state as st  # noqa: E402
from kernels.bits import popcount  # noqa: E402
from kernels.policies import heuristic  # noqa: E402
from kernels.policies.mc import draw_cards  # noqa: E402
from kernels.rng import new_stream, uniform  # noqa: E402

PLAYERS = 4
ROUND_SIZES = (1, 5, 10)
EARLIER_BIDS = (1, 2, 3)
MODELS = {"exact": 0.0, "tolerant": 1.0}
# name: (Haldane k, pilot draws per constrained seat, plain rejection)
METHODS = {
    "sis": (2, 32, False),
    "sis-nopilot": (2, 0, False),
    "sis-k3": (3, 32, False),
    "sis-k4": (4, 32, False),
    "rejection": (2, 0, True),
    "sis-rc": (2, 32, False, 1.0),
    "sis-k3-rc": (3, 32, False, 1.0),
    "sis-rc2": (2, 32, False, 2.0),
}
PLAYOUT_US = 15.0  # a play-out per kept sample in `estimate` (docs/inference.md)


def situation(round_size: int, position: int, game: int):
    """(table storage, seats) of a real deal with the heuristic's bids up to `position`."""
    rules = np.zeros(1, dtype=st.RULES_DTYPE)
    rules["n_players"] = PLAYERS
    storage = np.zeros(1, dtype=st.TABLE_DTYPE)
    storage["n_players"] = PLAYERS
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    scratch = np.zeros(1, dtype=st.SCRATCH_DTYPE)
    table = storage[0]
    K.start_round(table, seats, round_size, PLAYERS - 1)
    K.deal(4242, game, table, seats, scratch[0])
    trump = K.trump_of_turned_card(table["trump_card"])
    if trump == st.DEALER_CHOOSES_TRUMP:
        trump = heuristic.choose_trump(seats[PLAYERS - 1]["hand"])
    table["trump"] = trump
    params = P.new_model(PLAYERS)["params"][0]
    for p in range(position):
        seat = K.bidder_at(table, p)
        legal = K.legal_bids(table, seats, p)
        K.apply_bid(table, seats, seat, heuristic.choose_bid(params, seats[seat], table, legal))
    return storage, seats


@njit(cache=True)
def rejection_deal(model, work, hands, generator):
    """Plain rejection: deal every other seat uniformly (no voids here), accept when every
    constrained seat's likelihood accepts."""
    proposals = 0
    while proposals < model.max_proposals:
        remaining = work.pool
        for i in range(work.n_order):
            seat = work.order[i]
            hands[seat] = draw_cards(work.allowed[seat] & remaining, work.need[seat], generator)
            remaining &= ~hands[seat]
        accepted = True
        for i in range(work.n_constrained):
            seat = work.order[i]
            value = P.acceptance(model, work, seat, hands[seat] | work.played_by[seat])
            proposals += 1
            if value < 1.0 and (value == 0.0 or uniform(generator) >= value):
                accepted = False
                break
        if accepted:
            hands[work.me_seat] = work.me_hand
            return 1.0, proposals
    return 0.0, proposals


@njit(cache=True)
def run(me, table, model, rejection, n_samples, generator, weights):
    storage = P.new_work()
    work = storage[0]
    P.prepare(me, table, model, work, generator)
    hands = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    proposals = 0
    for i in range(n_samples):
        if rejection:
            weight, drawn = rejection_deal(model, work, hands, generator)
        else:
            weight, drawn = P.sample_deal(model, work, hands, generator)
        weights[i] = weight
        proposals += drawn
    return proposals


def measure(round_size, position, spread, method, deals, samples):
    k, pilot, rejection, *control = METHODS[method]
    model = P.new_model(PLAYERS, spread=spread, acceptances=k, pilot=pilot, control=control[0] if control else 0.0)
    ess = 0.0
    proposals = 0
    rejected = 0
    elapsed = 0.0
    weights = np.zeros(samples)
    for game in range(deals):
        storage, seats = situation(round_size, position, game)
        me = seats[K.bidder_at(storage[0], position)]
        generator = new_stream(1, game, round_size, 77)
        start = time.perf_counter()
        proposals += run(me, storage[0], model[0], rejection, samples, generator, weights)
        elapsed += time.perf_counter() - start
        ess += P.effective_samples(weights)
        rejected += int((weights == 0).sum())
    n = deals * samples
    kept = n - rejected
    return {
        "round_size": round_size,
        "earlier_bids": position,
        "model": "exact" if spread == 0 else f"tolerant(spread={spread:g})",
        "method": method,
        "samples": n,
        "us_per_sample": round(1e6 * elapsed / n, 3),
        "ess_fraction": round(ess / n, 3),
        "ess_per_s": round(ess / elapsed),
        "proposals_per_ess": round(proposals / ess, 2),
        # Cost of one effective sample when every kept sample is also played out (PLAYOUT_US).
        "us_per_ess_with_playout": round((1e6 * elapsed + PLAYOUT_US * kept) / ess, 2),
        "proposals_per_sample": round(proposals / n, 2),
        "acceptance": round((n - rejected) * position / max(proposals, 1), 3),
        "rejected": rejected,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=16, help="situations per cell")
    parser.add_argument("--samples", type=int, default=20_000, help="samples per situation")
    parser.add_argument("--methods", default="sis", help="comma-separated: " + ",".join(METHODS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    methods = args.methods.split(",")
    # Compile outside the timing.
    measure(1, 1, 0.0, "sis", 1, 10)
    measure(1, 1, 0.0, "rejection", 1, 10)
    rows = []
    for model, spread in MODELS.items():
        for round_size in ROUND_SIZES:
            for position in EARLIER_BIDS:
                for method in methods:
                    rows.append(measure(round_size, position, spread, method, args.deals, args.samples))
                    if not args.json:
                        r = rows[-1]
                        print(
                            f"{r['model']:>22} r={round_size:<2} bids={position} {method:>9}: "
                            f"{r['us_per_sample']:7.3f} us/sample  ESS {r['ess_fraction']:.3f}  "
                            f"{r['ess_per_s']:>10,} ESS/s  {r['proposals_per_sample']:6.2f} prop/sample {r['proposals_per_ess']:6.2f} prop/ESS "
                            f"{r['us_per_ess_with_playout']:6.2f} us/ESS+playout  "
                            f"acceptance {r['acceptance']:.3f}  rejected {r['rejected']}",
                            flush=True,
                        )
    if args.json:
        print(json.dumps({"players": PLAYERS, "deals": args.deals, "samples": args.samples, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
