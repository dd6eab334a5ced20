"""Activation functions: each elementwise one is a single op (one kernel forward, one backward);
softmax and log_softmax are fused ops."""
from __future__ import annotations

import warnings

from ... import dtypes
from ...autograd.autocast_state import cast_policy
from ...autograd import tape as _tape
from ...ops import functional_elementwise as _E
from ...ops.functional_elementwise import check_floating, sigmoid, tanh, where
from ...ops.nn import log_softmax as _log_softmax, softmax as _softmax
from ...creation import empty, empty as _empty, full_like as _full_like, tensor, zeros as _zeros
from ...ops.elementwise.activations import _SELU_ALPHA, _SELU_SCALE
from ...ops.movement import cat as _cat
from ...ops.registry import run_elementwise, run_in_place
from ...dtypes import torch_type_name
from ...ops.records import OPS, primitive
from ...random import exponential_ as _exponential_, uniform_ as _uniform_
from ...shapes import normalize_dim
from ...autograd.profiler import op_event

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "gelu", "sigmoid", "tanh", "softmax",
           "log_softmax", "softmin", "softplus", "silu", "elu", "elu_", "hardtanh", "hardtanh_", "logsigmoid",
           "selu", "selu_", "celu", "celu_", "mish", "hardswish", "hardsigmoid", "softsign", "softshrink",
           "hardshrink", "tanhshrink", "threshold", "threshold_", "glu", "prelu", "rrelu", "rrelu_",
           "gumbel_softmax"]

_GELU, _GELU_TANH, _SILU, _LOG_SIGMOID = OPS["gelu"], OPS["gelu_tanh"], OPS["silu"], OPS["log_sigmoid"]
_LEAKY_RELU, _ELU, _SOFTPLUS, _HARDTANH = OPS["leaky_relu"], OPS["elu"], OPS["softplus"], OPS["hardtanh"]
_RELU = OPS["relu"]


# The nodes of the in-place forms: the input is overwritten, so their rules read the result,
# which determines the derivative wherever the parameters keep the map invertible (PyTorch's
# is_result backward, with its refusal of negative slopes).
def _negative_slope(kind, tail=""):
    return RuntimeError(
        f"In-place {kind} backward calculation is triggered with a negative slope which is not supported. "
        "This is caused by calling in-place forward function with a negative slope, please call "
        f"out-of-place version instead.{tail}")


def _leaky_relu_from_result(g, ans, x, negative_slope):
    if negative_slope < 0:
        raise _negative_slope("leakyReLu")
    return _E.leaky_relu_backward(g, ans, negative_slope)


def _elu_from_result(g, ans, x, alpha):
    if alpha < 0:
        raise _negative_slope("elu")
    # Below zero the result is alpha * (exp(x) - 1), so the derivative alpha * exp(x) is ans + alpha.
    return _elu_backward_result(g, ans, alpha, 1.0, 1.0)


def _elu_backward_result(g, ans, alpha, scale, input_scale):
    return run_elementwise(OPS["elu_backward_result"], (g, ans, alpha, scale, input_scale))


def _hardtanh_from_result(g, ans, x, min_val, max_val):
    # The result lies strictly inside (min_val, max_val) exactly where the input does.
    return _E.hardtanh_backward(g, ans, min_val, max_val)


_LEAKY_RELU_ = primitive("leaky_relu_", 2, vjp=(_leaky_relu_from_result, None),
                         jvp=(_leaky_relu_from_result, None), backward_name="LeakyReluBackward1")
_ELU_ = primitive("elu_", 2, vjp=(_elu_from_result, None), jvp=(_elu_from_result, None),
                  backward_name="EluBackward1")
_HARDTANH_ = primitive("hardtanh_", 3, vjp=(_hardtanh_from_result, None, None),
                       jvp=(_hardtanh_from_result, None, None), backward_name="HardtanhBackward0")


def _implicit_dim(ndim: int) -> int:
    # PyTorch's legacy rule when dim is omitted.
    return 0 if ndim in (0, 1, 3) else 1


