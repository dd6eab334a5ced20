"""The public functions of the elementwise ops, and the backward functions that rules and
``nn.functional`` call.

Ops with a plain signature (``exp(input, *, out=None)``) get a function made from their record,
bound here by ``ops.elementwise.binding`` as their family module declares them. Written here by
hand are the functions that take more than ``out=`` (alpha, rounding_mode, decimals, bounds,
defaults, value), those that check their arguments as PyTorch does before any kernel runs, and
the backward functions. The family modules'
rules call these, so this module imports none of them.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from ..autograd import tape
from ..autograd.profiler import op_event
from .registry import check_out, check_out_grad, check_tensor_arguments, run_elementwise
from ..dtypes import torch_type_name
from .records import OPS

# Grown by @_public below and by ``ops.elementwise.binding`` as the family modules declare ops.
__all__ = []


def _public(fn):
    __all__.append(fn.__name__)
    return fn


def _is_bool(x) -> bool:
    return x.dtype is dtypes.bool if hasattr(x, "_storage") else isinstance(x, bool)


def _mul(x, y):
    # Not ``mul``: the arithmetic family binds that into this module, and only once it has loaded.
    return run_elementwise(OPS["mul"], (x, y))


@_public
def bitwise_not(input, *, out=None):
    """bitwise_not(input, *, out=None) -> Tensor

    Elementwise bitwise NOT; logical NOT for bool tensors."""
    if _is_bool(input):
        return run_elementwise(OPS["logical_not"], (input,), out)
    return run_elementwise(OPS["bitwise_not"], (input,), out)


@_public
def add(input, other, *, alpha=1, out=None):
    """add(input, other, *, alpha=1, out=None) -> Tensor

    Adds ``other``, scaled by ``alpha``, to ``input``: out = input + alpha * other."""
    if alpha != 1:
        return run_elementwise(OPS["add_scaled"], (input, other, _alpha_for(input, other, alpha)), out)
    return run_elementwise(OPS["add"], (input, other), out)


def _alpha_for(input, other, alpha):
    """``alpha`` in the category of the result, as PyTorch scales before it adds."""
    rt = dtypes.result_type(input, other)
    if rt is dtypes.bool:
        return bool(alpha)
    if not rt.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return alpha


@_public
def sub(input, other, *, alpha=1, out=None):
    """sub(input, other, *, alpha=1, out=None) -> Tensor

    Subtracts ``other``, scaled by ``alpha``, from ``input``."""
    _check_not_bool_sub(input, other)
    if alpha != 1:
        return run_elementwise(OPS["sub_scaled"], (input, other, _alpha_for(input, other, alpha)), out)
    return run_elementwise(OPS["sub"], (input, other), out)


subtract = sub
__all__.append("subtract")


def _check_not_bool_sub(a, b):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")


def _is_integral_division(a, b) -> bool:
    return not dtypes.result_type(a, b).is_floating_point


def _check_divisor(a, b):
    """Integer division by zero has no IEEE answer: refuse it before any kernel runs. Bool has
    no division kernel at all, and PyTorch reports that first."""
    if dtypes.result_type(a, b) is dtypes.bool:
        return
    if hasattr(b, "_storage"):
        if b.dtype.is_floating_point:
            return
        zero = bool(run_elementwise(OPS["eq"], (b, 0)).any())
    elif b.__class__ is int:
        # The divisor is converted to the integer type first: 256 is 0 in uint8.
        zero = b % (1 << 8 * dtypes.result_type(a, b).itemsize) == 0
    else:
        zero = b == 0
    if zero:
        raise RuntimeError("ZeroDivisionError")


@_public
def div(input, other, *, rounding_mode=None, out=None):
    """div(input, other, *, rounding_mode=None, out=None) -> Tensor

    Divides input by other. ``rounding_mode`` is None (true division), 'trunc' or 'floor'."""
    if rounding_mode is None:
        return run_elementwise(OPS["div"], (input, other), out)
    return _div_rounded(input, other, rounding_mode, out)


@op_event("aten::div")
def _div_rounded(input, other, rounding_mode, out):
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    integral = _is_integral_division(input, other)
    if integral:
        _check_divisor(input, other)
    elif out is not None:
        check_out_grad("div", out, input, other)
    inputs = (input, other)
    if rounding_mode == "trunc" or integral or out is not None or not (
            tape.should_record(inputs) or tape.has_tangents(inputs)):
        return run_elementwise(OPS["trunc_divide" if rounding_mode == "trunc" else "floor_divide"], inputs, out)
    # floor_divide's kernel under div's node (zero derivatives), not its own (which raises).
    result = run_elementwise(OPS["floor_divide"], (tape.plain(input), tape.plain(other)))
    return tape.record_result(OPS["div_floor"], inputs, result)


divide = true_divide = div
__all__ += ["divide", "true_divide"]


@_public
def floor_divide(input, other, *, out=None):
    """floor_divide(input, other, *, out=None) -> Tensor

    Division rounded towards negative infinity. Unlike ``div(..., rounding_mode='floor')``, it has
    no derivative: its backward raises, as PyTorch's."""
    if _is_integral_division(input, other):
        _check_divisor(input, other)
    return run_elementwise(OPS["floor_divide"], (input, other), out)


