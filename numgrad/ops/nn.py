"""Neural-network primitives: softmax, log_softmax, im2col (unfold), col2im (fold) and padding.

Each is declared once with its VJP and JVP rules (written in numgrad ops, so they nest for
higher derivatives); the forward passes run the kernels in ``backends/cpu/nn.py`` or, for
CUDA tensors, in ``backends/cuda/nn.py``. Softmax and log_softmax are fused for speed and
stability; im2col and col2im are each other's adjoint, which makes convolution and pooling
differentiable through one pair of kernels.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numba

from .. import dtypes, shapes
from ..autograd import profiler as _profiler
from ..autograd import tape
from ..autograd.tape import record_result as _finish
from ..backends.cpu import nn as _cpu_nn
from ..creation import full, zeros
from ..dtypes import torch_type_name
from ..tensor import Tensor
from .records import primitive

__all__ = ["softmax", "log_softmax", "class_nll", "im2col", "col2im", "max_pool2d", "constant_pad", "Geometry"]

Geometry = namedtuple("Geometry", "N C H W kh kw sh sw ph pw dh dw oh ow")
Geometry.__doc__ = """The windows of a (N, C, H, W) input: kernel (kh, kw), stride (sh, sw),
padding (ph, pw), dilation (dh, dw) and the resulting (oh, ow) window grid."""

_softmax = primitive(
    "softmax", 1, backward_name="SoftmaxBackward0",
    vjp=(lambda g, ans, x, dim: ans * (g - (g * ans).sum(dim, keepdim=True)),),
    jvp=(lambda t, ans, x, dim: ans * (t - (t * ans).sum(dim, keepdim=True)),))
_log_softmax = primitive(
    "log_softmax", 1, backward_name="LogSoftmaxBackward0",
    vjp=(lambda g, ans, x, dim: log_softmax_backward(g, ans, dim),),
    jvp=(lambda t, ans, x, dim: t - (ans.exp() * t).sum(dim, keepdim=True),))
# g - exp(y) * sum(g): the cotangent of log_softmax's input, as an op of its own (one kernel).
_log_softmax_backward = primitive(
    "log_softmax_backward", 2, backward_name="LogSoftmaxBackwardDataBackward0",
    vjp=(lambda v, ans, g, y, dim: v - (v * y.exp()).sum(dim, keepdim=True),
         lambda v, ans, g, y, dim: -(v * y.exp()) * g.sum(dim, keepdim=True)),
    jvp=(lambda t, ans, g, y, dim: t - y.exp() * t.sum(dim, keepdim=True),
         lambda t, ans, g, y, dim: -(t * y.exp()) * g.sum(dim, keepdim=True)))
_im2col = primitive(
    "im2col", 1, backward_name="Im2ColBackward0",
    vjp=(lambda g, ans, x, geom, pad_value: col2im(g, geom),),
    jvp=(lambda t, ans, x, geom, pad_value: im2col(t, geom),))
_col2im = primitive(
    "col2im", 1, backward_name="Col2ImBackward0",
    vjp=(lambda g, ans, cols, geom: im2col(g, geom),),
    jvp=(lambda t, ans, cols, geom: col2im(t, geom),))


def _kernels(t):
    """The kernel module for tensor ``t``'s device."""
    if t.device.type == "cuda":
        from ..backends.cuda import nn
        return nn
    return _cpu_nn


