"""Elementwise ops: each declared once with its scalar math and its derivatives.

Scalar bodies are compiled by Numba for every backend, so they use only ``math`` and
arithmetic that Numba supports for both integer and floating compute dtypes. Derivative rules
are written in numgrad ops, so they are themselves differentiable.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from . import scalar_math, special_math
from .registry import OPS, _tagged, elementwise, not_implemented, primitive, run_elementwise

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _zero(g, ans, *xs, **kw):
    return g * 0


def _like(x, c):
    """The constant ``c`` in ``x``'s type: a float64 literal would widen float32 bodies."""
    return c


@overload(_like)
def _like_typed(x, c):
    if isinstance(x, (types.Float, types.Integer, types.Boolean)):
        ty = x
        return lambda x, c: ty(c)
    return lambda x, c: c


# ---------------------------------------------------------------------------------- arithmetic
elementwise("add", lambda x, y: x + y, nin=2,
            vjp=(lambda g, ans, x, y: g, lambda g, ans, x, y: g),
            jvp=(lambda t, ans, x, y: t, lambda t, ans, x, y: t))
# add(x, y, alpha=a) in one kernel, as PyTorch's (a is a scalar operand, never differentiated).
elementwise("add_scaled", lambda x, y, a: x + a * y, nin=3,
            vjp=(lambda g, ans, x, y, a: g, lambda g, ans, x, y, a: g * a, None),
            jvp=(lambda t, ans, x, y, a: t, lambda t, ans, x, y, a: t * a, None),
            backward_name="AddBackward0")
elementwise("sub", lambda x, y: x - y, nin=2, bool_ok=False,
            vjp=(lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
            jvp=(lambda t, ans, x, y: t, lambda t, ans, x, y: -t), variants={"st": "RsubBackward1"})
elementwise("sub_scaled", lambda x, y, a: x - a * y, nin=3, bool_ok=False,
            vjp=(lambda g, ans, x, y, a: g, lambda g, ans, x, y, a: g * -a, None),
            jvp=(lambda t, ans, x, y, a: t, lambda t, ans, x, y, a: t * -a, None),
            backward_name="SubBackward0")
elementwise("mul", lambda x, y: x * y, nin=2, d=(lambda ans, x, y: y, lambda ans, x, y: x))
elementwise("div", lambda x, y: x / y, nin=2, result="float",
            vjp=(lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * x / (y * y)),
            jvp=(lambda t, ans, x, y: t / y, lambda t, ans, x, y: -t * x / (y * y)),
            # PyTorch runs number / tensor as reciprocal() * number, so names that node MulBackward0;
            # numgrad divides once (one rounding), under PyTorch's name.
            variants={"st": "MulBackward0"})


def _zeros(g, ans, *xs):
    # Zeros whatever g holds, as PyTorch's rules of the rounding divisions (g * 0 would keep NaN).
    from ..creation import zeros_like
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
        q -= _like(q, 1)
    if q == 0:
        return math.copysign(_like(q, 0), x / y)
    f = _floor(q)
    return f + _like(q, 1) if q - f > _like(q, 0.5) else f


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


@register_jitable
def _pow(x, y):
    # Squares (``x ** 2`` in every loss) skip the pow call; x * x is exactly rounded too.
    if y == 2:
        return x * x
    return x ** y


def _pow_dx(ans, x, y):
    # y * x**(y-1) for a tensor exponent, written so that y == 0 gives 0 even at x == 0.
    return where(y == 0, 0.0, y * pow(x, y - 1))


def _pow_dy(ans, x, y):
    # ans * log(x), defined as 0 where x == 0 and y >= 0 (the limit PyTorch uses).
    return where((x == 0) & (y >= 0), 0.0, ans * log(x))


def _pow_vjp_x(g, ans, x, y):
    # A Python-scalar exponent (``x ** 2`` in every loss) runs one fused kernel, not two.
    if hasattr(y, "_storage"):
        return g * _pow_dx(ans, x, y)
    return pow_backward(g, x, y)


_tagged(_pow_vjp_x, _pow_dx)  # it reads what _pow_dx reads


elementwise("pow", _pow, nin=2, bool_ok=False, variants={"tt": "PowBackward1", "st": "PowBackward2"},
            vjp=(_pow_vjp_x, _tagged(lambda g, ans, x, y: g * _pow_dy(ans, x, y), _pow_dy)),
            jvp=(_pow_vjp_x, lambda t, ans, x, y: t * _pow_dy(ans, x, y)))


def _pow_backward(g, x, y):
    # g * y * x**(y-1) for a scalar y; 0 (times g, so that NaN stays NaN) for y == 0, even at x == 0.
    # y / y is 1 in the compute dtype: a literal 1 would widen float32 arithmetic to float64.
    if y == 0:
        return g * 0.0
    if y == 2:
        return g * (x + x)
    return g * (y * _pow(x, y - y / y))


def _pow_backward_dx(gg, ans, g, x, y):
    # d/dx of g * y * x**(y-1) is g * y * (y-1) * x**(y-2); the rule is constant for y == 0.
    if y == 0:
        return gg * g * 0.0
    return pow_backward(gg * g, x, y - 1) * y


# PyTorch computes this product in its pow rule, so its node under create_graph is a Mul.
elementwise("pow_backward", _pow_backward, nin=3, result="floating", backward_name="MulBackward0",
            vjp=(lambda gg, ans, g, x, y: pow_backward(gg, x, y), _pow_backward_dx, None),
            jvp=(lambda t, ans, g, x, y: pow_backward(t, x, y), _pow_backward_dx, None))


def _atan2(y, x):
    return math.atan2(y, x)


def _atan2_denominator(y, x):
    # At the origin both partials are 0, as in PyTorch, not 0 / 0.
    r = x * x + y * y
    return where(r == 0, 1.0, r)


elementwise("atan2", _atan2, nin=2, result="float",
            d=(lambda ans, y, x: x / _atan2_denominator(y, x),
               lambda ans, y, x: -y / _atan2_denominator(y, x)))


# ---------------------------------------------------------------------------------- unary math
elementwise("neg", lambda x: -x, bool_ok=False,
            vjp=(lambda g, ans, x: -g,), jvp=(lambda t, ans, x: -t,))


def _abs(x):
    return x if x >= 0 else -x


def _sign(x):
    # In x's own type; NaN gives 0, as PyTorch's.
    if x > 0:
        return _like(x, 1)
    if x < 0:
        return _like(x, -1)
    return _like(x, 0)


elementwise("abs", _abs, bool_ok=False, d=lambda ans, x: sign(x))
elementwise("sign", _sign, vjp=(_zero,), jvp=(_zero,))
elementwise("sqrt", lambda x: math.sqrt(x), result="float", d=lambda ans, x: 0.5 / ans)
elementwise("rsqrt", lambda x: 1.0 / math.sqrt(x), result="float", d=lambda ans, x: -0.5 * ans * ans * ans)
# PyTorch computes square as pow(x, 2).
elementwise("square", lambda x: x * x, result="bool_long", d=lambda ans, x: 2 * x,
            backward_name="PowBackward0")
elementwise("reciprocal", lambda x: 1.0 / x, result="float", d=lambda ans, x: -ans * ans)
elementwise("exp", scalar_math.exp, result="float", d=lambda ans, x: ans)
elementwise("exp2", lambda x: 2.0 ** x, result="float", d=lambda ans, x: ans * _LN2)
elementwise("expm1", lambda x: math.expm1(x), result="float", d=lambda ans, x: ans + 1)
elementwise("log", lambda x: math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan),
            result="float", d=lambda ans, x: 1 / x)
