"""Gymnasium environment: one learning seat, the other seats played by built-in policies
inside the kernels (the single-game path of kernels.vector_env)."""
from __future__ import annotations

import gymnasium
import numpy as np

from kernels import vector_env
from kernels.records import MAX_PLAYERS
from sim.config.actions import check_action
from sim.config.errors import ConfigError, echo
from sim.config.rules import Rules, is_whole_number
from sim.config.seeds import check_seed
from sim.env import spaces
from sim.env.layout import N_ACTIONS, OBSERVATION_SIZE, action_name
from sim.env.state_api import environment_seating, new_game_states
from sim.env.vector import REWARD_MODES

ILLEGAL_ACTIONS = ("replace", "raise")


class WizardGymEnv(gymnasium.Env):
    """The learning seat `seat` against `opponents` (a built-in policy spec). Observation: a
    dict of "observation" (float32 [OBSERVATION_SIZE]) and "action_mask" (int8 [N_ACTIONS]).
    Rewards as VectorEnv's (`reward` = "round", "game" or "win"). An episode is one game.

    Illegal actions: with illegal_action="replace" (default; Gymnasium's checker samples
    unmasked actions) an illegal action is replaced by the lowest legal one and the step's
    info says so (info["illegal_action"] = True); with "raise" it raises ValueError.

    reset(seed=s) plays game 0 of run s; reset() without a seed the next game of the run
    (the first time: a run seed drawn from the environment's own np_random)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        players: int = 4,
        rounds: tuple[int, ...] | None = None,
        bidding: str = "open",
        even_bids: str = "allowed",
        first_dealer: str | int = "draw",
        seat: int = 0,
        opponents: str | list[str] = "heuristic",
        reward: str = "round",
        illegal_action: str = "replace",
        render_mode: str | None = None,
    ) -> None:
        self.rules = Rules(
            players=players, rounds=rounds, bidding=bidding, even_bids=even_bids, first_dealer=first_dealer
        )
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, got {echo(reward)}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ConfigError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, got {echo(illegal_action)}")
        if not is_whole_number(seat) or not 0 <= seat < players:
            raise ConfigError(f"seat must be 0..{players - 1}, got {echo(seat)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}, got {echo(render_mode)}")
        self.seat = int(seat)
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.observation_space = spaces.observation_space()
        self.action_space = spaces.action_space()
        self._seating = environment_seating(opponents, self.rules.players)  # the opponents' engine
        self._storage = new_game_states(self.rules, 1, 0, policies=self._seating, controlled=(seat,))
        self._run_seed: int | None = None
        self._next_game = 0
        self._observation = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._mask = np.zeros(N_ACTIONS, dtype=np.bool_)
        self._over = True

    def _observe(self) -> dict:
        return {"observation": self._observation.copy(), "action_mask": self._mask.astype(np.int8)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = check_seed(seed)  # the kernels take it as an int64: checked before gymnasium seeds with it
        super().reset(seed=seed)
        if seed is not None:
            self._run_seed, self._next_game = seed, 0
        elif self._run_seed is None:
            self._run_seed = int(self.np_random.integers(2**63 - 1))
        self._storage["seed"] = self._run_seed
        game = self._next_game
        self._next_game += 1
        self._seating.kernel(vector_env.reset_single)(self._storage, game, self._observation, self._mask)
        self._over = False
        return self._observe(), {"seat": self.seat, "game": game}

    def step(self, action):
        if self._over:
            raise RuntimeError("the game is over: call reset()")
        # Not an action of the space (60.5, "60", 85): refused in either mode, as every driver
        # refuses it; "replace" is for an action of the space that is not legal now.
        action = check_action(action)
        info: dict = {"illegal_action": False}
        if not self._mask[action]:
            if self.illegal_action == "raise":
                raise ValueError(f"illegal action {action} ({action_name(action)}); legal: {np.flatnonzero(self._mask).tolist()}")
            action = int(np.flatnonzero(self._mask)[0])
            info["illegal_action"] = True
        final_totals = np.zeros(MAX_PLAYERS, dtype=np.int64)
        _, reward, over, _ = self._seating.kernel(vector_env.step_single)(
            self._storage, action, REWARD_MODES[self.reward_mode], self._observation, self._mask, final_totals
        )
        self._over = bool(over)
        if over:
            info["final_totals"] = final_totals[: self.rules.players].copy()
        return self._observe(), float(reward), bool(over), False, info

    def render(self):
        if self.render_mode != "ansi":
            return None
        table = self._storage["workspace"]["table"][0]
        totals = table["totals"][: self.rules.players].tolist()
        return f"game {int(self._storage['game'][0])}, round of {int(table['round_size'])} cards, totals {totals}"
