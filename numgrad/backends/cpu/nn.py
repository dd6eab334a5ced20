"""CPU kernels of the neural-network primitives: row-wise (log-)softmax, im2col and col2im.

Each kernel takes flat buffers plus sizes and strides as scalars, so one compilation per
dtype serves every shape. Work is split over rows (softmax) or over the batch (im2col,
col2im: different samples never write the same output element).
"""
from __future__ import annotations

import math

from numba import njit, prange


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def softmax_rows(x, xo, out, rows, n, log):
    """Softmax (or log-softmax) of each contiguous row of ``n`` elements of ``x``.

    Subtracting the row maximum first keeps exp() from overflowing; a NaN anywhere in a row
    makes the whole row NaN, as in PyTorch."""
    for r in prange(rows):
        base = xo + r * n
        ob = r * n
        m = -math.inf
        for j in range(n):
            v = x[base + j]
            if v != v:
                m = v
                break
            if v > m:
                m = v
        s = 0.0
        for j in range(n):
            s += math.exp(x[base + j] - m)
        if log:
            ls = math.log(s)
            for j in range(n):
                out[ob + j] = x[base + j] - m - ls
        else:
            inv = 1.0 / s
            for j in range(n):
                out[ob + j] = math.exp(x[base + j] - m) * inv


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def im2col(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
           oh, ow, pad_value, out):
    """Sliding windows of a strided (N, C, H, W) input as rows of ``out`` (N, oh*ow, C*kh*kw).

    Window (i, j) starts at (i*st_h - pad_h, j*st_w - pad_w); its taps are dil apart;
    taps that fall in the padding read ``pad_value``."""
    K = C * kh * kw
    for n in prange(N):
        for i in range(oh):
            for j in range(ow):
                row = ((n * oh + i) * ow + j) * K
                for c in range(C):
                    for a in range(kh):
                        y = i * st_h - pad_h + a * dil_h
                        for b in range(kw):
                            xx = j * st_w - pad_w + b * dil_w
                            k = row + (c * kh + a) * kw + b
                            if 0 <= y < H and 0 <= xx < W:
                                out[k] = x[xo + n * sn + c * sc + y * sh + xx * sw]
                            else:
                                out[k] = pad_value


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def col2im(cols, co, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    """The adjoint of :func:`im2col`: adds each window row of ``cols`` back onto a zeroed,
    contiguous (N, C, H, W) ``out``; taps in the padding are dropped."""
    K = C * kh * kw
    HW = H * W
    for n in prange(N):
        for i in range(oh):
            for j in range(ow):
                row = co + ((n * oh + i) * ow + j) * K
                for c in range(C):
                    for a in range(kh):
                        y = i * st_h - pad_h + a * dil_h
                        if y < 0 or y >= H:
                            continue
                        for b in range(kw):
                            xx = j * st_w - pad_w + b * dil_w
                            if 0 <= xx < W:
                                out[(n * C + c) * HW + y * W + xx] += cols[row + (c * kh + a) * kw + b]
