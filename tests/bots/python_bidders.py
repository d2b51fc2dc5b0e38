"""Python policies (numpy) for tests/test_estimate_python.py and benchmarks/bench_estimate.py."""
import numpy as np

from kernels.observation import ACTION_BID0, ACTION_CARD0, ACTION_SUIT0, N_ACTIONS, OBS_HAND
from sim.policies.python_protocol import DELEGATE

WIZARD_IDS = slice(OBS_HAND + 52, OBS_HAND + 56)


class Delegator:
    """Hands every decision to its fallback, the heuristic: it must play exactly like it."""

    FALLBACK = "heuristic"

    def act(self, observations, masks):
        return np.full(observations.shape[0], DELEGATE, dtype=np.int64)


class Player(Delegator):
    """A Delegator not asked to name trump (its fallback names it, inside the kernels)."""

    DECISIONS = ("bid", "card")


class OneDelegator:
    """The per-decision form of Delegator."""

    def act_one(self, observation, mask):
        return DELEGATE


class WizardBidder:
    """Bids 1 per Wizard it holds (the nearest legal bid), names the suit of its lowest suited
    card as trump (clubs without one), and plays its lowest legal card."""

    def act(self, observations, masks):
        n = observations.shape[0]
        answers = np.empty(n, dtype=np.int64)
        bidding = masks[:, ACTION_BID0 : ACTION_BID0 + 21].any(axis=1)
        naming = masks[:, ACTION_SUIT0 : ACTION_SUIT0 + 4].any(axis=1)
        playing = ~(bidding | naming)
        wizards = observations[:, WIZARD_IDS].sum(axis=1).astype(np.int64)
        # The nearest legal bid (the lower one on a tie: argmin takes the first).
        distance = np.abs(np.arange(21) - wizards[:, None]) + np.where(masks[:, ACTION_BID0 : ACTION_BID0 + 21], 0, 99)
        answers[bidding] = ACTION_BID0 + distance[bidding].argmin(axis=1)
        hand = observations[:, OBS_HAND : OBS_HAND + 52] > 0
        lowest_suited = np.where(hand.any(axis=1), hand.argmax(axis=1) // 13, 0)
        answers[naming] = ACTION_SUIT0 + lowest_suited[naming]
        answers[playing] = ACTION_CARD0 + masks[playing, ACTION_CARD0 : ACTION_CARD0 + 60].argmax(axis=1)
        return answers


class WizardBidderCards(WizardBidder):
    """WizardBidder asked for its bids only: its cards are played by its fallback."""

    DECISIONS = ("bid",)


class Crasher:
    """Raises on its first card."""

    DECISIONS = ("card",)

    def act(self, observations, masks):
        raise RuntimeError("out of cheese")


class Cheater:
    """Bids one more than the round allows."""

    DECISIONS = ("bid",)

    def act(self, observations, masks):
        return np.full(observations.shape[0], N_ACTIONS + 3, dtype=np.int64)


class Recorder:
    """Delegates every decision and records the contexts it was shown and the games it was
    told were over."""

    def __init__(self):
        self.contexts = []
        self.over = []

    def act(self, observations, masks, context):
        self.contexts.append(context)
        return np.full(observations.shape[0], DELEGATE, dtype=np.int64)

    def game_over(self, games, seats, totals):
        self.over.append((games.copy(), seats.copy(), totals.copy()))
