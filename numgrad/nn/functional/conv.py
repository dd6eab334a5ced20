"""Convolution and pooling through im2col: windows become columns, a convolution a matmul.

``im2col`` lays each sliding window out as a column (N, C*kh*kw, L); its adjoint ``col2im``
sums columns back, so gradients of convolutions come from the two primitives and matmul.
"""
from __future__ import annotations

from ...ops.nn import Geometry, col2im, im2col, max_pool2d as _max_pool

__all__ = ["conv1d", "conv2d", "unfold", "fold", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


def _pair(v, name: str = "kernel_size"):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]), int(v[0]))
        if len(v) != 2:
            raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
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


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    2-D cross-correlation of (N, C, H, W) ``input`` with (O, C/groups, kh, kw) ``weight``;
    ``padding`` may be an int, a pair, 'valid' or 'same'."""
    x, unbatched = _batched(input, 4, "conv2d")
    O, Cg, kh, kw = weight.shape
    N, C, H, W = x.shape
    if C != Cg * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {Cg * groups} channels, but got {C} channels instead")
    if O % groups:
        raise RuntimeError("out_channels must be divisible by groups")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    if isinstance(padding, str):
        x, padding = _string_padding(x, padding, (kh, kw), stride, dilation)
    padding = _pair(padding, "padding")
    geom = _geometry(x, (kh, kw), stride, padding, dilation)
    outs = []
    for g in range(groups):
        xg = x if groups == 1 else x[:, g * Cg:(g + 1) * Cg]
        wg = weight if groups == 1 else weight[g * (O // groups):(g + 1) * (O // groups)]
        cols = im2col(xg, geom._replace(C=Cg))
        # (O, C*kh*kw) x (N, C*kh*kw, L): a product per sample, landing in NCHW order directly.
        outs.append(wg.reshape(wg.shape[0], -1).matmul(cols))
    out = outs[0] if groups == 1 else _cat(outs, 1)
    if bias is not None:
        out = out + bias.unsqueeze(-1)
    out = out.reshape(N, O, geom.oh, geom.ow)
    return out.squeeze(0) if unbatched else out


def _cat(tensors, dim):
    from ... import cat
    return cat(tensors, dim)


def _string_padding(x, padding, kernel, stride, dilation):
    if padding == "valid":
        return x, 0
    if padding != "same":
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    if stride != (1, 1):
        raise ValueError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if all(t % 2 == 0 for t in total):
        return x, (total[0] // 2, total[1] // 2)
    # Odd total padding: the extra element goes on the right/bottom, as in PyTorch.
    from .padding import pad
    return pad(x, (total[1] // 2, total[1] - total[1] // 2, total[0] // 2, total[0] - total[0] // 2)), 0


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor

    1-D cross-correlation of (N, C, L) ``input`` with (O, C/groups, k) ``weight``."""
    x, unbatched = _batched(input, 3, "conv1d")
    pad_arg = padding if isinstance(padding, str) else (0, _single(padding))
    out = conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1, _single(stride)), pad_arg,
                 (1, _single(dilation)), groups)
    out = out.squeeze(2)
    return out.squeeze(0) if unbatched else out


def _single(v):
    return int(v[0]) if isinstance(v, (tuple, list)) else int(v)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    Sliding local blocks of (N, C, H, W) ``input`` as columns: (N, C*kh*kw, L)."""
    if input.ndim != 4:
        raise NotImplementedError(f"Input Error: Only 4D input Tensors are supported (got {input.ndim}D)")
    geom = _geometry(input, _pair(kernel_size), _pair(stride, "stride"), _pair(padding, "padding"),
                     _pair(dilation, "dilation"))
    return im2col(input, geom)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor

    The adjoint of :func:`unfold`: sums (N, C*kh*kw, L) blocks into an (N, C, H, W) tensor."""
    if input.ndim != 3:
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                                  f"supported (got {input.ndim}D)")
    (kh, kw), (H, W) = _pair(kernel_size), _pair(output_size, "output_size")
    N, K, L = input.shape
    if K % (kh * kw):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={K} and kernel_size=({kh}, {kw}).")
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride, "stride"), _pair(padding, "padding"), _pair(dilation, "dilation")
    oh, ow = _out_size(H, kh, sh, ph, dh), _out_size(W, kw, sw, pw, dw)
    if oh * ow != L:
        raise RuntimeError(f"Given output_size=({H}, {W}), kernel_size=({kh}, {kw}), dilation=({dh}, {dw}), "
                           f"padding=({ph}, {pw}), stride=({sh}, {sw}), expected size of input's dimension 2 "
                           f"to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but "
                           f"got input.size(2)={L}.")
    geom = Geometry(N, K // (kh * kw), H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow)
    return col2im(input, geom)


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _pair(stride, "stride")
    padding = _pair(padding, "padding")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[0]}, "
                           f"kernel_size={kernel[0]} and dilation={_pair(dilation)[0]}")
    return _geometry(x, kernel, stride, padding, _pair(dilation, "dilation"), ceil_mode)


def _pool_windows(input, kernel_size, stride, padding, ceil_mode, name):
    """Windows of each channel: (N*C, kh*kw, L) plus the geometry and the batch layout."""
    x, unbatched = _batched(input, 4, name)
    N, C, H, W = x.shape
    g = _pool_geometry(x.reshape(N * C, 1, H, W), kernel_size, stride, padding, 1, ceil_mode)
    return im2col(x.reshape(N * C, 1, H, W), g), g, (N, C), unbatched


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)

    Maximum over each window (padding never wins); the gradient goes to the first maximum."""
    x, unbatched = _batched(input, 4, "max_pool2d")
    N, C, H, W = x.shape
    g = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode)
    out, idx = _max_pool(x, g)
    if unbatched:
        out = out.squeeze(0)
    if not return_indices:
        return out
    idx = idx.reshape(N, C, g.oh, g.ow)
    return out, (idx.squeeze(0) if unbatched else idx)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None):
    """avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)

    Mean over each window; padding counts towards the divisor when ``count_include_pad``."""
    cols, g, (N, C), unbatched = _pool_windows(input, kernel_size, stride, padding, ceil_mode, "avg_pool2d")
    total = cols.sum(1).reshape(N, C, g.oh, g.ow)
    if divisor_override:
        out = total / divisor_override
    else:
        out = total / _divisors(g, count_include_pad, total)
    return out.squeeze(0) if unbatched else out


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
    from ...creation import tensor
    return tensor([[h * w for w in ws] for h in hs], dtype=like.dtype, device=like.device)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False)"""
    r = max_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)),
                   None if stride is None else (1, _single(stride)), (0, _single(padding)),
                   (1, _single(dilation)), ceil_mode, return_indices)
    if return_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)"""
    return avg_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)),
                      None if stride is None else (1, _single(stride)), (0, _single(padding)), ceil_mode,
                      count_include_pad).squeeze(-2)