elementwise("log1p", lambda x: math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan),
            result="float", d=lambda ans, x: 1 / (x + 1), backward_name="Log1PBackward0")
elementwise("log2", lambda x: math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan),
            result="float", d=lambda ans, x: 1 / (x * _LN2))
elementwise("log10", lambda x: math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan),
            result="float", d=lambda ans, x: 1 / (x * _LN10))
elementwise("sin", lambda x: math.sin(x), result="float", d=lambda ans, x: cos(x))
elementwise("cos", lambda x: math.cos(x), result="float", d=lambda ans, x: -sin(x))
elementwise("tan", lambda x: math.tan(x), result="float", d=lambda ans, x: 1 + ans * ans)
elementwise("asin", lambda x: math.asin(x) if -1 <= x <= 1 else math.nan, result="float",
            d=lambda ans, x: rsqrt(1 - x * x))
elementwise("acos", lambda x: math.acos(x) if -1 <= x <= 1 else math.nan, result="float",
            d=lambda ans, x: -rsqrt(1 - x * x))
elementwise("atan", lambda x: math.atan(x), result="float", d=lambda ans, x: 1 / (1 + x * x))
elementwise("sinh", lambda x: math.sinh(x), result="float", d=lambda ans, x: cosh(x))
elementwise("cosh", lambda x: math.cosh(x), result="float", d=lambda ans, x: sinh(x))
# tanh and sigmoid read their result, and their cotangent is one fused kernel, as PyTorch's
# tanh_backward(g, y) and sigmoid_backward(g, y) (whose own nodes name double backward).
elementwise("tanh", scalar_math.tanh, result="float",
            vjp=(lambda g, ans, x: tanh_backward(g, ans),), jvp=(lambda t, ans, x: tanh_backward(t, ans),))
elementwise("tanh_backward", lambda g, y: g * (_like(y, 1.0) - y * y), nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: tanh_backward(gg, y), lambda gg, ans, g, y: gg * g * (-2 * y)),
            jvp=(lambda t, ans, g, y: tanh_backward(t, y), lambda t, ans, g, y: t * g * (-2 * y)),
            backward_name="TanhBackwardBackward0")
elementwise("asinh", lambda x: math.asinh(x), result="float", d=lambda ans, x: rsqrt(x * x + 1))
elementwise("acosh", lambda x: math.acosh(x) if x >= 1 else math.nan, result="float",
            d=lambda ans, x: rsqrt(x * x - 1))
elementwise("atanh", lambda x: math.atanh(x) if -1 < x < 1 else (math.copysign(math.inf, x) if x == 1 or x == -1 else math.nan),
            result="float", d=lambda ans, x: 1 / (1 - x * x))

elementwise("sigmoid", scalar_math.sigmoid, result="float",
            vjp=(lambda g, ans, x: sigmoid_backward(g, ans),), jvp=(lambda t, ans, x: sigmoid_backward(t, ans),))
