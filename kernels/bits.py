"""Bit operations on int64 card masks, compiled to single CPU instructions."""
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _ctpop64(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz64(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        # Undefined for zero: callers only ask for the lowest bit of a non-empty mask.
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@intrinsic
def _ctlz64(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(mask):
    """Number of set bits (cards) in a mask."""
    return _ctpop64(mask)


@njit(cache=True, inline="always")
def lowest_bit(mask):
    """Index of the lowest set bit of a non-empty mask."""
    return _cttz64(mask)


@njit(cache=True, inline="always")
def highest_bit(mask):
    """Index of the highest set bit of a non-empty mask."""
    return 63 - _ctlz64(mask)


@njit(cache=True)
def nth_set_bit(mask, n):
    """Index of the n-th (0-based) set bit of mask, counting from the lowest."""
    for _ in range(n):
        mask &= mask - 1
    return _cttz64(mask)
