"""Powers, roots, exponentials, logarithms and the logistic sigmoid, each with its scalar math, its
derivatives and, where the signature is plain, its public function.

pow, xlogy, logaddexp2 and ldexp check their arguments: their functions are in
``functional_elementwise``.
"""
from __future__ import annotations

import math

from numba.extending import register_jitable

from .. import scalar_math
from ..functional_elementwise import pow, pow_backward, sigmoid_backward, special_xlog1py, where, xlogy
from ..records import _tagged, elementwise
from . import vecmath
from .binding import binary, unary
from .shared import exact_power, like, magnitude

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


# ---------------------------------------------------------------------------------- powers
@register_jitable
def _pow(x, y):
    # Squares (``x ** 2`` in every loss) skip the pow call; x * x is exactly rounded too.
    if y == 2:
        return x * x
    return exact_power(x, y)


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




# PyTorch computes square as pow(x, 2).
square = unary(elementwise("square", lambda x: x * x, result="bool_long", d=lambda ans, x: 2 * x,
                           backward_name="PowBackward0"),
               "Square of each element.")
sqrt = unary(elementwise("sqrt", lambda x: math.sqrt(x), result="float", d=lambda ans, x: 0.5 / ans),
             "Square root of each element.")
rsqrt = unary(elementwise("rsqrt", lambda x: 1.0 / math.sqrt(x), result="float",
                          d=lambda ans, x: -0.5 * ans * ans * ans),
              "Reciprocal of the square root of each element.")
hypot = binary(elementwise("hypot", lambda x, y: math.hypot(x, y), nin=2, result="floating",
                           d=(lambda ans, x, y: x / ans, lambda ans, x, y: y / ans)),
               "sqrt(input**2 + other**2) of each pair, without overflow in the squares.")

# ---------------------------------------------------------------------------------- exponentials
exp = unary(elementwise("exp", scalar_math.exp, result="float", d=lambda ans, x: ans),
            "Exponential of each element.")
exp2 = unary(elementwise("exp2", lambda x: 2.0 ** x, result="float", d=lambda ans, x: ans * _LN2),
             "2 raised to each element.")
expm1 = unary(elementwise("expm1", vecmath.expm1, result="float", d=lambda ans, x: ans + 1),
              "exp(x) - 1, accurate for small x.")
elementwise("ldexp", lambda x, y: x * like(x, 2.0) ** y, nin=2, result="float",
            d=(lambda ans, x, y: exp2(y), lambda ans, x, y: ans * _LN2))

# sigmoid reads its result, and its cotangent is one fused kernel, as PyTorch's
# sigmoid_backward(g, y) (whose own node names double backward).
sigmoid = unary(elementwise("sigmoid", vecmath.sigmoid, result="float",
                            vjp=(lambda g, ans, x: sigmoid_backward(g, ans),),
                            jvp=(lambda t, ans, x: sigmoid_backward(t, ans),)),
                "Logistic sigmoid 1 / (1 + exp(-x)) of each element, computed without overflow.")
elementwise("sigmoid_backward", lambda g, y: g * (like(y, 1.0) - y) * y, nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: sigmoid_backward(gg, y), lambda gg, ans, g, y: gg * g * (1 - 2 * y)),
            jvp=(lambda t, ans, g, y: sigmoid_backward(t, y), lambda t, ans, g, y: t * g * (1 - 2 * y)),
            backward_name="SigmoidBackwardBackward0")




# ---------------------------------------------------------------------------------- logarithms
log = unary(elementwise("log", vecmath.log, result="float", d=lambda ans, x: 1 / x),
            "Natural logarithm of each element.")
log1p = unary(elementwise("log1p", vecmath.log1p, result="float", d=lambda ans, x: 1 / (x + 1),
                          backward_name="Log1PBackward0"),
              "log(1 + x), accurate for small x.")
log2 = unary(elementwise("log2", lambda x: math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan),
                         result="float", d=lambda ans, x: 1 / (x * _LN2)),
             "Base-2 logarithm of each element.")