elementwise("sigmoid_backward", lambda g, y: g * (_like(y, 1.0) - y) * y, nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: sigmoid_backward(gg, y), lambda gg, ans, g, y: gg * g * (1 - 2 * y)),
            jvp=(lambda t, ans, g, y: sigmoid_backward(t, y), lambda t, ans, g, y: t * g * (1 - 2 * y)),
            backward_name="SigmoidBackwardBackward0")


def _relu(x):
    # Only negatives are replaced: NaN and -0.0 pass through, as in PyTorch, and -inf gives 0
    # (x - x would be NaN).
    return _like(x, 0) if x < 0 else x


# ReLU's rules read its result, so the input may be overwritten (relu_); both pass the
# cotangent where the result is positive (or NaN) in one kernel, as PyTorch's.
elementwise("relu", _relu, bool_ok=False,
            vjp=(lambda g, ans, x: threshold_backward(g, ans),),
            jvp=(lambda t, ans, x: threshold_backward(t, ans),))
def _no_dependence(gg, ans, g, y):
    # Zeros, not no gradient, as PyTorch's: relu's second derivative reaches x, as 0.
    from ..creation import zeros_like
    return zeros_like(gg)


elementwise("threshold_backward", lambda g, y: 0.0 if y <= 0 else g, nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: threshold_backward(gg, y), _no_dependence),
            jvp=(lambda t, ans, g, y: threshold_backward(t, y), None),
            backward_name="ThresholdBackwardBackward0")


def _erf(x):
    return math.erf(x)


elementwise("erf", _erf, result="float", d=lambda ans, x: 1.1283791670955126 * exp(-x * x))
elementwise("erfc", lambda x: math.erfc(x), result="float", d=lambda ans, x: -1.1283791670955126 * exp(-x * x))

# ---------------------------------------------------------------------------------- rounding
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


elementwise("ceil", _ceil, bool_ok=False, vjp=(_zero,), jvp=(_zero,))
elementwise("floor", _floor, bool_ok=False, vjp=(_zero,), jvp=(_zero,))
elementwise("round", _round_half_even, bool_ok=False, vjp=(_zero,), jvp=(_zero,))
elementwise("trunc", _trunc, bool_ok=False, vjp=(_zero,), jvp=(_zero,))
# The rule reads nothing (PyTorch saves nothing): the result may then be written in place.
elementwise("frac", _frac, result="floating", vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,))


# ---------------------------------------------------------------------------------- min / max
def _maximum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x >= y else y


def _minimum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x <= y else y


def _max_share(ans, x, y):
    # Ties split the gradient equally, as PyTorch does; where either is NaN, both take all of it.
    return where(x < y, 0.0, 1 - (x == y) * 0.5)


def _min_share(ans, x, y):
    return where(x > y, 0.0, 1 - (x == y) * 0.5)


elementwise("maximum", _maximum, nin=2, d=(_max_share, lambda ans, x, y: _max_share(ans, y, x)))
elementwise("minimum", _minimum, nin=2, d=(_min_share, lambda ans, x, y: _min_share(ans, y, x)))


# fmax/fmin ignore a NaN operand (NaN only where both are); ties and NaN pick x, and so does
# the gradient, as PyTorch's.
def _fmax(x, y):
    if y != y:
        return x
    if x != x:
        return y
    return x if x >= y else y


def _fmin(x, y):
    if y != y:
        return x
    if x != x:
        return y
    return x if x <= y else y


def _fmax_picks_x(ans, x, y):
    return (x >= y) | isnan(y)


def _fmin_picks_x(ans, x, y):
    return (x <= y) | isnan(y)


elementwise("fmax", _fmax, nin=2, d=(_fmax_picks_x, lambda ans, x, y: logical_not(_fmax_picks_x(ans, x, y))))
elementwise("fmin", _fmin, nin=2, d=(_fmin_picks_x, lambda ans, x, y: logical_not(_fmin_picks_x(ans, x, y))))


# A NaN operand gives NaN, as in PyTorch (the sum is NaN then; integers never take that branch).
def _clamp_min(x, lo):
    if x != x or lo != lo:
        return x + lo
    return lo if x < lo else x


def _clamp_max(x, hi):
    if x != x or hi != hi:
        return x + hi
    return hi if x > hi else x


def _clamp(x, lo, hi):
    if x != x or lo != lo or hi != hi:
        return x + lo + hi
    y = lo if x < lo else x
    return hi if y > hi else y


elementwise("clamp_min", _clamp_min, nin=2, variants={"tt": "ClampMinBackward1"},
            d=(lambda ans, x, lo: x >= lo, lambda ans, x, lo: x < lo))
elementwise("clamp_max", _clamp_max, nin=2, variants={"tt": "ClampMaxBackward1"},
            d=(lambda ans, x, hi: x <= hi, lambda ans, x, hi: x > hi))
# min(max(x, lo), hi): where lo > hi every element is hi.
elementwise("clamp", _clamp, nin=3, variants={"tss": "ClampBackward1"},
            d=(lambda ans, x, lo, hi: (x >= lo) & (x <= hi), lambda ans, x, lo, hi: (x < lo) & (lo <= hi),
               lambda ans, x, lo, hi: (x > hi) | (lo > hi)))


