"""Work split into blocks for a parallel loop, and the first failure among them.

A parallel kernel hands each thread a block of items (games, samples, rollouts) with one
working memory (at most 64 items, fewer when a call has too few to give every thread one);
the blocking never changes a result, since items are independent. numba drops an exception
raised in a parallel loop by any thread but the calling one, so a block catches its first
failure and the kernel returns the earliest (NO_FAILURE: none).

Named tuples of arrays cross into parallel kernels, with one rule: an array the loop body
writes is taken out of its tuple before the loop, in a statement of its own
(`seats = out.seats`). numba 0.68 loses writes made through a tuple's field inside a prange
body (also inside a function inlined there), and through arrays unpacked together
(`a, b = out`, `a, b = out.a, out.b`); a called (not inlined) function may write through a
field. tests/test_env.py and
tests/test_python_policies.py compare parallel kernels with serial ones and catch it.

Records do not keep their array alive: numba frees a local array right after its last use,
even while a record taken from it (`memory = storage[0]`, `storage[0].totals`) is still read.
So a record is taken from an array only in a function the array is passed to (the caller
holds it), in the function that returns the array, or before a later use of the array;
tests/test_record_lifetimes.py checks every kernel for it (reading freed memory once made
pimc segfault and mc, rarely, choose from another thread's zeros).
"""
import types

import numpy as np
from numba import config, njit

NO_FAILURE = -1
ITEMS_PER_BLOCK = 64
# The threads a call's blocks are shared among, frozen when a kernel is compiled (a global int
# is a constant that numba can cache; numba.get_num_threads() in a kernel is not): another
# machine loading the cache may block differently, which changes no result.
THREADS = config.NUMBA_NUM_THREADS


@njit(cache=True, inline="always")
def items_per_block(n):
    """ITEMS_PER_BLOCK, or fewer when n items would leave a thread without a block: a short
    call of costly items (games of mc or pimc, estimate's samples: calls sliced so that Ctrl-C
    is seen within a quarter of a second) still keeps every thread busy."""
    return min(ITEMS_PER_BLOCK, max(1, (n + THREADS - 1) // THREADS))


@njit(cache=True, inline="always")
def n_blocks(n):
    size = items_per_block(n)
    return (n + size - 1) // size


@njit(cache=True, inline="always")
def block_rows(block, n):
    """(first, stop) of block `block` of n items."""
    size = items_per_block(n)
    return block * size, min(n, (block + 1) * size)


@njit(cache=True)
def new_failures(n):
    """One slot per block of n items, for each block's first failure."""
    return np.full(n_blocks(n), NO_FAILURE, dtype=np.int64)


@njit(cache=True)
def first_failure(failures):
    """The earliest item that failed (blocks are in item order), or NO_FAILURE."""
    for block in range(failures.shape[0]):
        if failures[block] != NO_FAILURE:
            return failures[block]
    return NO_FAILURE


def parallel_and_serial(body):
    """Two kernels from one loop body written with prange: in parallel over threads, and on the
    calling thread (for a few items, waking the thread pool costs more than the work). The
    serial copy has a name of its own, so numba's cache files them apart."""
    serial = types.FunctionType(body.__code__, body.__globals__, body.__name__ + "_serial", body.__defaults__, body.__closure__)
    serial.__qualname__ = body.__qualname__ + "_serial"
    serial.__doc__ = body.__doc__
    return njit(cache=True, parallel=True)(body), njit(cache=True)(serial)
