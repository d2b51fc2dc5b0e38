"""wizard-sim: a fast, reproducible simulator of the card game Wizard.

The public API, loaded on first use (PEP 562): `import sim` costs nothing, so that the command
line starts by handling Ctrl-C (sim.cli.main) before numba, numpy and pandas load."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# name -> the module that defines it
_EXPORTS = {
    "BidEstimate": "sim.estimation.results",
    "EstimateRequest": "sim.estimation.request",
    "estimate": "sim.estimation.run",
    "run_estimate": "sim.estimation.run",
    "format_card": "sim.config.cards",
    "format_hand": "sim.config.cards",
    "parse_card": "sim.config.cards",
    "parse_cards": "sim.config.cards",
    "ConfigError": "sim.config.errors",
    "Rules": "sim.config.rules",
    "__version__": "sim.config.version",
    "parse_policies": "sim.policies.registry",
    "parse_policy": "sim.policies.registry",
    "GameBatch": "sim.runs.games",
    "draw_first_dealer": "sim.runs.games",
    "run_games": "sim.runs.games",
    "run_round": "sim.runs.games",
    "LeagueConfig": "sim.runs.league",
    "LeagueResult": "sim.runs.league",
    "league": "sim.runs.league",
    "resume_league": "sim.runs.league",
    "SimulationConfig": "sim.runs.simulation",
    "SimulationResult": "sim.runs.simulation",
    "resume": "sim.runs.simulation",
    "simulate": "sim.runs.simulation",
    "Sprt": "sim.stats.sprt",
    "TournamentConfig": "sim.runs.tournament",
    "TournamentResult": "sim.runs.tournament",
    "resume_tournament": "sim.runs.tournament",
    "tournament": "sim.runs.tournament",
}

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from sim.estimation.request import EstimateRequest
    from sim.estimation.results import BidEstimate
    from sim.estimation.run import estimate, run_estimate
    from sim.config.cards import format_card, format_hand, parse_card, parse_cards
    from sim.config.errors import ConfigError
    from sim.config.rules import Rules
    from sim.config.version import __version__
    from sim.policies.registry import parse_policies, parse_policy
    from sim.runs.games import GameBatch, draw_first_dealer, run_games, run_round
    from sim.runs.league import LeagueConfig, LeagueResult, league, resume_league
    from sim.runs.simulation import SimulationConfig, SimulationResult, resume, simulate
    from sim.runs.tournament import TournamentConfig, TournamentResult, resume_tournament, tournament
    from sim.stats.sprt import Sprt


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        try:  # a subpackage: sim.runs, sim.storage ...
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "BidEstimate",
    "ConfigError",
    "EstimateRequest",
    "GameBatch",
    "LeagueConfig",
    "LeagueResult",
    "Rules",
    "SimulationConfig",
    "SimulationResult",
    "Sprt",
    "TournamentConfig",
    "TournamentResult",
    "__version__",
    "draw_first_dealer",
    "estimate",
    "format_card",
    "format_hand",
    "league",
    "parse_card",
    "parse_cards",
    "parse_policies",
    "parse_policy",
    "run_games",
    "resume",
    "resume_league",
    "resume_tournament",
    "run_estimate",
    "run_round",
    "simulate",
    "tournament",
]
