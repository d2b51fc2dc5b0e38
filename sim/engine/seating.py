"""A run's seating: its policies as the kernels take them, and the engine that plays them,
made once per run configuration and passed down to every slice, chunk and kernel call.

A run configuration (sim.runs: simulate, tournament, league) validates its policies once
(sim.policies.registry.parse_policies); `Seating.of` then derives everything the kernels and
drivers need from them — the policy id and parameter row of every listed policy (a Python
policy seated as its fallback), the numba bots, the Python policies and what they are asked,
and the engine compiled for them — so that nothing below parses a policy again or looks
the compiled engine up per call.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba.core.dispatcher import Dispatcher

from kernels.records import MAX_PLAYERS
from kernels.sequencer import FAST_POLICY_IDS
from sim.policies.external_bots import ExternalBot
from sim.policies.learned_models import LearnedModel
from sim.policies.registry import Policy, as_policy, external_bots, fallback_of, learned_models, policy_arrays
from sim.engine.policy_engine import compiled_engine


@dataclass(frozen=True, eq=False)
class Seating:
    """The listed policies of a run (a seating per game indexes them) and what the kernels
    take of them. `kernel(entry)` is the entry point compiled for them, looked up once per
    entry for the run."""

    policies: tuple[Policy, ...]  # the listed policies, as validated
    ids: np.ndarray  # int64 [max(MAX_PLAYERS, listed)]: the policy id of each (a Python policy's fallback's)
    params: np.ndarray  # float64 [same, MAX_PARAMS]: its parameter row
    bots: tuple[ExternalBot, ...]  # the numba bots among them (the engine is compiled with these)
    python: tuple[int, ...]  # the listed indices of the Python policies
    asked: np.ndarray  # int64 [same]: per listed policy, the DECIDE_* bits a Python policy is asked
    models: tuple[LearnedModel, ...] = ()  # the learned policies' models (the engine is compiled with these too)
    _kernels: dict = field(default_factory=dict, repr=False)  # entry point -> compiled with the bots

    @classmethod
    def of(cls, policies: "Seating | list | tuple") -> "Seating":
        """The seating of validated policies (a Seating is returned as it is)."""
        if isinstance(policies, Seating):
            return policies
        listed = tuple(as_policy(policy) for policy in policies)
        ids, params = policy_arrays(list(listed))
        asked = np.zeros(max(MAX_PLAYERS, len(listed)), dtype=np.int64)
        for index, policy in enumerate(listed):
            if policy.kind.python is not None:
                asked[index] = sum(1 << kind for kind in policy.kind.python.decisions)
        python = tuple(index for index, policy in enumerate(listed) if policy.kind.python is not None)
        return cls(listed, ids, params, tuple(external_bots(list(listed))), python, asked, tuple(learned_models(list(listed))))

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(policy ids, parameter rows): what the kernels take."""
        return self.ids, self.params

    @property
    def fallbacks(self) -> tuple[Policy, ...]:
        """The built-in policy that plays each listed policy's seat inside the kernels."""
        return tuple(fallback_of(policy) for policy in self.policies)

    @property
    def builtin_only(self) -> bool:
        """Every policy `random` or `heuristic`, no bot: the games take the fast path
        (kernels.fast_games), which compiles no searching policy."""
        ids = self.ids[: len(self.policies)]
        return not self.bots and not self.models and all(int(policy_id) in FAST_POLICY_IDS for policy_id in ids)

    @property
    def built_in_ids(self) -> tuple[int, ...]:
        """The built-in policies the listed ones play inside the kernels (a numba bot's seats
        excepted, and a learned model's; a Python policy's fallback included): what its engine
        compiles in."""
        return tuple(sorted({int(self.ids[index]) for index, policy in enumerate(self.policies)
                             if policy.kind.bot is None and fallback_of(policy).kind.model is None}))  # fmt: skip

    @property
    def labels(self) -> str:
        """The distinct labels, for a failure message."""
        return ", ".join(dict.fromkeys(policy.label for policy in self.policies))

    def seated(self, indices: np.ndarray) -> list[Policy]:
        """The policies of one game's seating (indices into the listed ones)."""
        return [self.policies[int(index)] for index in indices]

    def kernel(self, entry: Dispatcher) -> Dispatcher:
        """`entry`, compiled for this seating's policies, numba bots and learned models
        (sim.engine.policy_engine): looked up once per entry point, then reused by every call of
        the run."""
        compiled = self._kernels.get(entry)
        if compiled is None:
            compiled = self._kernels[entry] = compiled_engine(entry, self.built_in_ids, list(self.bots), list(self.models))
        return compiled
