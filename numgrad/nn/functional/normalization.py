"""Normalization layers' math: layer_norm and batch_norm, one node each, as PyTorch's
NativeLayerNormBackward0 and NativeBatchNormBackward0."""
from __future__ import annotations

from ... import dtypes
from ...autograd import tape
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...ops import functional_elementwise as _E
from ...ops.registry import OPS, primitive, require_floating, run_elementwise, torch_type_name

__all__ = ["layer_norm", "batch_norm"]


def _normalize(x, dims, eps):
    """(x - mean) * rstd over ``dims``, with the mean, the biased variance and rstd."""
    mean = x.mean(dims, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(dims, keepdim=True)
    rstd = _E.rsqrt(var + eps)
    return xc * rstd, mean, var, rstd


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
    the input's dtype, or, for a float16 input only, all float32."""
    given = [p for p in params if p is not None]
    if not given:
        return
    if given[0].dtype is not input.dtype:
        if any(p.dtype is not dtypes.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if input.dtype is not dtypes.float16:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in given:
        if p.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {torch_type_name(input.dtype)} but found "
                               f"{torch_type_name(p.dtype)}")


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
    x, w, b = [tape.plain(v) for v in inputs]
    xhat, mean, _, rstd = _normalize(x, dims, eps)
    return tape.record_result(_layer_norm, inputs, _affine(xhat, w, b),
                              {"dims": dims, "eps": eps, "mean": mean, "rstd": rstd})


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
    x, w, b = [tape.plain(v) for v in inputs]
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
    return tape.record_result(_batch_norm, inputs, out, {"shape": shape, "dims": dims, "eps": eps, "batch": batch,
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
