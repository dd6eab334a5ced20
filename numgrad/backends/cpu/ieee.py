"""IEEE 754-2019 ``maximum`` and ``minimum`` of two floats for CPU kernels, as LLVM's intrinsics:
NaN-propagating, in one instruction sequence that LLVM vectorizes, also as a loop-carried
reduction (a compare-and-select written in Python vectorizes as neither).

The sign of zero is left to the instruction (``nsz``): PyTorch's own reductions return either
zero for a tie of ``0.0`` and ``-0.0``, depending on where in a vector the two fall.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _binary(name: str):
    def typer(typingctx, x, y):
        if not (isinstance(x, types.Float) and x == y):
            return None

        def codegen(context, builder, signature, args):
            ty = context.get_value_type(x)
            fn = builder.module.declare_intrinsic(name, [ty], ir.FunctionType(ty, [ty, ty]))
            return builder.call(fn, args, fastmath=("nsz",))
        return x(x, y), codegen
    return intrinsic(typer)


maximum = _binary("llvm.maximum")
maximum.__doc__ = "The larger of two floats of one type; NaN if either is NaN."
minimum = _binary("llvm.minimum")
minimum.__doc__ = "The smaller of two floats of one type; NaN if either is NaN."
