"""Normalization layers' math: layer_norm, batch_norm and group_norm, one node each, as PyTorch's
NativeLayerNormBackward0, NativeBatchNormBackward0 and NativeGroupNormBackward0; instance_norm,
rms_norm and local_response_norm composed of those and of elementwise ops, as PyTorch's are."""
from __future__ import annotations

import math
import warnings

from ... import dtypes
from ...autograd import tape
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...ops import functional_elementwise as _E
from ...ops.registry import require_floating, run_elementwise
from ...dtypes import torch_type_name
from ...ops.records import OPS, primitive
from .padding import pad as _pad
from ...autograd.profiler import op_event

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm", "local_response_norm"]


def _normalize(x, dims, eps):
    """(x - mean) * rstd over ``dims``, with the mean, the biased variance and rstd."""
    mean = x.mean(dims, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(dims, keepdim=True)
    rstd = _E.rsqrt(var + eps)
    return xc * rstd, mean, var, rstd


def _widened(v):
    """``v`` in float32 if it is a 16-bit float tensor: normalizations compute in float32 and
    round their result once, as PyTorch's."""
    return v.float() if v.__class__ is not float and v.dtype in dtypes.NARROW_FLOATING else v


def _affine(x, w, b):
    # An absent weight or bias is the float 1.0 or 0.0, so it has no edge in the graph.
    if w.__class__ is not float:
        x = x * w
    return x + b if b.__class__ is not float else x


def _normalized_tangent(t, xhat, rstd, dims):
    """The derivative of (x - mean) * rstd in direction ``t``, at normalized ``xhat``; it is also
    its own adjoint, so it maps cotangents too."""
    return rstd * (t - t.mean(dims, keepdim=True) - xhat * (t * xhat).mean(dims, keepdim=True))


def _differentiated() -> bool:
    """Whether the rule running now is itself recorded (create_graph, forward over reverse)."""
    return is_grad_enabled() or tape._dual_levels[0]


def _stats(x, dims, eps, batch, mean, rstd):
    """(x normalized, rstd) from the forward's statistics; when those were computed from ``x``
    (``batch``) and this rule is itself differentiated (create_graph, forward over reverse), they
    are recomputed as functions of ``x``."""
    if batch and _differentiated():
        xhat, _, _, rstd = _normalize(x, dims, eps)
        return xhat, rstd
    return (x - mean) * rstd, rstd


def _ln_input(v, x, w, dims, eps, mean, rstd, *, tangent):
    xhat, rstd = _stats(x, dims, eps, True, mean, rstd)
    if tangent:
        d = _normalized_tangent(v, xhat, rstd, dims)
        return d * w if w.__class__ is not float else d
    return _normalized_tangent(v * w if w.__class__ is not float else v, xhat, rstd, dims)


# The forward's mean and rstd are kept (as PyTorch's), so a backward that is not itself
# differentiated rebuilds x-hat in two kernels instead of normalizing x again.
_layer_norm = primitive(
    "native_layer_norm", 3, backward_name="NativeLayerNormBackward0",
    vjp=(lambda g, ans, x, w, b, dims, eps, mean, rstd: _ln_input(g, x, w, dims, eps, mean, rstd, tangent=False),
         lambda g, ans, x, w, b, dims, eps, mean, rstd: g * _stats(x, dims, eps, True, mean, rstd)[0],
         lambda g, ans, x, w, b, dims, eps, mean, rstd: g),
    jvp=(lambda t, ans, x, w, b, dims, eps, mean, rstd: _ln_input(t, x, w, dims, eps, mean, rstd, tangent=True),
         lambda t, ans, x, w, b, dims, eps, mean, rstd: t * _stats(x, dims, eps, True, mean, rstd)[0],
         lambda t, ans, x, w, b, dims, eps, mean, rstd: t))


def _check_param_dtypes(input, *params):
    """PyTorch's CPU rule for the parameters of a normalization (None for absent ones): all of
    the input's dtype, or, for a 16-bit float input only, all float32."""
    given = [p for p in params if p is not None]
    if not given:
        return
    if given[0].dtype is not input.dtype:
        if any(p.dtype is not dtypes.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype not in dtypes.NARROW_FLOATING:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {torch_type_name(input.dtype)} but found "
                               f"{torch_type_name(p.dtype)}")


@op_event("aten::layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor

    Normalizes over the trailing ``normalized_shape`` dims to zero mean and unit (biased)
    variance, then applies the elementwise affine ``weight``, ``bias``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
                           "one element, but got normalized_shape = []")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p.shape)} and normalized_shape = {list(shape)}")
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    _check_param_dtypes(input, weight, bias)
    require_floating("LayerNormKernelImpl", input.dtype)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    inputs = (input, 1.0 if weight is None else weight, 0.0 if bias is None else bias)
    x, w, b = [_widened(tape.plain(v)) for v in inputs]
    xhat, mean, _, rstd = _normalize(x, dims, eps)
    return tape.record_result(_layer_norm, inputs, _like_input(_affine(xhat, w, b), input),
                              {"dims": dims, "eps": eps, "mean": mean, "rstd": rstd})


