"""estimate for the person's decision in `wizard-sim play` (sim.play.session):
the bid hint, estimate's figures for the exact situation at the table."""
from __future__ import annotations

from kernels.cards import FIRST_JESTER, FIRST_WIZARD
from kernels.records import BIDDING_OPEN
from kernels.rules import bid_position, seat_after
from sim.estimation.results import BidEstimate
from sim.estimation.run import run_estimate
from sim.estimation.situation import UNKNOWN_MODEL
from sim.config.errors import ConfigError
from sim.policies.registry import Policy, fallback_of
from sim.play.session import PlaySession


def simulated_label(policy: Policy) -> str:
    """The policy that stands for `policy` in the bid hint's simulation (mc: the heuristic; a
    Python policy: its fallback)."""
    if policy.kind.python is not None:
        return simulated_label(fallback_of(policy))
    return "heuristic" if policy.name == "mc" else policy.label


def bid_hint(session: PlaySession, policy: Policy, samples: int) -> BidEstimate:
    """estimate's figures for the person's bid in this exact situation (hand, turned-up
    card, trump, position, earlier bids, score pad, the opponents' policies); `policy`
    plays the person's cards in the simulation. An `mc` seat is simulated by `heuristic`,
    its rollout policy (estimate models an mc bidder by the heuristic already; mc playing
    1,000 samples of a 10-card hand took 16 s, docs/play.md). The exact opponent model
    first; when no sampled deal fits it, the tolerant one."""
    config = session.config
    players = config.rules.players
    table, seats, _ = session.state.records()
    dealer = int(table["dealer"])
    order = [int(seat_after(dealer, 1 + position, players)) for position in range(players)]  # seats by bidding position
    position = int(bid_position(config.seat, dealer, players))
    trump_card = int(table["trump_card"])
    options = {
        "trump": None if trump_card < 0 else trump_card,
        "trump_suit": int(table["trump"]) if FIRST_WIZARD <= trump_card < FIRST_JESTER else None,
        "players": players,
        "position": position,
        "bids": [int(table["bids"][seat]) for seat in order[:position]] if table["bidding"] == BIDDING_OPEN else [],
        "totals": [int(table["totals"][seat]) for seat in order],
        "opponents": [simulated_label(config.opponents[seat]) for seat in order if seat != config.seat],
        "policy": simulated_label(policy),
        "bidding": config.rules.bidding,
        "even_bids": config.rules.even_bids,
        "samples": samples,
        "seed": config.seed,
    }
    hand = int(seats[config.seat]["hand"])
    try:
        return run_estimate(hand, **options)
    except ConfigError:  # no deal fits the exact model: the unknown-opponents one (another error repeats)
        return run_estimate(hand, **UNKNOWN_MODEL, **options)
