"""What the elementwise families share: scalar helpers that their bodies call (compiled by Numba
for every backend) and the rule of an input that the result does not vary with."""
from __future__ import annotations

from numba import types
from numba.extending import overload, register_jitable


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
