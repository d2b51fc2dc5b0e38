"""Cost of the posterior sampler (kernels/search/posterior.py, docs/inference.md): effective
samples per second and acceptance, one thread, 4 players, heuristic opponents, for 1, 2 and
3 earlier (visible) bids at round sizes 1, 5 and 10, exact and tolerant models.

    python -m benchmarks.bench_posterior                 # table
    python -m benchmarks.bench_posterior --json
    python -m benchmarks.bench_posterior --methods fixed,haldane,rejection   # compare methods

Each cell averages `--deals` real situations: a deal of the engine (game g of a fixed seed),
the dealer's trump choice and the heuristic bids of the positions before the deciding seat.
Per situation the sampler draws `--samples` samples; the effective sample size (Kish,
(sum w)^2 / sum w^2) is computed per situation (weights of different situations are not
comparable) and summed; the time includes `prepare` (with its pilot draws). Methods
(METHODS): the sampler with the fixed-tries estimator without rejection control (`fixed`),
with it (`-rc`: level = pilot acceptance, the sampler's defaults; `-rc2`: twice it), with Haldane's estimator
(`haldane`, k=2 or `-k3`), and plain `rejection` (deal every other seat uniformly, keep the
deal when every likelihood accepts it: exact, weight 1). `us/ESS+playout` charges each kept
sample PLAYOUT_US more, the cost of playing it out in `estimate`: the figure that matters
when every sample is played out. Each cell's sampler time is a range over --repeats passes
after --warmup (benchmarks.harness); the per-sample and per-ESS figures take its median.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from benchmarks.harness import measure, parser, report, seconds
from kernels.search import posterior as P
from kernels import round_state as R
from kernels import rules as K
from kernels import records as st
from kernels.policies import heuristic
from kernels.search.posterior import draw_cards
from kernels.rng import STREAM_DECISIONS, seed_stream, uniform
from sim.engine.startup import start

start()  # the engine's start, before any kernel or numba thread (sim/engine/startup.py)

PLAYERS = 4
ROUND_SIZES = (1, 5, 10)
EARLIER_BIDS = (1, 2, 3)
MODELS = {"exact": 0.0, "tolerant": 1.0}
# name: new_model arguments ("rejection": plain rejection instead of the sampler)
HALDANE = P.ESTIMATOR_HALDANE
METHODS = {
    "fixed": {"control": 0.0},
    "fixed-rc": {"control": 1.0},  # the defaults
    "fixed-rc2": {"control": 2.0},
    "fixed-m4-rc": {"expected_accepts": 4.0, "control": 1.0},
    "haldane": {"estimator": HALDANE, "control": 0.0},
    "haldane-k3": {"estimator": HALDANE, "acceptances": 3, "control": 0.0},
    "haldane-rc": {"estimator": HALDANE, "control": 1.0},
    "haldane-k3-rc": {"estimator": HALDANE, "acceptances": 3, "control": 1.0},
    "rejection": {"rejection": True},
}
DEFAULT_METHODS = "fixed,fixed-rc,haldane,rejection"
PLAYOUT_US = 15.0  # a play-out per kept sample in `estimate` (docs/inference.md)


def situation(round_size: int, position: int, game: int, players: int = PLAYERS):
    """(table storage, seats) of a real deal with the heuristic's bids up to `position`."""
    rules = np.zeros(1, dtype=st.RULES_DTYPE)
    rules["n_players"] = players
    storage = np.zeros(1, dtype=st.TABLE_DTYPE)
    storage["n_players"] = players
    seats = np.zeros(st.MAX_PLAYERS, dtype=st.SEAT_DTYPE)
    scratch = np.zeros(1, dtype=st.SCRATCH_DTYPE)
    table = storage[0]
    R.begin_round(table, seats, round_size, players - 1)
    R.deal_round(4242, game, table, seats, scratch[0])
    if table["phase"] == st.PHASE_TRUMP:
        R.apply_trump(table, heuristic.choose_trump(seats[players - 1]["hand"]))
    params = P.new_model(players)["params"][0]
    for p in range(position):
        seat = K.bidder_at(table, p)
        legal = R.legal_actions(table, seats)
        R.apply_bid(table, seats, heuristic.choose_bid(params, seats[seat], table, legal))
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


