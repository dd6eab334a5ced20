"""Activation functions, each one kernel forward and one backward, with their derivatives and,
for relu, the public function (the others' functions live in ``numgrad.nn.functional``)."""
from __future__ import annotations

import math

from numba.extending import register_jitable

from .. import scalar_math
from ..functional_elementwise import clamp_max, threshold_backward, where
from ..registry import run_elementwise
from ..records import OPS, elementwise
from .arithmetic import abs, sign
from . import vecmath
from .binding import unary
from .exponentials import exp, sigmoid
from .minmax import _clamp
from .shared import like, magnitude, zero
from .trigonometric import tanh
from ...creation import zeros_like


def _relu(x):
    # Only negatives are replaced: NaN and -0.0 pass through, as in PyTorch, and -inf gives 0
    # (x - x would be NaN).
    return like(x, 0) if x < 0 else x


# ReLU's rules read its result, so the input may be overwritten (relu_); both pass the
# cotangent where the result is positive (or NaN) in one kernel, as PyTorch's.
relu = unary(elementwise("relu", _relu, bool_ok=False,
                         vjp=(lambda g, ans, x: threshold_backward(g, ans),),
                         jvp=(lambda t, ans, x: threshold_backward(t, ans),)),
             "max(x, 0) of each element.")


def _no_dependence(gg, ans, g, y):
    # Zeros, not no gradient, as PyTorch's: relu's second derivative reaches x, as 0.
    return zeros_like(gg)


elementwise("threshold_backward", lambda g, y: 0.0 if y <= 0 else g, nin=2, result="floating",
            vjp=(lambda gg, ans, g, y: threshold_backward(gg, y), _no_dependence),
            jvp=(lambda t, ans, g, y: threshold_backward(t, y), None),
            backward_name="ThresholdBackwardBackward0")




# Each activation is one kernel forward and one backward (``name_backward(g, x, *params)``, as
# PyTorch's), so a training step reads its input twice, not once per intermediate. Parameters
# (slopes, bounds) are scalar operands with no derivative. The backward ops' own rules spell the
# second derivative in numgrad ops, so higher orders follow.
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_K = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def _activation(name, math_fn, backward_math, dd, *, nparams=0, reads_result=False, backward_name="", event="",
                inline_math=False):
    """Declare ``name(x, *params)`` and ``name_backward(g, x, *params)``; ``dd(x, *params)`` is
    the second derivative in numgrad ops (None where it is zero). With ``reads_result`` the
    backward also reads the forward's result, as a first parameter: ``name_backward(g, x, y)``."""
    nb = nparams + reads_result
    bw = elementwise(name + "_backward", backward_math, nin=2 + nb, result="floating",
                     vjp=(lambda gg, ans, g, x, *p: run_elementwise(bw, (gg, x) + p),
                          zero if dd is None else lambda gg, ans, g, x, *p: gg * g * dd(x, *p)) + (None,) * nb,
                     jvp=(lambda t, ans, g, x, *p: run_elementwise(bw, (t, x) + p),
                          zero if dd is None else lambda t, ans, g, x, *p: t * g * dd(x, *p)) + (None,) * nb,
                     backward_name=backward_name and backward_name.replace("Backward0", "BackwardBackward0"))
    if reads_result:
        vjp = (lambda g, ans, x: run_elementwise(bw, (g, x, ans)),)
        jvp = (lambda t, ans, x: run_elementwise(bw, (t, x, ans)),)
    else:
        vjp = (lambda g, ans, x, *p: run_elementwise(bw, (g, x) + p),) + (None,) * nparams
        jvp = (lambda t, ans, x, *p: run_elementwise(bw, (t, x) + p),) + (None,) * nparams
    return elementwise(name, math_fn, nin=1 + nparams, result="floating", vjp=vjp, jvp=jvp,
                       backward_name=backward_name, event=event, inline_math=inline_math)