log10 = unary(elementwise("log10", lambda x: math.log10(x) if x > 0 else (-math.inf if x == 0 else math.nan),
                          result="float", d=lambda ans, x: 1 / (x * _LN10)),
              "Base-10 logarithm of each element.")


def _logaddexp(x, y):
    if x == y:
        # Equal infinities give themselves, not inf - inf.
        return x + _LN2 if x - x == 0 else x
    m = x if x > y else y
    return m + math.log1p(scalar_math.exp(-magnitude(x - y)))


logaddexp = binary(elementwise("logaddexp", _logaddexp, nin=2, result="floating",
                               d=(lambda ans, x, y: sigmoid(x - y), lambda ans, x, y: sigmoid(y - x))),
                   "log(exp(input) + exp(other)) of each pair, computed without overflow.")


def _logaddexp2(x, y):
    if x == y:
        return x + like(x, 1.0) if x - x == 0 else x
    m = x if x > y else y
    return m + math.log1p(like(x, 2.0) ** -magnitude(x - y)) / like(x, _LN2)


elementwise("logaddexp2", _logaddexp2, nin=2, result="floating",
            d=(lambda ans, x, y: sigmoid((x - y) * _LN2), lambda ans, x, y: sigmoid((y - x) * _LN2)))


@register_jitable
def _log_or_nan(y):
    # The simulated CUDA target runs math.log in Python, which raises below 0.
    return math.log(y) if y > 0 else (-math.inf if y == 0 else math.nan)


@register_jitable
def _x_times(x, y, log_y):
    # x * log_y, but 0 where x == 0 (even where log_y is infinite); NaN for a NaN y, as PyTorch's
    # xlogy and xlog1py.
    if y != y:
        return y
    if x == 0:
        return x - x
    return x * log_y


def _xlogy(x, y):
    return _x_times(x, y, _log_or_nan(y))


def _xlogy_dx(g, x, y):
    # g log(y), but 0 where x == 0 and y <= 0 (there x log(y) is 0 on both sides), as PyTorch's.
    if not hasattr(y, "_storage"):
        return xlogy(g, y) if y > 0 or y != y else where(x == 0, 0.0, xlogy(g, y))
    return where((x == 0) & (y <= 0), 0.0, xlogy(g, y))


elementwise("xlogy", _xlogy, nin=2, result="float", variants={"st": "XlogyBackward1", "ts": "XlogyBackward2"},
            vjp=(lambda g, ans, x, y: _xlogy_dx(g, x, y), lambda g, ans, x, y: g * x / y),
            jvp=(lambda t, ans, x, y: _xlogy_dx(t, x, y), lambda t, ans, x, y: t * x / y))


@register_jitable
def _log1p_or_nan(y):
    # As _log_or_nan: the simulated CUDA target's math.log1p raises at -1 and below.
    return math.log1p(y) if y > -1 else (-math.inf if y == -1 else math.nan)


def _xlog1py(x, y):
    return _x_times(x, y, _log1p_or_nan(y))


def _xlog1py_dx(g, x, y):
    # g log1p(y), 0 where x == 0 (NaN where y is), as PyTorch's: g * xlog1py(x != 0, y).
    nonzero = (x != 0) if hasattr(x, "_storage") else float(x != 0)
    return g * special_xlog1py(nonzero, y)


elementwise("special_xlog1py", _xlog1py, nin=2, result="float", backward_name="SpecialXlog1PyBackward0",
            variants={"st": "SpecialXlog1PyBackward1", "ts": "SpecialXlog1PyBackward2"},
            vjp=(lambda g, ans, x, y: _xlog1py_dx(g, x, y), lambda g, ans, x, y: g * x / (y + 1)),
            jvp=(lambda t, ans, x, y: _xlog1py_dx(t, x, y), lambda t, ans, x, y: t * x / (y + 1)))