def _like_input(out, input):
    # A 16-bit float input is normalized in float32 and its result rounded, as PyTorch's.
    return out if out.dtype is input.dtype else out.to(input.dtype)


@op_event("aten::batch_norm")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5)

    Normalizes each channel (dim 1) with the batch statistics in training (updating the
    running estimates in place, with the unbiased variance) or the running ones in eval."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    require_floating("batch_norm", input.dtype)
    _check_param_dtypes(input, weight, bias, running_mean, running_var)
    C = input.shape[1]
    shape = (1, C) + (1,) * (input.ndim - 2)
    dims = (0,) + tuple(range(2, input.ndim))
    inputs = (input, 1.0 if weight is None else weight, 0.0 if bias is None else bias)
    x, w, b = [_widened(tape.plain(v)) for v in inputs]
    w, b = [v if v.__class__ is float else v.reshape(shape) for v in (w, b)]
    batch = training or running_mean is None
    if batch:
        n = input.numel() // C
        if training and n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        mean = x.mean(dims, keepdim=True)
        xc = x - mean
        var = (xc * xc).mean(dims, keepdim=True)
        rstd = _E.rsqrt(var + eps)
        # One pass over the batch for the scale: rstd * w has one element per channel.
        out = _affine(xc, rstd if w.__class__ is float else rstd * w, b)
        if training and running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(C) * momentum)
                running_var.mul_(1 - momentum).add_(var.reshape(C) * (momentum * n / (n - 1)))
    else:
        mean = tape.plain(running_mean).reshape(shape).clone()
        rstd = _E.rsqrt(tape.plain(running_var).reshape(shape) + eps)
        # x * scale + shift, with the per-channel scale and shift folded first, as PyTorch's.
        scale = rstd if w.__class__ is float else rstd * w
        out = _affine(x, scale, b - mean * scale)
    # The training rules share their per-channel sums; how many rules run is known now.
    sums = _ChannelSums(sum(getattr(v, "_requires_grad", False) for v in inputs)) if batch else None
    return tape.record_result(_batch_norm, inputs, _like_input(out, input), {"shape": shape, "dims": dims, "eps": eps, "batch": batch,
                                                         "mean": mean, "rstd": rstd, "sums": sums})


class _ChannelSums:
    """Per-channel sum(g) and sum(g * (x - mean)) of one cotangent, which all three training
    rules read: the first rule of a backward computes them and the last one (of ``readers``)
    drops them, so a retained graph holds nothing between backwards."""

    __slots__ = ("readers", "left", "g", "sums")

    def __init__(self, readers):
        self.readers, self.left, self.g, self.sums = readers, 0, None, None

    def of(self, g, x, mean, dims, xc=None):
        if self.g is not g:
            if xc is None:
                xc = x - mean
            self.g, self.left = g, self.readers
            self.sums = g.sum(dims, keepdim=True), (g * xc).sum(dims, keepdim=True)
        sums = self.sums
        self.left -= 1
        if not self.left:
            self.g = self.sums = None
        return sums


def _bn_input(v, x, w, shape, dims, eps, batch, mean, rstd, sums):
    """The derivative of batch_norm in its input applied to ``v``: self-adjoint (the batch
    statistics' own derivative included), so it maps tangents and cotangents alike."""
    if not batch:
        return v * _scale(rstd, w, shape)
    if sums is not None and not _differentiated():
        # PyTorch's closed form on xc = x - mean, every per-channel factor folded first:
        # g * scale - sum(g) * scale / n - xc * (sum(g * xc) * rstd**2 * scale / n).
        scale = _scale(rstd, w, shape)
        xc = x - mean
        gsum, gxc = sums.of(v, x, mean, dims, xc)
        n = v.numel() // gsum.numel()
        return _add_scaled(_add_scaled(gsum * (scale / -n), v, scale), xc, gxc * (rstd * rstd * scale / -n))
    xhat, rstd = _stats(x, dims, eps, batch, mean, rstd)
    scale = _scale(rstd, w, shape)
    return (v - v.mean(dims, keepdim=True)) * scale - xhat * ((v * xhat).mean(dims, keepdim=True) * scale)


