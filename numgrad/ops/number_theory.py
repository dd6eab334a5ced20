"""Integer and float decomposition functions (gcd, lcm, frexp) and the regularised incomplete
gamma functions igamma (P) and igammac (Q = 1 - P), differentiable in their second argument as
PyTorch's are."""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from .. import dtypes
from ..return_types import return_type
from ..creation import tensor as _tensor
from . import functional_elementwise as _E
from .elementwise.shared import like
from .registry import run_elementwise
from ..dtypes import torch_type_name
from .records import elementwise

__all__ = ["gcd", "gcd_", "lcm", "lcm_", "frexp", "igamma", "igammac", "igamma_", "igammac_"]


@register_jitable
def _trunc_rem(a, b):
    # C's remainder (the sign of the dividend), from Python's floor remainder; by -1 it is 0,
    # and computing it would trap on the most negative integer.
    if b == -1:
        return like(a, 0)
    r = a % b
    return r - b if r != 0 and (r < 0) != (a < 0) else r


@register_jitable
def _gcd(x, y):
    # Euclid on magnitudes taken in the operands' type (|INT_MIN| wraps), with C's remainder,
    # so that every value, the wrapped ones included, matches PyTorch's; gcd(0, 0) is 0.
    a = like(x, -x) if x < 0 else x
    b = like(y, -y) if y < 0 else y
    while a != 0:
        a, b = _trunc_rem(b, a), a
    return b


def _c_product(x, m):
    return m


@overload(_c_product)
def _c_product_typed(x, m):
    # C++ multiplies 8- and 16-bit integers as int, wider ones in their own type (wrapping).
    if isinstance(x, types.Integer) and x.bitwidth >= 32:
        ty = x
        return lambda x, m: ty(m)
    return lambda x, m: m