def _lerp(start, end, weight):
    return start + weight * (end - start)


elementwise("lerp", _lerp, nin=3, result="floating", variants={"ttt": "LerpBackward1"},
            d=(lambda ans, s, e, w: 1 - w, lambda ans, s, e, w: w, lambda ans, s, e, w: e - s))


def _where(c, x, y):
    return x if c != 0 else y


elementwise("where", _where, nin=3,
            vjp=(None, lambda g, ans, c, x, y: where(c, g, 0.0), lambda g, ans, c, x, y: where(c, 0.0, g)),
            jvp=(None, lambda t, ans, c, x, y: where(c, t, 0.0), lambda t, ans, c, x, y: where(c, 0.0, t)))

# ---------------------------------------------------------------------------------- comparisons
elementwise("eq", lambda x, y: x == y, nin=2, result="bool", differentiable=False)
elementwise("ne", lambda x, y: x != y, nin=2, result="bool", differentiable=False)
elementwise("lt", lambda x, y: x < y, nin=2, result="bool", differentiable=False)
elementwise("le", lambda x, y: x <= y, nin=2, result="bool", differentiable=False)
elementwise("gt", lambda x, y: x > y, nin=2, result="bool", differentiable=False)
elementwise("ge", lambda x, y: x >= y, nin=2, result="bool", differentiable=False)
elementwise("isnan", lambda x: x != x, result="bool", differentiable=False)
elementwise("isinf", lambda x: x == math.inf or x == -math.inf, result="bool", differentiable=False)
elementwise("isfinite", lambda x: x == x and x != math.inf and x != -math.inf, result="bool",
            differentiable=False)
elementwise("logical_not", lambda x: x == 0, result="bool", differentiable=False)
elementwise("logical_and", lambda x, y: x != 0 and y != 0, nin=2, result="bool", differentiable=False)
elementwise("logical_or", lambda x, y: x != 0 or y != 0, nin=2, result="bool", differentiable=False)
elementwise("logical_xor", lambda x, y: (x != 0) != (y != 0), nin=2, result="bool", differentiable=False)

# ---------------------------------------------------------------------------------- bitwise
elementwise("bitwise_and", lambda x, y: x & y, nin=2, result="integral", differentiable=False)
elementwise("bitwise_or", lambda x, y: x | y, nin=2, result="integral", differentiable=False)
elementwise("bitwise_xor", lambda x, y: x ^ y, nin=2, result="integral", differentiable=False)


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
        return _like(x, 0)
    return x << y


def _right_shift(x, y):
    if y < 0 or y >= _bits(x):
        return _like(x, -1) if x < 0 else _like(x, 0)
    return x >> y


elementwise("bitwise_left_shift", _left_shift, nin=2, result="integral", differentiable=False,
            bool_ok=False)
elementwise("bitwise_right_shift", _right_shift, nin=2, result="integral", differentiable=False,
            bool_ok=False)

# ---------------------------------------------------------------------------------- copies
elementwise("copy", lambda x: x, result="same", vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,),
            backward_name="ToCopyBackward0")

# ---------------------------------------------------------------------------------- activations
# Each activation is one kernel forward and one backward (``name_backward(g, x, *params)``, as
# PyTorch's), so a training step reads its input twice, not once per intermediate. Parameters
# (slopes, bounds) are scalar operands with no derivative. The backward ops' own rules spell the
# second derivative in numgrad ops, so higher orders follow.
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


@register_jitable
def _magnitude(x):
    # Numba resolves ``abs`` in this module to numgrad's, hence a jittable one of its own.
    return x if x >= 0 else -x


def _activation(name, math_fn, backward_math, dd, *, nparams=0, reads_result=False, backward_name=""):
    """Declare ``name(x, *params)`` and ``name_backward(g, x, *params)``; ``dd(x, *params)`` is
    the second derivative in numgrad ops (None where it is zero). With ``reads_result`` the
    backward also reads the forward's result, as a first parameter: ``name_backward(g, x, y)``."""
    nb = nparams + reads_result
    bw = elementwise(name + "_backward", backward_math, nin=2 + nb, result="floating",
                     vjp=(lambda gg, ans, g, x, *p: run_elementwise(bw, (gg, x) + p),
                          _zero if dd is None else lambda gg, ans, g, x, *p: gg * g * dd(x, *p)) + (None,) * nb,
                     jvp=(lambda t, ans, g, x, *p: run_elementwise(bw, (t, x) + p),
                          _zero if dd is None else lambda t, ans, g, x, *p: t * g * dd(x, *p)) + (None,) * nb,
                     backward_name=backward_name and backward_name.replace("Backward0", "BackwardBackward0"))
    if reads_result:
        vjp = (lambda g, ans, x: run_elementwise(bw, (g, x, ans)),)
        jvp = (lambda t, ans, x: run_elementwise(bw, (t, x, ans)),)
    else:
        vjp = (lambda g, ans, x, *p: run_elementwise(bw, (g, x) + p),) + (None,) * nparams
        jvp = (lambda t, ans, x, *p: run_elementwise(bw, (t, x) + p),) + (None,) * nparams
    return elementwise(name, math_fn, nin=1 + nparams, result="floating", vjp=vjp, jvp=jvp,
                       backward_name=backward_name)


