"""What every run configuration (simulate, tournament, league) shares: its run.json form and
its division into chunks.

A configuration is a frozen dataclass whose first fields are `rules` and `policies`, then its
own (seed, its size in units and units per chunk, flags), and whose `build(rules, policies,
**fields)` validates them. run.json records it as {"rules": ..., "policies": [labels], and
every other field by name}; an optional field left at None is not recorded, so that adding
one never changes the fingerprint of runs that do not use it.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, ClassVar

from sim.config.errors import ConfigError, echo
from sim.config.rules import Rules
from sim.engine.seating import Seating
from sim.runs.tables import table_names
from sim.storage import RunDirectory, chunk_range, chunk_ranges


def check_flags(*, optional: tuple[str, ...] = (), **flags: object) -> None:
    """Each flag must be true or false (those named in `optional` may also be None: the
    default decides)."""
    for name, flag in flags.items():
        if not isinstance(flag, bool) and not (name in optional and flag is None):
            raise ConfigError(f"{name} must be true or false, got {echo(flag)}")


class RecordedConfig:
    """to_dict/from_dict, the tables and the chunks of a run configuration dataclass."""

    command: ClassVar[str]  # the wizard-sim command of its runs, as recorded in run.json
    size_fields: ClassVar[tuple[str, str]]  # its fields (units of the run, units per chunk)

    def to_dict(self) -> dict:
        data: dict[str, Any] = {"rules": self.rules.to_dict(), "policies": [policy.label for policy in self.policies]}
        for field in dataclasses.fields(self)[2:]:
            value = getattr(self, field.name)
            if value is None and field.default is None:
                continue
            data[field.name] = value.to_dict() if hasattr(value, "to_dict") else value
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "RecordedConfig":
        """The configuration of `to_dict` (as stored in run.json), validated again by build."""
        own = {field.name: data[field.name] for field in dataclasses.fields(cls)[2:] if field.name in data}
        return cls.build(Rules.from_dict(data["rules"]), list(data["policies"]), **own)

    def policy_parameters(self) -> dict[str, dict[str, float]]:
        """What each of its policy labels means in this wizard-sim: every parameter by name, the
        defaults included. run.json records it beside the labels, which name only the parameters
        that differ from the defaults of their day (sim.runs.executors.check_parameters)."""
        return {policy.label: policy.parameter_record() for policy in self.policies}

    @functools.cached_property
    def seating(self) -> Seating:
        """Its policies as the kernels take them and the engine compiled with its bots: made
        once per configuration (build validated the policies), shared by every chunk this
        process computes."""
        return Seating.of(self.policies)

    @property
    def tables(self) -> tuple[str, ...]:
        """The Parquet tables of its dataset (rounds, games, and plays when logged)."""
        return table_names(self.log_plays)

    @property
    def size(self) -> tuple[int, int]:
        """(units of the run, units per chunk): games, or the deals of a tournament or league."""
        total, chunk = self.size_fields
        return getattr(self, total), getattr(self, chunk)

    # The hooks of the one run path (sim.runs.executors.run_session): a simulation's defaults.
    @property
    def games_per_unit(self) -> int:
        """Games per unit of its size (a deal's rotations; a game)."""
        return 1

    def stop_test(self, recorded: dict) -> Any:
        """Its stop test (a SequentialTest with --sprt), from its run.json form; None without."""
        return None

    def write_outputs(self, directory: RunDirectory, record: dict) -> None:
        """Its summary files, written at the end of the run (none: simulate's summary is run.json)."""

    def chunk_ranges(self) -> list[tuple[int, int]]:
        return chunk_ranges(*self.size)

    def chunk_range(self, index: int) -> tuple[int, int]:
        return chunk_range(*self.size, index)
