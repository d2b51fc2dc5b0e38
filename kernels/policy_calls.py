"""The two calls the core makes to the seated policies, unbound: `decide` (a seat's choice)
and `round_finished` (what a policy learns when a round ends, e.g. pimc's reading of the
bids). The core (kernels.batch, game_state, the estimate kernels) calls these names and
imports no policy; an engine binds them to the policies a run seats
(sim.engine.policy_engine rebinds every jitted function that reaches them), so that a run
of heuristic seats compiles no search and an edit of one policy recompiles only the engines
that seat it (kernels/cache_stamps.py).

Called unbound, `decide` raises: a kernel entry point is always called through its engine
(sim.engine.seating.Seating.kernel).
"""
from numba import njit

UNBOUND = "a kernel entry point was called without its engine: call it through sim.engine (Seating.kernel)"


@njit(cache=True)
def decide(policies, decision, me, table, legal, generator):
    """The choice of the policy seated at me.seat for `decision` (kernels.records.DECIDE_*):
    an index of a set bit of `legal`. policies: a kernels.records.SeatedPolicies (ids, parameter
    rows, each seat's own state); `me` is the deciding seat's own record, `table` holds only
    public state."""
    if decision >= 0:  # always: typed as returning an int, as every bound decide does
        raise RuntimeError(UNBOUND)
    return 0


@njit(cache=True)
def round_finished(policies, table):
    """After a round has finished on `table` (scored, its bids public): what the seated
    policies keep of it, each in its seats' own state (policies.state). Unbound: nothing."""
    return None