# gelu = x Phi(x), Phi from erfc: 1 + erf(x) cancels in the negative tail. Its derivative is
# Phi(x) + x phi(x), with Phi(x) = y / x read from the result y: a second erfc per element would
# cost more than the rest of the step (libm's erfc does not vectorize). phi underflows to 0 long
# before x * x overflows.
def _gelu(x):
    return x * _like(x, 0.5) * math.erfc(-x * _like(x, _SQRT1_2))


def _gelu_backward(g, x, y):
    cdf = y / x if _magnitude(x) > _like(x, 1e-20) else _like(x, 0.5)
    return g * (cdf + x * _like(x, _INV_SQRT_2PI) * scalar_math.exp(-_like(x, 0.5) * x * x))


def _gelu_dd(x, y):
    return _INV_SQRT_2PI * exp(-0.5 * x * x) * (2 - x * x)


# The tanh form: 0.5 (1 + tanh(u)) = sigmoid(2u), with no cancellation for negative x.
def _gelu_tanh(x):
    u = x * _like(x, 2.0 * _GELU_K) * (_like(x, 1.0) + _like(x, _GELU_C) * x * x)
    return x * scalar_math.sigmoid(u)


def _gelu_tanh_backward(g, x):
    s = scalar_math.sigmoid(x * _like(x, 2.0 * _GELU_K) * (_like(x, 1.0) + _like(x, _GELU_C) * x * x))
    w = s * (_like(x, 1.0) - s)
    # w is exactly 0 beyond |x| = 1e3, so x is clamped there: the cube must not overflow into inf * 0.
    big = _like(x, 1e3)
    c = x if x < big else big
    c = c if c > -big else -big
    return g * (s + c * w * _like(x, 2.0 * _GELU_K) * (_like(x, 1.0) + _like(x, 3.0 * _GELU_C) * c * c))


def _gelu_tanh_dd(x):
    q = 1 + (3 * _GELU_C) * x * x
    s = sigmoid(x * (2 * _GELU_K) * (1 + _GELU_C * x * x))
    w = s * (1 - s)
    return w * (4 * _GELU_K * q + (4 * _GELU_K * _GELU_K) * x * q * q * (1 - 2 * s) + (12 * _GELU_K * _GELU_C) * x * x)


def _silu(x):
    return x * scalar_math.sigmoid(x)


def _silu_backward(g, x):
    s = scalar_math.sigmoid(x)
    return g * (s * (_like(x, 1.0) + x * (_like(x, 1.0) - s)))


def _silu_dd(x):
    s = sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))


# log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): exp never overflows.
def _log_sigmoid(x):
    return (x if x < 0 else _like(x, 0.0)) - math.log1p(scalar_math.exp(-_magnitude(x)))


def _log_sigmoid_backward(g, x):
    return g * scalar_math.sigmoid(-x)


def _log_sigmoid_dd(x):
    s = sigmoid(x)
    return s * (s - 1)


def _leaky_relu(x, slope):
    return x if x > 0 else x * slope


def _leaky_relu_backward(g, x, slope):
    return g if x > 0 else g * slope


def _elu(x, alpha):
    return x if x > 0 else alpha * math.expm1(x)


def _elu_backward(g, x, alpha):
    return g if x > 0 else g * alpha * scalar_math.exp(x)


def _elu_dd(x, alpha):
    # exp of min(x, 0): the unused branch stays finite, so no inf * 0 in higher derivatives.
    # As PyTorch's (and selu's, celu's), it vanishes at 0 itself.
    return where(x < 0, alpha * exp(clamp_max(x, 0.0)), 0.0)


@register_jitable
def _log1p_exp(z):
    # log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)).
    return (z if z > 0 else _like(z, 0.0)) + math.log1p(scalar_math.exp(-_magnitude(z)))


# Linear where beta * x > threshold, as PyTorch's; below, log1p(exp(z)) / beta.
def _softplus(x, beta, threshold):
    z = x * beta
    if z > threshold:
        return x
    return _log1p_exp(z) / beta


def _softplus_backward(g, x, beta, threshold):
    z = x * beta
    return g if z > threshold else g * scalar_math.sigmoid(z)


def _softplus_dd(x, beta, threshold):
    s = sigmoid(x * beta)
    return where(x * beta > threshold, 0.0, beta * s * (1 - s))


# The gradient passes strictly inside (min_val, max_val), as PyTorch's.
def _hardtanh_backward(g, x, lo, hi):
    return _like(g, 0.0) if x <= lo or x >= hi else g


_activation("gelu", _gelu, _gelu_backward, _gelu_dd, reads_result=True)
_activation("gelu_tanh", _gelu_tanh, _gelu_tanh_backward, _gelu_tanh_dd, backward_name="GeluBackward0")
_activation("silu", _silu, _silu_backward, _silu_dd)
_activation("log_sigmoid", _log_sigmoid, _log_sigmoid_backward, _log_sigmoid_dd)
_activation("leaky_relu", _leaky_relu, _leaky_relu_backward, None, nparams=1)
_activation("elu", _elu, _elu_backward, _elu_dd, nparams=1)
_activation("softplus", _softplus, _softplus_backward, _softplus_dd, nparams=2)
_activation("hardtanh", _clamp, _hardtanh_backward, None, nparams=2)


