"""Arithmetic: sums, differences, products, quotients, negation, magnitude and sign, each with its
scalar math, its derivatives and, where the signature is plain, its public function.

add, sub, div, lerp, addcmul, addcdiv and copysign take more than ``out=`` or check their
arguments: their functions are in ``functional_elementwise``.
"""
from __future__ import annotations

import math

from ..functional_elementwise import where
from ..records import elementwise
from .binding import alias, binary, unary
from .shared import like, rounded_lerp, scaled_add, scaled_product_add, scaled_quotient_add, zero

elementwise("add", lambda x, y: x + y, nin=2,
            vjp=(lambda g, ans, x, y: g, lambda g, ans, x, y: g),
            jvp=(lambda t, ans, x, y: t, lambda t, ans, x, y: t))
# add(x, y, alpha=a) in one kernel, as PyTorch's (a is a scalar operand, never differentiated).
elementwise("add_scaled", lambda x, y, a: scaled_add(x, y, a), nin=3,
            vjp=(lambda g, ans, x, y, a: g, lambda g, ans, x, y, a: g * a, None),
            jvp=(lambda t, ans, x, y, a: t, lambda t, ans, x, y, a: t * a, None),
            backward_name="AddBackward0", event="aten::add")
elementwise("sub", lambda x, y: x - y, nin=2, bool_ok=False,
            vjp=(lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
            jvp=(lambda t, ans, x, y: t, lambda t, ans, x, y: -t), variants={"st": "RsubBackward1"})
elementwise("sub_scaled", lambda x, y, a: scaled_add(x, y, -a), nin=3, bool_ok=False,
            vjp=(lambda g, ans, x, y, a: g, lambda g, ans, x, y, a: g * -a, None),
            jvp=(lambda t, ans, x, y, a: t, lambda t, ans, x, y, a: t * -a, None),
            backward_name="SubBackward0")
mul = binary(elementwise("mul", lambda x, y: x * y, nin=2, d=(lambda ans, x, y: y, lambda ans, x, y: x)),
             "Multiplies input by other, with broadcasting.")
multiply = alias(mul, "multiply")
elementwise("div", lambda x, y: x / y, nin=2, result="float",
            vjp=(lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * x / (y * y)),
            jvp=(lambda t, ans, x, y: t / y, lambda t, ans, x, y: -t * x / (y * y)),
            # PyTorch runs number / tensor as reciprocal() * number, so names that node MulBackward0;
            # numgrad divides once (one rounding), under PyTorch's name.
            variants={"st": "MulBackward0"})
reciprocal = unary(elementwise("reciprocal", lambda x: 1.0 / x, result="float", d=lambda ans, x: -ans * ans),
                   "Reciprocal 1/x of each element (floating result).")


elementwise("lerp", lambda s, e, w: rounded_lerp(s, e, w), nin=3, result="floating",
            variants={"ttt": "LerpBackward1"},
            d=(lambda ans, s, e, w: 1 - w, lambda ans, s, e, w: w, lambda ans, s, e, w: e - s))
# addcmul and addcdiv: input + value * t1 (*|/) t2 in one kernel, rounded as PyTorch's (value is
# a scalar operand, never differentiated).
elementwise("addcmul", lambda x, a, b, v: scaled_product_add(x, a, b, v), nin=4,
            backward_name="AddcmulBackward0",
            vjp=(lambda g, ans, x, a, b, v: g, lambda g, ans, x, a, b, v: g * b * v,
                 lambda g, ans, x, a, b, v: g * a * v, None),
            jvp=(lambda t, ans, x, a, b, v: t, lambda t, ans, x, a, b, v: t * b * v,
                 lambda t, ans, x, a, b, v: t * a * v, None))
elementwise("addcdiv", lambda x, a, b, v: scaled_quotient_add(x, a, b, v), nin=4, result="float",
            backward_name="AddcdivBackward0",
            vjp=(lambda g, ans, x, a, b, v: g, lambda g, ans, x, a, b, v: g * v / b,
                 lambda g, ans, x, a, b, v: -g * v * a / (b * b), None),
            jvp=(lambda t, ans, x, a, b, v: t, lambda t, ans, x, a, b, v: t * v / b,
                 lambda t, ans, x, a, b, v: -t * v * a / (b * b), None))

# ---------------------------------------------------------------------------------- sign
neg = unary(elementwise("neg", lambda x: -x, bool_ok=False,
                        vjp=(lambda g, ans, x: -g,), jvp=(lambda t, ans, x: -t,)),
            "Returns the negative of each element.")
negative = alias(neg, "negative")


def _abs(x):
    return x if x >= 0 else -x


def _sign(x):
    # In x's own type; NaN gives 0, as PyTorch's.
    if x > 0:
        return like(x, 1)
    if x < 0:
        return like(x, -1)
    return like(x, 0)


abs = unary(elementwise("abs", _abs, bool_ok=False, d=lambda ans, x: sign(x)),
            "Computes the absolute value of each element.")
absolute = alias(abs, "absolute")
sign = unary(elementwise("sign", _sign, vjp=(zero,), jvp=(zero,)),
             "Returns the sign (-1, 0 or 1) of each element.")
sgn = unary(elementwise("sgn", _sign, vjp=(zero,), jvp=(zero,)),
            "The sign of each element; for real tensors the same as :func:`sign`.")


def _copysign_dx(x, ans):
    # ans / x is the sign flip; 0 where x is 0, as PyTorch's.
    return where(x == 0, 0.0, ans / x)


elementwise("copysign", lambda x, y: math.copysign(x, y), nin=2, result="float",
            variants={"ts": "CopysignBackward1"},
            vjp=(lambda g, ans, x, y: g * _copysign_dx(x, ans), zero),
            jvp=(lambda t, ans, x, y: t * _copysign_dx(x, ans), zero))
