"""The built-in policies' registry and the jitted dispatch that chooses a policy by id:
`decide_of` and `round_finished_of`, over the policies an engine compiles in, each one
`PolicyCalls` whatever its kind (sim.engine.policy_engine adapts numba bots and learned
models to it, and binds the two to kernels.policy_calls' unbound calls), and `decide`, the
reference over every built-in policy (the fast path's conformance tests hold their twin to
it). No core kernel imports this module.

Adding a built-in policy: write its module (`decide`, optionally `round_finished`, and NAME,
SUMMARY, PARAMETERS, optional COUNTS and RANGES: what sim.policies.registry registers), then give
it an id (kernels/policies/ids.py), a branch in `decide` and an entry in BUILT_IN here.
"""
import inspect
from dataclasses import dataclass

from numba import njit
from numba.core.dispatcher import Dispatcher

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


@dataclass(frozen=True)
class PolicyCalls:
    """One policy as an engine compiles it in, whatever its kind (built-in, numba bot, learned
    model): the id its seats have, its `decide`(decision, policies, me, table, legal,
    generator) and its optional `round_finished`(policies, table) hook (kernels.policy_calls'
    two calls, for its seats)."""

    policy_id: int
    decide: Dispatcher
    round_finished: Dispatcher | None = None


def built_in_calls(policy_ids: tuple[int, ...]) -> list[PolicyCalls]:
    """The calls of the built-in policies `policy_ids`, each deciding exactly as in `decide`."""
    modules = dict(BUILT_IN)
    if not set(policy_ids) <= set(modules):
        raise ValueError(f"built-in policy ids expected, got {policy_ids}")
    return [PolicyCalls(policy_id, _policy_call(modules[policy_id].decide), getattr(modules[policy_id], "round_finished", None))
            for policy_id in sorted(set(policy_ids))]  # fmt: skip


def decide_of(calls: list[PolicyCalls]):
    """`decide` over the policies of `calls` alone, for an engine compiled for the policies a
    run seats (sim.engine.policy_engine): a policy not seated is not compiled in, so an engine
    of heuristic seats and a bot reaches no search. A seat of any other id raises, loudly,
    instead of playing another policy. (Python: a factory of jitted closures, run once per
    engine, like blocks.parallel_and_serial.)"""
    ordered = sorted(calls, key=lambda call: call.policy_id)
    ids = [call.policy_id for call in ordered]
    if not ordered or len(set(ids)) != len(ids):
        raise ValueError(f"one call per policy id expected, got ids {ids}")
    chosen = _only(ordered[-1].policy_id, ordered[-1].decide)
    for call in reversed(ordered[:-1]):
        chosen = _first(call.policy_id, call.decide, chosen)
    return chosen


def round_finished_of(calls: list[PolicyCalls]):
    """The `round_finished` hooks of `calls` that have one, called in turn in id order
    (kernels.policy_calls.round_finished, which does nothing, if none has)."""
    hooks = [call.round_finished for call in sorted(calls, key=lambda call: call.policy_id) if call.round_finished is not None]
    chosen = policy_calls.round_finished
    for hook in hooks:
        chosen = _both(chosen, hook) if chosen is not policy_calls.round_finished else hook
    return chosen


def _policy_call(module_decide: Dispatcher):
    """module_decide called with what it takes, as its second parameter says: `policies`, the
    seated record (the searching policies read who sits where, and pimc its seat's state), or
    `params`, their parameter rows alone."""
    if list(inspect.signature(module_decide.py_func).parameters)[1] == "policies":
        return module_decide

    @njit(inline="always")
    def with_rows(decision, policies, me, table, legal, generator):
        return module_decide(decision, policies.params, me, table, legal, generator)

    return with_rows


def _first(policy_id: int, call, otherwise):
    @njit(inline="always")
    def decide_first(policies, decision, me, table, legal, generator):
        if policies.ids[at(me.seat)] == policy_id:
            return call(decision, policies, me, table, legal, generator)
        return otherwise(policies, decision, me, table, legal, generator)

    return decide_first


def _only(policy_id: int, call):
    @njit(inline="always")
    def decide_only(policies, decision, me, table, legal, generator):
        if policies.ids[at(me.seat)] != policy_id:
            raise ValueError("a seat plays a policy this engine was not compiled for")
        return call(decision, policies, me, table, legal, generator)

    return decide_only


def _both(first, then):
    @njit(inline="always")
    def both(policies, table):
        first(policies, table)
        then(policies, table)

    return both