# gelu = x Phi(x), Phi from erfc: 1 + erf(x) cancels in the negative tail. Its derivative is
# Phi(x) + x phi(x), with Phi(x) = y / x read from the result y: a second erfc per element would
# cost more than the rest of the step. phi underflows to 0 long before x * x overflows.
def _gelu(x):
    return x * like(x, 0.5) * vecmath.erfc(-x * like(x, _SQRT1_2))


def _gelu_backward(g, x, y):
    cdf = y / x if magnitude(x) > like(x, 1e-20) else like(x, 0.5)
    return g * (cdf + x * like(x, _INV_SQRT_2PI) * scalar_math.exp(-like(x, 0.5) * x * x))


def _gelu_dd(x, y):
    return _INV_SQRT_2PI * exp(-0.5 * x * x) * (2 - x * x)


# The tanh form: 0.5 (1 + tanh(u)) = sigmoid(2u), with no cancellation for negative x.
def _gelu_tanh(x):
    u = x * like(x, 2.0 * _GELU_K) * (like(x, 1.0) + like(x, _GELU_C) * x * x)
    return x * scalar_math.sigmoid(u)


# As PyTorch's, the derivative is NaN where x * x overflows (0 * inf), though its limit is 0 or 1.
def _gelu_tanh_backward(g, x):
    s = scalar_math.sigmoid(x * like(x, 2.0 * _GELU_K) * (like(x, 1.0) + like(x, _GELU_C) * x * x))
    w = s * (like(x, 1.0) - s)
    return g * (s + x * w * like(x, 2.0 * _GELU_K) * (like(x, 1.0) + like(x, 3.0 * _GELU_C) * (x * x)))


def _gelu_tanh_dd(x):
    q = 1 + (3 * _GELU_C) * x * x
    s = sigmoid(x * (2 * _GELU_K) * (1 + _GELU_C * x * x))
    w = s * (1 - s)
    return w * (4 * _GELU_K * q + (4 * _GELU_K * _GELU_K) * x * q * q * (1 - 2 * s) + (12 * _GELU_K * _GELU_C) * x * x)


def _silu(x):
    return x * scalar_math.sigmoid(x)


def _silu_backward(g, x):
    s = scalar_math.sigmoid(x)
    return g * (s * (like(x, 1.0) + x * (like(x, 1.0) - s)))


def _silu_dd(x):
    s = sigmoid(x)
    return s * (1 - s) * (2 + x * (1 - 2 * s))


# log sigmoid(x) = min(x, 0) - log1p(exp(-|x|)): exp never overflows.
def _log_sigmoid(x):
    return (x if x < 0 else like(x, 0.0)) - math.log1p(scalar_math.exp(-magnitude(x)))


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


# Each ELU-family rule tests x <= 0, as PyTorch's does, so NaN takes the linear branch.
def _elu_backward(g, x, alpha):
    return g * alpha * scalar_math.exp(x) if x <= 0 else g


def _elu_dd(x, alpha):
    # exp of min(x, 0): the unused branch stays finite, so no inf * 0 in higher derivatives.
    # As PyTorch's (and selu's, celu's), it vanishes at 0 itself.
    return where(x < 0, alpha * exp(clamp_max(x, 0.0)), 0.0)


@register_jitable
def _log1p_exp(z):
    # log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)).
    return (z if z > 0 else like(z, 0.0)) + math.log1p(scalar_math.exp(-magnitude(z)))


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
    return like(g, 0.0) if x <= lo or x >= hi else g


_activation("gelu", _gelu, _gelu_backward, _gelu_dd, reads_result=True, inline_math=True)
_activation("gelu_tanh", _gelu_tanh, _gelu_tanh_backward, _gelu_tanh_dd, backward_name="GeluBackward0",
            event="aten::gelu")
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
    return x * like(x, _SELU_SCALE) if x > 0 else like(x, _SELU_SCALE * _SELU_ALPHA) * math.expm1(x)


