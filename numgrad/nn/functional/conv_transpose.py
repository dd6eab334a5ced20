"""Transposed convolutions: the adjoint of a convolution in its input, as one node.

A transposed convolution of ``x`` with ``w`` is the input-gradient of the convolution with the
same weight, stride, padding and dilation whose input has the transposed convolution's output
size: each input pixel spreads its weight-scaled window onto the output (col2im of W^T x).
"""
from __future__ import annotations

from ...autograd import tape
from ...ops.nn import Geometry
from ...ops.records import primitive
from ...ops.registry import bfloat16_widened, require_floating
from ...ops.windows3d import Geometry3
from .conv import (_WIDE_BELOW, _as4, _batched, _check_dtypes, _conv_input_grad, _correlate, _out_shape,
                   _weight_from_windows, _windows)
from ...autograd.profiler import op_event

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _ints(v, n: int, name: str) -> tuple:
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * n
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to "
                               f"match the convolution dimensions, but got {name}={list(v)}")
        return tuple(int(e) for e in v)
    return (int(v),) * n


def _transposed(x, w, geom, groups, one_d, out_shape):
    return _conv_input_grad(x, out_shape, w, geom, groups, one_d)


def _shared_windows(g, geom, groups, one_d, cache):
    """The windows of cotangent ``g``, which both the input's and the weight's rule multiply:
    computed by the first rule that runs, taken by the second. Without groups and with few
    windows per sample, they come as one (K, N*L) matrix, the layout both products want."""
    if cache and cache[0][0] is g:
        return cache.pop()[1]
    cache.clear()
    windows = _windows(_as4(g, one_d), geom, groups)
    if _wide(windows, groups):
        K, (N, _, L) = windows[0].shape[1], windows[0].shape
        windows = windows[0].transpose(0, 1).reshape(K, N * L)
    cache.append((g, windows))
    return windows


def _wide(windows, groups):
    N, _, L = windows[0].shape
    return groups == 1 and N > 1 and L < _WIDE_BELOW


def _input_grad(g, w, geom, groups, one_d, cache):
    windows = _shared_windows(g, geom, groups, one_d, cache)
    out_shape = _out_shape(geom, w.shape[0], one_d)
    if isinstance(windows, list):
        return _correlate(windows, _as4(w, one_d), geom, groups).reshape(out_shape)
    N, C_in = out_shape[:2]
    product = w.reshape(C_in, -1).matmul(windows)
    return product.reshape(C_in, N, -1).transpose(0, 1).reshape(out_shape)


def _weight_grad(g, x, w_shape, geom, groups, one_d, cache):
    windows = _shared_windows(g, geom, groups, one_d, cache)
    if isinstance(windows, list):
        return _weight_from_windows(x, windows, w_shape, geom, groups)
    N, C_in = x.shape[:2]
    rows = x.reshape(N, C_in, -1).transpose(0, 1).reshape(C_in, windows.shape[1])
    return rows.matmul(windows.t()).reshape(w_shape)


_conv_transpose = primitive(
    "conv_transpose", 3, backward_name="ConvolutionBackward0",
    vjp=(lambda g, ans, x, w, b, geom, groups, one_d, cache: _input_grad(g, w, geom, groups, one_d, cache),
         lambda g, ans, x, w, b, geom, groups, one_d, cache: _weight_grad(
             g, x, w.shape, geom, groups, one_d, cache),
         lambda g, ans, x, w, b, geom, groups, one_d, cache: g.sum((0,) + tuple(range(2, g.ndim)))),
    jvp=(lambda t, ans, x, w, b, geom, groups, one_d, cache: _transposed(t, w, geom, groups, one_d, ans.shape),
         lambda t, ans, x, w, b, geom, groups, one_d, cache: _transposed(x, t, geom, groups, one_d, ans.shape),
         lambda t, ans, x, w, b, geom, groups, one_d, cache: t.reshape((-1,) + (1,) * (ans.ndim - 2))))


def _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, n: int):
    name = f"conv_transpose{n}d"
    x, unbatched = _batched(input, n + 2, name)
    require_floating(f"slow_conv_transpose{max(n, 2)}d_out_cpu", x.dtype)
    if weight.ndim != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {name}, but got weight of size "
                           f"{list(weight.shape)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride, padding = _ints(stride, n, "stride"), _ints(padding, n, "padding")
    output_padding, dilation = _ints(output_padding, n, "output_padding"), _ints(dilation, n, "dilation")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding={list(output_padding)}, stride={list(stride)}, "
                           f"dilation={list(dilation)}")
    C_in, C_out = weight.shape[0], weight.shape[1] * groups
    if x.shape[1] != C_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {C_in} channels, but got {x.shape[1]} channels instead")
    if C_in % groups:
        raise RuntimeError("in_channels must be divisible by groups")
    _check_dtypes(x, weight, bias)
    kernel, grid = tuple(weight.shape[2:]), tuple(x.shape[2:])
    size = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for i, s, p, d, k, op in zip(grid, stride, padding, dilation, kernel, output_padding))
    if min(size, default=1) <= 0:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, grid))}). Calculated output "
                           f"size per channel: ({' x '.join(map(str, size))}). Output size is too small")
    N = x.shape[0]
    if n == 3:
        geom = Geometry3(N, C_out, *size, *kernel, *stride, *padding, *dilation, *grid)
    else:
        pre = ((1,) * (2 - n), (1,) * (2 - n), (0,) * (2 - n), (1,) * (2 - n), (1,) * (2 - n))
        geom = Geometry(N, C_out, *(pre[0] + size), *(pre[1] + kernel), *(pre[1] + stride),
                        *(pre[2] + padding), *(pre[3] + dilation), *(pre[4] + grid))
    one_d = n == 1
    out_shape = (N, C_out) + size
    out = _transposed(bfloat16_widened(tape.plain(x)), bfloat16_widened(tape.plain(weight)), geom, groups, one_d,
                      out_shape)
    if bias is not None:
        out = out + bfloat16_widened(tape.plain(bias)).reshape((C_out,) + (1,) * n)
    if out.dtype is not x.dtype:
        out = out.to(x.dtype)
    out = tape.record_result(_conv_transpose, (x, weight, 0.0 if bias is None else bias), out,
                             {"geom": geom, "groups": groups, "one_d": one_d, "cache": []})
    return out.squeeze(0) if unbatched else out


@op_event("aten::conv_transpose1d", autocast="lower")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1):
    """conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor

    1-D transposed convolution ("deconvolution") of (N, C_in, L) ``input`` with
    (C_in, C_out/groups, k) ``weight``."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@op_event("aten::conv_transpose2d", autocast="lower")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1):
    """conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor

    2-D transposed convolution ("deconvolution") of (N, C_in, H, W) ``input`` with
    (C_in, C_out/groups, kh, kw) ``weight``: the output is (H-1)*stride - 2*padding +
    dilation*(kh-1) + output_padding + 1 high, and likewise wide."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@op_event("aten::conv_transpose3d", autocast="lower")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1,
                     dilation=1):
    """conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1) -> Tensor

    3-D transposed convolution ("deconvolution") of (N, C_in, D, H, W) ``input`` with
    (C_in, C_out/groups, kd, kh, kw) ``weight``."""
    return _conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)
