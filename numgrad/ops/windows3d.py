"""Volumetric sliding windows: vol2col (the windows of a (N, C, D, H, W) tensor as columns) and
its adjoint col2vol, which make 3-D convolution and pooling differentiable through one pair of
kernels; and the positions of window maxima, which max pooling gathers and scatters by.

vol2col and col2vol are kernel ops (``backends/cpu/window3d.py``), each the other's derivative.
"""
from __future__ import annotations

import math
from collections import namedtuple

from .. import dtypes
from ..autograd import tape
from .kernel_ops import HOST, Call, apply, kernel_op
from .records import primitive
from ..creation import zeros

__all__ = ["Geometry3", "vol2col", "col2vol", "window_argmax", "adaptive_argmax", "pick", "place", "scatter_back"]

Geometry3 = namedtuple("Geometry3", "N C D H W kd kh kw sd sh sw pd ph pw dd dh dw od oh ow")
Geometry3.__doc__ = """The windows of a (N, C, D, H, W) input: kernel (kd, kh, kw), stride, padding
and dilation per dim, and the resulting (od, oh, ow) window grid."""


def _prepare_vol2col(x, geom, pad_value):
    g = geom
    return Call((g.N, g.C * g.kd * g.kh * g.kw, g.od * g.oh * g.ow), x.dtype,
                {"geom": geom, "pad_value": pad_value})


def _prepare_col2vol(cols, geom):
    g = geom
    return Call((g.N, g.C, g.D, g.H, g.W), cols.dtype, {"geom": geom})


_vol2col = kernel_op(
    "vol2col", 1, prepare=_prepare_vol2col, backward_name="Im2ColBackward0",
    kernels={"cpu": "cpu.window3d.vol2col", "cuda": HOST},
    vjp=(lambda g, ans, x, geom, pad_value: col2vol(g, geom),),
    jvp=(lambda t, ans, x, geom, pad_value: vol2col(t, geom),))
_col2vol = kernel_op(
    "col2vol", 1, prepare=_prepare_col2vol, backward_name="Col2ImBackward0",
    kernels={"cpu": "cpu.window3d.col2vol", "cuda": HOST},
    vjp=(lambda g, ans, cols, geom: vol2col(g, geom),),
    jvp=(lambda t, ans, cols, geom: col2vol(t, geom),))


def vol2col(x, geom: Geometry3, pad_value: float = 0.0):
    """The sliding windows of a (N, C, D, H, W) tensor as the columns of a
    (N, C*kd*kh*kw, od*oh*ow) tensor; taps in the padding read ``pad_value``."""
    return apply(_vol2col, (x,), {"geom": geom, "pad_value": pad_value})


def col2vol(cols, geom: Geometry3):
    """The adjoint of :func:`vol2col`: sums window columns back into a (N, C, D, H, W) tensor."""
    return apply(_col2vol, (cols,), {"geom": geom})


def _prepare_argmax(x, geom):
    return Call((x.shape[0], geom.od * geom.oh * geom.ow), dtypes.int64, {"geom": geom}, compute=x.dtype)


def _prepare_adaptive_argmax(x, input_size, output_size):
    return Call((x.shape[0], output_size[0] * output_size[1] * output_size[2]), dtypes.int64,
                {"input_size": input_size, "output_size": output_size}, compute=x.dtype)


_argmax = kernel_op("max_pool3d_indices", 1, prepare=_prepare_argmax,
                    kernels={"cpu": "cpu.window3d.max_pool3d_indices", "cuda": HOST})
_adaptive_argmax = kernel_op("adaptive_max_pool3d_indices", 1, prepare=_prepare_adaptive_argmax,
                             kernels={"cpu": "cpu.window3d.adaptive_max_pool3d_indices", "cuda": HOST})


def window_argmax(x, geom: Geometry3):
    """(N*C, od*oh*ow) int64: where in its (D*H*W) plane each window of ``x`` (N, C, D, H, W)
    has its first maximum (padding never wins; a NaN does)."""
    planes = tape.plain(x).detach().reshape(geom.N * geom.C, geom.D * geom.H * geom.W)
    return apply(_argmax, (planes,), {"geom": geom})


def adaptive_argmax(x, output_size: tuple):
    """(planes, od*oh*ow) int64: where in its plane each adaptive cell of ``x`` (..., D, H, W)
    has its first maximum."""
    planes = tape.plain(x).detach().reshape(-1, x.shape[-3] * x.shape[-2] * x.shape[-1])
    return apply(_adaptive_argmax, (planes,), {"input_size": tuple(x.shape[-3:]),
                                               "output_size": tuple(output_size)})


def _gathered(t, indices, out_shape):
    rows = indices.shape[0]
    return t.reshape(rows, _plane_size(t.shape, rows)).gather(1, indices).reshape(out_shape)


def scatter_back(g, indices, in_shape):
    """The adjoint of :func:`pick`: each entry of ``g`` added at its index of a zero tensor of
    ``in_shape``."""
    return _scattered(g, indices, in_shape, "scatter_add")


def _scattered(g, indices, shape, how):
    rows = indices.shape[0]
    base = zeros((rows, _plane_size(shape, rows)), dtype=g.dtype, device=g.device)
    return getattr(base, how)(1, indices, g.reshape(indices.shape)).reshape(shape)


def _plane_size(shape, rows):
    return math.prod(shape) // rows if rows else 0


def _picker(name, backward_name):
    return primitive(
        name, 1, backward_name=backward_name,
        vjp=(lambda g, ans, x, indices: scatter_back(g, indices, x.shape),),
        jvp=(lambda t, ans, x, indices: _gathered(t, indices, ans.shape),))


_PICKERS = {name: _picker(name, backward) for name, backward in (
    ("max_pool3d", "MaxPool3DWithIndicesBackward0"),
    ("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0"),
    ("adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0"))}


_unpool = {n: primitive(
    f"max_unpool{n}d", 1, backward_name=f"MaxUnpool{n}DBackward0",
    vjp=(lambda g, ans, x, indices: _gathered(g, indices, x.shape),),
    jvp=(lambda t, ans, x, indices: _scattered(t, indices, ans.shape, "scatter"),)) for n in (2, 3)}


def place(x, indices, out_shape, n: int):
    """A zero tensor of ``out_shape`` holding the entries of ``x`` at ``indices`` (planes, L) of
    its planes (max unpooling over ``n`` (2 or 3) dims), as one node; the inverse of
    :func:`pick` on those entries."""
    out = _scattered(tape.plain(x), indices, out_shape, "scatter")
    return tape.record_result(_unpool[n], (x,), out, {"indices": indices})


def pick(name: str, x, indices, out_shape):
    """The entries of ``x`` at ``indices`` (planes, L) of its planes, shaped ``out_shape``, as
    one node named after the pooling ``name`` that chose them."""
    out = _gathered(tape.plain(x), indices, out_shape)
    return tape.record_result(_PICKERS[name], (x,), out, {"indices": indices})
