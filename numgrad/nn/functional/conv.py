"""Convolution and pooling through im2col: windows become columns, a convolution a matmul.

``im2col`` lays each sliding window out as a column (N, C*kh*kw, L); its adjoint ``col2im``
sums columns back. A convolution or an average pooling is one autograd node, as PyTorch's,
whose rules are written with the two primitives and matmul.
"""
from __future__ import annotations

import math

from ... import dtypes
from ...autograd import tape
from ...autograd.grad_mode import is_grad_enabled
from ...ops.movement import cat as _cat
from ...ops.nn import Geometry, col2im, im2col, max_pool2d as _max_pool
from ...dtypes import torch_type_name
from ...ops.records import primitive
from ...ops.registry import bfloat16_widened, require_floating
from ...ops.windows3d import Geometry3, col2vol, vol2col
from .padding import pad
from ...creation import tensor
from ...autograd.profiler import op_event

__all__ = ["conv1d", "conv2d", "conv3d", "unfold", "fold", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


def _pair(v, name: str = "kernel_size"):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]), int(v[0]))
        if len(v) != 2:
            raise RuntimeError(f"{name} must either be a single int, or a tuple of two ints")
        return (int(v[0]), int(v[1]))
    return (int(v), int(v))


def _out_size(size, k, s, p, d, ceil_mode=False):
    span = size + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-span // s) + 1
        # The last window must start inside the input or the left padding.
        if (out - 1) * s >= size + p:
            out -= 1
        return out
    return span // s + 1


def _geometry(x, kernel, stride, padding, dilation, ceil_mode=False, what="convolution"):
    N, C, H, W = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if min(sh, sw) <= 0:
        raise RuntimeError("stride should be greater than zero")
    if min(dh, dw) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(ph, pw) < 0:
        raise RuntimeError("negative padding is not supported")
    oh = _out_size(H, kh, sh, ph, dh, ceil_mode)
    ow = _out_size(W, kw, sw, pw, dw, ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input size: ({C}x{H}x{W}). Calculated output size: ({C}x{oh}x{ow}). "
                           "Output size is too small")
    return Geometry(N, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)


def _batched(input, ndim: int, name: str):
    if input.ndim == ndim:
        return input, False
    if input.ndim == ndim - 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {ndim - 1}D (unbatched) or {ndim}D (batched) input to {name}, but got "
                       f"input of size: {list(input.shape)}")


@op_event("aten::conv2d", autocast="lower")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    2-D cross-correlation of (N, C, H, W) ``input`` with (O, C/groups, kh, kw) ``weight``;
    ``padding`` may be an int, a pair, 'valid' or 'same'."""
    x, unbatched = _batched(input, 4, "conv2d")
    out = _convolution(x, weight, bias, _pair(stride, "stride"), padding, _pair(dilation, "dilation"), groups,
                       False)
    return out.squeeze(0) if unbatched else out


@op_event("aten::conv1d", autocast="lower")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    1-D cross-correlation of (N, C, L) ``input`` with (O, C/groups, k) ``weight``."""
    x, unbatched = _batched(input, 3, "conv1d")
    pad_arg = padding if isinstance(padding, str) else (0, _single(padding))
    out = _convolution(x, weight, bias, (1, _single(stride)), pad_arg, (1, _single(dilation)), groups, True)
    return out.squeeze(0) if unbatched else out


def _single(v):
    return int(v[0]) if isinstance(v, (tuple, list)) else int(v)


def _convolution(x, weight, bias, stride, padding, dilation, groups, one_d):
    """Batched convolution of ``x`` as one node, as PyTorch's ConvolutionBackward0; ``one_d``:
    (N, C, L) input and (O, C/groups, k) weight, run as a 2-D convolution of height 1."""
    wp = tape.plain(weight)
    if wp.ndim != (3 if one_d else 4):
        raise RuntimeError(f"Expected {3 if one_d else 4}-dimensional weight for conv{1 if one_d else 2}d, but got "
                           f"weight of size {list(weight.shape)}")
    w4 = wp.unsqueeze(2) if one_d else wp
    O, Cg, kh, kw = w4.shape
    _check_conv(x, weight, bias, groups)
    if isinstance(padding, str):
        padding = _string_padding(padding, (kh, kw), stride, dilation)
        if padding.__class__ is tuple and len(padding) == 4:
            # Odd total padding: the input is padded first, unevenly, as in PyTorch.
            x, padding = pad(x, padding[:2] if one_d else padding), 0
    x4 = tape.plain(x).unsqueeze(2) if one_d else tape.plain(x)
    geom = _geometry(x4, (kh, kw), stride, _pair(padding, "padding"), dilation)
    return _run_conv(x, weight, bias, geom, groups, one_d)


