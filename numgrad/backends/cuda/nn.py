"""CUDA kernels of the neural-network primitives, with the entry points and arguments of the CPU
kernels in ``backends/cpu/nn.py``: im2col, col2im, max pooling, row-wise (log-)softmax and nll.

Window kernels give each thread one output element (no atomics except max-pool backward); row
kernels give each block one row and combine its threads' partials in shared memory.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from . import runtime

_WINDOWS = """\
from numba import cuda
_K = {} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(**_K)
def im2col(x, xo, sn, sc, sh, sw, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
           oh, ow, pad_value, out):
    '''out[n, (c, a, b), (i, j)] = x[n, c, i*st_h - pad_h + a*dil_h, j*st_w - pad_w + b*dil_w] for
    samples n0..n1-1, ``pad_value`` where the tap falls in the padding; one output element per
    thread, consecutive threads along j so that writes coalesce.'''
    per = C * kh * kw * oh * ow
    total = (n1 - n0) * per
    p = cuda.grid(1)
    while p < total:
        q = n0 * per + p
        j = q % ow
        r = q // ow
        i = r % oh
        r //= oh
        b = r % kw
        r //= kw
        a = r % kh
        r //= kh
        c = r % C
        n = r // C
        y = i * st_h - pad_h + a * dil_h
        xx = j * st_w - pad_w + b * dil_w
        if y >= 0 and y < H and xx >= 0 and xx < W:
            out[q] = x[xo + n * sn + c * sc + y * sh + xx * sw]
        else:
            out[q] = pad_value
        p += cuda.gridsize(1)


