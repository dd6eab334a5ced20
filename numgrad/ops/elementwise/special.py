"""Special functions (error functions, gamma and its derivatives, Bessel, sinc, logit) and the
Heaviside step, each with its scalar math, its derivatives and, where the signature is plain, its
public function.

The scalar bodies mostly live in ``special_math`` (float64 inside, poles guarded); derivatives
chain through the family: lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' =
polygamma(n + 1), i0' = i1. logit, polygamma and heaviside check their arguments: their
functions are in ``functional_elementwise``.
"""
from __future__ import annotations

import math

from ... import dtypes
from .. import special_math
from ..functional_elementwise import polygamma, special_i1, where
from ..records import elementwise, not_implemented
from . import vecmath
from .binding import unary
from .exponentials import exp
from .shared import like
from .trigonometric import cos


erf = unary(elementwise("erf", vecmath.erf, result="float", d=lambda ans, x: 1.1283791670955126 * exp(-x * x),
                        inline_math=True),
            "Error function of each element.")
erfc = unary(elementwise("erfc", vecmath.erfc, result="float",
                         d=lambda ans, x: -1.1283791670955126 * exp(-x * x), inline_math=True),
             "Complementary error function of each element.")
# erfinv and sinc rules recompute from x, as PyTorch's do, so their results may be written in place.
erfinv = unary(elementwise("erfinv", special_math.erfinv, result="float",
                           d=lambda ans, x: special_math.SQRT_PI_OVER_2 * exp(erfinv(x) ** 2)),
               "Inverse error function of each element (+/-inf at +/-1, NaN beyond).")

# ---------------------------------------------------------------------------------- gamma
lgamma = unary(elementwise("lgamma", special_math.lgamma, result="float", d=lambda ans, x: digamma(x)),
               "Natural logarithm of the absolute value of the gamma function.")
digamma = unary(elementwise("digamma", special_math.digamma, result="float", d=lambda ans, x: polygamma(1, x)),
                "Logarithmic derivative of the gamma function, psi(x).")
elementwise("polygamma", special_math.polygamma, nin=2, result="float",
            vjp=(None, lambda g, ans, n, x: g * polygamma(n + 1, x)),
            jvp=(None, lambda t, ans, n, x: t * polygamma(n + 1, x)))

# ---------------------------------------------------------------------------------- Bessel
i0 = unary(elementwise("i0", special_math.i0, result="float", d=lambda ans, x: special_i1(x)),
           "Modified Bessel function of the first kind, order 0.")


def _i1_derivative(ans, x):
    # i1'(x) = i0(x) - i1(x) / x, which tends to 1/2 at 0; below the smallest normal number
    # i1(x) ~ x / 2 has lost its digits, so the limit is used there.
    tiny = dtypes.finfo(x.dtype).tiny
    return where(x.abs() < tiny, 0.5, i0(x) - ans / x)


elementwise("special_i1", special_math.i1, result="float", d=_i1_derivative)

# ---------------------------------------------------------------------------------- sinc, logit, step
# sinc'(x) = (cos(pi x) - sinc(x)) / x, 0 at 0.
sinc = unary(elementwise("sinc", special_math.sinc, result="float",
                         d=lambda ans, x: where(x == 0, 0.0, (cos(x * math.pi) - sinc(x)) / x)),
             "Normalized sinc sin(pi x) / (pi x), 1 at 0.")


def _logit_d(x, eps):
    # 1 / (x (1 - x)) inside the clamp; outside it 0 (eps given) or NaN (off [0, 1]), as PyTorch's.
    if eps < 0:
        return where((x < 0) | (x > 1), math.nan, 1 / (x * (1 - x)))
    return where((x < eps) | (x > 1 - eps), 0.0, 1 / (x * (1 - x)))


# logit(x, eps) with eps < 0 meaning no clamp (eps=None), as ATen encodes it.
elementwise("logit", special_math.logit, nin=2, result="float",
            vjp=(lambda g, ans, x, eps: g * _logit_d(x, eps), None),
            jvp=(lambda t, ans, x, eps: t * _logit_d(x, eps), None))


def _heaviside(x, values):
    # NaN compares false, so it gives 0, as PyTorch's.
    if x == 0:
        return values
    return like(x, 1) if x > 0 else like(x, 0)


# As in PyTorch, a result from inputs requiring grad is recorded, and its backward raises.
elementwise("heaviside", _heaviside, nin=2, **not_implemented("heaviside", 2))
