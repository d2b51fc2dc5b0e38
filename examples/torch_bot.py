"""A torch model bot (docs/bots.md): the pattern for any torch policy — numpy arrays in, a
tensor through the model, numpy actions out, a whole batch of decisions per call. Needs torch
(`pip install torch`; wizard-sim never installs it).

    wizard-sim tournament --policies examples.torch_bot:TorchBidder,heuristic,heuristic,heuristic --games 2000 --out /tmp/torch

(from the repository's root). The model here is examples/numpy_bot.py's linear bid model as a
torch.nn.Linear layer; put your trained network in its place (e.g. `torch.load` in __init__)
and keep act as it is. Its bids are LinearBidder's, except where the model's value lies
exactly halfway between two bids: torch sums in another order and may round the other way.
Cards and trump are played by `heuristic` (DECISIONS = ("bid",), inherited), inside the
compiled engine.
"""
from __future__ import annotations

import numpy as np
import torch

try:  # named as examples.torch_bot from the repository's root, or as torch_bot from examples/
    from examples.numpy_bot import LinearBidder, nearest_legal_bid
except ImportError:
    from numpy_bot import LinearBidder, nearest_legal_bid


class TorchBidder(LinearBidder):
    def __init__(self, side_scale: float = 1.0) -> None:
        super().__init__(side_scale)
        self.model = torch.nn.Linear(self.weights.shape[0], 1, bias=False, dtype=torch.float64)
        with torch.no_grad():
            self.model.weight.copy_(torch.from_numpy(self.weights)[None, :])
        self.model.eval()

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        features = torch.from_numpy(self.features(observations).astype(np.float64))
        with torch.inference_mode():
            mu = self.model(features)[:, 0].numpy()
        return nearest_legal_bid(mu, masks)
