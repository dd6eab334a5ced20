"""Normalization layers' math: layer_norm (one node, as PyTorch's NativeLayerNormBackward0) and
batch_norm (composed, so fully differentiable)."""
from __future__ import annotations

from ...autograd import tape
from ...autograd.grad_mode import no_grad
from ...ops import functional_elementwise as _E
from ...ops.registry import primitive

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


def _ln_input(v, x, w, dims, eps, *, tangent):
    xhat, _, _, rstd = _normalize(x, dims, eps)
    if tangent:
        d = _normalized_tangent(v, xhat, rstd, dims)
        return d * w if w.__class__ is not float else d
    return _normalized_tangent(v * w if w.__class__ is not float else v, xhat, rstd, dims)


_layer_norm = primitive(
    "native_layer_norm", 3, backward_name="NativeLayerNormBackward0",
    vjp=(lambda g, ans, x, w, b, dims, eps: _ln_input(g, x, w, dims, eps, tangent=False),
         lambda g, ans, x, w, b, dims, eps: g * _normalize(x, dims, eps)[0],
         lambda g, ans, x, w, b, dims, eps: g),
    jvp=(lambda t, ans, x, w, b, dims, eps: _ln_input(t, x, w, dims, eps, tangent=True),
         lambda t, ans, x, w, b, dims, eps: t * _normalize(x, dims, eps)[0],
         lambda t, ans, x, w, b, dims, eps: t))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5) -> Tensor

    Normalizes over the trailing ``normalized_shape`` dims to zero mean and unit (biased)
    variance, then applies the elementwise affine ``weight``, ``bias``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    inputs = (input, 1.0 if weight is None else weight, 0.0 if bias is None else bias)
    x, w, b = [tape.plain(v) for v in inputs]
    out = _affine(_normalize(x, dims, eps)[0], w, b)
    return tape.record_result(_layer_norm, inputs, out, {"dims": dims, "eps": eps})


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5)

    Normalizes each channel (dim 1) with the batch statistics in training (updating the
    running estimates in place, with the unbiased variance) or the running ones in eval."""
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    C = input.shape[1]
    shape = (1, C) + (1,) * (input.ndim - 2)
    dims = (0,) + tuple(range(2, input.ndim))
    if training or running_mean is None:
        n = input.numel() // C
        if training and n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        out, mean, var, _ = _normalize(input, dims, eps)
        if training and running_mean is not None:
            with no_grad():
                running_mean.mul_(1 - momentum).add_(mean.reshape(C) * momentum)
                running_var.mul_(1 - momentum).add_(var.reshape(C) * (momentum * n / (n - 1)))
    else:
        out = (input - running_mean.reshape(shape)) * _E.rsqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out