def _run_conv(x, weight, bias, geom, groups, one_d):
    """The convolution of ``x`` in ``geom`` (2-D or 3-D windows) as one recorded node."""
    w = _as4(bfloat16_widened(tape.plain(weight)), one_d)
    O = w.shape[0]
    cols = _windows(_as4(bfloat16_widened(tape.plain(x)), one_d), geom, groups)
    out = _correlate(cols, w, geom, groups)
    if bias is not None:
        out = out + bfloat16_widened(tape.plain(bias)).reshape(O, 1)
    out = out.reshape(_out_shape(geom, O, one_d))
    if out.dtype is not x.dtype:
        out = out.to(x.dtype)
    # The windows are kept for the weight's gradient: the first backward takes them.
    params = {"geom": geom, "groups": groups, "one_d": one_d,
              "cols": [cols] if weight._requires_grad and is_grad_enabled() and w.dtype is x.dtype else []}
    return tape.record_result(_conv, (x, weight, 0.0 if bias is None else bias), out, params)


def _check_conv(x, weight, bias, groups):
    O, Cg, C = weight.shape[0], weight.shape[1], x.shape[1]
    if C != Cg * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {Cg * groups} channels, but got {C} channels instead")
    if O % groups:
        raise RuntimeError("out_channels must be divisible by groups")
    _check_dtypes(x, weight, bias)


@op_event("aten::conv3d", autocast="lower")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    3-D cross-correlation of (N, C, D, H, W) ``input`` with (O, C/groups, kd, kh, kw) ``weight``;
    ``padding`` may be an int, a triple, 'valid' or 'same'."""
    x, unbatched = _batched(input, 5, "conv3d")
    require_floating("slow_conv3d_cpu", x.dtype)
    if weight.ndim != 5:
        raise RuntimeError(f"Expected 5-dimensional weight for conv3d, but got weight of size "
                           f"{list(weight.shape)}")
    _check_conv(x, weight, bias, groups)
    kernel = tuple(weight.shape[2:])
    stride, dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
    if isinstance(padding, str):
        x, padding = _same_padded(x, padding, kernel, stride, dilation)
    geom = _geometry3(x, kernel, stride, _triple(padding, "padding"), dilation)
    out = _run_conv(x, weight, bias, geom, groups, False)
    return out.squeeze(0) if unbatched else out


def _triple(v, name: str = "kernel_size"):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]),) * 3
        if len(v) != 3:
            raise RuntimeError(f"{name} must either be a single int, or a tuple of three ints")
        return tuple(int(e) for e in v)
    return (int(v),) * 3


def _same_padded(x, padding, kernel, stride, dilation):
    """(input, padding) for a 'valid' or 'same' padding of a 3-D convolution; an odd total pads
    the input itself, the extra element after, as PyTorch does."""
    if padding == "valid":
        return x, 0
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if all(t % 2 == 0 for t in total):
        return x, tuple(t // 2 for t in total)
    amounts = []
    for t in reversed(total):
        amounts += [t // 2, t - t // 2]
    return pad(x, amounts), 0


def _geometry3(x, kernel, stride, padding, dilation, ceil_mode=False):
    N, C, D, H, W = x.shape
    if min(stride) <= 0:
        raise RuntimeError("stride should be greater than zero")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    out = tuple(_out_size(n, k, s, p, d, ceil_mode)
                for n, k, s, p, d in zip((D, H, W), kernel, stride, padding, dilation))
    if min(out) <= 0:
        raise RuntimeError(f"Given input size: ({C}x{D}x{H}x{W}). Calculated output size: "
                           f"({C}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
    return Geometry3(N, C, D, H, W, *kernel, *stride, *padding, *dilation, *out)


def _check_dtypes(x, weight, bias):
    """PyTorch converts nothing: the bias (checked first) and the weight have the input's dtype."""
    if bias is not None and bias.dtype is not x.dtype:
        raise RuntimeError(f"Input type ({dtypes.C_NAMES[x.dtype]}) and bias type ({dtypes.C_NAMES[bias.dtype]}) "
                           "should be the same")
    if weight.dtype is not x.dtype:
        raise RuntimeError(f"expected scalar type {torch_type_name(x.dtype)} but found "
                           f"{torch_type_name(weight.dtype)}")


