"""Rounding to integers, the rounding divisions and remainders, and stepping to the next float:
each with its scalar math, its derivatives and, where the signature is plain, its public function.

round (with decimals), floor_divide, remainder, fmod and nextafter check or convert their
arguments: their functions are in ``functional_elementwise``, as is div's rounding_mode.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from ..functional_elementwise import div, where
from ..records import elementwise, not_implemented, primitive
from .binding import alias, unary
from .shared import like, magnitude, zero
from ...creation import zeros_like

# Floats this large are integers already, and integer inputs pass through exactly; math.ceil and
# friends return int64, so they must not see them (nor inf, nor nan).
_EXACT = 4503599627370496.0  # 2**52


# A zero result takes x * 0 for its sign, as PyTorch's ceil(-0.5) is -0.
def _ceil(x):
    if x != x or x >= _EXACT or x <= -_EXACT:
        return x
    r = math.ceil(x)
    return r if r != 0 else x * 0


@register_jitable
def _floor(x):
    if x != x or x >= _EXACT or x <= -_EXACT:
        return x
    r = math.floor(x)
    return r if r != 0 else x * 0


@register_jitable
def _trunc(x):
    if x != x or x >= _EXACT or x <= -_EXACT:
        return x
    r = math.trunc(x)
    return r if r != 0 else x * 0


@register_jitable
def _round_half_even(x):
    if x != x or x >= _EXACT or x <= -_EXACT:
        return x
    r = math.floor(x + 0.5)
    if r - x == 0.5 and r % 2 != 0:
        r -= 1
    return r if r != 0 else x * 0


def _frac(x):
    if x != x or x >= _EXACT or x <= -_EXACT:
        return x - x
    return x - math.trunc(x) + 0.0  # + 0.0 turns frac(-0.0) into 0.0, as x - trunc(x) is in IEEE


ceil = unary(elementwise("ceil", _ceil, bool_ok=False, vjp=(zero,), jvp=(zero,)),
             "Smallest integer not less than each element.")
floor = unary(elementwise("floor", _floor, bool_ok=False, vjp=(zero,), jvp=(zero,)),
              "Largest integer not greater than each element.")
elementwise("round", _round_half_even, bool_ok=False, vjp=(zero,), jvp=(zero,))


# As PyTorch's round(x, decimals=d): the scale 10**|d| is taken in the compute type (float32 for
# float16, where 10**5 would overflow), and a negative d divides by 10**-d, which is exact where
# multiplying by the inexact 10**d is not.
def _round_decimals(x, decimals):
    if decimals < 0:
        s = like(x, 10.0 ** -decimals)
        return _round_half_even(x / s) * s
    s = like(x, 10.0 ** decimals)
    return _round_half_even(x * s) / s


elementwise("round_decimals", _round_decimals, nin=2, result="floating", vjp=(zero, None), jvp=(zero, None),
            backward_name="RoundBackward1", event="aten::round")
trunc = unary(elementwise("trunc", _trunc, bool_ok=False, vjp=(zero,), jvp=(zero,)),
              "Each element rounded towards zero.")
fix = alias(trunc, "fix")
# The rule reads nothing (PyTorch saves nothing): the result may then be written in place.
frac = unary(elementwise("frac", _frac, result="floating",
                         vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,)),
             "Fractional part x - trunc(x) of each element.")


# ---------------------------------------------------------------------------------- division
def _zeros(g, ans, *xs):
    # Zeros whatever g holds, as PyTorch's rules of the rounding divisions (g * 0 would keep NaN).
    return zeros_like(g)


def _frem(x, y):
    """C's fmod of floats: exact."""
    return math.fmod(x, y)


@overload(_frem)
def _frem_any(x, y):
    # CUDA has fmod in libdevice.
    return lambda x, y: math.fmod(x, y)


@overload(_frem, target="cpu")
def _frem_cpu(x, y):
    # Numba's CPU ``math`` lacks fmod; NumPy's scalar fmod is LLVM's frem, exact as C's fmod.
    return lambda x, y: np.fmod(x, y)


def _by_kind(integral, floating):
    """A scalar function of two operands of one dtype that runs ``integral`` on integers and
    ``floating`` on floats: the two bodies need not type-check for each other's dtypes."""
    def fn(x, y):
        return floating(x, y) if isinstance(x, (float, np.floating)) else integral(x, y)

    @overload(fn)
    def _typed(x, y):
        return floating if isinstance(x, types.Float) else integral

    return fn


# Integer division wraps as two's complement, as PyTorch's: INT_MIN // -1 is INT_MIN (Numba's
# int64 division gives 0 there).
def _floor_divide_int(x, y):
    if y == -1:
        return -x
    return x // y


def _trunc_divide_int(x, y):
    if y == -1:
        return -x
    q = x // y
    if q < 0 and q * y != x:
        q += 1
    return q


