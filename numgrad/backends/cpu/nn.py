"""CPU kernels of the neural-network primitives: row-wise (log-)softmax, im2col and col2im.

Each kernel takes flat buffers plus sizes and strides as scalars, so one compilation per
dtype serves every shape. A serial kernel handles a range of rows (softmax) or of samples
(im2col, col2im: different samples never write the same element); its ``_par`` twin splits
the range over threads and is used only for large work, where threading pays for itself.
"""
from __future__ import annotations

import math

from numba import njit, prange

PARALLEL_THRESHOLD = 1 << 17


@njit(cache=True, error_model="numpy", nogil=True)
def softmax_rows(x, xo, out, r0, r1, n, log):
    """Softmax (or log-softmax) of rows r0..r1-1, each ``n`` contiguous elements of ``x``.

    Subtracting the row maximum first keeps exp() from overflowing; a NaN anywhere in a row
    makes the whole row NaN, as in PyTorch."""
    for r in range(r0, r1):
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
def softmax_rows_par(x, xo, out, rows, n, log, chunks):
    step = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        softmax_rows(x, xo, out, c * step, min(rows, (c + 1) * step), n, log)


@njit(cache=True, error_model="numpy", nogil=True)
def im2col(x, xo, sn, sc, sh, sw, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
           oh, ow, pad_value, out):
    """Sliding windows of samples n0..n1-1 of a strided (N, C, H, W) input as rows of ``out``
    (N, oh*ow, C*kh*kw).

    Window (i, j) starts at (i*st_h - pad_h, j*st_w - pad_w); its taps are dil apart;
    taps that fall in the padding read ``pad_value``."""
    K = C * kh * kw
    for n in range(n0, n1):
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
def im2col_par(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
               oh, ow, pad_value, out):
    for n in prange(N):
        im2col(x, xo, sn, sc, sh, sw, n, n + 1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
               oh, ow, pad_value, out)


@njit(cache=True, error_model="numpy", nogil=True)
def col2im(cols, co, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    """The adjoint of :func:`im2col` for samples n0..n1-1: adds each window row of ``cols`` back
    onto a zeroed, contiguous (N, C, H, W) ``out``; taps in the padding are dropped."""
    K = C * kh * kw
    HW = H * W
    for n in range(n0, n1):
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


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def col2im_par(cols, co, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    for n in prange(N):
        col2im(cols, co, n, n + 1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out)


@njit(cache=True, error_model="numpy", nogil=True)
def max_pool_indices(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
                     oh, ow, out):
    """For each window of a strided (N, C, H, W) input, the flat index y * W + x of its first
    maximum (a NaN counts as the maximum), written to ``out`` (N*C, oh*ow). Windows are never
    empty: validation guarantees each overlaps the input."""
    for n in range(N):
        for c in range(C):
            base = xo + n * sn + c * sc
            row = (n * C + c) * oh * ow
            for i in range(oh):
                for j in range(ow):
                    best = -1
                    bv = x[base]
                    for a in range(kh):
                        y = i * st_h - pad_h + a * dil_h
                        if y < 0 or y >= H:
                            continue
                        for b in range(kw):
                            xx = j * st_w - pad_w + b * dil_w
                            if xx < 0 or xx >= W:
                                continue
                            v = x[base + y * sh + xx * sw]
                            if best < 0 or v > bv or (v != v and bv == bv):
                                best = y * W + xx
                                bv = v
                    out[row + i * ow + j] = best