def _windows(x4, geom, groups):
    """im2col of each group's channels of (N, C, H, W) ``x4``."""
    Cg = geom.C // groups
    if groups == 1:
        return [_im2col(x4, geom)]
    g = geom._replace(C=Cg)
    return [_im2col(x4[:, k * Cg:(k + 1) * Cg], g) for k in range(groups)]


def _im2col(x, geom):
    return vol2col(x, geom) if isinstance(geom, Geometry3) else im2col(x, geom)


def _col2im(cols, geom):
    return col2vol(cols, geom) if isinstance(geom, Geometry3) else col2im(cols, geom)


def _grid(geom):
    """The window grid's sizes: (oh, ow) or (od, oh, ow)."""
    return (geom.od, geom.oh, geom.ow) if isinstance(geom, Geometry3) else (geom.oh, geom.ow)


def _correlate(cols, w4, geom, groups):
    """Each group's (O/groups, C/groups*kh*kw) weight times its (N, C/groups*kh*kw, L) windows:
    a product per sample, landing in (N, O, L) order directly."""
    if groups == 1:
        return _per_sample(w4.reshape(w4.shape[0], -1), cols[0])
    Og = w4.shape[0] // groups
    return _cat([_per_sample(w4[k * Og:(k + 1) * Og].reshape(Og, -1), c) for k, c in enumerate(cols)], 1)


# Below this many windows per sample, one gemm over the whole batch beats a gemm per sample,
# even after the copies that bring the batch next to the windows.
_WIDE_BELOW = 256


def _per_sample(a, b):
    """(N, M, L): matrix ``a`` (M, K) times each sample's (K, L) of ``b``."""
    N, K, L = b.shape
    if N == 1 or L >= _WIDE_BELOW:
        return a.matmul(b)
    wide = a.matmul(b.transpose(0, 1).reshape(K, N * L))
    return wide.reshape(a.shape[0], N, L).transpose(0, 1)


def _batch_summed(a, b):
    """(M, K): the sum over samples of ``a`` (N, M, L) times ``b`` (N, K, L) transposed."""
    N, M, L = a.shape
    if N == 1:
        return a[0].matmul(b[0].t())
    return a.transpose(0, 1).reshape(M, N * L).matmul(b.transpose(0, 1).reshape(b.shape[1], N * L).t())


def _out_shape(geom, O, one_d):
    return (geom.N, O, geom.ow) if one_d else (geom.N, O) + _grid(geom)


def _as4(t, one_d):
    return t.unsqueeze(2) if one_d else t


def _conv_again(x, w, geom, groups, one_d):
    """The convolution of ``x`` with ``w`` (no bias) in the geometry of a recorded one: what
    the tangents of a bilinear map go through."""
    w4 = _as4(w, one_d)
    out = _correlate(_windows(_as4(x, one_d), geom, groups), w4, geom, groups)
    return out.reshape(_out_shape(geom, w4.shape[0], one_d))


