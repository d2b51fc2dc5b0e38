"""A bot that bids at random and plays as the heuristic: every bid uniform over the legal bids,
trump and cards by its FALLBACK inside the engine (`DECISIONS = ("bid",)`, docs/bots.md).

Its "random" bid is a hash of the observation it is shown, so it is a pure function of what
the seat sees and a run stays reproducible (no random state of its own). It separates a
seat's bids from its play: pimc's learned inference (`learn_bids`, on by default) reads
such a seat's bids as random, and its cards are the heuristic's, which is what pimc's
playouts assume (docs/pimc.md, "Learned inference").

    wizard-sim tournament --policies pimc:ess_fallback=0,uniform_when_all_dealt=0,uniform_when_most_dealt=0,heuristic,\
        heuristic,examples.random_bidder:RandomBidder --games 1000 --out runs/probe
"""
from __future__ import annotations

import hashlib

import numpy as np


class RandomBidder:
    DECISIONS = ("bid",)
    FALLBACK = "heuristic"

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions = np.empty(len(masks), dtype=np.int64)
        for row in range(len(masks)):
            legal = np.flatnonzero(masks[row])
            digest = hashlib.blake2b(observations[row].tobytes(), digest_size=8).digest()
            actions[row] = legal[int.from_bytes(digest, "little") % len(legal)]
        return actions