def _selu_backward(g, x):
    if x <= 0:
        return g * like(x, _SELU_SCALE * _SELU_ALPHA) * scalar_math.exp(x)
    return g * like(x, _SELU_SCALE)


# As PyTorch's, the second derivatives of selu and celu vanish at 0 itself.
def _selu_dd(x):
    return where(x < 0, (_SELU_SCALE * _SELU_ALPHA) * exp(clamp_max(x, 0.0)), 0.0)


def _celu(x, alpha):
    return x if x > 0 else alpha * math.expm1(x / alpha)


def _celu_backward(g, x, alpha):
    return g * scalar_math.exp(x / alpha) if x <= 0 else g


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
    return g * (t + x * scalar_math.sigmoid(x) * (like(x, 1.0) - t * t))


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
        return like(x, 0.0)
    if x >= 3:
        return x
    return x * (x + like(x, 3.0)) / like(x, 6.0)


def _hardswish_backward(g, x):
    if x <= -3:
        return like(g, 0.0)
    if x < 3:
        return g * (x / like(x, 3.0) + like(x, 0.5))
    return g


def _hardswish_dd(x):
    # 1/3 strictly inside (-3, 3): twice hardsigmoid's slope, in x's dtype.
    return run_elementwise(OPS["hardsigmoid_backward"], (2.0, x))


def _hardsigmoid(x):
    if x <= -3:
        return like(x, 0.0)
    if x >= 3:
        return like(x, 1.0)
    return x / like(x, 6.0) + like(x, 0.5)


def _hardsigmoid_backward(g, x):
    return g / like(g, 6.0) if -3 < x < 3 else like(g, 0.0)


def _softsign(x):
    return x / (like(x, 1.0) + magnitude(x))


# PyTorch's chain through x / (1 + |x|), term by term: its rounding, and NaN at +-inf (inf / inf).
def _softsign_backward(g, x):
    d = like(x, 1.0) + magnitude(x)
    sgn = like(x, 1.0) if x > 0 else (like(x, -1.0) if x < 0 else like(x, 0.0))
    return g / d + (-g * ((x / d) / d)) * sgn


def _softsign_dd(x):
    d = 1 + abs(x)
    return -2 * sign(x) / (d * d * d)


def _softshrink(x, lambd):
    if x > lambd:
        return x - lambd
    if x < -lambd:
        return x + lambd
    return x * like(x, 0.0)  # a negative x gives -0, as PyTorch's


# The band test, as PyTorch's, lets NaN through with its gradient.
def _shrink_backward(g, x, lambd):
    return like(g, 0.0) if -lambd <= x <= lambd else g


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
    return like(g, 0.0) if x <= threshold else g


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
            backward_name="ThresholdBackward0", event="aten::threshold").variants["inplace"] = "ThresholdBackward1"
# rrelu's slope is a scalar in eval and a tensor of random slopes in training: leaky_relu's math.
_activation("rrelu_with_noise", _leaky_relu, _leaky_relu_backward, None, nparams=1)
# prelu's slope is a learnable tensor, broadcast over the channels.
elementwise("prelu_kernel", _leaky_relu, nin=2, result="floating",
            d=(lambda ans, x, w: where(x > 0, 1.0, w), lambda ans, x, w: clamp_max(x, 0.0)))
# glu over its two halves a, b (the node itself is recorded on the whole input).
elementwise("glu_halves", lambda a, b: a * scalar_math.sigmoid(b), nin=2, result="floating",
            d=(lambda ans, a, b: sigmoid(b), lambda ans, a, b: ans * (1 - sigmoid(b))))
# glu's cotangent for its gate half b, from the result y: g * y * (1 - sigmoid(b)) in one kernel.
elementwise("glu_gate_backward", lambda g, y, b: g * y * (like(b, 1.0) - scalar_math.sigmoid(b)), nin=3,
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
