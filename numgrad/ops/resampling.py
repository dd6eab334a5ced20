"""Resampling: resizing the trailing dims by taps (nearest, linear, cubic, antialiased and area,
with PyTorch's source-index rules) and sampling at the points of a grid.

A resize is one pass of the kernel op ``resample_taps`` per dim (``backends/cpu/resampling.py``):
output position ``j`` sums ``weight[j, k] * x[index[j, k]]``. It is linear, so its derivative is
its adjoint ``resample_taps_backward`` and the adjoint's is the pass itself. A whole resize
records one node, ``resample``, named after PyTorch's upsampling node for the mode.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.tape import plain, record_result, should_record
from ..tensor import Tensor
from .kernel_ops import HOST, Call, _array, apply, kernel_op
from .records import primitive
from ..backends.cpu.resampling import grid_sample_backward

__all__ = ["resample", "nearest_taps", "linear_taps", "cubic_taps", "antialias_taps", "area_taps", "grid_sampler"]


def _prepare_taps(x, dim, index, weight):
    shape = list(x.shape)
    shape[dim] = index.shape[0]
    return Call(tuple(shape), x.dtype, {"dim": dim, "index": index, "weight": weight})


def _prepare_adjoint(g, dim, index, weight, size):
    shape = list(g.shape)
    shape[dim] = size
    return Call(tuple(shape), g.dtype, {"dim": dim, "index": index, "weight": weight, "size": size})


_taps = kernel_op(
    "resample_taps", 1, prepare=_prepare_taps,
    kernels={"cpu": "cpu.resampling.resample_taps", "cuda": HOST},
    vjp=(lambda g, ans, x, dim, index, weight: apply(
        _adjoint, (g,), {"dim": dim, "index": index, "weight": weight, "size": x.shape[dim]}),),
    jvp=(lambda t, ans, x, dim, index, weight: apply(
        _taps, (t,), {"dim": dim, "index": index, "weight": weight}),))
_adjoint = kernel_op(
    "resample_taps_backward", 1, prepare=_prepare_adjoint,
    kernels={"cpu": "cpu.resampling.resample_taps_backward", "cuda": HOST},
    vjp=(lambda v, ans, g, dim, index, weight, size: apply(
        _taps, (v,), {"dim": dim, "index": index, "weight": weight}),),
    jvp=(lambda t, ans, g, dim, index, weight, size: apply(
        _adjoint, (t,), {"dim": dim, "index": index, "weight": weight, "size": size}),))


def _forward(x, passes):
    for dim, index, weight in passes:
        x = apply(_taps, (x,), {"dim": dim, "index": index, "weight": weight})
    return x


def _backward(g, shape, passes):
    # Each pass changes only its own dim, so the input's shape gives every pass's source size.
    for dim, index, weight in reversed(passes):
        size = shape[dim]
        g = apply(_adjoint, (g,), {"dim": dim, "index": index, "weight": weight, "size": size})
    return g


_NODE_NAMES = tuple(f"UpsampleNearest{k}DBackward0" for k in (1, 2, 3)) + tuple(
    f"UpsampleNearestExact{k}DBackward0" for k in (1, 2, 3)) + (
    "UpsampleLinear1DBackward0", "UpsampleBilinear2DBackward0", "UpsampleTrilinear3DBackward0",
    "UpsampleBicubic2DBackward0", "UpsampleBilinear2DAaBackward0", "UpsampleBicubic2DAaBackward0",
    "AdaptiveAvgPool3DBackward0")
_resample = primitive(
    "resample", 1, backward_name=_NODE_NAMES[0], variants={name: name for name in _NODE_NAMES},
    vjp=(lambda g, ans, x, passes: _backward(g, x.shape, passes),),
    jvp=(lambda t, ans, x, passes: _forward(t, passes),))


def resample(x, passes, node_name: str):
    """``x`` resampled by ``passes``, a sequence of (dim, index, weight) with ``index`` (m, K)
    int64 and ``weight`` (m, K) arrays, applied in order; one node named ``node_name``."""
    passes = tuple(passes)
    return record_result(_resample, (x,), _forward(plain(x), passes), {"passes": passes}, variant=node_name)


def _opmath(dtype) -> type:
    """The NumPy type PyTorch computes source positions in for ``dtype``."""
    return np.float64 if dtype is dtypes.float64 else np.float32


def _scale(n_in: int, n_out: int, align_corners: bool, scale, t) -> float:
    if align_corners:
        return t(n_in - 1) / t(n_out - 1) if n_out > 1 else t(0)
    return t(1.0 / scale) if scale is not None and scale > 0 else t(n_in) / t(n_out)


def _source(n_in, n_out, align_corners, scale, t, cubic):
    s = _scale(n_in, n_out, align_corners, scale, t)
    j = np.arange(n_out).astype(t)
    if align_corners:
        return s * j
    src = s * (j + t(0.5)) - t(0.5)
    return src if cubic else np.maximum(src, t(0))


def _guard(src, n_in):
    """The base index (floor, at most the last input) and the fraction past it, clamped to [0, 1]."""
    base = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    frac = np.clip(src - base.astype(src.dtype), 0, 1).astype(src.dtype)
    return base, frac


def nearest_taps(n_in: int, n_out: int, scale, exact: bool):
    """Taps of nearest (``exact``: nearest-exact) resizing of ``n_in`` positions to ``n_out``."""
    j = np.arange(n_out)
    s = np.float32(1.0 / scale) if scale is not None and scale > 0 else np.float32(n_in) / np.float32(n_out)
    if exact:
        # PyTorch forms (j + 0.5) * scale in double and floors it in float.
        src = np.floor(((j + 0.5) * np.float64(s)).astype(np.float32))
    elif n_out == n_in:
        src = j
    elif n_out == 2 * n_in:
        src = j >> 1
    else:
        src = np.floor(j.astype(np.float32) * s)
    index = np.minimum(src.astype(np.int64), n_in - 1).reshape(n_out, 1)
    return index, np.ones((n_out, 1))


def linear_taps(n_in: int, n_out: int, scale, align_corners: bool, dtype):
    """Taps of linear resizing: the two neighbours of each source position."""
    t = _opmath(dtype)
    base, frac = _guard(_source(n_in, n_out, align_corners, scale, t, False), n_in)
    index = np.stack([base, base + (base < n_in - 1)], 1)
    return index, np.stack([t(1) - frac, frac], 1)


def cubic_taps(n_in: int, n_out: int, scale, align_corners: bool, dtype):
    """Taps of bicubic resizing (Keys' kernel, a = -0.75): four neighbours, clamped to the edges."""
    t = _opmath(dtype)
    base, frac = _guard(_source(n_in, n_out, align_corners, scale, t, True), n_in)
    a = t(-0.75)

    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    weight = np.stack([far(frac + 1), near(frac), near(1 - frac), far(2 - frac)], 1).astype(t)
    index = np.clip(base[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return index, weight


def _triangle(d):
    return np.maximum(1 - np.abs(d), 0)


def _keys_half(d):
    """Keys' cubic kernel with a = -0.5, the one antialiased bicubic resizing filters with."""
    d = np.abs(d)
    near = (1.5 * d - 2.5) * d * d + 1
    far = ((-0.5 * d + 2.5) * d - 4) * d + 2
    return np.where(d < 1, near, np.where(d < 2, far, 0))


def antialias_taps(n_in: int, n_out: int, scale, align_corners: bool, dtype, cubic: bool):
    """Taps of antialiased linear (``cubic``: bicubic) resizing: when shrinking, the filter
    widens by the shrink factor so that every input contributes; weights sum to one."""
    t = _opmath(dtype)
    s = _scale(n_in, n_out, align_corners, scale, t)
    half_width = 2.0 if cubic else 1.0
    support = half_width * s if s >= 1 else t(half_width)
    stretch = 1 / s if s >= 1 else t(1)
    centre = s * (np.arange(n_out) + t(0.5))
    start = np.maximum((centre - support + t(0.5)).astype(np.int64), 0)
    size = np.minimum((centre + support + t(0.5)).astype(np.int64), n_in) - start
    width = int(size.max())
    offsets = np.arange(width)
    used = offsets < size[:, None]
    filt = _keys_half if cubic else _triangle
    weight = np.where(used, filt((offsets + start[:, None] - centre[:, None] + t(0.5)) * stretch), 0).astype(t)
    total = weight.sum(1, keepdims=True)
    weight = np.where(total != 0, weight / np.where(total != 0, total, 1), weight).astype(t)
    index = np.minimum(start[:, None] + offsets, n_in - 1)
    return index, weight


def area_taps(n_in: int, n_out: int, dtype):
    """Taps of adaptive average pooling: output ``j`` averages inputs floor(j*n/m) up to
    ceil((j+1)*n/m); short windows repeat their last input with weight zero."""
    j = np.arange(n_out)
    start, stop = (j * n_in) // n_out, -((-(j + 1) * n_in) // n_out)
    width = int((stop - start).max()) if n_out else 1
    offsets = np.arange(width)
    index = np.minimum(start[:, None] + offsets, stop[:, None] - 1)
    weight = np.where(offsets < (stop - start)[:, None], 1 / (stop - start)[:, None], 0.0)
    return index, weight.astype(_opmath(dtype))


# Grid sampling: the forward and its three derivatives (the input's cotangent, the grid's, and
# the tangent along a grid tangent) are kernels of ``backends/cpu/resampling.py``. The input's
# cotangent is linear in the cotangent and the input, so it has rules of its own; the grid's
# cotangent has one only for the incoming cotangent, the rest of a second backward pass raises.
_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}


def _prepare_grid_sample(x, grid, mode, padding_mode, align_corners):
    shape = tuple(x.shape[:2]) + tuple(grid.shape[1:-1])
    return Call(shape, x.dtype, {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners})


def _prepare_input_backward(g, grid, mode, padding_mode, align_corners, input_shape):
    return Call(tuple(input_shape), g.dtype, {"mode": mode, "padding_mode": padding_mode,
                                              "align_corners": align_corners, "input_shape": tuple(input_shape)})


def _prepare_grid_backward(g, x, grid, mode, padding_mode, align_corners):
    return Call(tuple(grid.shape), g.dtype, {"mode": mode, "padding_mode": padding_mode,
                                             "align_corners": align_corners})


def _prepare_grid_jvp(x, grid, t, mode, padding_mode, align_corners):
    return _prepare_grid_sample(x, grid, mode, padding_mode, align_corners)


def _input_vjp(g, ans, x, grid, mode, padding_mode, align_corners):
    return apply(_input_backward, (g, grid), {"mode": mode, "padding_mode": padding_mode,
                                              "align_corners": align_corners, "input_shape": x.shape})


def _grid_vjp(g, ans, x, grid, mode, padding_mode, align_corners):
    return apply(_grid_backward, (g, x, grid), {"mode": mode, "padding_mode": padding_mode,
                                                "align_corners": align_corners})


def _grid_sample_vjp(g, ans, x, grid, *, needs, mode, padding_mode, align_corners):
    """Both cotangents from one kernel that plans the taps once; one cotangent, a device without
    the fused kernel, or a recorded backward (create_graph) take the differentiable rules."""
    params = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    if all(needs) and x.device.type == "cpu" and x.dtype in (dtypes.float32, dtypes.float64) \
            and grid.dtype is x.dtype and not should_record((g, x, grid)):
        dx, dgrid = Tensor._empty(x.shape, x.dtype, x.device), Tensor._empty(grid.shape, grid.dtype, grid.device)
        grid_sample_backward(_array(dx), _array(dgrid), _array(g.to(x.dtype)), _array(x), _array(grid), **params)
        return dx, dgrid
    return (_input_vjp(g, ans, x, grid, **params) if needs[0] else None,
            _grid_vjp(g, ans, x, grid, **params) if needs[1] else None)


def _input_jvp(t, ans, x, grid, mode, padding_mode, align_corners):
    return apply(_grid_sample_op(x.ndim), (t, grid),
                 {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners})


def _grid_tangent(t, ans, x, grid, mode, padding_mode, align_corners):
    return apply(_grid_jvp, (x, grid, t), {"mode": mode, "padding_mode": padding_mode,
                                           "align_corners": align_corners})


def _grid_sample_rules(name, backward_name):
    return kernel_op(name, 2, prepare=_prepare_grid_sample, backward_name=backward_name,
                     kernels={"cpu": "cpu.resampling.grid_sample", "cuda": HOST},
                     vjp_all=_grid_sample_vjp, jvp=(_input_jvp, _grid_tangent))


_grid_sample_2d = _grid_sample_rules("grid_sampler_2d", "GridSampler2DBackward0")
_grid_sample_3d = _grid_sample_rules("grid_sampler_3d", "GridSampler3DBackward0")


def _no_second_derivative(g, ans, *inputs, **params):
    raise NotImplementedError("the derivative for 'grid_sampler_grid_backward' with respect to the input and "
                              "the grid is not implemented: grid_sample's second derivatives stop there")


def _input_backward_vjp_grad(v, ans, g, grid, mode, padding_mode, align_corners, input_shape):
    return apply(_grid_sample_op(len(input_shape)), (v, grid),
                 {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners})


def _input_backward_vjp_grid(v, ans, g, grid, mode, padding_mode, align_corners, input_shape):
    # <v, A(grid)^T g> = <A(grid) v, g>: the grid's cotangent with v in the input's place.
    return apply(_grid_backward, (g, v, grid),
                 {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners})


def _grid_backward_vjp_grad(u, ans, g, x, grid, mode, padding_mode, align_corners):
    return apply(_grid_jvp, (x, grid, u), {"mode": mode, "padding_mode": padding_mode,
                                           "align_corners": align_corners})


_input_backward = kernel_op(
    "grid_sampler_input_backward", 2, prepare=_prepare_input_backward,
    kernels={"cpu": "cpu.resampling.grid_sample_input_backward", "cuda": HOST},
    vjp=(_input_backward_vjp_grad, _input_backward_vjp_grid))
_grid_backward = kernel_op(
    "grid_sampler_grid_backward", 3, prepare=_prepare_grid_backward,
    kernels={"cpu": "cpu.resampling.grid_sample_grid_backward", "cuda": HOST},
    vjp=(_grid_backward_vjp_grad, _no_second_derivative, _no_second_derivative))
_grid_jvp = kernel_op(
    "grid_sampler_grid_jvp", 3, prepare=_prepare_grid_jvp,
    kernels={"cpu": "cpu.resampling.grid_sample_grid_jvp", "cuda": HOST})


def _grid_sample_op(ndim: int):
    return _grid_sample_2d if ndim == 4 else _grid_sample_3d


def grid_sampler(input, grid, mode: str, padding_mode: str, align_corners: bool):
    """``input`` (N, C, H, W) or (N, C, D, H, W) sampled at ``grid``: one kernel, one node.
    The arguments are checked by the caller."""
    params = {"mode": _MODES[mode], "padding_mode": _PADDINGS[padding_mode], "align_corners": bool(align_corners)}
    return apply(_grid_sample_op(input.ndim), (input, grid), params)
