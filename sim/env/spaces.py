"""The Gymnasium spaces shared by both interfaces (imported only by them)."""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from sim.env.layout import N_ACTIONS, observation_bounds


def observation_space() -> spaces.Dict:
    """PettingZoo's masking convention: the vector and a 0/1 int8 mask of legal actions."""
    low, high = observation_bounds()
    return spaces.Dict(
        {
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
        }
    )


def action_space() -> spaces.Discrete:
    return spaces.Discrete(N_ACTIONS)
