"""PettingZoo AEC environment: every seat an agent, one episode a whole game."""
from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from sim.config.errors import ConfigError, echo
from sim.config.rules import Rules
from sim.config.seeds import check_seed
from sim.env import spaces
from sim.env.state_api import WizardGame, WizardState
from sim.env.vector import REWARD_MODES


def entropy_seed() -> int:
    """A fresh run seed from the operating system (no global random state)."""
    return int(np.random.SeedSequence().entropy % (2**63))


class WizardAECEnv(AECEnv):
    """Agents `player_0` .. `player_{N-1}` sit at seats 0..N-1. observe(agent) is a dict:
    "observation" (float32 [OBSERVATION_SIZE], that seat's view) and "action_mask" (int8
    [N_ACTIONS], all 0 unless it is the agent to act). Rewards: reward="round" gives every
    agent its round score when a round ends; "game" its final total at the end; "win" 1.0
    to each winner. An illegal action raises ValueError naming it.

    reset(seed=s) plays game 0 of run s; reset() without a seed plays the next game of the
    current run (game 0 of a seed from the operating system the first time)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "wizard_v0", "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        rounds: tuple[int, ...] | None = None,
        bidding: str = "open",
        even_bids: str = "allowed",
        first_dealer: str | int = "draw",
        reward: str = "round",
        seed: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, got {echo(reward)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode must be one of {self.metadata['render_modes']}, got {echo(render_mode)}")
        rules = Rules(players=players, rounds=rounds, bidding=bidding, even_bids=even_bids, first_dealer=first_dealer)
        self.game = WizardGame(rules)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._observation_space = spaces.observation_space()
        self._action_space = spaces.action_space()
        self._seed = seed
        self._next_game = 0
        self.state_: WizardState | None = None

    def observation_space(self, agent: str):
        return self._observation_space

    def action_space(self, agent: str):
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed, self._next_game = check_seed(seed), 0
        elif self._seed is None:
            self._seed = entropy_seed()
        self.state_ = self.game.new_state(self._seed, self._next_game)
        self._next_game += 1
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state_.current_player()]

    def observe(self, agent: str) -> dict:
        seat = self.agent_name_mapping[agent]
        observation, mask = self.state_._observe(seat)
        return {"observation": observation, "action_mask": mask.astype(np.int8)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        rounds_before = len(self.state_.history)
        self.state_.apply_action(action)  # checked there, as every driver checks an action
        self.rewards = {a: 0.0 for a in self.agents}
        if self.reward_mode == "round" and len(self.state_.history) != rounds_before:
            scores = self.state_.history[-1]["scores"]
            self.rewards = {a: float(scores[self.agent_name_mapping[a]]) for a in self.agents}
        if self.state_.is_terminal():
            totals = self.state_.totals()
            if self.reward_mode == "game":
                self.rewards = {a: float(totals[self.agent_name_mapping[a]]) for a in self.agents}
            elif self.reward_mode == "win":
                best = max(totals)
                self.rewards = {a: float(totals[self.agent_name_mapping[a]] == best) for a in self.agents}
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[self.state_.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None or self.state_ is None:
            return None
        text = str(self.state_)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
