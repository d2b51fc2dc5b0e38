"""wizard-sim: a fast, reproducible simulator of the card game Wizard."""
from sim.analysis.estimate import BidEstimate, EstimateRequest, estimate, run_estimate
from sim.config.cards import format_card, format_hand, parse_card, parse_cards
from sim.config.errors import ConfigError
from sim.config.policies import parse_policies, parse_policy
from sim.config.rules import Rules
from sim.config.version import __version__
from sim.runs.games import GameBatch, draw_first_dealer, run_games, run_round
from sim.runs.simulation import SimulationConfig, SimulationResult, resume, simulate

__all__ = [
    "BidEstimate",
    "ConfigError",
    "EstimateRequest",
    "GameBatch",
    "Rules",
    "SimulationConfig",
    "SimulationResult",
    "__version__",
    "draw_first_dealer",
    "estimate",
    "format_card",
    "format_hand",
    "parse_card",
    "parse_cards",
    "parse_policies",
    "parse_policy",
    "run_games",
    "resume",
    "run_estimate",
    "run_round",
    "simulate",
]