def _fmod_int(x, y):
    r = x % y
    if r != 0 and (r < 0) != (x < 0):
        r -= y
    return r


def _remainder_int(x, y):
    return x % y


# Floats: everything starts from the exact fmod, as PyTorch's kernels do. Python's (and Numba's)
# x % y adds y to a remainder of the other sign, which rounds (remainder(-1, 1e8) is 1e8 in
# float32), so fmod cannot be had back from it: (x % y) - y is 0 there, not -1. A zero
# remainder keeps x's sign.
def _fmod_float(x, y):
    return _frem(x, y)


def _remainder_float(x, y):
    r = _frem(x, y)
    if r != 0 and (y < 0) != (r < 0):
        r += y
    return r


def _floor_divide_float(x, y):
    # PyTorch's div_floor: (x - fmod(x, y)) / y is within rounding of an integer, and is an
    # integer off by one where the signs differ; floor(x / y) would round 69.99999 up to 70.
    if y == 0:
        return x / y
    r = _frem(x, y)
    q = (x - r) / y
    if r != 0 and (y < 0) != (r < 0):
        q -= like(q, 1)
    if q == 0:
        return math.copysign(like(q, 0), x / y)
    f = _floor(q)
    return f + like(q, 1) if q - f > like(q, 0.5) else f


def _trunc_divide_float(x, y):
    return _trunc(x / y)


_floor_divide = _by_kind(_floor_divide_int, _floor_divide_float)
_trunc_divide = _by_kind(_trunc_divide_int, _trunc_divide_float)
_fmod = _by_kind(_fmod_int, _fmod_float)
_remainder = _by_kind(_remainder_int, _remainder_float)

# floor_divide is aten::floor_divide: recorded, with no derivative. div's rounding modes have
# zero derivatives (PyTorch's DivBackward2); div(rounding_mode="floor") runs this kernel under
# a node of its own.
elementwise("floor_divide", lambda x, y: _floor_divide(x, y), nin=2, bool_ok=False,
            **not_implemented("floor_divide", 2))
elementwise("trunc_divide", lambda x, y: _trunc_divide(x, y), nin=2, bool_ok=False,
            vjp=(_zeros, _zeros), jvp=(_zeros, _zeros), backward_name="DivBackward2")
primitive("div_floor", 2, vjp=(_zeros, _zeros), jvp=(_zeros, _zeros), backward_name="DivBackward2")
# d/dx is 1, read off nothing (as PyTorch's: the result may be written in place, and a NaN
# result at y == 0 does not make the gradient NaN).
elementwise("remainder", lambda x, y: _remainder(x, y), nin=2, bool_ok=False,
            variants={"tt": "RemainderBackward1"},
            d=(lambda ans, x, y: 1.0, lambda ans, x, y: -div(x, y, rounding_mode="floor")))
elementwise("fmod", lambda x, y: _fmod(x, y), nin=2, bool_ok=False, variants={"tt": "FmodBackward1"},
            d=(lambda ans, x, y: 1.0, lambda ans, x, y: -trunc(x / y)))


# ---------------------------------------------------------------------------------- float format
@register_jitable
def _nextafter(x, y, bits):
    # The neighbour of x towards y in the IEEE format of ``bits`` bits (a float16 value arrives
    # widened to float32): one step of the format's spacing at x, halved when stepping towards
    # zero from a power of two. Arithmetic only, so every backend compiles the same body.
    if bits == 16:
        digits, min_exp, largest = 10, -14, 65504.0
    elif bits == 32:
        digits, min_exp, largest = 23, -126, 3.4028234663852886e38
    else:
        digits, min_exp, largest = 52, -1022, 1.7976931348623157e308
    if x != x or y != y:
        return x + y
    if x == y:
        return y
    if x == 0:
        return math.copysign(math.ldexp(1.0, min_exp - digits), y)
    if x == math.inf or x == -math.inf:
        return math.copysign(largest, x)
    if (x == largest and y > x) or (x == -largest and y < x):
        return math.copysign(math.inf, x)
    m, e = math.frexp(x)
    ulp = math.ldexp(1.0, max(e - 1, min_exp) - digits)
    if (y > x) != (x > 0) and magnitude(m) == 0.5 and e - 1 > min_exp:
        ulp *= 0.5
    r = x + ulp if y > x else x - ulp
    # Stepping to zero from the smallest subnormal keeps x's sign.
    return math.copysign(r, x) if r == 0 else r


# Where x == y the result is y itself, so x's change does not reach it (PyTorch's rule too).
elementwise("nextafter", _nextafter, nin=3, result="floating",
            vjp=(lambda g, ans, x, y, h: where(x == y, 0.0, g), zero, None),
            jvp=(lambda t, ans, x, y, h: where(x == y, 0.0, t), zero, None))
