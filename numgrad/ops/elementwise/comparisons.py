"""Comparisons, value tests, logical and bitwise ops: bool or integer results, no derivatives.
Each with its scalar math and, where the signature is plain, its public function.

isreal and bitwise_not (logical NOT on bool) have functions of their own, in
``functional_elementwise``.
"""
from __future__ import annotations

import math

from numba import types
from numba.extending import overload

from ..records import elementwise
from .binding import alias, binary, unary
from .shared import like

eq = binary(elementwise("eq", lambda x, y: x == y, nin=2, result="bool", differentiable=False),
            "Elementwise ==, as a bool tensor.")
ne = binary(elementwise("ne", lambda x, y: x != y, nin=2, result="bool", differentiable=False),
            "Elementwise !=, as a bool tensor.")
lt = binary(elementwise("lt", lambda x, y: x < y, nin=2, result="bool", differentiable=False),
            "Elementwise <, as a bool tensor.")
le = binary(elementwise("le", lambda x, y: x <= y, nin=2, result="bool", differentiable=False),
            "Elementwise <=, as a bool tensor.")
gt = binary(elementwise("gt", lambda x, y: x > y, nin=2, result="bool", differentiable=False),
            "Elementwise >, as a bool tensor.")
ge = binary(elementwise("ge", lambda x, y: x >= y, nin=2, result="bool", differentiable=False),
            "Elementwise >=, as a bool tensor.")
not_equal, less, less_equal = alias(ne, "not_equal"), alias(lt, "less"), alias(le, "less_equal")
greater, greater_equal = alias(gt, "greater"), alias(ge, "greater_equal")

# ---------------------------------------------------------------------------------- value tests
isnan = unary(elementwise("isnan", lambda x: x != x, result="bool", differentiable=False),
              "True where an element is NaN.")
isinf = unary(elementwise("isinf", lambda x: x == math.inf or x == -math.inf, result="bool", differentiable=False),
              "True where an element is +/-inf.")
isfinite = unary(elementwise("isfinite", lambda x: x == x and x != math.inf and x != -math.inf, result="bool",
                             differentiable=False),
                 "True where an element is neither inf nor NaN.")
isneginf = unary(elementwise("isneginf", lambda x: x == -math.inf, result="bool", differentiable=False),
                 "True where an element is -inf.")
isposinf = unary(elementwise("isposinf", lambda x: x == math.inf, result="bool", differentiable=False),
                 "True where an element is +inf.")
elementwise("isreal", lambda x: True, result="bool", differentiable=False)


def _signbit(x):
    return math.copysign(1.0, x) < 0


@overload(_signbit)
def _signbit_typed(x):
    if isinstance(x, types.Float):
        return lambda x: math.copysign(like(x, 1.0), x) < 0
    if isinstance(x, types.Integer):
        return lambda x: x < 0
    return lambda x: False


signbit = unary(elementwise("signbit", lambda x: _signbit(x), result="bool", differentiable=False),
                "True where an element's sign bit is set (including -0.0).")

# ---------------------------------------------------------------------------------- logical
logical_not = unary(elementwise("logical_not", lambda x: x == 0, result="bool", differentiable=False),
                    "Logical NOT of each element (nonzero is True).")
logical_and = binary(elementwise("logical_and", lambda x, y: x != 0 and y != 0, nin=2, result="bool",
                                 differentiable=False),
                     "Elementwise logical AND (nonzero is True).")
logical_or = binary(elementwise("logical_or", lambda x, y: x != 0 or y != 0, nin=2, result="bool",
                                differentiable=False),
                    "Elementwise logical OR (nonzero is True).")
logical_xor = binary(elementwise("logical_xor", lambda x, y: (x != 0) != (y != 0), nin=2, result="bool",
                                 differentiable=False),
                     "Elementwise logical XOR (nonzero is True).")

# ---------------------------------------------------------------------------------- bitwise
bitwise_and = binary(elementwise("bitwise_and", lambda x, y: x & y, nin=2, result="integral", differentiable=False),
                     "Elementwise bitwise AND of integer or bool tensors.")
bitwise_or = binary(elementwise("bitwise_or", lambda x, y: x | y, nin=2, result="integral", differentiable=False),
                    "Elementwise bitwise OR of integer or bool tensors.")
bitwise_xor = binary(elementwise("bitwise_xor", lambda x, y: x ^ y, nin=2, result="integral", differentiable=False),
                     "Elementwise bitwise XOR of integer or bool tensors.")


def _bitwise_not(x):
    return ~x


elementwise("bitwise_not", _bitwise_not, result="integral", differentiable=False)


def _bits(x):
    return getattr(x, "itemsize", 8) * 8


@overload(_bits)
def _bits_typed(x):
    n = x.bitwidth
    return lambda x: n


# A shift by a negative count or by the width or more is undefined in C (and in LLVM); PyTorch
# defines it as shifting every bit out: 0, or for >> the sign fill.
def _left_shift(x, y):
    if y < 0 or y >= _bits(x):
        return like(x, 0)
    return x << y


def _right_shift(x, y):
    if y < 0 or y >= _bits(x):
        return like(x, -1) if x < 0 else like(x, 0)
    return x >> y


bitwise_left_shift = binary(elementwise("bitwise_left_shift", _left_shift, nin=2, result="integral",
                                        differentiable=False, bool_ok=False),
                            "Elementwise left shift of integer tensors.")
bitwise_right_shift = binary(elementwise("bitwise_right_shift", _right_shift, nin=2, result="integral",
                                         differentiable=False, bool_ok=False),
                             "Elementwise arithmetic right shift of integer tensors.")