def _rowwise(op, x, dim, dtype, log: bool):
    if dtype is not None:
        x = x.to(dtypes.as_dtype(dtype))
    if not x.dtype.is_floating_point:
        if x.numel() == 0:  # no kernel runs: PyTorch returns the empty input's like
            shapes.normalize_dim(dim, max(x.ndim, 1))
            return Tensor._empty(x._shape, x.dtype, x.device)
        raise NotImplementedError(f'"{op.name}_lastdim_kernel_impl" not implemented for '
                                  f"'{torch_type_name(x.dtype)}'")
    if x.dtype in dtypes.NARROW_FLOATING:
        # 16-bit floats are storage formats on the CPU: compute in float32 (differentiably).
        return _rowwise(op, x.float(), dim, None, log).to(x.dtype)
    dim = shapes.normalize_dim(dim, max(x.ndim, 1))
    if x.ndim == 0 or (dim == x.ndim - 1 and x.is_contiguous()):
        last = x
    else:
        last = x.detach().movedim(dim, -1).contiguous()
    n = last._shape[-1] if last.ndim else 1
    out = Tensor._empty(last._shape, x.dtype, x.device)
    total = out.numel()
    if total:
        k = _kernels(x)
        if total // n > 1 and k.parallel(total):
            k.softmax_rows_par(last._storage.data, last._offset, out._storage.data, total // n, n, log,
                               min(total // n, _threads()))
        else:
            k.softmax_rows(last._storage.data, last._offset, out._storage.data, 0, total // n, n, log)
    if x.ndim > 1 and dim != x.ndim - 1:
        # Give the result x's dim order without a copy: strides of ``out`` moved back to ``dim``.
        order = list(range(x.ndim - 1))
        order.insert(dim, x.ndim - 1)
        out = Tensor._make(out._storage, x._shape, tuple(out._strides[k] for k in order), 0, x.dtype)
    return _finish(op, (x,), out, {"dim": dim})


def _threads() -> int:
    return numba.get_num_threads()



def softmax(input, dim, dtype=None):
    """softmax(input, dim, dtype=None) -> Tensor

    exp(x) / sum(exp(x)) along ``dim``, computed without overflow for large inputs."""
    if _profiler.enabled:
        return _profiler.timed("aten::softmax", _rowwise, _softmax, input, dim, dtype, False)
    return _rowwise(_softmax, input, dim, dtype, False)


def log_softmax(input, dim, dtype=None):
    """log_softmax(input, dim, dtype=None) -> Tensor

    x - logsumexp(x) along ``dim``, computed stably (finite values and gradients for large
    inputs)."""
    if _profiler.enabled:
        return _profiler.timed("aten::log_softmax", _rowwise, _log_softmax, input, dim, dtype, True)
    return _rowwise(_log_softmax, input, dim, dtype, True)


def log_softmax_backward(grad, output, dim):
    """grad - exp(output) * grad.sum(dim): the cotangent of log_softmax's input given that of
    its ``output``; one kernel for contiguous float32/float64 rows along the last dim."""
    fast = (dim == output.ndim - 1 and output.ndim and grad._shape == output._shape
            and output.device == grad.device and grad.dtype is output.dtype
            and output.dtype in (dtypes.float32, dtypes.float64)
            and grad.is_contiguous() and output.is_contiguous())
    if not fast:
        return grad - output.exp() * grad.sum(dim, keepdim=True)
    n = output._shape[-1]
    out = Tensor._empty(output._shape, output.dtype, output.device)
    if out.numel():
        _kernels(out).log_softmax_backward_rows(grad._storage.data, grad._offset, output._storage.data,
                                                output._offset, out._storage.data, out.numel() // n, n)
    return _finish(_log_softmax_backward, (grad, output), out, {"dim": dim})


def im2col(x, geom: Geometry, pad_value: float = 0.0):
    """The sliding windows of a (N, C, H, W) tensor as the columns of a contiguous
    (N, C*kh*kw, oh*ow) tensor (PyTorch's unfold layout); taps in the padding read ``pad_value``."""
    if _profiler.enabled:
        return _profiler.timed("aten::im2col", _run_im2col, x, geom, pad_value)
    return _run_im2col(x, geom, pad_value)


def _run_im2col(x, geom: Geometry, pad_value: float = 0.0):
    g = geom
    out = Tensor._empty((g.N, g.C * g.kh * g.kw, g.oh * g.ow), x.dtype, x.device)
    if out.numel():
        narrow = x.dtype in dtypes.NARROW_FLOATING
        src = x.detach().float() if narrow else x.detach()
        buf = Tensor._empty(out._shape, dtypes.float32, x.device) if narrow else out
        sn, sc, sh, sw = src._strides
        k = _kernels(x)
        args = (g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.oh, g.ow, pad_value,
                buf._storage.data)
        if g.N > 1 and k.parallel(out.numel()):
            k.im2col_par(src._storage.data, src._offset, sn, sc, sh, sw, g.N, *args)
        else:
            k.im2col(src._storage.data, src._offset, sn, sc, sh, sw, 0, g.N, *args)
        if buf is not out:
            out._write(buf)
    return _finish(_im2col, (x,), out, {"geom": geom, "pad_value": pad_value})


def col2im(cols, geom: Geometry):
    """The adjoint of :func:`im2col`: sums window columns (N, C*kh*kw, oh*ow) back into a
    (N, C, H, W) tensor."""
    if _profiler.enabled:
        return _profiler.timed("aten::col2im", _run_col2im, cols, geom)
    return _run_col2im(cols, geom)


def _run_col2im(cols, geom: Geometry):
    g = geom
    src = cols.detach().contiguous()
    compute = dtypes.float32 if cols.dtype in dtypes.NARROW_FLOATING else cols.dtype
    out = zeros((g.N, g.C, g.H, g.W), dtype=compute, device=cols.device)
    if src.numel():
        if src.dtype is not compute:
            src = src.to(compute)
        k = _kernels(out)
        args = (g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.oh, g.ow, out._storage.data)
        if g.N > 1 and k.parallel(src.numel()):
            k.col2im_par(src._storage.data, src._offset, g.N, *args)
        else:
            k.col2im(src._storage.data, src._offset, 0, g.N, *args)
    if compute is not cols.dtype:
        out = out.to(cols.dtype)
    return _finish(_col2im, (cols,), out, {"geom": geom})


_constant_pad = primitive(
    "constant_pad_nd", 1, backward_name="ConstantPadNdBackward0",
    vjp=(lambda g, ans, x, pads, value: _crop(g, pads),),
    jvp=(lambda t, ans, x, pads, value: constant_pad(t, pads, 0.0),))


def _crop(x, pads):
    """The interior of ``x`` left after removing ``pads`` ((before, after) per trailing dim)."""
    for k, (lo, hi) in enumerate(pads):
        dim = x.ndim - 1 - k
        x = x.narrow(dim, lo, x.shape[dim] - lo - hi)
    return x


def constant_pad(x, pads, value):
    """``x`` surrounded by ``value``: ``pads`` holds non-negative (before, after) pairs for the
    last dim, the one before it, and so on."""
    shape = list(x.shape)
    for k, (lo, hi) in enumerate(pads):
        shape[-1 - k] += lo + hi
    out = full(shape, value, dtype=x.dtype, device=x.device)
    _crop(out, pads)._write(x.detach())
    return _finish(_constant_pad, (x,), out, {"pads": tuple(pads), "value": value})



# ------------------------------------------------------------------------------- max pooling

def _pick_windows(t, indices, geom):
    """The entries of a (N, C, H, W) tensor at each window's maximum: (N, C, oh, ow)."""
    g = geom
    return t.reshape(g.N * g.C, g.H * g.W).gather(1, indices).reshape(g.N, g.C, g.oh, g.ow)


_max_pool2d = primitive(
    "max_pool2d", 1, backward_name="MaxPool2DWithIndicesBackward0",
    vjp=(lambda g, ans, x, indices, geom: max_pool2d_backward(g, indices, geom),),
    jvp=(lambda t, ans, x, indices, geom: _pick_windows(t, indices, geom),))
_max_pool2d_backward = primitive(
    "max_pool2d_backward", 1, backward_name="MaxPool2DWithIndicesBackwardBackward0",
    vjp=(lambda gg, ans, g, indices, geom: _pick_windows(gg, indices, geom),),
    jvp=(lambda t, ans, g, indices, geom: max_pool2d_backward(t, indices, geom),))


def max_pool2d(x, geom: Geometry):
    """(values, indices): each window's maximum of a (N, C, H, W) tensor, (N, C, oh, ow), and
    the flat position y * W + x of its first maximum, (N*C, oh*ow) int64; a NaN wins."""
    if _profiler.enabled:
        return _profiler.timed("aten::max_pool2d_with_indices", _run_max_pool2d, x, geom)
    return _run_max_pool2d(x, geom)


def _run_max_pool2d(x, geom: Geometry):
    g = geom
    if x.dtype in dtypes.NARROW_FLOATING:
        values, indices = max_pool2d(x.float(), geom)
        return values.to(x.dtype), indices
    values = Tensor._empty((g.N, g.C, g.oh, g.ow), x.dtype, x.device)
    indices = Tensor._empty((g.N * g.C, g.oh * g.ow), dtypes.int64, x.device)
    if values.numel():
        sn, sc, sh, sw = x._strides
        k = _kernels(x)
        parallel = x.device.type == "cpu" and g.N > 1 and k.parallel(values.numel() * g.kh * g.kw)
        (k.max_pool_par if parallel else k.max_pool)(
            x._storage.data, x._offset, sn, sc, sh, sw, g.N, g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph,
            g.pw, g.dh, g.dw, g.oh, g.ow, values._storage.data, indices._storage.data)
    return _finish(_max_pool2d, (x,), values, {"indices": indices, "geom": geom}), indices


def max_pool2d_backward(grad, indices, geom: Geometry):
    """The adjoint of picking each window's maximum: ``grad`` (N, C, oh, ow) added at the
    maxima's positions of a zero (N, C, H, W) tensor."""
    if _profiler.enabled:
        return _profiler.timed("aten::max_pool2d_with_indices_backward", _run_max_pool2d_backward, grad,
                               indices, geom)
    return _run_max_pool2d_backward(grad, indices, geom)


def _run_max_pool2d_backward(grad, indices, geom: Geometry):
    g = geom
    compute = dtypes.float32 if grad.dtype in dtypes.NARROW_FLOATING else grad.dtype
    out = zeros((g.N, g.C, g.H, g.W), dtype=compute, device=grad.device)
    if grad.numel():
        src = grad.detach().reshape(g.N * g.C, g.oh * g.ow)
        if src.dtype is not compute:
            src = src.to(compute)
        _kernels(out).max_pool_backward(src._storage.data, src._offset, src._strides[0], src._strides[1],
                                        indices._storage.data, g.N * g.C, g.oh * g.ow, g.H * g.W,
                                        out._storage.data)
    if compute is not grad.dtype:
        out = out.to(grad.dtype)
    return _finish(_max_pool2d_backward, (grad,), out, {"indices": indices, "geom": geom})


# ------------------------------------------------------------------------ negative log-likelihood

def _nll_grad(g, logp, rows, weights, reduction):
    # g times the constant Jacobian, so that the rule stays differentiable in g.
    jac = zeros(logp._shape, dtype=logp.dtype, device=logp.device)
    _kernels(jac).nll_mask(rows._storage.data, weights._storage.data, logp._shape[1], jac._storage.data)
    return (g.unsqueeze(1) if reduction == "none" else g) * jac


def _nll_tangent(t, rows, weights, reduction):
    picked = t.gather(1, rows).squeeze(1).neg() * weights
    return picked if reduction == "none" else picked.sum()


_nll = primitive(
    "nll_loss", 1, backward_name="NllLossBackward0",
    vjp=(lambda g, ans, logp, rows, weights, reduction: _nll_grad(g, logp, rows, weights, reduction),),
    jvp=(lambda t, ans, logp, rows, weights, reduction: _nll_tangent(t, rows, weights, reduction),))


def class_nll(logp, target, reduction: str, ignore_index: int):
    """nll_loss of (N, C) float32/float64 log-probabilities ``logp`` and (N,) class indices
    ``target``, without class weights, in one pass (validating the targets on the way).

    The mean divides by the number of samples not ignored (NaN if none is left, as PyTorch)."""
    n, n_classes = logp._shape
    losses = Tensor._empty((n,), logp.dtype, logp.device)
    rows = Tensor._empty((n, 1), dtypes.int64, logp.device)
    weights = Tensor._empty((n,), logp.dtype, logp.device)
    total, count, bad = _kernels(logp).nll_rows(
        logp._storage.data, logp._offset, logp._strides[0], logp._strides[1], target._storage.data,
        target._offset, target._strides[0], n_classes, ignore_index, losses._storage.data, rows._storage.data,
        weights._storage.data)
    if bad >= 0:
        raise IndexError(f"Target {int(target[bad].item())} is out of bounds.")
    if reduction == "none":
        out, scale = losses, 1.0
    else:
        scale = 1.0 if reduction == "sum" else (1.0 / count if count else math.nan)
        out = Tensor._empty((), logp.dtype, logp.device)
        out._storage.data[out._offset] = total * scale
    inputs = (logp,)
    if not (tape.should_record(inputs) or tape.has_tangents(inputs)):
        return out
    if scale != 1.0 and count:
        # With every sample ignored, all weights stay 0: the gradient is 0, not 0 * NaN.
        weights.mul_(scale)
    return _finish(_nll, inputs, out, {"rows": rows, "weights": weights, "reduction": reduction})