def _scale(rstd, w, shape):
    return rstd if w.__class__ is float else rstd * w.reshape(shape)


def _add_scaled(x, y, a):
    # x + a * y in one kernel; a per-channel ``a`` broadcasts like any operand (nothing here
    # is recorded, so its undifferentiated slot does not matter).
    return run_elementwise(OPS["add_scaled"], (x, y, a))


def _bn_weight(g, x, dims, eps, batch, mean, rstd, sums):
    if batch and sums is not None and not _differentiated():
        return (sums.of(g, x, mean, dims)[1] * rstd).reshape(-1)
    return (g * _stats(x, dims, eps, batch, mean, rstd)[0]).sum(dims)


def _bn_bias(g, x, dims, mean, sums):
    if sums is not None and sums.readers > 1 and not _differentiated():
        return sums.of(g, x, mean, dims)[0].reshape(-1)
    return g.sum(dims)


# One node, as PyTorch's NativeBatchNormBackward0; the running statistics are not inputs.
_batch_norm = primitive(
    "native_batch_norm", 3, backward_name="NativeBatchNormBackward0",
    vjp=(lambda g, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: _bn_input(
            g, x, w, shape, dims, eps, batch, mean, rstd, sums),
         lambda g, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: _bn_weight(
            g, x, dims, eps, batch, mean, rstd, sums),
         lambda g, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: _bn_bias(g, x, dims, mean, sums)),
    jvp=(lambda t, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: _bn_input(
            t, x, w, shape, dims, eps, batch, mean, rstd, None),
         lambda t, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: (
            t.reshape(shape) * _stats(x, dims, eps, batch, mean, rstd)[0]),
         lambda t, ans, x, w, b, shape, dims, eps, batch, mean, rstd, sums: t.reshape(shape)))


def _grouped(x, groups):
    """(N, groups, C // groups * spatial) view of (N, C, *spatial) ``x``."""
    return x.reshape(x.shape[0], groups, math.prod(x.shape[1:]) // groups)


def _gn_xhat(x, groups, eps, mean, rstd):
    return _stats(_grouped(x, groups), (2,), eps, True, mean, rstd)[0].reshape(x.shape)


def _gn_input(v, x, w, shape, groups, eps, mean, rstd, *, tangent):
    xhat, rstd = _stats(_grouped(x, groups), (2,), eps, True, mean, rstd)
    if not tangent and w.__class__ is not float:
        v = v * w.reshape(shape)
    d = _normalized_tangent(_grouped(v, groups), xhat, rstd, (2,)).reshape(x.shape)
    return d * w.reshape(shape) if tangent and w.__class__ is not float else d


_group_norm = primitive(
    "native_group_norm", 3, backward_name="NativeGroupNormBackward0",
    vjp=(lambda g, ans, x, w, b, shape, dims, groups, eps, mean, rstd: _gn_input(
            g, x, w, shape, groups, eps, mean, rstd, tangent=False),
         lambda g, ans, x, w, b, shape, dims, groups, eps, mean, rstd: (
            g * _gn_xhat(x, groups, eps, mean, rstd)).sum(dims),
         lambda g, ans, x, w, b, shape, dims, groups, eps, mean, rstd: g.sum(dims)),
    jvp=(lambda t, ans, x, w, b, shape, dims, groups, eps, mean, rstd: _gn_input(
            t, x, w, shape, groups, eps, mean, rstd, tangent=True),
         lambda t, ans, x, w, b, shape, dims, groups, eps, mean, rstd: (
            t.reshape(shape) * _gn_xhat(x, groups, eps, mean, rstd)),
         lambda t, ans, x, w, b, shape, dims, groups, eps, mean, rstd: t.reshape(shape)))


def _verify_batch_size(size, what: str = "value per channel"):
    if math.prod(size[:1] + size[2:]) == 1:
        raise ValueError(f"Expected more than 1 {what} when training, got input size {_torch_size(size)}")


def _torch_size(size):
    return f"torch.Size({list(size)})"


@op_event("aten::group_norm")
def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-5) -> Tensor

    Splits the channels (dim 1) into ``num_groups`` groups and normalizes each group of each
    sample to zero mean and unit (biased) variance, then applies the per-channel affine
    ``weight``, ``bias``."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    N, C = input.shape[0], input.shape[1]
    if num_groups <= 0 or C % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    _verify_batch_size([N * C // num_groups, num_groups] + list(input.shape[2:]))
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.shape[0] != C):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(p.shape)} and input of shape {list(input.shape)}")
    _check_param_dtypes(input, weight, bias)
    require_floating("GroupNormKernelImpl", input.dtype)
    shape = (1, C) + (1,) * (input.ndim - 2)
    inputs = (input, 1.0 if weight is None else weight, 0.0 if bias is None else bias)
    x, w, b = [_widened(tape.plain(v)) for v in inputs]
    xhat, mean, _, rstd = _normalize(_grouped(x, num_groups), (2,), eps)
    out = _affine(xhat.reshape(x.shape), *[v if v.__class__ is float else v.reshape(shape) for v in (w, b)])
    dims = (0,) + tuple(range(2, input.ndim))
    return tape.record_result(_group_norm, inputs, _like_input(out, input), {"shape": shape, "dims": dims, "groups": num_groups,
                                                         "eps": eps, "mean": mean, "rstd": rstd})