@cuda.jit(**_K)
def col2im(cols, co, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    '''The adjoint of im2col: each thread owns one pixel (n, c, y, x) of the zeroed, contiguous
    ``out`` and gathers the taps that read it, in the CPU's (a, b) order: tap (a, b) of window
    (i, j) reads it when y = i*st_h - pad_h + a*dil_h and likewise for x.'''
    K = C * kh * kw
    L = oh * ow
    per = C * H * W
    total = (n1 - n0) * per
    p = cuda.grid(1)
    while p < total:
        q = n0 * per + p
        xx = q % W
        r = q // W
        y = r % H
        r //= H
        c = r % C
        n = r // C
        acc = out[q]
        for a in range(kh):
            ty = y + pad_h - a * dil_h
            if ty < 0:
                break
            if ty % st_h != 0 or ty // st_h >= oh:
                continue
            i = ty // st_h
            for b in range(kw):
                tx = xx + pad_w - b * dil_w
                if tx < 0:
                    break
                if tx % st_w != 0 or tx // st_w >= ow:
                    continue
                acc += cols[co + (n * K + (c * kh + a) * kw + b) * L + i * ow + tx // st_w]
        out[q] = acc
        p += cuda.gridsize(1)


@cuda.jit(**_K)
def max_pool(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
             oh, ow, values, indices):
    '''Each window's maximum and the flat index y * W + x of its first maximum (a NaN wins), one
    window per thread; only taps inside the input are visited (validation keeps windows
    non-empty).'''
    total = N * C * oh * ow
    p = cuda.grid(1)
    while p < total:
        j = p % ow
        r = p // ow
        i = r % oh
        r //= oh
        c = r % C
        n = r // C
        base = xo + n * sn + c * sc
        y0 = i * st_h - pad_h
        x0 = j * st_w - pad_w
        a_lo = max(0, (-y0 + dil_h - 1) // dil_h)
        a_hi = min(kh, (H - y0 + dil_h - 1) // dil_h)
        b_lo = max(0, (-x0 + dil_w - 1) // dil_w)
        b_hi = min(kw, (W - x0 + dil_w - 1) // dil_w)
        ya = y0 + a_lo * dil_h
        xb = x0 + b_lo * dil_w
        best = ya * W + xb
        bv = x[base + ya * sh + xb * sw]
        for a in range(a_lo, a_hi):
            y = y0 + a * dil_h
            for b in range(b_lo, b_hi):
                xx = x0 + b * dil_w
                v = x[base + y * sh + xx * sw]
                if v > bv or (v != v and bv == bv):
                    best = y * W + xx
                    bv = v
        values[p] = bv
        indices[p] = best
        p += cuda.gridsize(1)


@cuda.jit(**_K)
def max_pool_backward(g, go, gs0, gs1, indices, rows, L, HW, out):
    '''Adds each window's cotangent at its maximum's position, atomically: overlapping windows
    may share a maximum.'''
    total = rows * L
    p = cuda.grid(1)
    while p < total:
        r = p // L
        l = p % L
        cuda.atomic.add(out, r * HW + indices[p], g[go + r * gs0 + l * gs1])
        p += cuda.gridsize(1)


@cuda.jit(**_K)
def nll_mask(rows, weights, n_classes, out):
    '''out[i, rows[i]] = -weights[i] in a zeroed (N * C) buffer, one sample per thread.'''
    i = cuda.grid(1)
    while i < weights.shape[0]:
        out[i * n_classes + rows[i]] = 0.0 - weights[i]  # +0, not -0, for an ignored sample
        i += cuda.gridsize(1)
"""

_ROWS = """\
import math
import numpy as np
from numba import cuda
_c = np.{acc}
_TPB = {tpb}
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(device=True)
def _block_max(sm, tid, v):
    # The block's maximum of every thread's v; a NaN anywhere wins.
    sm[tid] = v
    cuda.syncthreads()
    s = _TPB // 2
    while s >= 1:
        if tid < s:
            o = sm[tid + s]
            if o > sm[tid] or o != o:
                sm[tid] = o
        cuda.syncthreads()
        s //= 2
    m = sm[0]
    cuda.syncthreads()
    return m


@cuda.jit(device=True)
def _block_sum(sm, tid, v):
    sm[tid] = v
    cuda.syncthreads()
    s = _TPB // 2
    while s >= 1:
        if tid < s:
            sm[tid] += sm[tid + s]
        cuda.syncthreads()
        s //= 2
    total = sm[0]
    cuda.syncthreads()
    return total


@cuda.jit(**_K)
def softmax_rows(x, xo, out, r0, r1, n, log):
    '''Softmax (or log-softmax) of rows r0..r1-1, each ``n`` contiguous elements of ``x``, one
    block per row: the row maximum (NaN wins), then the sum of exp(x - max), each reduced in
    shared memory.'''
    sm = cuda.shared.array(_TPB, dtype=_c)
    tid = cuda.threadIdx.x
    r = r0 + cuda.blockIdx.x
    while r < r1:
        base = xo + r * n
        m = _c(-math.inf)
        j = tid
        while j < n:
            v = _c(x[base + j])
            if v > m or v != v:
                m = v
            j += _TPB
        m = _block_max(sm, tid, m)
        acc = _c(0)
        j = tid
        while j < n:
            acc += math.exp(_c(x[base + j]) - m)
            j += _TPB
        s = _block_sum(sm, tid, acc)
        j = tid
        if log:
            ls = math.log(s)
            while j < n:
                out[r * n + j] = _c(x[base + j]) - m - ls
                j += _TPB
        else:
            inv = _c(1) / s
            while j < n:
                out[r * n + j] = math.exp(_c(x[base + j]) - m) * inv
                j += _TPB
        r += cuda.gridDim.x


@cuda.jit(**_K)
def log_softmax_backward_rows(g, go, y, yo, out, rows, n):
    '''out = g - exp(y) * sum(g) per row of ``n`` contiguous elements, one block per row.'''
    sm = cuda.shared.array(_TPB, dtype=_c)
    tid = cuda.threadIdx.x
    r = cuda.blockIdx.x
    while r < rows:
        acc = _c(0)
        j = tid
        while j < n:
            acc += _c(g[go + r * n + j])
            j += _TPB
        s = _block_sum(sm, tid, acc)
        j = tid
        while j < n:
            out[r * n + j] = _c(g[go + r * n + j]) - math.exp(_c(y[yo + r * n + j])) * s
            j += _TPB
        r += cuda.gridDim.x


@cuda.jit(**_K)
def nll_rows(logp, lo, s0, s1, target, to, ts, n_classes, ignore_index, losses, rows, kept, total, counts):
    '''One block: per-sample losses -logp[i, target[i]], classes and kept flags (0 for ignored
    samples), then total[0] = the float64 sum of the losses, counts = (samples kept, first
    sample whose target is out of range, or N).'''
    tot = cuda.shared.array(_TPB, dtype=np.float64)
    cnt = cuda.shared.array(_TPB, dtype=np.int64)
    bad = cuda.shared.array(_TPB, dtype=np.int64)
    tid = cuda.threadIdx.x
    N = losses.shape[0]
    acc = np.float64(0)
    k = 0
    first = N
    i = tid
    while i < N:
        t = target[to + i * ts]
        if t != ignore_index and t >= 0 and t < n_classes:
            v = -logp[lo + i * s0 + t * s1]
            losses[i] = v
            rows[i] = t
            kept[i] = 1
            acc += v
            k += 1
        else:
            losses[i] = 0
            rows[i] = 0
            kept[i] = 0
            if t != ignore_index and i < first:
                first = i
        i += _TPB
    tot[tid] = acc
    cnt[tid] = k
    bad[tid] = first
    cuda.syncthreads()
    s = _TPB // 2
    while s >= 1:
        if tid < s:
            tot[tid] += tot[tid + s]
            cnt[tid] += cnt[tid + s]
            bad[tid] = min(bad[tid], bad[tid + s])
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        total[0] = tot[0]
        counts[0] = cnt[0]
        counts[1] = bad[0]
"""

_windows = None
_rows: dict = {}


def _window_kernels():
    global _windows
    if _windows is None:
        runtime.module()  # sets the simulator flag before the generated module imports numba.cuda
        _windows = codegen.load_module("cuda_nn_windows", _WINDOWS)
    return _windows


def _row_kernels(dtype):
    tpb = runtime.geometry()[0]
    key = (np.dtype(dtype), tpb)
    mod = _rows.get(key)
    if mod is None:
        src = _ROWS.format(acc=key[0].name, tpb=tpb)
        mod = _rows[key] = codegen.load_module(f"cuda_nn_rows_{key[0].name}", src)
    return mod


def _grid(n):
    return runtime.blocks_for(n), runtime.geometry()[0]


def _row_grid(rows):
    tpb, most = runtime.geometry()
    return max(1, min(rows, most)), tpb


def parallel(n: int) -> bool:
    """Always False: the launches below spread any size over the GPU themselves."""
    return False


def im2col(x, xo, sn, sc, sh, sw, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
           oh, ow, pad_value, out):
    """See ``backends/cpu/nn.im2col``."""
    total = (n1 - n0) * C * kh * kw * oh * ow
    if total:
        runtime.launch(_window_kernels().im2col, *_grid(total), x, xo, sn, sc, sh, sw, n0, n1, C, H, W,
                       kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, pad_value, out)


def col2im(cols, co, n0, n1, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out):
    """See ``backends/cpu/nn.col2im``."""
    total = (n1 - n0) * C * H * W
    if total:
        runtime.launch(_window_kernels().col2im, *_grid(total), cols, co, n0, n1, C, H, W, kh, kw,
                       st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, out)


def max_pool(x, xo, sn, sc, sh, sw, N, C, H, W, kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w,
             oh, ow, values, indices):
    """See ``backends/cpu/nn.max_pool``."""
    total = N * C * oh * ow
    if total:
        runtime.launch(_window_kernels().max_pool, *_grid(total), x, xo, sn, sc, sh, sw, N, C, H, W,
                       kh, kw, st_h, st_w, pad_h, pad_w, dil_h, dil_w, oh, ow, values, indices)


def max_pool_backward(g, go, gs0, gs1, indices, rows, L, HW, out):
    """See ``backends/cpu/nn.max_pool_backward``; ``out`` is float32 or float64 (atomic adds)."""
    if rows * L:
        runtime.launch(_window_kernels().max_pool_backward, *_grid(rows * L), g, go, gs0, gs1, indices,
                       rows, L, HW, out)


def nll_mask(rows, weights, n_classes, out):
    """See ``backends/cpu/nn.nll_mask``."""
    n = weights.shape[0]
    if n:
        runtime.launch(_window_kernels().nll_mask, *_grid(n), rows, weights, n_classes, out)


def softmax_rows(x, xo, out, r0, r1, n, log):
    """See ``backends/cpu/nn.softmax_rows`` (float32 rows reduce in float32)."""
    if r1 > r0 and n:
        runtime.launch(_row_kernels(out.dtype).softmax_rows, *_row_grid(r1 - r0), x, xo, out, r0, r1, n, log)


def log_softmax_backward_rows(g, go, y, yo, out, rows, n):
    """See ``backends/cpu/nn.log_softmax_backward_rows``."""
    if rows and n:
        runtime.launch(_row_kernels(out.dtype).log_softmax_backward_rows, *_row_grid(rows), g, go, y, yo,
                       out, rows, n)


def nll_rows(logp, lo, s0, s1, target, to, ts, n_classes, ignore_index, losses, rows, kept):
    """See ``backends/cpu/nn.nll_rows``: returns (sum of the losses, samples not ignored, first
    sample whose target is out of range or -1), copied back from the device."""
    cuda = runtime.module()
    total = cuda.device_array(1, dtype=np.float64)
    counts = cuda.device_array(2, dtype=np.int64)
    runtime.launch(_row_kernels(losses.dtype).nll_rows, 1, runtime.geometry()[0], logp, lo, s0, s1, target,
                   to, ts, n_classes, ignore_index, losses, rows, kept, total, counts)
    n_kept, bad = (int(v) for v in counts.copy_to_host())
    return float(total.copy_to_host()[0]), n_kept, (bad if bad < losses.shape[0] else -1)
