"""Bit operations on int64 card masks, compiled to single CPU instructions."""
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
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


@intrinsic
def _pdep64(typingctx, source, mask):
    sig = types.int64(types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i64]), "llvm.x86.bmi.pdep.64")
        return builder.call(function, args)

    return sig, codegen


# BMI2's pdep deposits one bit onto the n-th set bit of a mask in one instruction; random play
# picks a card this way for every decision, and the loop form mispredicts a branch each time.
# AMD's cores before Zen 3 (and Excavator) run pdep as microcode whose time grows with the
# mask's set bits: there the loop is faster at every mask size (docs/performance.md, Engine,
# "picking the n-th set bit"), so nth_set_bit takes pdep only where it is one fast instruction.
SLOW_PDEP_CPUS = frozenset({"bdver4", "znver1", "znver2"})  # LLVM's names of those cores


def has_bmi2(features: str) -> bool:
    """Whether LLVM's CPU feature string (`+name,-name,...`) includes BMI2 (pdep)."""
    return "+bmi2" in features.split(",")


def pdep_is_fast(features: str, cpu_name: str) -> bool:
    """Whether a CPU with LLVM's feature string `features` and name `cpu_name` has BMI2's
    pdep as one fast instruction."""
    return has_bmi2(features) and cpu_name not in SLOW_PDEP_CPUS


HOST_FEATURES = llvm.get_host_cpu_features().flatten()
HAS_PDEP = has_bmi2(HOST_FEATURES)
FAST_PDEP = pdep_is_fast(HOST_FEATURES, llvm.get_host_cpu_name())


@njit(cache=True, inline="always")
def nth_set_bit_by_pdep(mask, n):
    """Index of the n-th (0-based) set bit of mask, counting from the lowest (BMI2 only)."""
    return _cttz64(_pdep64(np.int64(1) << n, mask))


@njit(cache=True, inline="always")
def nth_set_bit_by_loop(mask, n):
    """Index of the n-th (0-based) set bit of mask, counting from the lowest (any CPU)."""
    for _ in range(n):
        mask &= mask - 1
    return _cttz64(mask)


nth_set_bit = nth_set_bit_by_pdep if FAST_PDEP else nth_set_bit_by_loop


@intrinsic
def _pick_float(typingctx, flag, first, second):
    sig = types.float64(types.int64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        flag, first, second = args
        i64 = ir.IntType(64)
        mask = builder.neg(builder.and_(flag, ir.Constant(i64, 1)))  # all ones or zero
        # An empty asm statement hides where the mask comes from, so LLVM cannot fold the
        # blend below back into a select of doubles, which x86 (no FP cmov) compiles to a branch.
        mask = builder.asm(ir.FunctionType(i64, [i64]), "", "=r,0", [mask], side_effect=False)
        first_bits = builder.bitcast(first, i64)
        second_bits = builder.bitcast(second, i64)
        bits = builder.xor(second_bits, builder.and_(builder.xor(first_bits, second_bits), mask))
        return builder.bitcast(bits, ir.DoubleType())

    return sig, codegen


@njit(cache=True, inline="always")
def pick_float(flag, first, second):
    """`first` if the lowest bit of the integer `flag` is set, else `second` (floats), without
    a branch: where the flag is a coin flip, a mispredicted branch costs more than the blend."""
    return _pick_float(flag, first, second)


@njit(cache=True, inline="always")
def at(index):
    """A non-negative array index as unsigned: numba then skips the wrap-around of negative
    indices (a test and a conditional move before every load). For indices read from the
    state (seats, positions) in the play loop, where that was a tenth of the instructions.
    Use it only inside the brackets: arithmetic mixing it with signed integers gives floats."""
    return np.uint64(index)
