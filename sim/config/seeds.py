"""Run seeds: every game is a pure function of (seed, game id), so a seed is checked once here."""
from __future__ import annotations

import secrets

from sim.config.errors import ConfigError, echo
from sim.config.rules import is_whole_number

MAX_SEED = 2**63 - 1  # the kernels take the seed as an int64


def check_seed(seed: int) -> int:
    if not is_whole_number(seed) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed must be an integer in 0..{MAX_SEED}, got {echo(seed)}")
    return int(seed)


def draw_seed() -> int:
    """A fresh run seed (recorded in run.json) for runs started without --seed."""
    return secrets.randbelow(MAX_SEED + 1)