@_public
def remainder(input, other, *, out=None):
    """remainder(input, other, *, out=None) -> Tensor

    Python's modulus: the result has the sign of the divisor."""
    if _is_integral_division(input, other):
        _check_divisor(input, other)
    return run_elementwise(OPS["remainder"], (input, other), out)


@_public
def fmod(input, other, *, out=None):
    """fmod(input, other, *, out=None) -> Tensor

    C's fmod: the remainder has the sign of the dividend."""
    if _is_integral_division(input, other):
        _check_divisor(input, other)
    return run_elementwise(OPS["fmod"], (input, other), out)


@_public
def pow(input, exponent, *, out=None):
    """pow(input, exponent, *, out=None) -> Tensor

    Raises input to the power exponent, elementwise, with broadcasting."""
    if exponent.__class__ in (int, float) and isinstance(input, Tensor) and input.dtype.is_floating_point:
        if not -65504.0 <= exponent <= 65504.0:
            dtypes.check_fill_value(exponent, input.dtype)
        return run_elementwise(OPS["pow"], (input, exponent), out)
    if not hasattr(input, "_storage") and not hasattr(exponent, "_storage"):
        raise TypeError("pow() expects at least one Tensor argument")
    rt = dtypes.result_type(input, exponent)
    if not rt.is_floating_point:
        if hasattr(exponent, "_storage"):
            negative_exponent = bool(run_elementwise(OPS["lt"], (exponent, 0)).any()) if exponent.numel() else False
        else:
            negative_exponent = exponent < 0
        if negative_exponent:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if hasattr(input, "_storage") and not hasattr(exponent, "_storage"):
            dtypes.check_fill_value(exponent, rt)
    return run_elementwise(OPS["pow"], (input, exponent), out)


@_public
@op_event("aten::float_power")
def float_power(input, exponent, *, out=None):
    """float_power(input, exponent, *, out=None) -> Tensor

    ``input ** exponent`` computed in double precision: the result is always float64."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power() expects at least one Tensor argument")
    base, exp_ = [x.to(dtypes.float64) if isinstance(x, Tensor) else float(x) for x in (input, exponent)]
    if out is not None and out.dtype is not dtypes.float64:
        raise RuntimeError(f"the output given to float_power has dtype {torch_type_name(out.dtype)} but the "
                           f"operation's result requires dtype Double")
    return pow(base, exp_, out=out)


@_public
def round(input, *, decimals=0, out=None):
    """round(input, *, decimals=0, out=None) -> Tensor

    Rounds to the nearest integer (ties to even), or to ``decimals`` decimal places."""
    if decimals == 0:
        return run_elementwise(OPS["round"], (input,), out)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"round_cpu" not implemented for \'{torch_type_name(input.dtype)}\'')
    return run_elementwise(OPS["round_decimals"], (input, decimals), out)


@_public
def clamp(input, min=None, max=None, *, out=None):
    """clamp(input, min=None, max=None, *, out=None) -> Tensor

    Clamps each element into [min, max] (to max where min > max); bounds are numbers or
    tensors; a NaN element or bound gives NaN."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    bounds = tuple(b for b in (min, max) if b is not None)
    scalars = not any(isinstance(b, Tensor) for b in bounds)
    _check_bool_clamp(input, bounds, "clamp_scalar" if scalars else "clamp")
    _check_bounds_fit(input, bounds)
    if len(bounds) == 1:
        # A missing bound is one that clamps nothing in the result's dtype.
        rt = dtypes.result_type(input, *bounds)
        info = np.iinfo(rt.numpy) if not rt.is_floating_point else None
        if min is None:
            min = -math.inf if info is None else int(info.min)
        else:
            max = math.inf if info is None else int(info.max)
    return run_elementwise(OPS["clamp"], (input, min, max), out)