def _apply(op, input, params, inplace: bool, node_op=None):
    if not inplace:
        return run_elementwise(op, (input,) + params)
    return run_in_place(op, input, params, node_op)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(input, dim=None, dtype=None) -> Tensor: exp(x_i) / sum_j exp(x_j) along ``dim``."""
    return _softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log_softmax(input, dim=None, dtype=None) -> Tensor: log(softmax(x)), computed stably."""
    return _log_softmax(input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmin(input, dim=None, dtype=None) -> Tensor: softmax(-x)."""
    return _softmax(-input, _implicit_dim(input.ndim) if dim is None else dim, dtype)


def relu(input, inplace: bool = False):
    """relu(input, inplace=False) -> Tensor: max(x, 0) of each element."""
    if inplace:
        return run_in_place(_RELU, input, (), _RELU)
    return run_elementwise(_RELU, (input,))


def relu_(input):
    """relu_(input) -> Tensor: in-place :func:`relu`."""
    return run_in_place(_RELU, input, (), _RELU)


@op_event("aten::relu6")
def relu6(input, inplace: bool = False):
    """relu6(input, inplace=False) -> Tensor: min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """leaky_relu(input, negative_slope=0.01, inplace=False) -> Tensor: x if x > 0 else
    negative_slope * x."""
    check_floating("leaky_relu_cpu", input)
    return _apply(_LEAKY_RELU, input, (float(negative_slope),), inplace, _LEAKY_RELU_)


def leaky_relu_(input, negative_slope: float = 0.01):
    """leaky_relu_(input, negative_slope=0.01) -> Tensor: in-place :func:`leaky_relu`."""
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
    return _apply(_ELU, input, (float(alpha),), inplace, _ELU_)


def elu_(input, alpha: float = 1.0):
    """elu_(input, alpha=1.0) -> Tensor: in-place :func:`elu`."""
    return elu(input, alpha, True)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """hardtanh(input, min_val=-1, max_val=1, inplace=False) -> Tensor: x clamped to
    [min_val, max_val]; the gradient passes strictly inside."""
    if input.dtype.is_floating_point:
        return _apply(_HARDTANH, input, (float(min_val), float(max_val)), inplace, _HARDTANH_)
    if input.dtype is dtypes.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.dtype is dtypes.uint8 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    # Integer tensors clamp to the bounds truncated to integers, keeping their dtype.
    out = _E.clamp(input, int(min_val), int(max_val))
    return input.copy_(out) if inplace else out


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    """hardtanh_(input, min_val=-1, max_val=1) -> Tensor: in-place :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, True)


# ---------------------------------------------------------------------------------- more activations
_SELU, _CELU, _MISH, _HARDSWISH = OPS["selu"], OPS["celu"], OPS["mish"], OPS["hardswish"]
_HARDSIGMOID, _SOFTSIGN, _TANHSHRINK = OPS["hardsigmoid"], OPS["softsign"], OPS["tanhshrink"]
_SOFTSHRINK, _HARDSHRINK, _THRESHOLD = OPS["softshrink"], OPS["hardshrink"], OPS["threshold_value"]
_RRELU, _PRELU, _GLU_HALVES = OPS["rrelu_with_noise"], OPS["prelu_kernel"], OPS["glu_halves"]
_GLU_GATE_BACKWARD = OPS["glu_gate_backward"]


def _selu_from_result(g, ans, x):
    # Below zero the result is scale alpha (exp(x) - 1), whose derivative is ans + scale alpha.
    return _elu_backward_result(g, ans, _SELU_ALPHA, _SELU_SCALE, 1.0)


def _celu_from_result(g, ans, x, alpha):
    if alpha < 0:
        raise _negative_slope("elu")
    return _elu_backward_result(g, ans, alpha, 1.0, 1.0 / alpha)


def _rrelu_from_result(g, ans, x, noise):
    if bool(noise < 0) if isinstance(noise, float) else bool((noise < 0).any()):
        raise _negative_slope("leakyReLu", " File an issue at https://github.com/pytorch/pytorch if you do "
                              "require supporting in-place leakRelu backward calculation with negative slope")
    return run_elementwise(OPS["rrelu_with_noise_backward"], (g, ans, noise))


# With halves a, b: d/da = sigmoid(b) (glu's own kernel on g) and d/db = ans * (1 - sigmoid(b)).
def _glu_vjp(g, ans, x, dim):
    b = x.chunk(2, dim)[1]
    return _cat([run_elementwise(_GLU_HALVES, (g, b)), run_elementwise(_GLU_GATE_BACKWARD, (g, ans, b))], dim)


def _glu_jvp(t, ans, x, dim):
    ta, tb = t.chunk(2, dim)
    b = x.chunk(2, dim)[1]
    return run_elementwise(_GLU_HALVES, (ta, b)) + run_elementwise(_GLU_GATE_BACKWARD, (tb, ans, b))


_SELU_ = primitive("selu_", 1, vjp=(_selu_from_result,), jvp=(_selu_from_result,), backward_name="EluBackward1")
_CELU_ = primitive("celu_", 2, vjp=(_celu_from_result, None), jvp=(_celu_from_result, None),
                   backward_name="CeluBackward1")
_RRELU_ = primitive("rrelu_with_noise_", 2, vjp=(_rrelu_from_result, None), jvp=(_rrelu_from_result, None),
                    backward_name="RreluWithNoiseBackward1")
_GLU = primitive("glu", 1, vjp=(_glu_vjp,), jvp=(_glu_jvp,), backward_name="GluBackward0")


def _as_float(input):
    # PyTorch's composites promote integer inputs to the default dtype.
    return input if input.dtype.is_floating_point else input.to(dtypes.get_default_dtype())


def _check_lambd(lambd, input):
    if lambd < 0:
        limit = dtypes.finfo(input.dtype).max
        raise RuntimeError(f"lambda must be in range [0, {limit:g}] for input dtype "
                           f"{torch_type_name(input.dtype)}, but found {lambd:g}")


def selu(input, inplace: bool = False):
    """selu(input, inplace=False) -> Tensor: scale * (x if x > 0 else alpha * (exp(x) - 1)), with
    alpha = 1.6733 and scale = 1.0507."""
    check_floating("elu_cpu", input)
    return _apply(_SELU, input, (), inplace, _SELU_)


def selu_(input):
    """selu_(input) -> Tensor: in-place :func:`selu`."""
    return selu(input, True)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """celu(input, alpha=1.0, inplace=False) -> Tensor: x if x > 0 else alpha * (exp(x / alpha) - 1)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    check_floating("elu_cpu", input)
    return _apply(_CELU, input, (float(alpha),), inplace, _CELU_)


def celu_(input, alpha: float = 1.0):
    """celu_(input, alpha=1.0) -> Tensor: in-place :func:`celu`."""
    return celu(input, alpha, True)


def mish(input, inplace: bool = False):
    """mish(input, inplace=False) -> Tensor: x * tanh(softplus(x))."""
    check_floating("mish_cpu", input)
    return _apply(_MISH, input, (), inplace)


def hardswish(input, inplace: bool = False):
    """hardswish(input, inplace=False) -> Tensor: x * relu6(x + 3) / 6."""
    check_floating("hardswish_cpu", input)
    return _apply(_HARDSWISH, input, (), inplace)


def hardsigmoid(input, inplace: bool = False):
    """hardsigmoid(input, inplace=False) -> Tensor: relu6(x + 3) / 6."""
    check_floating("hardsigmoid_cpu", input)
    return _apply(_HARDSIGMOID, input, (), inplace)


def softsign(input):
    """softsign(input) -> Tensor: x / (1 + |x|)."""
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return run_elementwise(_SOFTSIGN, (_as_float(input),))


def tanhshrink(input):
    """tanhshrink(input) -> Tensor: x - tanh(x)."""
    if input.dtype is dtypes.bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return run_elementwise(_TANHSHRINK, (_as_float(input),))


def softshrink(input, lambd: float = 0.5):
    """softshrink(input, lambd=0.5) -> Tensor: x - lambd if x > lambd, x + lambd if x < -lambd,
    else 0."""
    check_floating("softshrink_check", input)
    _check_lambd(lambd, input)
    return run_elementwise(_SOFTSHRINK, (input, float(lambd)))


def hardshrink(input, lambd: float = 0.5):
    """hardshrink(input, lambd=0.5) -> Tensor: x if |x| > lambd else 0."""
    check_floating("hardshrink_cpu", input)
    return run_elementwise(_HARDSHRINK, (input, float(lambd)))


def _threshold(input, th: float, value: float, inplace: bool):
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    if not input.dtype.is_floating_point:
        # Integer tensors keep their dtype, the value truncated to it; both numbers must fit it.
        dtypes.scalar_as(th, input.dtype.numpy)
        dtypes.scalar_as(value, input.dtype.numpy)  # checked without elements too, as PyTorch does
        out = where(input > th, input, _full_like(input, value))
        return input.copy_(out) if inplace else out
    params = (float(th), float(value))
    if inplace:
        return run_in_place(_THRESHOLD, input, params, variant="inplace")
    return run_elementwise(_THRESHOLD, (input,) + params)


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """threshold(input, threshold, value, inplace=False) -> Tensor: x if x > threshold else value."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input, threshold: float, value: float):
    """threshold_(input, threshold, value) -> Tensor: in-place :func:`threshold`."""
    return _threshold(input, threshold, value, True)


@op_event("aten::glu")
def glu(input, dim: int = -1):
    """glu(input, dim=-1) -> Tensor: a * sigmoid(b), where a and b are the two halves of
    ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = normalize_dim(dim, input.ndim)
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {n}")
    check_floating("glu_cpu", input)
    x = _tape.plain(input)
    result = run_elementwise(_GLU_HALVES, (x.narrow(dim, 0, n // 2), x.narrow(dim, n // 2, n // 2)))
    return _tape.record_result(_GLU, (input,), result, {"dim": dim})


@cast_policy("lower")
def prelu(input, weight):
    """prelu(input, weight) -> Tensor: x if x > 0 else weight * x, with one learnable slope per
    channel (dim 1) or one for all."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    check_floating("prelu_cpu", input)
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {torch_type_name(input.dtype)} and "
                           f"{torch_type_name(weight.dtype)}")
    channels, n = (input.shape[1] if input.ndim >= 2 else 1), weight.numel()
    if n != 1 and n != channels:
        raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{n} and channel size = {channels}.")
    w = weight.reshape(()) if n == 1 else weight.reshape((n,) + (1,) * (input.ndim - 2))
    return run_elementwise(_PRELU, (input, w))


@op_event("aten::rrelu")
def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """rrelu(input, lower=1/8, upper=1/3, training=False, inplace=False) -> Tensor: x if x > 0
    else a * x, with a drawn uniformly from [lower, upper] per element in training and
    (lower + upper) / 2 otherwise."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    check_floating("rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu", input)
    if training:
        noise = _rrelu_slopes(input, float(lower), float(upper))
    else:
        noise = (float(lower) + float(upper)) / 2
    return _apply(_RRELU, input, (noise,), inplace, _RRELU_)


def _rrelu_slopes(input, lower: float, upper: float):
    """Training slopes drawn as PyTorch draws them: one double from [lower, upper) per element
    that is not positive, in order, rounded to ``input``'s dtype; 1 for the others. Below
    float64 the bounds are first rounded to float32, as PyTorch holds them."""
    x = input.detach()
    if x.dtype is not dtypes.float64:
        lower, upper = tensor([lower, upper], dtype=dtypes.float32).tolist()
    picked = x <= 0
    # Scaled in two roundings: this draw of PyTorch's is not a fused multiply-add.
    unit = _uniform_(empty(int(picked.sum()), dtype=dtypes.float64))
    drawn = (unit * (upper - lower) + lower).to(x.dtype)
    return _full_like(x, 1.0).masked_scatter_(picked, drawn)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    """rrelu_(input, lower=1/8, upper=1/3, training=False) -> Tensor: in-place :func:`rrelu`."""
    return rrelu(input, lower, upper, training, True)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """gumbel_softmax(logits, tau=1, hard=False, dim=-1) -> Tensor

    softmax((logits + g) / tau) along ``dim`` with Gumbel(0, 1) noise g drawn from numgrad's
    generator; ``hard`` returns one-hot samples whose gradient is the soft sample's (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # Drawn in the logical order of a fresh contiguous tensor, as PyTorch draws them.
    noise = _exponential_(_empty(logits.shape, dtype=logits.dtype, device=logits.device))
    y_soft = _softmax((logits - noise.log()) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = _zeros(logits.shape, dtype=logits.dtype, device=logits.device).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
