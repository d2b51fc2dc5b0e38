"""The estimate's calibration against heuristic self-play (results/calibration.json and .png).

Round 1 of 4-player heuristic self-play: play is forced, so whether a card takes the trick
depends on the cards alone. Pooled by suit symmetry over the games with a 5 turned up, each
situation class ("a Wizard bidding second after a first bid of 1", ...) gives the self-play
frequency of taking the trick with its standard error, next to estimate's P(make 1) for the
class's hand and bids (trump card 5H) with inference and with infer=False.

z = (estimate - self-play) / sqrt(p (1 - p) / games + SE(estimate)^2) with p the estimate: the
deviation in standard errors if the estimate is right (defined when self-play is 0% or 100%).

tests/test_estimate.py checks a small version of the claim; `python -m benchmarks.bench_estimate
--calibration` prints the large one, and `python -m experiments.regenerate_results` publishes it.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from kernels.cards import ACE, FIRST_JESTER, FIRST_WIZARD, LOWEST_RANK, RANKS_PER_SUIT
from sim.config.errors import ConfigError
from sim.config.rules import Rules
from sim.estimation.run import run_estimate
from sim.runs.games import run_games

PLAYERS = 4
CALIBRATION_SEED = 11
TRUMP = "5H"  # the estimate's turned-up card: a 5, as in the self-play games counted


class SituationClass(NamedTuple):
    """Self-play situations pooled over suits, and the estimate that stands for them."""

    label: str
    hand: str  # the estimate's hand, with trump card TRUMP
    position: int  # bidding position
    bids: tuple[int, ...]  # the bids before it
    kind: str  # the card held, a kind of card_class


CALIBRATION_CLASSES: tuple[SituationClass, ...] = (
    SituationClass("a Wizard, bidding second after a bid of 1", "W", 1, (1,), "wizard"),
    SituationClass("a Wizard, bidding second after a bid of 0", "W", 1, (0,), "wizard"),
    SituationClass("a Wizard, bidding third after bids 1, 1", "W", 2, (1, 1), "wizard"),
    SituationClass("a non-trump King, bidding first", "KS", 0, (), "offsuit king"),
    SituationClass("a non-trump King, bidding second after a bid of 0", "KS", 1, (0,), "offsuit king"),
    SituationClass("a non-trump King, bidding second after a bid of 1", "KS", 1, (1,), "offsuit king"),
    SituationClass("a non-trump King, the dealer after bids 0, 0, 0", "KS", 3, (0, 0, 0), "offsuit king"),
    SituationClass("a non-trump Queen, bidding third after bids 0, 1", "QS", 2, (0, 1), "offsuit queen"),
    SituationClass("a trump 9, bidding second after a bid of 1", "9H", 1, (1,), "trump 9"),
    SituationClass("a trump Ace, bidding third after bids 0, 0", "AH", 2, (0, 0), "trump ace"),
)


@dataclass(frozen=True)
class RoundOnePlay:
    """Round 1 of self-play games: per game and bidding position the card held, the bid and
    the tricks taken ([game, position]), and the turned-up card ([game])."""

    card: np.ndarray
    bid: np.ndarray
    won: np.ndarray
    turned: np.ndarray


def self_play_round_one(games: int, seed: int, chunk: int = 1_000_000) -> RoundOnePlay:
    """Games 0..games-1 of a 4-player heuristic self-play run of round 1 only, played in
    chunks of `chunk` games of the same run (memory)."""
    parts: dict[str, list[np.ndarray]] = {"card": [], "bid": [], "won": [], "turned": []}
    for first in range(0, games, chunk):
        batch = run_games(Rules(players=PLAYERS, rounds=[1]), "heuristic", seed=seed, games=min(chunk, games - first),
                          first_game=first)  # fmt: skip
        hands, bids, tricks = (batch.seats[field][:, 0, :] for field in ("hand", "bid", "tricks"))
        dealer = batch.rounds["dealer"][:, 0].astype(np.int64)
        rows = np.arange(dealer.shape[0])[:, None]
        seats = (dealer[:, None] + 1 + np.arange(PLAYERS)[None, :]) % PLAYERS  # [game, position]
        parts["card"].append(np.log2(hands[rows, seats].astype(np.float64)).round().astype(np.int64))
        parts["bid"].append(bids[rows, seats].astype(np.int64))
        parts["won"].append(tricks[rows, seats].astype(np.int64))
        parts["turned"].append(batch.rounds["trump_card"][:, 0].astype(np.int64))
    return RoundOnePlay(**{name: np.concatenate(values) for name, values in parts.items()})


def card_class(kind: str, card: np.ndarray, turned_suit: np.ndarray) -> np.ndarray:
    """Which of the cards (ids) are of `kind`, the turned-up card's suit being trump."""
    suited = card < FIRST_WIZARD
    rank, suit = card % RANKS_PER_SUIT + LOWEST_RANK, card // RANKS_PER_SUIT
    return {
        "wizard": (card >= FIRST_WIZARD) & (card < FIRST_JESTER),
        "offsuit king": suited & (rank == 13) & (suit != turned_suit),
        "offsuit queen": suited & (rank == 12) & (suit != turned_suit),
        "trump 9": suited & (rank == 9) & (suit == turned_suit),
        "trump ace": suited & (rank == ACE) & (suit == turned_suit),
    }[kind]