def aliased(fn, name: str):
    """``fn`` under another ``name``, profiled under that name, as PyTorch's aliases are."""
    named = op_event("aten::" + name)(fn)
    named.__name__ = named.__qualname__ = name
    return named


clip = aliased(clamp, "clip")
__all__.append("clip")


@_public
def clamp_min(input, min, *, out=None):
    """clamp_min(input, min) -> Tensor: max(input, min) elementwise, NaN propagating."""
    _check_bool_clamp(input, (min,), "clamp_min_scalar")
    _check_bounds_fit(input, (min,))
    return run_elementwise(OPS["clamp_min"], (input, min), out)


@_public
def clamp_max(input, max, *, out=None):
    """clamp_max(input, max) -> Tensor: min(input, max) elementwise, NaN propagating."""
    _check_bool_clamp(input, (max,), "clamp_max_scalar")
    _check_bounds_fit(input, (max,))
    return run_elementwise(OPS["clamp_max"], (input, max), out)


def _check_bounds_fit(input, bounds):
    # PyTorch converts a number bound to the result's type, refusing one the type cannot hold.
    for b in bounds:
        # Every float type holds a number within float16's range: only the rest need the check.
        if b.__class__ in (int, float) and isinstance(input, Tensor) and (
                not input.dtype.is_floating_point or not -65504.0 <= b <= 65504.0):
            dtypes.check_fill_value(b, dtypes.result_type(input, b))


def _check_bool_clamp(input, bounds, kernel):
    # PyTorch clamps bool by bool only through clamp_min/clamp_max with a tensor bound.
    if kernel != "clamp" and isinstance(bounds[0], Tensor):
        return
    if isinstance(input, Tensor) and input.dtype is dtypes.bool and \
            dtypes.result_type(input, *bounds) is dtypes.bool:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'Bool\'')


@_public
def lerp(input, end, weight, *, out=None):
    """lerp(input, end, weight, *, out=None) -> Tensor

    Linear interpolation: input + weight * (end - input)."""
    _check_lerp(input, end, weight)
    return run_elementwise(OPS["lerp"], (input, end, weight), out)


def _check_lerp(input, end, weight):
    """PyTorch's lerp promotes nothing: start, end and a weight of 1 or more dims share one
    floating dtype (a 0-d weight counts as a number)."""
    if not isinstance(input, Tensor):
        return
    d = input.dtype
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not d and (t.ndim or name == "end"):
            raise RuntimeError(f"expected dtype {dtypes.C_NAMES[d]} for `{name}` but got dtype "
                               f"{dtypes.C_NAMES[t.dtype]}")
    if not d.is_floating_point and not (isinstance(weight, Tensor) and weight.ndim == 0
                                        and weight.dtype.is_floating_point):
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{torch_type_name(d)}\'')
    if weight.__class__ in (int, float) and not -65504.0 <= weight <= 65504.0:
        # A number weight is converted to the type the kernel computes in (float32 for float16).
        dtypes.check_fill_value(weight, dtypes.float32 if d in dtypes.NARROW_FLOATING else d)


@_public
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor

    input + value * tensor1 * tensor2."""
    if _is_bool(input) and _is_bool(tensor1) and _is_bool(tensor2):
        raise NotImplementedError('"addcmul_cpu_out" not implemented for \'Bool\'')
    return run_elementwise(OPS["addcmul"], (input, tensor1, tensor2, value), out)


@_public
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor

    input + value * tensor1 / tensor2."""
    if _is_integral_division(tensor1, tensor2):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
            "perform a true division of tensor1 and tensor2.")
    return run_elementwise(OPS["addcdiv"], (input, tensor1, tensor2, value), out)


