"""Circular and hyperbolic functions, their inverses and angle conversions, each with its scalar
math, its derivatives and its public function."""
from __future__ import annotations

import math

from ..functional_elementwise import tanh_backward, where
from ..records import elementwise
from . import vecmath
from .binding import alias, binary, unary
from .exponentials import rsqrt
from .shared import like

_DEG = math.pi / 180.0

sin = unary(elementwise("sin", vecmath.sin, result="float", d=lambda ans, x: cos(x), inline_math=True),
            "Sine of each element.")
cos = unary(elementwise("cos", vecmath.cos, result="float", d=lambda ans, x: -sin(x), inline_math=True),
            "Cosine of each element.")
tan = unary(elementwise("tan", lambda x: math.tan(x), result="float", d=lambda ans, x: 1 + ans * ans),
            "Tangent of each element.")
asin = unary(elementwise("asin", lambda x: math.asin(x) if -1 <= x <= 1 else math.nan, result="float",
                         d=lambda ans, x: rsqrt(1 - x * x)),
             "Arcsine of each element.")
acos = unary(elementwise("acos", lambda x: math.acos(x) if -1 <= x <= 1 else math.nan, result="float",
                         d=lambda ans, x: -rsqrt(1 - x * x)),
             "Arccosine of each element.")
atan = unary(elementwise("atan", lambda x: math.atan(x), result="float", d=lambda ans, x: 1 / (1 + x * x)),
             "Arctangent of each element.")


def _atan2(y, x):
    return math.atan2(y, x)


def _atan2_denominator(y, x):
    # At the origin both partials are 0, as in PyTorch, not 0 / 0.
    r = x * x + y * y
    return where(r == 0, 1.0, r)


atan2 = binary(elementwise("atan2", _atan2, nin=2, result="float",
                           d=(lambda ans, y, x: x / _atan2_denominator(y, x),
                              lambda ans, y, x: -y / _atan2_denominator(y, x))),
               "Elementwise arctangent of input / other, using the signs of both for the quadrant.")
arctan2 = alias(atan2, "arctan2")

# ---------------------------------------------------------------------------------- hyperbolic
sinh = unary(elementwise("sinh", lambda x: math.sinh(x), result="float", d=lambda ans, x: cosh(x)),
             "Hyperbolic sine of each element.")
cosh = unary(elementwise("cosh", lambda x: math.cosh(x), result="float", d=lambda ans, x: sinh(x)),
             "Hyperbolic cosine of each element.")
# tanh reads its result, and its cotangent is one fused kernel, as PyTorch's tanh_backward(g, y)
# (whose own node names double backward).
tanh = unary(elementwise("tanh", vecmath.tanh, result="float",
                         vjp=(lambda g, ans, x: tanh_backward(g, ans),),
                         jvp=(lambda t, ans, x: tanh_backward(t, ans),)),
             "Hyperbolic tangent of each element.")
elementwise("tanh_backward", lambda g, y: g * (like(y, 1.0) - y * y), nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: tanh_backward(gg, y), lambda gg, ans, g, y: gg * g * (-2 * y)),
            jvp=(lambda t, ans, g, y: tanh_backward(t, y), lambda t, ans, g, y: t * g * (-2 * y)),
            backward_name="TanhBackwardBackward0")




asinh = unary(elementwise("asinh", lambda x: math.asinh(x), result="float", d=lambda ans, x: rsqrt(x * x + 1)),
              "Inverse hyperbolic sine of each element.")
acosh = unary(elementwise("acosh", lambda x: math.acosh(x) if x >= 1 else math.nan, result="float",
                          d=lambda ans, x: rsqrt(x * x - 1)),
              "Inverse hyperbolic cosine of each element.")


def _atanh(x):
    return math.atanh(x) if -1 < x < 1 else (math.copysign(math.inf, x) if x == 1 or x == -1 else math.nan)


atanh = unary(elementwise("atanh", _atanh, result="float", d=lambda ans, x: 1 / (1 - x * x)),
              "Inverse hyperbolic tangent of each element.")
arcsin, arccos, arctan = alias(asin, "arcsin"), alias(acos, "arccos"), alias(atan, "arctan")
arcsinh, arccosh, arctanh = alias(asinh, "arcsinh"), alias(acosh, "arccosh"), alias(atanh, "arctanh")

# ---------------------------------------------------------------------------------- angles
deg2rad = unary(elementwise("deg2rad", lambda x: x * like(x, _DEG), result="float",
                            vjp=(lambda g, ans, x: g * _DEG,), jvp=(lambda t, ans, x: t * _DEG,),
                            backward_name="Deg2RadBackward0"),
                "Each element converted from degrees to radians.")
rad2deg = unary(elementwise("rad2deg", lambda x: x * like(x, 1.0 / _DEG), result="float",
                            vjp=(lambda g, ans, x: g * (1.0 / _DEG),), jvp=(lambda t, ans, x: t * (1.0 / _DEG),),
                            backward_name="Rad2DegBackward0"),
                "Each element converted from radians to degrees.")
