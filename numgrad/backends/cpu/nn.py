"""CPU kernels of the neural-network primitives: row-wise (log-)softmax, im2col and col2im, max
pooling, negative log-likelihood.

Each kernel takes flat buffers plus sizes and strides as scalars, so one compilation per
dtype serves every shape. A serial kernel handles a range of rows (softmax) or of samples
(im2col, col2im: different samples never write the same element); its ``_par`` twin splits
the range over threads and is used only for large work, where threading pays for itself.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, uint64

from ...ops.scalar_math import exp as _exp
from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 17


def parallel(n: int) -> bool:
    """True if a kernel over ``n`` elements should take its ``_par`` form now."""
    return use_parallel(n, PARALLEL_THRESHOLD)


# Row reductions keep this many partial results, one per lane: a loop-carried max or sum is
# serial (LLVM vectorizes neither a NaN-aware max nor a float sum without reassociation), while
# the same update over a fixed block of lanes is elementwise and becomes vector instructions.
_LANES = 16


@njit(error_model="numpy", nogil=True, inline="always")
def _row_max(y, lanes):
    """The largest element of row ``y``, NaNs skipped (``lanes``: scratch of ``_LANES``
    elements): a NaN in the row still makes the softmax NaN, through the exponentials that
    follow."""
    n = y.shape[0]
    lanes[:] = -np.inf
    full = n - n % _LANES
    for i0 in range(0, full, _LANES):
        for j in range(_LANES):
            v = y[i0 + j]
            lanes[j] = v if v > lanes[j] else lanes[j]
    m = lanes[0]
    for j in range(1, _LANES):
        m = lanes[j] if lanes[j] > m else m
    for i in range(full, n):
        m = y[i] if y[i] > m else m
    return m


@njit(error_model="numpy", nogil=True, inline="always")
def _exp_sum(y, m, o, lanes):
    """o = exp(y - m), returning its sum (``lanes``: float64 scratch of ``_LANES`` elements)."""
    n = y.shape[0]
    lanes[:] = 0.0
    full = n - n % _LANES
    for i0 in range(0, full, _LANES):
        for j in range(_LANES):
            e = _exp(y[i0 + j] - m)
            o[i0 + j] = e
            lanes[j] += e
    s = lanes.sum()
    for i in range(full, n):
        e = _exp(y[i] - m)
        o[i] = e
        s += e
    return s


@njit(error_model="numpy", nogil=True, inline="always")
def _row_sum(y, lanes):
    """The sum of row ``y`` (``lanes``: float64 scratch of ``_LANES`` elements)."""
    n = y.shape[0]
    lanes[:] = 0.0
    full = n - n % _LANES
    for i0 in range(0, full, _LANES):
        for j in range(_LANES):
            lanes[j] += y[i0 + j]
    s = lanes.sum()
    for i in range(full, n):
        s += y[i]
    return s


@njit(cache=True, error_model="numpy", nogil=True)
def softmax_rows(x, xo, out, r0, r1, n, log):
    """Softmax (or log-softmax) of rows r0..r1-1, each ``n`` contiguous elements of ``x``.

    Subtracting the row maximum first keeps exp() from overflowing; a NaN anywhere in a row
    makes the whole row NaN, as in PyTorch."""
    top = np.empty(_LANES, dtype=x.dtype)
    total = np.empty(_LANES, dtype=np.float64)
    for r in range(r0, r1):
        y = x[xo + r * n:xo + r * n + n]
        o = out[r * n:r * n + n]
        m = _row_max(y, top)
        s = _exp_sum(y, m, o, total)
        if log:
            ls = math.log(s)
            for j in range(n):
                o[j] = y[j] - m - ls
        else:
            inv = 1.0 / s
            for j in range(n):
                o[j] = o[j] * inv


@njit(cache=True, error_model="numpy", nogil=True)
def log_softmax_backward_rows(g, go, y, yo, out, rows, n):
    """out = g - exp(y) * sum(g) per row of ``n`` contiguous elements (y = log_softmax(x))."""
    total = np.empty(_LANES, dtype=np.float64)
    for r in range(rows):
        gr = g[go + r * n:go + r * n + n]
        yr = y[yo + r * n:yo + r * n + n]
        o = out[r * n:r * n + n]
        s = _row_sum(gr, total)
        for j in range(n):
            o[j] = gr[j] - _exp(yr[j]) * s


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def softmax_rows_par(x, xo, out, rows, n, log, chunks):
    step = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        softmax_rows(x, xo, out, c * step, min(rows, (c + 1) * step), n, log)


@njit(cache=True, error_model="numpy", nogil=True)
def im2col(x, xo, sn, sc, sh, sw, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
           oh, ow, pad_value, out):
    """Sliding windows of samples n0..n1-1 of a strided (N, C, H, W) input as the columns of
    ``out`` (N, C*kh*kw, oh*ow): row (c, a, b) holds tap (a, b) of channel c of every window.

    Window (i, j) starts at (i*st_h - pad_h, j*st_w - pad_w); its taps are dil apart;
    taps that fall in the padding read ``pad_value``. Each output row is written contiguously."""
    K = C * kh * kw
    L = oh * ow
    for n in range(n0, n1):
        for c in range(C):
            src = xo + n * sn + c * sc
            for a in range(kh):
                for b in range(kw):
                    dst = (n * K + (c * kh + a) * kw + b) * L
                    x_off = b * dil_w - pad_w
                    # Output columns j whose tap lands inside the input: j_lo <= j < j_hi.
                    j_lo = min(ow, max(0, (-x_off + st_w - 1) // st_w))
                    j_hi = max(j_lo, min(ow, (W - x_off + st_w - 1) // st_w))
                    step = st_w * sw
                    for i in range(oh):
                        y = i * st_h - pad_h + a * dil_h
                        d = dst + i * ow
                        # Unsigned indices spare Numba's negative-index wraparound checks.
                        if y < 0 or y >= H:
                            for j in range(ow):
                                out[uint64(d + j)] = pad_value
                            continue
                        base = src + y * sh + x_off * sw
                        for j in range(j_lo):
                            out[uint64(d + j)] = pad_value
                        for j in range(j_lo, j_hi):
                            out[uint64(d + j)] = x[uint64(base + j * step)]
                        for j in range(j_hi, ow):
                            out[uint64(d + j)] = pad_value


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def im2col_par(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
               oh, ow, pad_value, out):
    for pn in prange(N):
        n = np.int64(pn)  # prange counts in uint64: passed on, it would compile im2col again
        im2col(x, xo, sn, sc, sh, sw, n, n + 1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
               oh, ow, pad_value, out)


@njit(cache=True, error_model="numpy", nogil=True)
def col2im(cols, co, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    """The adjoint of :func:`im2col` for samples n0..n1-1: adds each tap row of a contiguous
    (N, C*kh*kw, oh*ow) ``cols`` back onto a zeroed, contiguous (N, C, H, W) ``out``; taps in
    the padding are dropped."""
    K = C * kh * kw
    L = oh * ow
    for n in range(n0, n1):
        for c in range(C):
            dst = (n * C + c) * H * W
            for a in range(kh):
                for b in range(kw):
                    src = co + (n * K + (c * kh + a) * kw + b) * L
                    x_off = b * dil_w - pad_w
                    j_lo = min(ow, max(0, (-x_off + st_w - 1) // st_w))
                    j_hi = max(j_lo, min(ow, (W - x_off + st_w - 1) // st_w))
                    for i in range(oh):
                        y = i * st_h - pad_h + a * dil_h
                        if y < 0 or y >= H:
                            continue
                        base = dst + y * W + x_off
                        row = src + i * ow
                        for j in range(j_lo, j_hi):
                            out[uint64(base + j * st_w)] += cols[uint64(row + j)]


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def col2im_par(cols, co, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    for pn in prange(N):
        n = np.int64(pn)  # as in im2col_par
        col2im(cols, co, n, n + 1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out)


# LLVM vectorizes the window loop of :func:`_pool_run` 8 lanes by 4 unrolled on AVX2, and runs
# shorter loops (a 14-window row) one window at a time: runs are padded up to this length.
_POOL_RUN = 32


@njit(cache=True, error_model="numpy", nogil=True)
def _pool_run(x, src, step, n, kh, kw, ys, xs, yi, xi, idx0, ist, values, indices):
    """Maxima of windows 0..n-1 lying wholly inside the input into ``values[:n]`` and the
    indices of their first maxima into ``indices[:n]``: window j's tap (a, b) sits at
    ``src + j*step + a*ys + b*xs`` and has index ``idx0 + j*ist + a*yi + b*xi``.

    Called with constant kernel sizes and strides, its tap loops unroll and the window loop
    vectorizes; the comparison is a select, not a branch (a held NaN stays: the first NaN wins;
    otherwise a larger value or a NaN takes over)."""
    for j in range(n):
        p = src + j * step
        bv = x[uint64(p)]
        bo = 0
        for a in range(kh):
            for b in range(kw):
                v = x[uint64(p + a * ys + b * xs)]
                take = bv == bv and not v <= bv
                bv = v if take else bv
                bo = a * yi + b * xi if take else bo
        values[j] = bv
        indices[j] = idx0 + j * ist + bo


@njit(cache=True, error_model="numpy", nogil=True)
def _pool_interior(x, src, step, n, kh, kw, ys, xs, yi, xi, idx0, ist, values, indices):
    """:func:`_pool_run` with constant arguments for the common poolings (2x2 stride 2, 3x3
    stride 1 or 2, over rows of unit stride): each call site compiles its own vectorized loop.
    Returns False, computing nothing, for other poolings."""
    if xs != 1 or kh != kw:
        return False
    if kh == 2 and step == 2:
        _pool_run(x, src, 2, n, 2, 2, ys, 1, yi, xi, idx0, ist, values, indices)
    elif kh == 3 and step == 1:
        _pool_run(x, src, 1, n, 3, 3, ys, 1, yi, xi, idx0, ist, values, indices)
    elif kh == 3 and step == 2:
        _pool_run(x, src, 2, n, 3, 3, ys, 1, yi, xi, idx0, ist, values, indices)
    else:
        return False
    return True


@njit(cache=True, error_model="numpy", nogil=True)
def _pool_window(x, base, sh, sw, W, y0, x0, a_lo, a_hi, b_lo, b_hi, dil_h, dil_w):
    """(maximum, index of its first occurrence) of the window whose tap (0, 0) is at (y0, x0),
    over its taps a_lo <= a < a_hi, b_lo <= b < b_hi: those inside the input."""
    ya, xb = y0 + a_lo * dil_h, x0 + b_lo * dil_w
    best = ya * W + xb
    bv = x[uint64(base + ya * sh + xb * sw)]
    for a in range(a_lo, a_hi):
        y = y0 + a * dil_h
        for b in range(b_lo, b_hi):
            xx = x0 + b * dil_w
            v = x[uint64(base + y * sh + xx * sw)]
            take = bv == bv and not v <= bv
            best = y * W + xx if take else best
            bv = v if take else bv
    return bv, best


@njit(cache=True, error_model="numpy", nogil=True)
def _taps_inside(n_out, k, st, pad, dil, size):
    """For each window along one axis, its taps lo <= t < hi that fall inside the input."""
    lo = np.empty(n_out, np.int64)
    hi = np.empty(n_out, np.int64)
    for i in range(n_out):
        start = i * st - pad
        lo[i] = max(0, (-start + dil - 1) // dil)
        hi[i] = min(k, (size - start + dil - 1) // dil)
    return lo, hi


@njit(cache=True, error_model="numpy", nogil=True)
def _max_pool(x, xo, sn, sc, sh, sw, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
              oh, ow, values, indices):
    # Windows i_lo <= i < i_hi, j_lo <= j < j_hi lie wholly inside the input; the others are
    # clipped one at a time.
    i_lo = min(oh, (pad_h + st_h - 1) // st_h)
    i_hi = max(i_lo, min(oh, (H - 1 + pad_h - (kh - 1) * dil_h) // st_h + 1))
    j_lo = min(ow, (pad_w + st_w - 1) // st_w)
    j_hi = max(j_lo, min(ow, (W - 1 + pad_w - (kw - 1) * dil_w) // st_w + 1))
    n_in = j_hi - j_lo
    run = (n_in + _POOL_RUN - 1) // _POOL_RUN * _POOL_RUN
    vals = np.empty(run, values.dtype)
    idx = np.empty(run, np.int64)
    step, ys, xs = st_w * sw, dil_h * sh, dil_w * sw
    reach = (kh - 1) * ys + (kw - 1) * xs + (run - 1) * step
    a_lo, a_hi = _taps_inside(oh, kh, st_h, pad_h, dil_h, H)
    b_lo, b_hi = _taps_inside(ow, kw, st_w, pad_w, dil_w, W)
    for n in range(n0, n1):
        for c in range(C):
            base = xo + n * sn + c * sc
            for i in range(oh):
                y0 = i * st_h - pad_h
                o = ((n * C + c) * oh + i) * ow
                fast = False
                if i_lo <= i < i_hi and n_in > 0:
                    x0 = j_lo * st_w - pad_w
                    src = base + y0 * sh + x0 * sw
                    # The padded run reads past the row's last window: only where the buffer goes on.
                    m = run if src + reach < x.shape[0] else n_in
                    fast = _pool_interior(x, src, step, m, kh, kw, ys, xs, dil_h * W, dil_w, y0 * W + x0,
                                          st_w, vals, idx)
                    if fast:
                        for j in range(n_in):
                            values[o + j_lo + j] = vals[j]
                            indices[o + j_lo + j] = idx[j]
                # The windows left: all of the row's, or those either side of the interior run.
                left, right = (j_lo, j_hi) if fast else (ow, ow)
                for j in range(ow - right + left):
                    jj = j if j < left else j - left + right
                    values[o + jj], indices[o + jj] = _pool_window(
                        x, base, sh, sw, W, y0, jj * st_w - pad_w, a_lo[i], a_hi[i], b_lo[jj], b_hi[jj],
                        dil_h, dil_w)


def max_pool(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
             oh, ow, values, indices):
    """Each window's maximum of a strided (N, C, H, W) input into ``values`` and the flat index
    y * W + x of its first maximum into ``indices`` (both (N*C, oh*ow)); a NaN counts as the
    maximum. Windows are never empty: validation guarantees each overlaps the input."""
    # From Python, not a jitted wrapper: compiling one would re-optimize all of _max_pool's code
    # (0.7 s), and max_pool_par's calls reuse this compilation of it.
    _max_pool(x, xo, sn, sc, sh, sw, 0, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
              oh, ow, values, indices)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def max_pool_par(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
                 oh, ow, values, indices):
    """:func:`max_pool` with the samples spread over threads."""
    for pn in prange(N):
        n = np.int64(pn)  # as in im2col_par
        _max_pool(x, xo, sn, sc, sh, sw, n, n + 1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h,
                  dil_w, oh, ow, values, indices)


@njit(cache=True, error_model="numpy", nogil=True)
def max_pool_backward(g, go, gs0, gs1, indices, rows, L, HW, out):
    """Adds each window's cotangent ``g`` (strided (rows, L)) at its maximum's position in the
    zeroed, contiguous (rows, H*W) ``out``; ``indices`` is contiguous (rows, L)."""
    for r in range(rows):
        for l in range(L):
            out[r * HW + indices[r * L + l]] += g[go + r * gs0 + l * gs1]


@njit(cache=True, error_model="numpy", nogil=True)
def nll_rows(logp, lo, s0, s1, target, to, ts, n_classes, ignore_index, losses, rows, kept):
    """Per-sample negative log-likelihoods ``-logp[i, target[i]]`` into ``losses``, each
    sample's class into ``rows`` and 1 into ``kept``; ignored samples get 0 in all three.

    Returns (sum of the losses, number of samples not ignored, first sample whose target is out
    of range or -1); the sum accumulates in float64."""
    total = 0.0
    count = 0
    for i in range(losses.shape[0]):
        t = target[to + i * ts]
        if t == ignore_index:
            losses[i] = 0
            rows[i] = 0
            kept[i] = 0
            continue
        if t < 0 or t >= n_classes:
            return total, count, i
        v = -logp[lo + i * s0 + t * s1]
        losses[i] = v
        rows[i] = t
        kept[i] = 1
        total += v
        count += 1
    return total, count, -1


@njit(cache=True, nogil=True)
def nll_mask(rows, weights, n_classes, out):
    """out[i, rows[i]] = -weights[i] in a zeroed (N * C) buffer: the (N, C) Jacobian of the
    per-sample losses."""
    for i in range(weights.shape[0]):
        out[i * n_classes + rows[i]] = 0.0 - weights[i]  # +0, not -0, for an ignored sample
