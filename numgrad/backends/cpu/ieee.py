"""IEEE 754-2019 ``maximum`` and ``minimum`` for CPU kernels. On floats they are LLVM's
intrinsics: NaN-propagating, in one instruction sequence that LLVM vectorizes, also as a
loop-carried reduction (a compare-and-select written in Python vectorizes as neither). On
integers and bools, which have no NaN, a compare-and-select, which LLVM vectorizes already.

The sign of zero is left to the instruction (``nsz``): PyTorch's own reductions return either
zero for a tie of ``0.0`` and ``-0.0``, depending on where in a vector the two fall.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload


def _llvm_binary(name: str):
    def typer(typingctx, x, y):
        if not (isinstance(x, types.Float) and x == y):
            return None

        def codegen(context, builder, signature, args):
            ty = context.get_value_type(x)
            fn = builder.module.declare_intrinsic(name, [ty], ir.FunctionType(ty, [ty, ty]))
            return builder.call(fn, args, fastmath=("nsz",))
        return x(x, y), codegen
    return intrinsic(typer)


_llvm_maximum = _llvm_binary("llvm.maximum")
_llvm_minimum = _llvm_binary("llvm.minimum")


def maximum(x, y):
    """The larger of two numbers of one type; NaN if either is NaN."""
    raise NotImplementedError("callable from @njit code only")


def minimum(x, y):
    """The smaller of two numbers of one type; NaN if either is NaN."""
    raise NotImplementedError("callable from @njit code only")


@overload(maximum)
def _maximum_typed(x, y):
    if isinstance(x, types.Float):
        return lambda x, y: _llvm_maximum(x, y)
    return lambda x, y: x if x > y else y


@overload(minimum)
def _minimum_typed(x, y):
    if isinstance(x, types.Float):
        return lambda x, y: _llvm_minimum(x, y)
    return lambda x, y: x if x < y else y