def _lcm(x, y):
    g = _gcd(x, y)
    if g == 0:
        return like(x, 0)
    # x // -1 would trap on the most negative integer; -x wraps instead.
    m = _c_product(x, (like(x, -x) if g == -1 else x // g) * y)
    return like(m, -m) if m < 0 else m


_GCD = elementwise("gcd", _gcd, nin=2, result="integral", differentiable=False, bool_ok=False)
_LCM = elementwise("lcm", _lcm, nin=2, result="integral", differentiable=False, bool_ok=False)


def _check_tensor_operands(name: str, *xs):
    for position, x in enumerate(xs):
        if not hasattr(x, "_storage"):
            raise TypeError(f"{name}(): argument '{('input', 'other')[position]}' (position {position + 1}) must be "
                            f"Tensor, not {type(x).__name__}")


def _check_integer(name: str, *xs):
    _check_tensor_operands(name, *xs)
    for x in xs:
        dtype = x.dtype
        if dtype.is_floating_point or dtype is dtypes.bool:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{torch_type_name(dtype)}'")


def gcd(input, other, *, out=None):
    """gcd(input, other, *, out=None) -> Tensor

    Elementwise greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0)."""
    _check_integer("gcd", input, other)
    return run_elementwise(_GCD, (input, other), out)


def lcm(input, other, *, out=None):
    """lcm(input, other, *, out=None) -> Tensor

    Elementwise least common multiple of integer tensors (non-negative; 0 when either is 0)."""
    _check_integer("lcm", input, other)
    return run_elementwise(_LCM, (input, other), out)


def gcd_(input, other):
    """gcd_(input, other) -> Tensor: in-place :func:`gcd`."""
    _check_integer("gcd", input, other)
    return run_elementwise(_GCD, (input, other), input, True)


def lcm_(input, other):
    """lcm_(input, other) -> Tensor: in-place :func:`lcm`."""
    _check_integer("lcm", input, other)
    return run_elementwise(_LCM, (input, other), input, True)


def frexp(input, *, out=None):
    """frexp(input, *, out=None) -> (Tensor mantissa, Tensor exponent)

    Splits ``input`` into mantissas in [0.5, 1) (by magnitude) and int32 exponents with
    ``input == mantissa * 2 ** exponent``."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    src = input.detach().cpu()
    # A 16-bit float's mantissa and exponent are those of its float32 value.
    mantissa, exponent = np.frexp((src.float() if src.dtype in dtypes.NARROW_FLOATING else src)._np_view())
    mantissa = _tensor(mantissa, dtype=input.dtype, device=input.device)
    exponent = _tensor(exponent.astype(np.int32), dtype=dtypes.int32, device=input.device)
    if out is not None:
        out[0].resize_(mantissa.shape).copy_(mantissa)
        out[1].resize_(exponent.shape).copy_(exponent)
        mantissa, exponent = out
    return return_type("frexp", ("mantissa", "exponent"))(mantissa, exponent)


# ------------------------------------------------------------------------ incomplete gamma
_EPS = 1e-16
# Near x = a the terms of both expansions shrink like exp(-n**2 / (2 a)): about 9 sqrt(a) of them
# reach _EPS. An expansion that has not converged after _MAX_TERMS (x near a beyond about 1e11)
# gives NaN rather than a truncated sum.
_MAX_TERMS = 1 << 22


@register_jitable
def _terms(a):
    return int(min(100.0 + 10.0 * math.sqrt(a), _MAX_TERMS))


@register_jitable
def _log_prefactor(a, x):
    """log(x**a e**-x / Gamma(a)), the factor both expansions share."""
    return a * math.log(x) - x - math.lgamma(a)


@register_jitable
def _p_series(a, x):
    """P(a, x) by its power series, which converges fast for x < a + 1."""
    term = 1.0 / a
    total = term
    n = a
    for _ in range(_terms(a)):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            return total * math.exp(_log_prefactor(a, x))
    return math.nan


@register_jitable
def _q_fraction(a, x):
    """Q(a, x) by its continued fraction (modified Lentz), which converges fast for x >= a + 1."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, _terms(a)):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return math.exp(_log_prefactor(a, x)) * h
    return math.nan


@register_jitable
def _regularised(a, x, upper):
    # In float64 for every input dtype (Numba's float() keeps float32): the series and the
    # continued fraction sum hundreds of terms for large a, too many for float32's precision.
    a = np.float64(a)
    x = np.float64(x)
    # PyTorch's order of cases: the boundary values of the other argument decide before a NaN
    # does (P(NaN, 0) = 0, P(NaN, inf) = 1).
    if a < 0.0 or x < 0.0:
        return math.nan
    if a == 0.0:
        if x > 0.0:
            return 0.0 if upper else 1.0
        return math.nan
    if x == 0.0:
        return 1.0 if upper else 0.0
    if math.isinf(a):
        if math.isinf(x):
            return math.nan
        return 1.0 if upper else 0.0
    if math.isinf(x):
        return 0.0 if upper else 1.0
    if a != a or x != x:
        return math.nan
    # A complement taken by subtraction keeps only absolute accuracy, and rounding may take it a
    # little below 0: clamped, as a probability cannot be negative.
    if x < a + 1.0:
        p = _p_series(a, x)
        return max(1.0 - p, 0.0) if upper else p
    q = _q_fraction(a, x)
    return q if upper else max(1.0 - q, 0.0)


def _igamma(a, x):
    return like(x, _regularised(a, x, False))


def _igammac(a, x):
    return like(x, _regularised(a, x, True))


def _no_derivative(name):
    def d(ans, a, x):
        raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
    return d


def _density(ans, a, x):
    # dP/dx: the gamma density x**(a-1) e**-x / Gamma(a).
    return _E.exp((a - 1) * _E.log(x) - x - _E.lgamma(a))


_IGAMMA = elementwise("igamma", _igamma, nin=2, result="floating", backward_name="IgammaBackward0",
                      d=(_no_derivative("igamma"), _density))
_IGAMMAC = elementwise("igammac", _igammac, nin=2, result="floating", backward_name="IgammacBackward0",
                       d=(_no_derivative("igammac"), lambda ans, a, x: -_density(ans, a, x)))


def igamma(input, other, *, out=None):
    """igamma(input, other, *, out=None) -> Tensor

    The regularised lower incomplete gamma function P(input, other) =
    gamma(input, other) / Gamma(input), differentiable in ``other``."""
    _check_tensor_operands("igamma", input, other)
    return run_elementwise(_IGAMMA, (input, other), out)


def igammac(input, other, *, out=None):
    """igammac(input, other, *, out=None) -> Tensor

    The regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other),
    differentiable in ``other``."""
    _check_tensor_operands("igammac", input, other)
    return run_elementwise(_IGAMMAC, (input, other), out)


def igamma_(input, other):
    """igamma_(input, other) -> Tensor: in-place :func:`igamma`."""
    _check_tensor_operands("igamma", input, other)
    return run_elementwise(_IGAMMA, (input, other), input, True)


def igammac_(input, other):
    """igammac_(input, other) -> Tensor: in-place :func:`igammac`."""
    _check_tensor_operands("igammac", input, other)
    return run_elementwise(_IGAMMAC, (input, other), input, True)
