"""wizard-sim: a fast, reproducible simulator of the card game Wizard."""
from importlib.metadata import PackageNotFoundError, version

from sim.cards import format_card, format_hand, parse_card, parse_cards
from sim.engine import GameBatch, draw_first_dealer, run_games, run_round
from sim.errors import ConfigError
from sim.estimate import BidEstimate, estimate, run_estimate
from sim.policies import parse_policies, parse_policy
from sim.rules import Rules
from sim.simulation import SimulationConfig, SimulationResult, resume, simulate

try:
    __version__ = version("wizard-sim")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"

__all__ = [
    "BidEstimate",
    "ConfigError",
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
