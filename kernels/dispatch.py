"""Policy ids and the one jitted dispatch that chooses a policy by id.

Adding a built-in policy: write its module in this package (`decide`, and NAME, SUMMARY,
PARAMETERS, optional COUNTS and RANGES: what sim.config.policies registers), then give it an
id (kernels/policies/ids.py), a branch in `decide` and an entry in BUILT_IN here.
"""
from numba import njit

from kernels.bits import at
from kernels.policies import heuristic, random_policy
from kernels.search import mc, pimc
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC, POLICY_PIMC, POLICY_RANDOM

# (policy id, module) of every built-in policy: sim.config.policies registers them.
BUILT_IN = ((POLICY_RANDOM, random_policy), (POLICY_HEURISTIC, heuristic), (POLICY_MC, mc), (POLICY_PIMC, pimc))



@njit(cache=True, inline="always")
def decide(policies, decision, me, table, legal, generator):
    """The choice of the policy seated at me.seat for `decision` (kernels.records.DECIDE_*): an
    index of a set bit of `legal`. `me` is the deciding seat's own record; `table` holds only
    public state. policies = (policy id per seat, parameter row per seat); a policy reads its
    parameters as params[me.seat, k] (slicing a row here would cost a reference count per
    decision)."""
    policy_ids, params = policies
    policy_id = policy_ids[at(me.seat)]
    if policy_id == POLICY_HEURISTIC:
        return heuristic.decide(decision, params, me, table, legal, generator)
    if policy_id == POLICY_MC:
        return mc.decide(decision, policies, me, table, legal, generator)
    if policy_id == POLICY_PIMC:
        return pimc.decide(decision, policies, me, table, legal, generator)
    return random_policy.decide(decision, params, me, table, legal, generator)
