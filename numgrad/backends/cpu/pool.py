"""CPU kernels of adaptive average pooling, on arrays.

Output cell ``i`` of a dimension of ``n`` inputs pooled to ``m`` cells averages inputs
``floor(i*n/m)`` up to ``ceil((i+1)*n/m)``: windows that cover every input and overlap by at
most one. Planes (the leading N*C) are independent, so the ``_par`` forms split them over threads.
A window's sum accumulates in the array's dtype and is divided by the window's height, then by its
width, in that dtype: PyTorch's kernel rounds the same way.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, uint64

from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 16


@njit(cache=True, error_model="numpy", nogil=True)
def _start(i, n, m):
    return (i * n) // m


@njit(cache=True, error_model="numpy", nogil=True)
def _end(i, n, m):
    return -((-(i + 1) * n) // m)


@njit(cache=True, error_model="numpy", nogil=True)
def _avg_plane(x, out, p):
    H, W = x.shape[1], x.shape[2]
    OH, OW = out.shape[1], out.shape[2]
    for i in range(OH):
        h0, h1 = _start(i, H, OH), _end(i, H, OH)
        for j in range(OW):
            w0, w1 = _start(j, W, OW), _end(j, W, OW)
            total = x.dtype.type(0)
            for h in range(h0, h1):
                for w in range(w0, w1):
                    total += x[p, h, w]
            out[p, i, j] = total / x.dtype.type(h1 - h0) / x.dtype.type(w1 - w0)


@njit(cache=True, error_model="numpy", nogil=True)
def _avg_planes(x, out):
    for p in range(x.shape[0]):
        _avg_plane(x, out, p)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _avg_planes_par(x, out):
    for p in prange(x.shape[0]):
        _avg_plane(x, out, p)


@njit(cache=True, error_model="numpy", nogil=True)
def _spread_plane(g, out, p):
    H, W = out.shape[1], out.shape[2]
    OH, OW = g.shape[1], g.shape[2]
    for h in range(H):
        for w in range(W):
            out[p, h, w] = 0
    for i in range(OH):
        h0, h1 = _start(i, H, OH), _end(i, H, OH)
        for j in range(OW):
            w0, w1 = _start(j, W, OW), _end(j, W, OW)
            share = g[p, i, j] / g.dtype.type(h1 - h0) / g.dtype.type(w1 - w0)
            for h in range(h0, h1):
                for w in range(w0, w1):
                    out[p, h, w] += share


@njit(cache=True, error_model="numpy", nogil=True)
def _spread_planes(g, out):
    for p in range(g.shape[0]):
        _spread_plane(g, out, p)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _spread_planes_par(g, out):
    for p in prange(g.shape[0]):
        _spread_plane(g, out, p)


@njit(cache=True, error_model="numpy", nogil=True)
def _plane_means(x, out, n):
    """out[p] = the mean of the p-th run of ``n`` elements of flat ``x``, summed in PyTorch's
    order for a short contiguous run (a vector of 32 bytes <= n, fewer than 16 blocks of 4
    vectors): 4 vectors of lanes over the blocks, the leftover vectors into the first vector's
    lanes, the 4 streams folded, then the leftover elements and the lanes one by one."""
    # The vector width comes from the dtype, so that the lane loops have constant trip counts;
    # unsigned indices spare Numba's wraparound checks.
    width = 32 // x.itemsize
    vectors = n // width
    blocks = vectors // 4
    acc = np.zeros(4 * width, x.dtype)
    for p in range(out.shape[0]):
        base = p * n
        for lane in range(4 * width):
            acc[lane] = 0
        for r in range(blocks):
            q = base + r * 4 * width
            for lane in range(4 * width):
                acc[lane] += x[uint64(q + lane)]
        for v in range(4 * blocks, vectors):
            q = base + v * width
            for lane in range(width):
                acc[lane] += x[uint64(q + lane)]
        for k in range(1, 4):
            for lane in range(width):
                acc[lane] += acc[k * width + lane]
        total = x.dtype.type(0)
        for i in range(vectors * width, n):
            total += x[uint64(base + i)]
        for lane in range(width):
            total += acc[lane]
        out[p] = total / x.dtype.type(n)


def global_avg_pool2d(out, x):
    """``out`` (..., 1, 1) = the mean of each (H, W) plane of ``x`` (..., H, W), rounded as
    PyTorch's mean rounds it (for the planes :func:`_plane_means` names)."""
    _plane_means(x.reshape(-1), out.reshape(-1), x.shape[-1] * x.shape[-2])


def _planes(a):
    """(planes, H, W) view of a C-contiguous (..., H, W) array."""
    return a.reshape((math.prod(a.shape[:-2]),) + a.shape[-2:])


def adaptive_avg_pool2d(out, x, output_size):
    """``out`` (..., OH, OW) = the adaptive averages of ``x`` (..., H, W)."""
    x, out = _planes(x), _planes(out)
    run = _avg_planes_par if x.shape[0] > 1 and use_parallel(x.size, PARALLEL_THRESHOLD) else _avg_planes
    run(x, out)


def adaptive_avg_pool2d_backward(out, grad, input_size):
    """``out`` (..., H, W) = each output cell's ``grad`` (..., OH, OW) shared evenly over its window."""
    grad, out = _planes(grad), _planes(out)
    run = _spread_planes_par if out.shape[0] > 1 and use_parallel(out.size, PARALLEL_THRESHOLD) else _spread_planes
    run(grad, out)