@_public
def where(condition, input=None, other=None, *, out=None):
    """where(condition, input, other, *, out=None) -> Tensor

    Elementwise choice: input where condition is True, otherwise other. With only
    ``condition``, the same as ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if hasattr(condition, "_storage") and condition.dtype is not dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype.name.capitalize()}")
    return run_elementwise(OPS["where"], (condition, input, other), out)


@_public
def xlogy(input, other, *, out=None):
    """xlogy(input, other, *, out=None) -> Tensor

    input * log(other), 0 where input is 0 (even where other is 0), NaN where other is NaN."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy() expects at least one Tensor argument")
    return run_elementwise(OPS["xlogy"], (input, other), out)


@_public
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor

    Replaces NaN with ``nan``, +inf with ``posinf`` and -inf with ``neginf``; the infinities
    default to the largest and lowest finite values of the input's dtype. Integer and bool
    tensors are returned as copies."""
    if not input.dtype.is_floating_point:
        if out is None:
            return input.clone()
        check_out(out, input.shape, input.dtype, "nan_to_num")
        out.copy_(input)
        return out
    big = dtypes.FLOAT_MAX[input.dtype]
    values = [big if posinf is None else posinf, -big if neginf is None else neginf, nan]
    # Replacements beyond the dtype's range round to infinity, as a cast would, without its warning.
    values = [float(v) if v != v or -big <= v <= big else math.copysign(math.inf, v) for v in values]
    return run_elementwise(OPS["nan_to_num"], (input, values[2], values[0], values[1]), out)


@_public
def logit(input, eps=None, *, out=None):
    """logit(input, eps=None, *, out=None) -> Tensor

    log(z / (1 - z)) with z the input clamped to [eps, 1 - eps]; no clamp when ``eps`` is None."""
    return run_elementwise(OPS["logit"], (input, -1.0 if eps is None else float(eps)), out)


@_public
def polygamma(n, input, *, out=None):
    """polygamma(n, input, *, out=None) -> Tensor

    The n-th derivative of the digamma function (n = 0 is digamma)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    check_tensor_arguments("polygamma", 2, input=input)
    return run_elementwise(OPS["polygamma"], (int(n), input), out)


@_public
def heaviside(input, values, *, out=None):
    """heaviside(input, values, *, out=None) -> Tensor

    The Heaviside step: 0 where input < 0, ``values`` where input == 0, 1 where input > 0."""
    check_tensor_arguments("heaviside", input=input, values=values)
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return run_elementwise(OPS["heaviside"], (input, values), out)


@_public
def copysign(input, other, *, out=None):
    """copysign(input, other, *, out=None) -> Tensor

    The magnitude of ``input`` with the sign of ``other`` (a tensor or a number), as floats."""
    check_tensor_arguments("copysign", input=input)
    return run_elementwise(OPS["copysign"], (input, other), out)


@_public
def logaddexp2(input, other, *, out=None):
    """logaddexp2(input, other, *, out=None) -> Tensor

    log2(2**input + 2**other) of each pair, computed without overflow."""
    check_tensor_arguments("logaddexp2", input=input, other=other)
    return run_elementwise(OPS["logaddexp2"], (input, other), out)


@_public
def nextafter(input, other, *, out=None):
    """nextafter(input, other, *, out=None) -> Tensor

    The next representable floating-point value after ``input`` towards ``other``."""
    check_tensor_arguments("nextafter", input=input, other=other)
    rt = dtypes.result_type(input, other)
    if not rt.is_floating_point:
        # Checked here: the format-width operand must not decide the compute dtype.
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{torch_type_name(rt)}\'')
    return run_elementwise(OPS["nextafter"], (input, other, rt.itemsize * 8), out)


@_public
def ldexp(input, other, *, out=None):
    """ldexp(input, other, *, out=None) -> Tensor

    input * 2 ** other, elementwise."""
    check_tensor_arguments("ldexp", input=input, other=other)
    return run_elementwise(OPS["ldexp"], (input, other), out)


@_public
def isreal(input):
    """isreal(input) -> Tensor

    True where an element is real: everywhere, for numgrad's real dtypes."""
    return run_elementwise(OPS["isreal"], (input,))