def _conv_input_grad(g, x_shape, w, geom, groups, one_d):
    """The adjoint of the convolution in its input: each group's weight, transposed, maps the
    cotangent to window columns, which col2im sums back into place."""
    w4 = _as4(w, one_d)
    O = w4.shape[0]
    Og, gm = O // groups, g.reshape(geom.N, O, math.prod(_grid(geom)))
    if groups == 1:
        return _col2im(_per_sample(w4.reshape(O, -1).t(), gm), geom).reshape(x_shape)
    gg = geom._replace(C=geom.C // groups)
    parts = [_col2im(_per_sample(w4[k * Og:(k + 1) * Og].reshape(Og, -1).t(), gm[:, k * Og:(k + 1) * Og]), gg)
             for k in range(groups)]
    return _cat(parts, 1).reshape(x_shape)


def _conv_weight_grad(g, x, w_shape, geom, groups, one_d, cols):
    """The adjoint of the convolution in its weight: the cotangent times the windows,
    transposed, summed over the batch. The forward's windows serve once, unless this rule is
    itself differentiated, which needs them as functions of ``x``."""
    if cols and not (is_grad_enabled() or tape._dual_levels[0]):
        windows = cols.pop()
    else:
        cols.clear()
        windows = _windows(_as4(x, one_d), geom, groups)
    return _weight_from_windows(g, windows, w_shape, geom, groups)


def _weight_from_windows(g, windows, w_shape, geom, groups):
    """The sum over samples of each group's cotangent times its windows, transposed."""
    O = w_shape[0]
    Og, gm = O // groups, g.reshape(geom.N, O, math.prod(_grid(geom)))
    if groups == 1:
        return _batch_summed(gm, windows[0]).reshape(w_shape)
    parts = [_batch_summed(gm[:, k * Og:(k + 1) * Og], c) for k, c in enumerate(windows)]
    return _cat(parts, 0).reshape(w_shape)


_conv = primitive(
    "convolution", 3, backward_name="ConvolutionBackward0",
    vjp=(lambda g, ans, x, w, b, geom, groups, one_d, cols: _conv_input_grad(g, x.shape, w, geom, groups, one_d),
         lambda g, ans, x, w, b, geom, groups, one_d, cols: _conv_weight_grad(
             g, x, w.shape, geom, groups, one_d, cols),
         lambda g, ans, x, w, b, geom, groups, one_d, cols: g.sum((0,) + tuple(range(2, g.ndim)))),
    jvp=(lambda t, ans, x, w, b, geom, groups, one_d, cols: _conv_again(t, w, geom, groups, one_d),
         lambda t, ans, x, w, b, geom, groups, one_d, cols: _conv_again(x, t, geom, groups, one_d),
         lambda t, ans, x, w, b, geom, groups, one_d, cols: t.reshape((-1,) + (1,) * (ans.ndim - 2))))


def _string_padding(padding, kernel, stride, dilation):
    """The padding that 'valid' or 'same' names: an int, a pair or, for an odd total,
    (left, right, top, bottom)."""
    if padding == "valid":
        return 0
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if stride != (1, 1):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if all(t % 2 == 0 for t in total):
        return (total[0] // 2, total[1] // 2)
    # Odd total padding: the extra element goes on the right/bottom, as in PyTorch.
    return (total[1] // 2, total[1] - total[1] // 2, total[0] // 2, total[0] - total[0] // 2)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    Sliding local blocks of (N, C, H, W) or (C, H, W) ``input`` as columns: (N, C*kh*kw, L)."""
    if input.ndim == 3:
        return unfold(input.unsqueeze(0), kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 4:
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    kernel, stride, padding, dilation = (_pair(kernel_size), _pair(stride, "stride"), _pair(padding, "padding"),
                                         _pair(dilation, "dilation"))
    _check_window(kernel, stride, padding, dilation)
    return im2col(input, _geometry(input, kernel, stride, padding, dilation))


def _check_window(kernel, stride, padding, dilation):
    """unfold's and fold's own checks of their sliding-window arguments, in PyTorch's words."""
    for (h, w), what, name, lo in ((kernel, "kernel size", "kernel", 1), (stride, "stride", "stride", 1),
                                   (dilation, "dilation", "dilation", 1), (padding, "padding", "pad", 0)):
        if min(h, w) < lo:
            bound = "greater than zero" if lo else "non-negative"
            raise RuntimeError(f"{what} should be {bound}, but got {name}_height: {h} {name}_width: {w}")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    The adjoint of :func:`unfold`: sums (N, C*kh*kw, L) or (C*kh*kw, L) blocks into an
    (N, C, H, W) or (C, H, W) tensor."""
    if input.ndim == 2:
        return fold(input.unsqueeze(0), output_size, kernel_size, dilation, padding, stride).squeeze(0)
    if input.ndim != 3:
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                                  f"supported (got {input.ndim}D)")
    (kh, kw), (H, W) = _pair(kernel_size), _pair(output_size, "output_size")
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride, "stride"), _pair(padding, "padding"), _pair(dilation, "dilation")
    _check_window((kh, kw), (sh, sw), (ph, pw), (dh, dw))
    N, K, L = input.shape
    if K % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={K} and kernel_size=({kh}, {kw}).")
    oh, ow = _out_size(H, kh, sh, ph, dh), _out_size(W, kw, sw, pw, dw)
    if oh * ow != L:
        raise RuntimeError(f"Given output_size=({H}, {W}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
                           f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 "
                           f"to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but "
                           f"got input.size(2)={L}.")
    geom = Geometry(N, K // (kh * kw), H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    return col2im(input, geom)


def _pool_input(input, name):
    """``input`` as a batch (and whether it was one sample), checked as PyTorch's pools check it."""
    x, unbatched = _batched(input, 4, name)
    if 0 in x.shape[1:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{list(input.shape)}")
    return x, unbatched


# The integer dtypes PyTorch's CPU pools have kernels for (besides the floating ones).
_POOL_INTEGERS = {"max_pool2d": ("uint8", "int8", "int16", "int32", "int64"), "avg_pool2d": ("int64",)}


def _check_pool_dtype(x, name):
    d = x.dtype
    if not d.is_floating_point and d.name not in _POOL_INTEGERS[name]:
        raise NotImplementedError(f"\"{name}\" not implemented for '{torch_type_name(d)}'")


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _pair(stride, "stride")
    padding = _pair(padding, "padding")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[0]}, "
                           f"kernel_size={kernel[0]} and dilation={_pair(dilation)[0]}")
    return _geometry(x, kernel, stride, padding, _pair(dilation, "dilation"), ceil_mode)


@op_event("aten::max_pool2d")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)

    Maximum over each window (padding never wins); the gradient goes to the first maximum."""
    x, unbatched = _pool_input(input, "max_pool2d")
    N, C, H, W = x.shape
    g = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode)
    _check_pool_dtype(x, "max_pool2d")
    out, idx = _max_pool(x, g)
    if unbatched:
        out = out.squeeze(0)
    if not return_indices:
        return out
    idx = idx.reshape(N, C, g.oh, g.ow)
    return out, (idx.squeeze(0) if unbatched else idx)


@op_event("aten::avg_pool2d")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None):
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)

    Mean over each window; padding counts towards the divisor when ``count_include_pad``."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x, _ = _pool_input(input, "avg_pool2d")
    N, C, H, W = x.shape
    # Each channel pools alone: the windows of (N*C, 1, H, W).
    g = _pool_geometry(x, kernel_size, stride, padding, 1, ceil_mode)._replace(N=N * C, C=1)
    _check_pool_dtype(x, "avg_pool2d")
    divisor = divisor_override or _divisors(g, count_include_pad, input)
    return tape.record_result(_avg_pool2d, (input,), _pooled(tape.plain(input), g, divisor),
                              {"geom": g, "divisor": divisor})


def _pooled(x, geom, divisor):
    """The window sums of (N, C, H, W) or (C, H, W) ``x``, pooled per channel by ``geom``, over
    ``divisor``."""
    total = im2col(x.reshape(geom.N, 1, geom.H, geom.W), geom).sum(1).reshape(x.shape[:-2] + (geom.oh, geom.ow))
    if not x.dtype.is_floating_point:
        # Integers pool to integers, each sum divided and truncated, as PyTorch's do.
        d = int(divisor) if isinstance(divisor, float) else divisor
        return total.div(d, rounding_mode="trunc").to(x.dtype)
    return total / divisor


def _avg_pool2d_adjoint(v, shape, geom, divisor):
    """Each window's share of cotangent ``v`` spread back over the window's taps, as an
    input-shaped tensor."""
    g = geom
    share = (v / divisor).reshape(g.N, 1, g.oh * g.ow).expand(g.N, g.kh * g.kw, g.oh * g.ow)
    return col2im(share, g).reshape(shape)


# One node for the whole pooling, as PyTorch's; its rules reuse im2col's adjoint, col2im.
_avg_pool2d = primitive(
    "avg_pool2d", 1, backward_name="AvgPool2DBackward0",
    vjp=(lambda v, ans, x, geom, divisor: _avg_pool2d_adjoint(v, x.shape, geom, divisor),),
    jvp=(lambda t, ans, x, geom, divisor: _pooled(t, geom, divisor),))


def _divisors(g, count_include_pad, like):
    """Per-window divisor: the window's extent clipped to the padded (or unpadded) input."""
    def extents(n_out, stride, pad, k, size):
        out = []
        for i in range(n_out):
            start = i * stride - pad
            end = min(start + k, size + pad)
            if count_include_pad:
                out.append(end - start)
            else:
                out.append(min(end, size) - max(start, 0))
        return out
    hs = extents(g.oh, g.sh, g.ph, g.kh, g.H)
    ws = extents(g.ow, g.sw, g.pw, g.kw, g.W)
    if len(set(hs)) == 1 and len(set(ws)) == 1:
        return float(hs[0] * ws[0])
    return tensor([[h * w for w in ws] for h in hs], dtype=like.dtype, device=like.device)


@op_event("aten::max_pool1d")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)"""
    r = max_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)),
                   None if stride is None else (1, _single(stride)), (0, _single(padding)),
                   (1, _single(dilation)), ceil_mode, return_indices)
    if return_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


@op_event("aten::avg_pool1d")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)"""
    return avg_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)),
                      None if stride is None else (1, _single(stride)), (0, _single(padding)), ceil_mode,
                      count_include_pad).squeeze(-2)