@op_event("aten::instance_norm")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5):
    """instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-5)

    Normalizes each channel of each sample over its spatial dims: batch_norm of the input seen
    as one sample with N * C channels. With ``use_input_stats`` the running estimates (one per
    channel) are updated with the samples' average."""
    if use_input_stats and input.ndim >= 2 and math.prod(input.shape[2:]) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         f"{_torch_size(input.shape)}")
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    N, C = input.shape[0], input.shape[1]
    if N * C == 0:
        return input.clone()

    def per_sample(t):
        return None if t is None else t.repeat(N)

    # The per-sample running estimates are in the input's dtype, as PyTorch's.
    rm, rv = [None if t is None else per_sample(t).to(input.dtype) for t in (running_mean, running_var)]
    out = batch_norm(input.reshape((1, N * C) + tuple(input.shape[2:])), rm, rv, per_sample(weight),
                     per_sample(bias), use_input_stats, momentum, eps)
    if use_input_stats:
        with no_grad():
            for running, updated in ((running_mean, rm), (running_var, rv)):
                if running is not None:
                    running.copy_(updated.reshape(N, C).mean(0))
    return out.view(input.shape)


@op_event("aten::rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """rms_norm(input, normalized_shape, weight=None, eps=None) -> Tensor

    Divides by the root mean square over the trailing ``normalized_shape`` dims (plus ``eps``,
    the dtype's machine epsilon when None), then scales by ``weight``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    if weight is not None:
        if tuple(weight.shape) != shape:
            raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                               f"{list(weight.shape)} and normalized_shape = {list(shape)}")
        if weight.dtype is not input.dtype:
            warnings.warn(f"Mismatch dtype between input and weight: input dtype = {dtypes.C_NAMES[input.dtype]}, "
                          f"weight dtype = {dtypes.C_NAMES[weight.dtype]}, Cannot dispatch to fused "
                          "implementation.", stacklevel=2)
    require_floating("rms_norm", input.dtype)
    if eps is None:
        eps = dtypes.finfo(input.dtype).eps
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    x = _widened(input)
    out = x * _E.rsqrt((x * x).mean(dims, keepdim=True) + eps)
    return (out * weight if weight is not None else out).to(input.dtype)


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
    """local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0) -> Tensor

    Divides each element by (k + alpha * the mean of the squares over ``size`` neighbouring
    channels) ** beta, the window zero-padded at both ends of the channel dim."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    require_floating("avg_pool2d", input.dtype)
    if input.numel() == 0:
        return input
    if input.ndim > 3:
        # PyTorch averages the squares of 4-D and larger inputs with avg_pool3d, which has no
        # bfloat16 kernel.
        require_floating("avg_pool3d_out_frame", input.dtype, bfloat16=False)
    C = input.shape[1]
    padded = _pad(input * input, (0, 0) * (input.ndim - 2) + (size // 2, (size - 1) // 2))
    window = padded[:, 0:C]
    for j in range(1, size):
        window = window + padded[:, j:j + C]
    return input / (window / size * alpha + k) ** beta
