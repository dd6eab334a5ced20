"""The pooling functions of numgrad.nn.functional beyond 2-D: volumetric max and average pooling,
adaptive max pooling, power-average (Lp) pooling and max unpooling.

Windows of (N, C, D, H, W) inputs come from vol2col (``ops/windows3d.py``); max pooling finds
each window's first maximum with one kernel and gathers it, as one node whose adjoint scatters.
"""
from __future__ import annotations

import math

from ...autograd import tape
from ...ops.pooling import adaptive_avg_pool2d, adaptive_avg_pool2d_backward
from ...ops.records import primitive
from ...ops.registry import require_floating
from ...ops.windows3d import adaptive_argmax, col2vol, pick, place, vol2col, window_argmax
from .activation import relu
from .conv import _batched, _geometry3, _pair, _single, _triple, avg_pool1d, avg_pool2d
from ...creation import tensor
from ...autograd.profiler import op_event

__all__ = ["avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "adaptive_max_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_unpool1d", "max_unpool2d",
           "max_unpool3d"]


def _pool_geometry3(x, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _triple(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _triple(stride, "stride")
    padding = _triple(padding, "padding")
    if any(p > k // 2 for p, k in zip(padding, kernel)):
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padT = {padding[0]}, padW = {padding[2]}, padH = {padding[1]}, kT: {kernel[0]}, "
                           f"kW: {kernel[2]}, kH: {kernel[1]}")
    return _geometry3(x, kernel, stride, padding, _triple(dilation, "dilation"), ceil_mode)


@op_event("aten::max_pool3d", autocast="float32")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)

    Maximum over each window of (N, C, D, H, W) or (C, D, H, W) ``input`` (padding never
    wins); the gradient goes to the first maximum; indices are flat within each D*H*W plane."""
    x, _ = _batched(input, 5, "max_pool3d")
    require_floating("max_pool3d", x.dtype)
    geom = _pool_geometry3(x, kernel_size, stride, padding, dilation, ceil_mode)
    indices = window_argmax(x, geom)
    shape = tuple(input.shape[:-3]) + (geom.od, geom.oh, geom.ow)
    out = pick("max_pool3d", input, indices, shape)
    return (out, indices.reshape(shape)) if return_indices else out


def _extents(n_out, stride, pad, k, size, count_include_pad):
    """Each window's count of taps along one dim: clipped to the padded input, or to the input."""
    out = []
    for i in range(n_out):
        start = i * stride - pad
        end = min(start + k, size + pad)
        out.append(end - start if count_include_pad else min(end, size) - max(start, 0))
    return out


def _divisor3(g, count_include_pad, like):
    ds = _extents(g.od, g.sd, g.pd, g.kd, g.D, count_include_pad)
    hs = _extents(g.oh, g.sh, g.ph, g.kh, g.H, count_include_pad)
    ws = _extents(g.ow, g.sw, g.pw, g.kw, g.W, count_include_pad)
    if len(set(ds)) == len(set(hs)) == len(set(ws)) == 1:
        return float(ds[0] * hs[0] * ws[0])
    return tensor([[[d * h * w for w in ws] for h in hs] for d in ds], dtype=like.dtype, device=like.device)


def _window_means(x, geom, divisor):
    g = geom
    total = vol2col(x.reshape(g.N, 1, g.D, g.H, g.W), g).sum(1)
    return (total.reshape(x.shape[:-3] + (g.od, g.oh, g.ow)) / divisor)


def _window_spread(v, shape, geom, divisor):
    g = geom
    share = (v / divisor).reshape(g.N, 1, g.od * g.oh * g.ow).expand(g.N, g.kd * g.kh * g.kw, -1)
    return col2vol(share, g).reshape(shape)


_avg_pool3d = primitive(
    "avg_pool3d", 1, backward_name="AvgPool3DBackward0",
    vjp=(lambda v, ans, x, geom, divisor: _window_spread(v, x.shape, geom, divisor),),
    jvp=(lambda t, ans, x, geom, divisor: _window_means(t, geom, divisor),))


@op_event("aten::avg_pool3d", autocast="float32")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None):
    """avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)

    Mean over each window of (N, C, D, H, W) or (C, D, H, W) ``input``; padding counts towards
    the divisor when ``count_include_pad``."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x, _ = _batched(input, 5, "avg_pool3d")
    require_floating("avg_pool3d_out_frame", x.dtype, bfloat16=False)
    N, C = x.shape[:2]
    # Each channel pools alone: the windows of (N*C, 1, D, H, W).
    geom = _pool_geometry3(x, kernel_size, stride, padding, 1, ceil_mode)._replace(N=N * C, C=1)
    divisor = divisor_override or _divisor3(geom, count_include_pad, input)
    out = _window_means(tape.plain(input), geom, divisor)
    return tape.record_result(_avg_pool3d, (input,), out, {"geom": geom, "divisor": divisor})


def _adaptive_size(output_size, input, n: int, name: str) -> tuple:
    """``output_size`` as n ints, None standing for the input's own size."""
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != n:
            raise RuntimeError(f"{name}: internal error: output_size.size() must be {n}")
        size = tuple(input.shape[i - n] if s is None else int(s) for i, s in enumerate(output_size))
    else:
        size = (int(output_size),) * n
    if min(size) < 0:
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0")
    return size


