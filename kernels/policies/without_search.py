"""The reference dispatch's branch for the built-in policies that do not search: a seat of
`heuristic` asks the heuristic, any other seat `random` (kernels.dispatch.decide takes mc and
pimc first, then this). Its own module so that checks of heuristic and random seats compile no
search policy, and an edit of one does not recompile them (kernels.cache_stamps)."""
from numba import njit

from kernels.bits import at
from kernels.policies import heuristic, random_policy
from kernels.policies.ids import POLICY_HEURISTIC


@njit(cache=True, inline="always")
def decide(policies, decision, me, table, legal, generator):
    """The choice of the heuristic or random seat at me.seat (kernels.dispatch.decide's
    arguments: policies, a kernels.records.SeatedPolicies)."""
    if policies.ids[at(me.seat)] == POLICY_HEURISTIC:
        return heuristic.decide(decision, policies.params, me, table, legal, generator)
    return random_policy.decide(decision, policies.params, me, table, legal, generator)
