"""Activation functions: each elementwise one is a single op (one kernel forward, one backward);
softmax and log_softmax are fused ops."""
from __future__ import annotations

from ... import dtypes
from ...autograd import tape as _tape
from ...ops import functional_elementwise as _E
from ...ops.functional_elementwise import check_floating, sigmoid, tanh, relu
from ...ops.nn import log_softmax as _log_softmax, softmax as _softmax
from ...ops.registry import OPS, run_elementwise

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "gelu", "sigmoid", "tanh", "softmax",
           "log_softmax", "softmin", "softplus", "silu", "elu", "elu_", "hardtanh", "hardtanh_", "logsigmoid"]

_GELU, _GELU_TANH, _SILU, _LOG_SIGMOID = OPS["gelu"], OPS["gelu_tanh"], OPS["silu"], OPS["log_sigmoid"]
_LEAKY_RELU, _ELU, _SOFTPLUS, _HARDTANH = OPS["leaky_relu"], OPS["elu"], OPS["softplus"], OPS["hardtanh"]


def _implicit_dim(ndim: int) -> int:
    # PyTorch's legacy rule when dim is omitted.
    return 0 if ndim in (0, 1, 3) else 1


def _apply(op, input, params, inplace: bool):
    if not inplace:
        return run_elementwise(op, (input,) + params)
    if _tape.should_record((input,)) or _tape.has_tangents((input,)):
        # The node reads the input, which the write below overwrites: it reads a copy instead.
        return input.copy_(run_elementwise(op, (input.clone(),) + params))
    return run_elementwise(op, (input,) + params, input, True)


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
    """relu6(input, inplace=False) -> Tensor: min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor: x if x > 0 else
    negative_slope * x."""
    check_floating("leaky_relu_cpu", input)
    return _apply(_LEAKY_RELU, input, (float(negative_slope),), inplace)


def leaky_relu_(input, negative_slope: float = 0.01):
    """In-place leaky_relu."""
    return leaky_relu(input, negative_slope, True)


def gelu(input, approximate: str = "none"):
    """gelu(input, approximate='none') -> Tensor: x * Phi(x), or its tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    check_floating("GeluKernelImpl", input)
    return run_elementwise(_GELU if approximate == "none" else _GELU_TANH, (input,))


def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """softplus(input, beta=1, threshold=20) -> Tensor: log(1 + exp(beta * x)) / beta, and x
    itself where beta * x > threshold."""
    check_floating("softplus_cpu", input)
    return run_elementwise(_SOFTPLUS, (input, float(beta), float(threshold)))


def logsigmoid(input):
    """logsigmoid(input) -> Tensor: log(sigmoid(x)) = -softplus(-x), computed stably."""
    check_floating("log_sigmoid_cpu", input)
    return run_elementwise(_LOG_SIGMOID, (input,))


def silu(input, inplace: bool = False):
    """silu(input, inplace=False) -> Tensor: x * sigmoid(x)."""
    check_floating("silu_cpu", input)
    return _apply(_SILU, input, (), inplace)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """elu(input, alpha=1.0, inplace=False) -> Tensor: x if x > 0 else alpha * (exp(x) - 1)."""
    check_floating("elu_cpu", input)
    return _apply(_ELU, input, (float(alpha),), inplace)


def elu_(input, alpha: float = 1.0):
    """In-place elu."""
    return elu(input, alpha, True)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """hardtanh(input, min_val=-1, max_val=1, inplace=False) -> Tensor: x clamped to
    [min_val, max_val]; the gradient passes strictly inside."""
    if input.dtype.is_floating_point:
        return _apply(_HARDTANH, input, (float(min_val), float(max_val)), inplace)
    if input.dtype is dtypes.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype is dtypes.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    # Integer tensors clamp to the bounds truncated to integers, keeping their dtype.
    out = _E.clamp(input, int(min_val), int(max_val))
    return input.copy_(out) if inplace else out


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, True)