def _check_adaptive_input(input, n: int, name: str):
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(input.shape)}")
    for d in range(input.ndim - n, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {list(input.shape)} with dimension {d} being empty")


@op_event("aten::adaptive_avg_pool3d", autocast="float32")
def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool3d(input, output_size) -> Tensor

    Average pooling of a (N, C, D, H, W) or (C, D, H, W) input to ``output_size`` (an int or a
    triple; None keeps that dimension's size), whatever the input's size."""
    _check_adaptive_input(input, 3, "adaptive_avg_pool3d")
    require_floating("adaptive_avg_pool3d_cpu", input.dtype)
    od, oh, ow = _adaptive_size(output_size, input, 3, "adaptive_avg_pool3d")
    if (od, oh, ow) == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)
    out = _box_means(tape.plain(input), (od, oh, ow))
    return tape.record_result(_adaptive_avg_pool3d, (input,), out, {"output_size": (od, oh, ow)})


def _box_means(x, size):
    """The adaptive box means of (..., D, H, W) ``x``: the mean over a box is the mean over its
    depth of the means over its (H, W) faces."""
    (od, oh, ow), (D, H, W) = size, tuple(x.shape[-3:])
    faces = adaptive_avg_pool2d(x.reshape(-1, H, W), (oh, ow))
    return adaptive_avg_pool2d(faces.reshape(-1, D, oh * ow), (od, oh * ow)).reshape(x.shape[:-3] + size)


def _box_spread(g, shape):
    """The adjoint of :func:`_box_means`: each cell's share spread over its depths, then over
    each face's window."""
    (od, oh, ow), (D, H, W) = tuple(g.shape[-3:]), tuple(shape[-3:])
    depths = adaptive_avg_pool2d_backward(g.reshape(-1, od, oh * ow), (D, oh * ow))
    return adaptive_avg_pool2d_backward(depths.reshape(-1, oh, ow), (H, W)).reshape(shape)


_adaptive_avg_pool3d = primitive(
    "adaptive_avg_pool3d", 1, backward_name="AdaptiveAvgPool3DBackward0",
    vjp=(lambda g, ans, x, output_size: _box_spread(g, x.shape),),
    jvp=(lambda t, ans, x, output_size: _box_means(t, output_size),))


def _adaptive_max(input, output_size, return_indices, n: int):
    name = f"adaptive_max_pool{n}d"
    _check_adaptive_input(input, n, name)
    require_floating(f"{name}_cpu", input.dtype)
    size = _adaptive_size(output_size, input, n, name)
    x = input
    for _ in range(3 - n):
        x = x.unsqueeze(-n - 1)
    indices = adaptive_argmax(x, (1,) * (3 - n) + size)
    shape = tuple(input.shape[:-n]) + size
    out = pick("adaptive_max_pool3d" if n == 3 else "adaptive_max_pool2d", input, indices, shape)
    return (out, indices.reshape(shape)) if return_indices else out


@op_event("aten::adaptive_max_pool1d")
def adaptive_max_pool1d(input, output_size, return_indices: bool = False):
    """adaptive_max_pool1d(input, output_size, return_indices=False)

    Max pooling of a (N, C, L) or (C, L) input to ``output_size`` cells."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input.shape)}")
    size = output_size[0] if isinstance(output_size, (tuple, list)) and len(output_size) == 1 else output_size
    out = _adaptive_max(input.unsqueeze(-2), (1, size), return_indices, 2)
    return (out[0].squeeze(-2), out[1].squeeze(-2)) if return_indices else out.squeeze(-2)


@op_event("aten::adaptive_max_pool2d")
def adaptive_max_pool2d(input, output_size, return_indices: bool = False):
    """adaptive_max_pool2d(input, output_size, return_indices=False)

    Max pooling of a (N, C, H, W) or (C, H, W) input to ``output_size`` (an int or a pair; None
    keeps that dimension's size)."""
    return _adaptive_max(input, output_size, return_indices, 2)


@op_event("aten::adaptive_max_pool3d", autocast="float32")
def adaptive_max_pool3d(input, output_size, return_indices: bool = False):
    """adaptive_max_pool3d(input, output_size, return_indices=False)

    Max pooling of a (N, C, D, H, W) or (C, D, H, W) input to ``output_size`` (an int or a
    triple; None keeps that dimension's size)."""
    return _adaptive_max(input, output_size, return_indices, 3)


def _lp(pooled, norm_type, taps):
    """The p-th root of the window sums of x**p, from their means over ``taps`` taps."""
    return (pooled.sign() * relu(pooled.abs())).mul(taps).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm of each window, (sum x**p)**(1/p), of (N, C, L) or (C, L) ``input``."""
    require_floating("lp_pool1d", input.dtype)
    k = _single(kernel_size)
    pooled = avg_pool1d(input.pow(norm_type), k, stride, 0, ceil_mode)
    return _lp(pooled, norm_type, k)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm of each window, (sum x**p)**(1/p), of (N, C, H, W) or (C, H, W) ``input``."""
    require_floating("lp_pool2d", input.dtype)
    kh, kw = _pair(kernel_size)
    pooled = avg_pool2d(input.pow(norm_type), (kh, kw), stride, 0, ceil_mode)
    return _lp(pooled, norm_type, kh * kw)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):
    """lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False) -> Tensor

    The p-norm of each window, (sum x**p)**(1/p), of (N, C, D, H, W) or (C, D, H, W) ``input``."""
    require_floating("lp_pool3d", input.dtype)
    kd, kh, kw = _triple(kernel_size)
    pooled = avg_pool3d(input.pow(norm_type), (kd, kh, kw), stride, 0, ceil_mode)
    return _lp(pooled, norm_type, kd * kh * kw)


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n: int):
    name = f"max_unpool{n}d"
    require_floating(name, input.dtype)
    kernel = _ints(kernel_size, n)
    stride = kernel if stride is None else _ints(stride, n)
    padding = _ints(padding, n)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D input, but got {list(input.shape)}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    grid = tuple(input.shape[-n:])
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in zip(grid, stride, padding, kernel))
    size = _unpool_size(output_size, default, stride, n, input.ndim)
    lead = tuple(input.shape[:-n])
    planes, volume = math.prod(lead), math.prod(size)
    idx = indices.reshape(planes, math.prod(grid))
    if idx.numel() and (int(idx.max()) >= volume or int(idx.min()) < 0):
        bad = int(idx.max()) if int(idx.max()) >= volume else int(idx.min())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, size))}")
    return place(input, idx, lead + size, n)


