"""The built-in policies' registry and the jitted dispatch that chooses a policy by id:
`decide_of` and `round_finished_of`, over the policies an engine compiles in
(sim.engine.policy_engine binds them to kernels.policy_calls' unbound calls), and `decide`,
the reference over every built-in policy (the fast path's conformance tests hold their twin
to it). No core kernel imports this module.

Adding a built-in policy: write its module (`decide`, optionally `round_finished`, and NAME,
SUMMARY, PARAMETERS, optional COUNTS and RANGES: what sim.policies.registry registers), then give
it an id (kernels/policies/ids.py), a branch in `decide` and an entry in BUILT_IN here.
"""
from numba import njit

from kernels import policy_calls
from kernels.bits import at
from kernels.policies import heuristic, random_policy, without_search
from kernels.search import mc, pimc
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_MC, POLICY_PIMC, POLICY_RANDOM

# (policy id, module) of every built-in policy: sim.policies.registry registers them.
BUILT_IN = ((POLICY_RANDOM, random_policy), (POLICY_HEURISTIC, heuristic), (POLICY_MC, mc), (POLICY_PIMC, pimc))



@njit(cache=True, inline="always")
def decide(policies, decision, me, table, legal, generator):
    """The choice of the policy seated at me.seat for `decision` (kernels.records.DECIDE_*): an
    index of a set bit of `legal`. `me` is the deciding seat's own record; `table` holds only
    public state. policies: kernels.records.SeatedPolicies; a policy reads its parameters as
    policies.params[me.seat, k] (slicing a row here would cost a reference count per
    decision)."""
    policy_id = policies.ids[at(me.seat)]
    if policy_id == POLICY_MC:
        return mc.decide(decision, policies, me, table, legal, generator)
    if policy_id == POLICY_PIMC:
        return pimc.decide(decision, policies, me, table, legal, generator)
    return without_search.decide(policies, decision, me, table, legal, generator)


# The module of each built-in policy's `decide`, and whether it takes the seated policies (the
# searching ones read who sits where, and pimc its seat's state) or their parameter rows alone.
DECIDE_TAKES_POLICIES = {POLICY_RANDOM: False, POLICY_HEURISTIC: False, POLICY_MC: True, POLICY_PIMC: True}


def decide_of(policy_ids: tuple[int, ...]):
    """`decide` over the built-in policies `policy_ids` alone, for an engine compiled for the
    policies a run seats (sim.engine.policy_engine): a policy not seated is not compiled in, so an
    engine of heuristic seats and a bot reaches no search. Each seated policy decides exactly
    as in `decide`; a seat of any other id raises, loudly, instead of playing another policy.
    (Python: a factory of jitted closures, run once per engine, like blocks.parallel_and_serial.)"""
    modules = dict(BUILT_IN)
    ordered = sorted(set(policy_ids))
    if not ordered or not set(ordered) <= set(modules):
        raise ValueError(f"built-in policy ids expected, got {policy_ids}")
    chosen = _only(ordered[-1], modules[ordered[-1]].decide)
    for policy_id in reversed(ordered[:-1]):
        chosen = _first(policy_id, modules[policy_id].decide, chosen)
    return chosen


def _policy_call(policy_id: int, module_decide):
    """module_decide called with what it takes (the seated policies or their parameter rows)."""
    if DECIDE_TAKES_POLICIES[policy_id]:
        return module_decide

    @njit(inline="always")
    def with_rows(decision, policies, me, table, legal, generator):
        return module_decide(decision, policies.params, me, table, legal, generator)

    return with_rows


def _first(policy_id: int, module_decide, otherwise):
    call = _policy_call(policy_id, module_decide)

    @njit(inline="always")
    def decide_first(policies, decision, me, table, legal, generator):
        if policies.ids[at(me.seat)] == policy_id:
            return call(decision, policies, me, table, legal, generator)
        return otherwise(policies, decision, me, table, legal, generator)

    return decide_first


def _only(policy_id: int, module_decide):
    call = _policy_call(policy_id, module_decide)

    @njit(inline="always")
    def decide_only(policies, decision, me, table, legal, generator):
        if policies.ids[at(me.seat)] != policy_id:
            raise ValueError("a seat plays a built-in policy this engine was not compiled for")
        return call(decision, policies, me, table, legal, generator)

    return decide_only


def round_finished_of(policy_ids: tuple[int, ...]):
    """The `round_finished` hooks of the built-in policies `policy_ids` that have one, called
    in turn (kernels.policy_calls.round_finished, which does nothing, if none has)."""
    hooks = [module.round_finished for policy_id, module in BUILT_IN if policy_id in policy_ids and hasattr(module, "round_finished")]
    chosen = policy_calls.round_finished
    for hook in hooks:
        chosen = _both(chosen, hook) if chosen is not policy_calls.round_finished else hook
    return chosen


def _both(first, then):
    @njit(inline="always")
    def both(policies, table):
        first(policies, table)
        then(policies, table)

    return both