def in_class(play: RoundOnePlay, situation: SituationClass) -> np.ndarray:
    """The games of `play` in `situation`: a 5 of any suit turned up, the card of its kind held
    at its position, and its earlier bids made."""
    turned = play.turned
    five = (turned >= 0) & (turned < FIRST_WIZARD) & (turned % RANKS_PER_SUIT + LOWEST_RANK == 5)
    selected = five & card_class(situation.kind, play.card[:, situation.position], turned // RANKS_PER_SUIT)
    for earlier, bid in enumerate(situation.bids):
        selected &= play.bid[:, earlier] == bid
    return selected


def calibration(games: int, samples: int, seed: int = CALIBRATION_SEED, estimate_seed: int = 3) -> dict[str, Any]:
    """Self-play frequency of taking the trick vs estimate's P(make 1), per situation class of
    CALIBRATION_CLASSES: `games` self-play games of `seed`, estimates of `samples` samples of
    `estimate_seed` (the form of results/calibration.json's figures)."""
    start = time.perf_counter()
    play = self_play_round_one(games, seed)
    play_seconds = time.perf_counter() - start
    rows = []
    for situation in CALIBRATION_CLASSES:
        selected = in_class(play, situation)
        count = int(selected.sum())
        frequency = float(play.won[selected, situation.position].mean()) if count else None
        row: dict[str, Any] = {
            "situation": situation.label, "hand": situation.hand, "trump": TRUMP, "position": situation.position,
            "bids": list(situation.bids), "games": count, "self_play": frequency,
            "self_play_se": math.sqrt(frequency * (1 - frequency) / count) if count else None,
        }  # fmt: skip
        for name, infer in (("estimate", True), ("no_infer", False)):
            try:
                result = run_estimate(situation.hand, trump=TRUMP, players=PLAYERS, position=situation.position,
                                      bids=situation.bids, samples=samples, seed=estimate_seed, infer=infer)  # fmt: skip
            except ConfigError:  # no consistent deal (a class self-play never produced)
                row[name] = row[f"{name}_se"] = None
                continue
            p = result.stats[1].p_make
            row[name] = p
            row[f"{name}_se"] = math.sqrt(p * (1 - p) / result.effective_samples)
            if infer:
                row["effective_samples"] = round(result.effective_samples, 1)
        if count and row["estimate"] is not None:  # z under the hypothesis that the estimate is right
            predicted = row["estimate"]
            sigma = math.sqrt(predicted * (1 - predicted) / count + row["estimate_se"] ** 2)
            row["z"] = round((predicted - frequency) / sigma, 2) if sigma > 0 else 0.0
        rows.append(row)
    return {"games": games, "seed": seed, "samples": samples, "estimate_seed": estimate_seed, "players": PLAYERS,
            "self_play_seconds": round(play_seconds, 2), "classes": rows}  # fmt: skip