def _ints(v, n):
    if isinstance(v, (tuple, list)):
        return tuple(int(e) for e in v) if len(v) == n else (int(v[0]),) * n
    return (int(v),) * n


def _unpool_size(output_size, default, stride, n, ndim):
    if output_size is None:
        return default
    size = tuple(int(s) for s in output_size)
    if len(size) == ndim:
        size = size[-n:]
    if len(size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                         f"length of '{len(size)}'")
    for s, d, st in zip(size, default, stride):
        if not d - st < s < d + st:
            raise ValueError(f"invalid output_size \"{list(size)}\" (dim {n} must be between "
                             f"{d - st} and {d + st})")
    return size


@op_event("aten::max_unpool1d")
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    A partial inverse of max_pool1d: ``input`` placed at ``indices`` of a zero tensor."""
    size = None if output_size is None else tuple(output_size) + (1,)
    return _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), (_single(kernel_size), 1),
                       None if stride is None else (_single(stride), 1), (_single(padding), 0), size,
                       2).squeeze(-1)


@op_event("aten::max_unpool2d", autocast="float32")
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    A partial inverse of max_pool2d: ``input`` placed at ``indices`` (flat within each H*W
    plane) of a zero tensor."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@op_event("aten::max_unpool3d", autocast="float32")
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None) -> Tensor

    A partial inverse of max_pool3d: ``input`` placed at ``indices`` (flat within each D*H*W
    plane) of a zero tensor."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
