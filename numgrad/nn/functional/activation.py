"""Activation functions, composed from numgrad ops (softmax and log_softmax are fused ops)."""
from __future__ import annotations

import math

from ...ops import functional_elementwise as _E
from ...ops.functional_elementwise import sigmoid, tanh, relu
from ...ops.nn import log_softmax as _log_softmax, softmax as _softmax

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax",
           "softmin", "softplus", "silu", "elu", "hardtanh", "logsigmoid"]

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _implicit_dim(ndim: int) -> int:
    # PyTorch's legacy rule when dim is omitted.
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(input, dim=None, dtype=None) -> Tensor: exp(x_i) / sum_j exp(x_j) along ``dim``."""
    return _softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log_softmax(input, dim=None, dtype=None) -> Tensor: log(softmax(x)), computed stably."""
    return _log_softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(input, dim=None, dtype=None) -> Tensor: softmax(-x)."""
    return _softmax(-input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def relu_(input):
    """In-place relu."""
    return input.relu_()


def relu6(input, inplace: bool = False):
    """relu6(input) -> Tensor: min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """leaky_relu(input, negative_slope=0.01) -> Tensor: x if x > 0 else negative_slope * x."""
    out = _E.where(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def gelu(input, approximate: str = "none"):
    """gelu(input, approximate='none') -> Tensor: x * Phi(x), or its tanh approximation."""
    if approximate == "none":
        return 0.5 * input * (1.0 + _E.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        return 0.5 * input * (1.0 + _E.tanh(_SQRT_2_OVER_PI * (input + 0.044715 * input * input * input)))
    raise RuntimeError("approximate argument must be either none or tanh.")


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """softplus(input, beta=1, threshold=20) -> Tensor: log(1 + exp(beta * x)) / beta, and x
    itself where beta * x > threshold."""
    z = input * beta
    linear = z > threshold
    # The unused branch is evaluated on a clamped input so its gradient never produces inf * 0.
    safe = _E.where(linear, 0.0, z)
    return _E.where(linear, input, _E.log1p(_E.exp(safe)) / beta)


def logsigmoid(input):
    """logsigmoid(input) -> Tensor: log(sigmoid(x)) = -softplus(-x), computed stably."""
    return -(_E.log1p(_E.exp(-_E.abs(input))) + relu(-input))


def silu(input, inplace: bool = False):
    """silu(input) -> Tensor: x * sigmoid(x)."""
    out = input * sigmoid(input)
    return input.copy_(out) if inplace else out


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """elu(input, alpha=1.0) -> Tensor: x if x > 0 else alpha * (exp(x) - 1)."""
    neg = _E.where(input > 0, 0.0, input)
    out = _E.where(input > 0, input, alpha * _E.expm1(neg))
    return input.copy_(out) if inplace else out


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """hardtanh(input, min_val=-1, max_val=1) -> Tensor: x clamped to [min_val, max_val]."""
    out = _E.clamp(input, min_val, max_val)
    return input.copy_(out) if inplace else out
