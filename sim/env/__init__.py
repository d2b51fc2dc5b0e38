"""Drive Wizard one decision at a time from Python (docs/env.md).

- `WizardGame` / `WizardState`: the state API (OpenSpiel convention), one game; its chance
  events drawn from the seed as run_games draws them, or given by the caller (explicit chance).
- `VectorEnv`: B games stepped in parallel inside the kernels, the caller acting for chosen
  seats and built-in policies for the others (pgx / EnvPool convention).
- `aec_env(**options)`: a PettingZoo AEC environment; `gym_env(**options)`: a Gymnasium
  environment with one learning seat. Both need `pip install 'wizard-sim[rl]'`; they import
  pettingzoo / gymnasium only when called.
"""
from sim.env.adapters import aec_env, gym_env
from sim.env.layout import (
    ACTION_BID0,
    ACTION_CARD0,
    ACTION_SUIT0,
    N_ACTIONS,
    N_BIDS,
    OBSERVATION_FIELDS,
    OBSERVATION_OFFSETS,
    OBSERVATION_SIZE,
    action_name,
    decode_observation,
    field,
    observation_bounds,
    observation_layout_table,
)
from sim.env.state_api import CHANCE_PLAYER, TERMINAL_PLAYER, WizardGame, WizardState
from sim.env.vector import REWARD_MODES, VectorEnv

__all__ = [
    "ACTION_BID0",
    "ACTION_CARD0",
    "ACTION_SUIT0",
    "CHANCE_PLAYER",
    "N_ACTIONS",
    "N_BIDS",
    "OBSERVATION_FIELDS",
    "OBSERVATION_OFFSETS",
    "OBSERVATION_SIZE",
    "REWARD_MODES",
    "TERMINAL_PLAYER",
    "VectorEnv",
    "WizardGame",
    "WizardState",
    "action_name",
    "aec_env",
    "decode_observation",
    "field",
    "gym_env",
    "observation_bounds",
    "observation_layout_table",
]
