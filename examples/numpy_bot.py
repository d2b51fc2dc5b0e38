"""A numpy model bot (docs/bots.md): bids with a linear model over the observation, a whole
batch of decisions per call; the cards (and the trump choice) are played by `heuristic`.

    wizard-sim tournament --policies examples.numpy_bot:LinearBidder,heuristic,heuristic,heuristic --games 2000 --out /tmp/lin
    wizard-sim tournament --policies examples.numpy_bot:LinearBidder:side_scale=0.7,heuristic,random,random --games 2000 --out /tmp/lin2

(from the repository's root; elsewhere put this directory on PYTHONPATH and name it
`numpy_bot:LinearBidder`).

The model: the tricks a hand takes, mu = x . w over features x of the observation — the
trumps it holds by rank, its side cards by rank (scaled by 4 / players: side cards win
less often at a bigger table), Wizards and Jesters — and the bid is the legal bid nearest mu.
The weights are fixed, set by hand and listed below (a Wizard is almost a sure trick, a trump
ace nearly, a side ace less so, a low card almost never); examples/train_bid_model.py shows
how to learn such weights with sim.env.VectorEnv and could supply them instead.

DECISIONS = ("bid",): the bot is asked only for bids; every other decision is made by its
FALLBACK inside the compiled engine, at full speed.
"""
from __future__ import annotations

import numpy as np

from sim.env import ACTION_BID0, ACTION_SUIT0, field

N_SUITS, N_RANKS = 4, 13
FIRST_WIZARD, FIRST_JESTER = 52, 56
# Expected tricks of one card, by rank 2..A.
TRUMP_WEIGHTS = np.array([0.25, 0.25, 0.3, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.65, 0.75, 0.85, 0.95])
SIDE_WEIGHTS = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.75])
WIZARD_WEIGHT = 0.95
JESTER_WEIGHT = 0.0


class LinearBidder:
    DECISIONS = ("bid",)
    FALLBACK = "heuristic"
    PARAMETERS = (("side_scale", 1.0),)  # multiplies the side cards' weights

    def __init__(self, side_scale: float = 1.0) -> None:
        self.weights = np.concatenate([TRUMP_WEIGHTS, SIDE_WEIGHTS * side_scale, [WIZARD_WEIGHT, JESTER_WEIGHT]])

    @staticmethod
    def features(observations: np.ndarray) -> np.ndarray:
        """[n, 28]: trumps held by rank, side cards by rank (x 4 / players), Wizards, Jesters."""
        hand = field(observations, "hand")
        suited = hand[:, :FIRST_WIZARD].reshape(-1, N_SUITS, N_RANKS)
        trump = field(observations, "trump")[:, :N_SUITS]  # all 0: no trump
        trumps = np.einsum("nsr,ns->nr", suited, trump)
        players = field(observations, "players").argmax(axis=1) + 3.0
        side = (suited.sum(axis=1) - trumps) * (4.0 / players)[:, None]
        specials = np.stack([hand[:, FIRST_WIZARD:FIRST_JESTER].sum(axis=1), hand[:, FIRST_JESTER:].sum(axis=1)], axis=1)
        return np.concatenate([trumps, side, specials], axis=1)

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return nearest_legal_bid(self.features(observations) @ self.weights, masks)


def nearest_legal_bid(mu: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The flat action of the legal bid nearest mu[i] in each row (the lower one on a tie)."""
    bids = np.arange(ACTION_SUIT0 - ACTION_BID0)
    distance = np.abs(bids[None, :] - mu[:, None])
    distance[~masks[:, ACTION_BID0:ACTION_SUIT0]] = np.inf
    return ACTION_BID0 + distance.argmin(axis=1)