# SELU is ELU scaled (PyTorch runs it as elu, hence the node's name).
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(x):
    return x * _like(x, _SELU_SCALE) if x > 0 else _like(x, _SELU_SCALE * _SELU_ALPHA) * math.expm1(x)


def _selu_backward(g, x):
    if x > 0:
        return g * _like(x, _SELU_SCALE)
    return g * _like(x, _SELU_SCALE * _SELU_ALPHA) * scalar_math.exp(x)


# As PyTorch's, the second derivatives of selu and celu vanish at 0 itself.
def _selu_dd(x):
    return where(x < 0, (_SELU_SCALE * _SELU_ALPHA) * exp(clamp_max(x, 0.0)), 0.0)


def _celu(x, alpha):
    return x if x > 0 else alpha * math.expm1(x / alpha)


def _celu_backward(g, x, alpha):
    return g if x > 0 else g * scalar_math.exp(x / alpha)


def _celu_dd(x, alpha):
    return where(x < 0, exp(clamp_max(x, 0.0) / alpha) / alpha, 0.0)


# mish = x tanh(softplus(x)), softplus in its overflow-free form.
@register_jitable
def _tanh_softplus(x):
    return scalar_math.tanh(_log1p_exp(x))


def _mish(x):
    return x * _tanh_softplus(x)


def _mish_backward(g, x):
    t = _tanh_softplus(x)
    return g * (t + x * scalar_math.sigmoid(x) * (_like(x, 1.0) - t * t))


def _mish_dd(x):
    # tanh(log(1 + e)) = n / (n + 2) with n = e (e + 2); past x = 20 it is 1 to double precision,
    # and the clamp keeps n finite.
    e = exp(clamp_max(x, 20.0))
    n = e * (e + 2)
    t = n / (n + 2)
    s = sigmoid(x)
    return (1 - t * t) * s * (2 + x * (1 - s) - 2 * x * s * t)


def _hardswish(x):
    if x <= -3:
        return _like(x, 0.0)
    if x >= 3:
        return x
    return x * (x + _like(x, 3.0)) / _like(x, 6.0)


def _hardswish_backward(g, x):
    if x <= -3:
        return _like(g, 0.0)
    if x < 3:
        return g * (x / _like(x, 3.0) + _like(x, 0.5))
    return g


def _hardswish_dd(x):
    # 1/3 strictly inside (-3, 3): twice hardsigmoid's slope, in x's dtype.
    return run_elementwise(OPS["hardsigmoid_backward"], (2.0, x))


def _hardsigmoid(x):
    if x <= -3:
        return _like(x, 0.0)
    if x >= 3:
        return _like(x, 1.0)
    return x / _like(x, 6.0) + _like(x, 0.5)


def _hardsigmoid_backward(g, x):
    return g / _like(g, 6.0) if -3 < x < 3 else _like(g, 0.0)


def _softsign(x):
    return x / (_like(x, 1.0) + _magnitude(x))


def _softsign_backward(g, x):
    d = _like(x, 1.0) + _magnitude(x)
    return g / (d * d)


def _softsign_dd(x):
    d = 1 + abs(x)
    return -2 * sign(x) / (d * d * d)


def _softshrink(x, lambd):
    if x > lambd:
        return x - lambd
    if x < -lambd:
        return x + lambd
    return x - x


def _shrink_backward(g, x, lambd):
    return g if x > lambd or x < -lambd else _like(g, 0.0)


def _hardshrink(x, lambd):
    return x if x > lambd or x < -lambd else x - x


def _tanhshrink(x):
    return x - scalar_math.tanh(x)


def _tanhshrink_backward(g, x):
    t = scalar_math.tanh(x)
    return g * t * t


def _tanhshrink_dd(x):
    t = tanh(x)
    return 2 * t * (1 - t * t)


# As PyTorch's: only x <= threshold is replaced, so NaN passes through (with its gradient).
def _threshold(x, threshold, value):
    return value if x <= threshold else x


def _threshold_backward(g, x, threshold, value):
    return _like(g, 0.0) if x <= threshold else g


_activation("selu", _selu, _selu_backward, _selu_dd, backward_name="EluBackward0")
_activation("celu", _celu, _celu_backward, _celu_dd, nparams=1)
_activation("mish", _mish, _mish_backward, _mish_dd)
_activation("hardswish", _hardswish, _hardswish_backward, _hardswish_dd)
_activation("hardsigmoid", _hardsigmoid, _hardsigmoid_backward, None)
# softsign and tanhshrink are composites in PyTorch, whose last node names them.
_activation("softsign", _softsign, _softsign_backward, _softsign_dd, backward_name="DivBackward0")
_activation("tanhshrink", _tanhshrink, _tanhshrink_backward, _tanhshrink_dd, backward_name="SubBackward0")
_activation("softshrink", _softshrink, _shrink_backward, None, nparams=1)
_activation("hardshrink", _hardshrink, _shrink_backward, None, nparams=1)
# "threshold_backward" is ReLU's kernel; in place, the node reads a copy of the input.
_activation("threshold_value", _threshold, _threshold_backward, None, nparams=2,
            backward_name="ThresholdBackward0").variants["inplace"] = "ThresholdBackward1"
