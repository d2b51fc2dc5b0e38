"""A wizard-sim policy as an OpenSpiel bot: `PolicyBot(game, "learned")` plays python_wizard
(docs/openspiel.md, docs/learned.md).

Any policy the environments seat (the built-in ones, `learned`, `learned:model=DIR`) answers
for the player to act, asked as run_games asks it (sim.env.state_api.policy_action, through
the policy's engine), on a clone of the state: the state's own random stream is left as it is. `learned` draws no random number; a policy that does (random, mc) draws it from the
state's copy, so its answer is a function of the state.
"""
from __future__ import annotations

import pyspiel

from sim.env.state_api import environment_seating, policy_action
from sim.openspiel.game import OpenSpielWizardGame, OpenSpielWizardState


class PolicyBot(pyspiel.Bot):
    """`policy` (text) at every seat it is asked for, in games of `game` (python_wizard)."""

    def __init__(self, game: OpenSpielWizardGame, policy: str = "learned") -> None:
        pyspiel.Bot.__init__(self)
        players = game.rules.players
        self.seating = environment_seating([policy] * players, players)

    def step(self, state: OpenSpielWizardState) -> int:
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("PolicyBot acts at a player's decision, not at a chance node or a finished game")
        return policy_action(state.state_api.clone(), self.seating)

    def restart_at(self, state: OpenSpielWizardState) -> None:
        pass

    def inform_action(self, state: OpenSpielWizardState, player_id: int, action: int) -> None:
        pass