# ---------------------------------------------------------------------------------- backward functions
# Each runs one fused kernel: the cotangent through its op, as PyTorch's functions of these names.
def pow_backward(grad, input, exponent):
    """``grad * exponent * input ** (exponent - 1)`` for a Python-scalar ``exponent``, in one
    kernel: the cotangent through ``input ** exponent``."""
    return run_elementwise(OPS["pow_backward"], (grad, input, exponent))


def threshold_backward(grad, result):
    """``grad`` where ``result`` is positive or NaN, 0 elsewhere: the cotangent through a ReLU."""
    return run_elementwise(OPS["threshold_backward"], (grad, result))


def tanh_backward(grad, output):
    """``grad * (1 - output ** 2)`` in one kernel: the cotangent through ``output = tanh(x)``."""
    return run_elementwise(OPS["tanh_backward"], (grad, output))


def sigmoid_backward(grad, output):
    """``grad * (1 - output) * output`` in one kernel: the cotangent through ``output = sigmoid(x)``."""
    return run_elementwise(OPS["sigmoid_backward"], (grad, output))


def special_xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 (even where other is -1), NaN where other is NaN
    (``numgrad.special.xlog1py``)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlog1py() expects at least one Tensor argument")
    return run_elementwise(OPS["special_xlog1py"], (input, other), out)


def special_i1(input, *, out=None):
    """Modified Bessel function of the first kind, order 1 (``numgrad.special.i1``)."""
    return run_elementwise(OPS["special_i1"], (input,), out)


# The cotangents of the activations in ``numgrad.nn.functional``: grad times the local derivative
# at ``input``, each in one pass.
def check_floating(kernel, *tensors):
    """Refuse integer operands of an activation (or its backward) as PyTorch does: checked here,
    not by the op, since a float parameter would promote them."""
    rt = dtypes.result_type(*tensors)
    if not rt.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{torch_type_name(rt)}\'')


def gelu_backward(grad, input, approximate="none"):
    """The cotangent of :func:`numgrad.nn.functional.gelu` at ``input``."""
    if approximate == "tanh":
        return run_elementwise(OPS["gelu_tanh_backward"], (grad, input))
    if isinstance(input, Tensor):
        if not input.dtype.is_floating_point and dtypes.result_type(grad, input).is_floating_point:
            input = input.to(dtypes.result_type(grad, input))  # an integer input promotes, as PyTorch's
        result = run_elementwise(OPS["gelu"], (input,))
    else:
        result = input * 0.5 * math.erfc(-input * math.sqrt(0.5))
    return run_elementwise(OPS["gelu_backward"], (grad, input, result))


def silu_backward(grad, input):
    """The cotangent of :func:`numgrad.nn.functional.silu` at ``input``."""
    return run_elementwise(OPS["silu_backward"], (grad, input))


def log_sigmoid_backward(grad, input):
    """The cotangent of :func:`numgrad.nn.functional.logsigmoid` at ``input``."""
    return run_elementwise(OPS["log_sigmoid_backward"], (grad, input))


def leaky_relu_backward(grad, input, negative_slope):
    """The cotangent of :func:`numgrad.nn.functional.leaky_relu` at ``input``."""
    check_floating("leaky_relu_backward_cpu", grad, input)
    return run_elementwise(OPS["leaky_relu_backward"], (grad, input, negative_slope))


def elu_backward(grad, input, alpha):
    """The cotangent of :func:`numgrad.nn.functional.elu` at ``input``."""
    check_floating("elu_backward_cpu", grad, input)
    return run_elementwise(OPS["elu_backward"], (grad, input, alpha))


def softplus_backward(grad, input, beta, threshold):
    """The cotangent of :func:`numgrad.nn.functional.softplus` at ``input``."""
    check_floating("softplus_backward_cpu", grad, input)
    return run_elementwise(OPS["softplus_backward"], (grad, input, beta, threshold))


def hardtanh_backward(grad, input, min_val, max_val):
    """The cotangent of :func:`numgrad.nn.functional.hardtanh` at ``input``."""
    check_floating("hardtanh_backward_cpu", grad, input)
    return run_elementwise(OPS["hardtanh_backward"], (grad, input, min_val, max_val))
