"""What the elementwise families share: scalar helpers that their bodies call (compiled by Numba
for every backend) and the rule of an input that the result does not vary with."""
from __future__ import annotations

import math

from numba import types
from numba.extending import intrinsic, overload, register_jitable


def zero(g, ans, *xs, **kw):
    """The cotangent (or tangent) through an input with a zero derivative: ``g * 0``."""
    return g * 0


def like(x, c):
    """The constant ``c`` in ``x``'s type: a float64 literal would widen float32 bodies."""
    return c


@overload(like)
def _like_typed(x, c):
    if isinstance(x, (types.Float, types.Integer, types.Boolean)):
        ty = x
        return lambda x, c: ty(c)
    return lambda x, c: c


@register_jitable
def magnitude(x):
    # Numba resolves ``abs`` in the family modules to numgrad's, hence a jittable one of its own.
    return x if x >= 0 else -x


@intrinsic
def fused_multiply_add(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma: the FMA instruction, or libm's fma without one)."""
    if isinstance(a, types.Float) and a == b == c:
        return a(a, b, c), lambda context, builder, sig, args: builder.fma(*args)
    return None


def scaled_add(x, y, a):
    """``x + a * y`` as PyTorch's ``add(x, y, alpha=a)`` computes it: for floats, ``a`` in ``x``'s
    type and one rounding of the whole (a fused multiply-add), so SGD's ``p.add_(g, alpha=-lr)``
    steps land on PyTorch's values bit for bit."""
    return x + a * y


@overload(scaled_add)
def _scaled_add_typed(x, y, a):
    if isinstance(x, types.Float):
        ty = x
        return lambda x, y, a: fused_multiply_add(ty(a), ty(y), x)
    return lambda x, y, a: x + a * y


def rounded_lerp(s, e, w):
    """``s + w * (e - s)`` as PyTorch's lerp computes it: from ``s`` for weights under 0.5 in
    magnitude, from ``e`` otherwise, and for floats each a fused multiply-add (one rounding)."""
    if magnitude(w) < 0.5:
        return s + w * (e - s)
    return e - (e - s) * (1 - w)


@overload(rounded_lerp)
def _rounded_lerp_typed(s, e, w):
    if isinstance(s, types.Float):
        ty = s

        def lerp(s, e, w):
            w = ty(w)
            diff = e - s
            if magnitude(w) < 0.5:
                return fused_multiply_add(w, diff, s)
            return fused_multiply_add(-diff, ty(1) - w, e)
        return lerp
    return lambda s, e, w: s + w * (e - s)


def scaled_product_add(x, a, b, v):
    """``x + v * a * b`` as PyTorch's addcmul computes it: for floats, ``v * a`` rounded in
    ``x``'s type, then one rounding of ``(v * a) * b + x`` (a fused multiply-add)."""
    return x + v * a * b


@overload(scaled_product_add)
def _scaled_product_add_typed(x, a, b, v):
    if isinstance(x, types.Float):
        ty = x
        return lambda x, a, b, v: fused_multiply_add(ty(v) * a, b, x)
    return lambda x, a, b, v: x + v * a * b


def scaled_quotient_add(x, a, b, v):
    """``x + v * a / b`` rounded as PyTorch's addcdiv: ``v * a`` in ``x``'s type, divided by
    ``b``, then added to ``x``, three roundings."""
    return x + v * a / b


@overload(scaled_quotient_add)
def _scaled_quotient_add_typed(x, a, b, v):
    if isinstance(x, types.Float):
        ty = x
        return lambda x, a, b, v: x + ty(v) * a / b
    return lambda x, a, b, v: x + v * a / b


def exact_power(x, y):
    """``x ** y``, with the exponents PyTorch computes by products, quotients and roots (3, -1,
    -2, 0.5, -0.5) rounded as PyTorch rounds them for floats."""
    return x ** y


@overload(exact_power)
def _exact_power_typed(x, y):
    if isinstance(x, types.Float):
        def power(x, y):
            if y == 3:
                return x * x * x
            if y == -1:
                return like(x, 1) / x
            if y == -2:
                return like(x, 1) / (x * x)
            if y == 0.5:
                return math.sqrt(x)
            if y == -0.5:
                return like(x, 1) / math.sqrt(x)
            return x ** y
        return power
    return lambda x, y: x ** y