def measure_cell(round_size, position, spread, method, deals, samples, repeats, warmup, players=PLAYERS):
    """One cell: seconds of the sampler over its situations, a range over `repeats` passes
    after `warmup` (benchmarks.harness), and the draws' statistics (the same every pass)."""
    arguments = dict(METHODS[method])
    rejection = arguments.pop("rejection", False)
    model = P.new_model(players, spread=spread, **arguments)
    situations = [situation(round_size, position, game, players) for game in range(deals)]
    weights = np.zeros(samples)
    draws: dict[str, float] = {}

    def one_pass() -> float:
        draws.update(ess=0.0, proposals=0, rejected=0)
        elapsed = 0.0
        for game, (storage, seats) in enumerate(situations):
            me = seats[K.bidder_at(storage[0], position)]
            generator = np.empty(1, dtype=np.uint64)
            seed_stream(generator, 1, game, round_size, STREAM_DECISIONS)
            proposals: list[int] = []
            elapsed += seconds(lambda: proposals.append(run(me, storage[0], model[0], rejection, samples, generator, weights)))
            draws["proposals"] += proposals[0]
            draws["ess"] += P.effective_samples(weights)
            draws["rejected"] += int((weights == 0).sum())
        return elapsed

    elapsed = measure(one_pass, repeats, warmup, digits=6)
    ess, proposals, rejected = draws["ess"], draws["proposals"], draws["rejected"]
    n = deals * samples
    kept = n - rejected
    return {
        "players": players,
        "round_size": round_size,
        "earlier_bids": position,
        "model": "exact" if spread == 0 else f"tolerant(spread={spread:g})",
        "method": method,
        "samples": n,
        "seconds": elapsed,
        "us_per_sample": round(1e6 * elapsed.median / n, 3),
        "ess_fraction": round(ess / n, 3),
        "ess_per_s": round(ess / elapsed.median),
        "proposals_per_ess": round(proposals / ess, 2),
        # Cost of one effective sample when every kept sample is also played out (PLAYOUT_US).
        "us_per_ess_with_playout": round((1e6 * elapsed.median + PLAYOUT_US * kept) / ess, 2),
        "proposals_per_sample": round(proposals / n, 2),
        "acceptance": round((n - rejected) * position / max(proposals, 1), 3),
        "rejected": rejected,
    }


def main() -> None:
    arguments = parser(__doc__.split("\n\n")[0])
    arguments.add_argument("--deals", type=int, default=16, help="situations per cell")
    arguments.add_argument("--samples", type=int, default=20_000, help="samples per situation")
    arguments.add_argument("--methods", default=DEFAULT_METHODS, help="comma-separated: " + ",".join(METHODS))
    arguments.add_argument("--players", type=int, default=PLAYERS)
    arguments.add_argument("--rounds", default=",".join(map(str, ROUND_SIZES)), help="round sizes")
    arguments.add_argument("--bids", default=",".join(map(str, EARLIER_BIDS)), help="numbers of earlier bids")
    arguments.add_argument("--models", default=",".join(MODELS), help="exact,tolerant")
    args = arguments.parse_args()
    rows = [measure_cell(round_size, position, MODELS[model], method, args.deals, args.samples, args.repeats,
                         args.warmup, args.players)
            for model in args.models.split(",") for round_size in map(int, args.rounds.split(","))
            for position in map(int, args.bids.split(",")) for method in args.methods.split(",")]  # fmt: skip
    lines = [f"{r['model']:>22} r={r['round_size']:<2} bids={r['earlier_bids']} {r['method']:>9}: "
             f"{r['us_per_sample']:7.3f} us/sample  ESS {r['ess_fraction']:.3f}  "
             f"{r['ess_per_s']:>10,} ESS/s  {r['proposals_per_sample']:6.2f} prop/sample {r['proposals_per_ess']:6.2f} prop/ESS "
             f"{r['us_per_ess_with_playout']:6.2f} us/ESS+playout  "
             f"acceptance {r['acceptance']:.3f}  rejected {r['rejected']}" for r in rows]  # fmt: skip
    report({"players": args.players, "deals": args.deals, "samples": args.samples, "rows": rows}, lines, args.json)


if __name__ == "__main__":
    main()