# rrelu's slope is a scalar in eval and a tensor of random slopes in training: leaky_relu's math.
_activation("rrelu_with_noise", _leaky_relu, _leaky_relu_backward, None, nparams=1)
# prelu's slope is a learnable tensor, broadcast over the channels.
elementwise("prelu_kernel", _leaky_relu, nin=2, result="floating",
            d=(lambda ans, x, w: where(x > 0, 1.0, w), lambda ans, x, w: clamp_max(x, 0.0)))
# glu over its two halves a, b (the node itself is recorded on the whole input).
elementwise("glu_halves", lambda a, b: a * scalar_math.sigmoid(b), nin=2, result="floating",
            d=(lambda ans, a, b: sigmoid(b), lambda ans, a, b: ans * (1 - sigmoid(b))))
# glu's cotangent for its gate half b, from the result y: g * y * (1 - sigmoid(b)) in one kernel.
elementwise("glu_gate_backward", lambda g, y, b: g * y * (_like(b, 1.0) - scalar_math.sigmoid(b)), nin=3,
            result="floating",
            d=(lambda ans, g, y, b: y * (1 - sigmoid(b)), lambda ans, g, y, b: g * (1 - sigmoid(b)),
               lambda ans, g, y, b: -ans * sigmoid(b)))


# The in-place elu family's backward reads the result y (the input is gone): below zero the
# derivative is input_scale * (y + scale * alpha), as PyTorch's elu_backward with is_result.
def _elu_backward_result(g, y, alpha, scale, input_scale):
    return g * scale if y > 0 else g * input_scale * (y + alpha * scale)


elementwise("elu_backward_result", _elu_backward_result, nin=5, result="floating",
            vjp=(lambda gg, ans, g, y, a, s, i: run_elementwise(OPS["elu_backward_result"], (gg, y, a, s, i)),
                 lambda gg, ans, g, y, a, s, i: where(y > 0, 0.0, gg * g * i), None, None, None),
            jvp=(lambda t, ans, g, y, a, s, i: run_elementwise(OPS["elu_backward_result"], (t, y, a, s, i)),
                 lambda t, ans, g, y, a, s, i: where(y > 0, 0.0, t * g * i), None, None, None),
            backward_name="EluBackwardBackward0")


# ---------------------------------------------------------------------------------- more math
def _nan_to_num(x, nan, posinf, neginf):
    if x != x:
        return nan
    if x == math.inf:
        return posinf
    if x == -math.inf:
        return neginf
    return x


@register_jitable
def _log_or_nan(y):
    # The simulated CUDA target runs math.log in Python, which raises below 0.
    return math.log(y) if y > 0 else (-math.inf if y == 0 else math.nan)


def _xlogy(x, y):
    # 0 where x == 0, even for y == 0 or inf; NaN for a NaN y, as PyTorch's.
    if y != y:
        return y
    if x == 0:
        return x - x
    return x * _log_or_nan(y)


def _logaddexp(x, y):
    if x == y:
        # Equal infinities give themselves, not inf - inf.
        return x + _LN2 if x - x == 0 else x
    m = x if x > y else y
    return m + math.log1p(scalar_math.exp(-_magnitude(x - y)))


def _xlogy_dx(g, x, y):
    # g log(y), but 0 where x == 0 and y <= 0 (there x log(y) is 0 on both sides), as PyTorch's.
    if not hasattr(y, "_storage"):
        return xlogy(g, y) if y > 0 or y != y else where(x == 0, 0.0, xlogy(g, y))
    return where((x == 0) & (y <= 0), 0.0, xlogy(g, y))


elementwise("sgn", _sign, vjp=(_zero,), jvp=(_zero,))
elementwise("nan_to_num", _nan_to_num, nin=4, d=(lambda ans, x, n, p, m: isfinite(x), None, None, None))
elementwise("hypot", lambda x, y: math.hypot(x, y), nin=2, result="floating",
            d=(lambda ans, x, y: x / ans, lambda ans, x, y: y / ans))
elementwise("xlogy", _xlogy, nin=2, result="float", variants={"st": "XlogyBackward1", "ts": "XlogyBackward2"},
            vjp=(lambda g, ans, x, y: _xlogy_dx(g, x, y), lambda g, ans, x, y: g * x / y),
            jvp=(lambda t, ans, x, y: _xlogy_dx(t, x, y), lambda t, ans, x, y: t * x / y))
elementwise("logaddexp", _logaddexp, nin=2, result="floating",
            d=(lambda ans, x, y: sigmoid(x - y), lambda ans, x, y: sigmoid(y - x)))

# ---------------------------------------------------------------------------------- special functions
# The scalar bodies live in ``special_math`` (float64 inside, poles guarded); derivatives chain
# through the family: lgamma' = digamma, digamma' = polygamma(1), polygamma(n)' = polygamma(n + 1),
# i0' = i1.
_DEG = math.pi / 180.0


def _logit_d(x, eps):
    # 1 / (x (1 - x)) inside the clamp; outside it 0 (eps given) or NaN (off [0, 1]), as PyTorch's.
    if eps < 0:
        return where((x < 0) | (x > 1), math.nan, 1 / (x * (1 - x)))
    return where((x < eps) | (x > 1 - eps), 0.0, 1 / (x * (1 - x)))


