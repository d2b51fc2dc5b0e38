"""Constructors of the standard interfaces; pettingzoo / gymnasium are imported only here,
when called (`pip install 'wizard-sim[rl]'`)."""
from __future__ import annotations


def aec_env(**options):
    """A PettingZoo AEC environment (sim.env.pettingzoo_env.WizardAECEnv), wrapped like
    PettingZoo's own env() constructors. Options: players, rounds, bidding, even_bids,
    first_dealer (the Rules fields), reward ("round", "game" or "win"), seed, render_mode."""
    from pettingzoo.utils import wrappers

    from sim.env.pettingzoo_env import WizardAECEnv

    return wrappers.OrderEnforcingWrapper(WizardAECEnv(**options))


def gym_env(**options):
    """A Gymnasium environment with one learning seat (sim.env.gymnasium_env.WizardGymEnv).
    Options: the Rules fields, seat, opponents, reward, illegal_action ("replace" or
    "raise"), seed, render_mode."""
    from sim.env.gymnasium_env import WizardGymEnv

    return WizardGymEnv(**options)