# logit(x, eps) with eps < 0 meaning no clamp (eps=None), as ATen encodes it.
elementwise("logit", special_math.logit, nin=2, result="float",
            vjp=(lambda g, ans, x, eps: g * _logit_d(x, eps), None),
            jvp=(lambda t, ans, x, eps: t * _logit_d(x, eps), None))
# erfinv and sinc rules recompute from x, as PyTorch's do, so their results may be written in place.
elementwise("erfinv", special_math.erfinv, result="float",
            d=lambda ans, x: special_math.SQRT_PI_OVER_2 * exp(erfinv(x) ** 2))
elementwise("lgamma", special_math.lgamma, result="float", d=lambda ans, x: digamma(x))
elementwise("digamma", special_math.digamma, result="float", d=lambda ans, x: polygamma(1, x))
elementwise("polygamma", special_math.polygamma, nin=2, result="float",
            vjp=(None, lambda g, ans, n, x: g * polygamma(n + 1, x)),
            jvp=(None, lambda t, ans, n, x: t * polygamma(n + 1, x)))
elementwise("i0", special_math.i0, result="float", d=lambda ans, x: special_i1(x))
# i1'(x) = i0(x) - i1(x) / x, 1/2 at 0.
elementwise("special_i1", special_math.i1, result="float",
            d=lambda ans, x: where(x == 0, 0.5, i0(x) - ans / x))
# sinc'(x) = (cos(pi x) - sinc(x)) / x, 0 at 0.
elementwise("sinc", special_math.sinc, result="float",
            d=lambda ans, x: where(x == 0, 0.0, (cos(x * math.pi) - sinc(x)) / x))
elementwise("deg2rad", lambda x: x * _like(x, _DEG), result="float",
            vjp=(lambda g, ans, x: g * _DEG,), jvp=(lambda t, ans, x: t * _DEG,), backward_name="Deg2RadBackward0")
elementwise("rad2deg", lambda x: x * _like(x, 1.0 / _DEG), result="float",
            vjp=(lambda g, ans, x: g * (1.0 / _DEG),), jvp=(lambda t, ans, x: t * (1.0 / _DEG),),
            backward_name="Rad2DegBackward0")


def _copysign_dx(x, ans):
    # ans / x is the sign flip; 0 where x is 0, as PyTorch's.
    return where(x == 0, 0.0, ans / x)


elementwise("copysign", lambda x, y: math.copysign(x, y), nin=2, result="float",
            variants={"ts": "CopysignBackward1"},
            vjp=(lambda g, ans, x, y: g * _copysign_dx(x, ans), _zero),
            jvp=(lambda t, ans, x, y: t * _copysign_dx(x, ans), _zero))


def _heaviside(x, values):
    # NaN compares false, so it gives 0, as PyTorch's.
    if x == 0:
        return values
    return _like(x, 1) if x > 0 else _like(x, 0)


# As in PyTorch, a result from inputs requiring grad is recorded, and its backward raises.
elementwise("heaviside", _heaviside, nin=2, **not_implemented("heaviside", 2))


def _logaddexp2(x, y):
    if x == y:
        return x + _like(x, 1.0) if x - x == 0 else x
    m = x if x > y else y
    return m + math.log1p(_like(x, 2.0) ** -_magnitude(x - y)) / _like(x, _LN2)


elementwise("logaddexp2", _logaddexp2, nin=2, result="floating",
            d=(lambda ans, x, y: sigmoid((x - y) * _LN2), lambda ans, x, y: sigmoid((y - x) * _LN2)))
elementwise("ldexp", lambda x, y: x * _like(x, 2.0) ** y, nin=2, result="float",
            d=(lambda ans, x, y: exp2(y), lambda ans, x, y: ans * _LN2))


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
    if (y > x) != (x > 0) and _magnitude(m) == 0.5 and e - 1 > min_exp:
        ulp *= 0.5
    r = x + ulp if y > x else x - ulp
    # Stepping to zero from the smallest subnormal keeps x's sign.
    return math.copysign(r, x) if r == 0 else r


elementwise("nextafter", _nextafter, nin=3, result="floating",
            vjp=(lambda g, ans, x, y, h: g, _zero, None), jvp=(lambda t, ans, x, y, h: t, _zero, None))


def _signbit(x):
    return math.copysign(1.0, x) < 0


@overload(_signbit)
def _signbit_typed(x):
    if isinstance(x, types.Float):
        return lambda x: math.copysign(_like(x, 1.0), x) < 0
    if isinstance(x, types.Integer):
        return lambda x: x < 0
    return lambda x: False


elementwise("signbit", lambda x: _signbit(x), result="bool", differentiable=False)
elementwise("isneginf", lambda x: x == -math.inf, result="bool", differentiable=False)
elementwise("isposinf", lambda x: x == math.inf, result="bool", differentiable=False)
elementwise("isreal", lambda x: True, result="bool", differentiable=False)

from .functional_elementwise import *  # noqa: E402,F401,F403  (rules above call these by name)
from .functional_elementwise import pow_backward, sigmoid_backward, tanh_backward  # noqa: E402
from .functional_elementwise import threshold_backward  # noqa: E402
from .functional_elementwise import special_i1  # noqa: E402
