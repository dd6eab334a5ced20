"""CPU kernels of resampling, on arrays: resizing along one dim by fixed taps, and sampling at
the points of a grid.

For resizing, an array is viewed as (outer, n, inner) around the resampled dim. Output position
``j`` along that dim is ``sum_k weight[j, k] * x[:, index[j, k], :]``, the taps summed in order
``k`` (the order PyTorch's upsampling kernels sum them). Nearest, linear, cubic and area
resampling are all such taps; a multi-dim resize is one pass per dim. The adjoint scatters each
output's cotangent back to its taps' sources. Outer slices (batch items for grid sampling) are
independent, so the ``_par`` forms split them over threads.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 16


@njit(cache=True, error_model="numpy", nogil=True)
def _gather_slice(x, out, index, weight, o):
    for j in range(index.shape[0]):
        w = weight[j, 0]
        src = index[j, 0]
        for i in range(x.shape[2]):
            out[o, j, i] = w * x[o, src, i]
        for k in range(1, index.shape[1]):
            w = weight[j, k]
            src = index[j, k]
            for i in range(x.shape[2]):
                out[o, j, i] += w * x[o, src, i]


@njit(cache=True, error_model="numpy", nogil=True)
def _gather(x, out, index, weight):
    for o in range(x.shape[0]):
        _gather_slice(x, out, index, weight, o)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _gather_par(x, out, index, weight):
    for o in prange(x.shape[0]):
        _gather_slice(x, out, index, weight, o)


@njit(cache=True, error_model="numpy", nogil=True)
def _scatter_slice(g, out, index, weight, o):
    for s in range(out.shape[1]):
        for i in range(out.shape[2]):
            out[o, s, i] = 0
    for j in range(index.shape[0]):
        for k in range(index.shape[1]):
            w = weight[j, k]
            dst = index[j, k]
            for i in range(g.shape[2]):
                out[o, dst, i] += w * g[o, j, i]


@njit(cache=True, error_model="numpy", nogil=True)
def _scatter(g, out, index, weight):
    for o in range(g.shape[0]):
        _scatter_slice(g, out, index, weight, o)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _scatter_par(g, out, index, weight):
    for o in prange(g.shape[0]):
        _scatter_slice(g, out, index, weight, o)


def _around(a, dim):
    """(outer, n, inner) view of a C-contiguous array around ``dim``."""
    return a.reshape((math.prod(a.shape[:dim]), a.shape[dim], math.prod(a.shape[dim + 1:])))


def resample_taps(out, x, dim, index, weight):
    """``out`` = ``x`` resampled along ``dim`` by the taps ``index`` (m, K) and ``weight`` (m, K)."""
    x3, out3 = _around(x, dim), _around(out, dim)
    weight = weight.astype(x.dtype, copy=False)
    run = _gather_par if x3.shape[0] > 1 and use_parallel(out.size, PARALLEL_THRESHOLD) else _gather
    run(x3, out3, index, weight)


def resample_taps_backward(out, grad, dim, index, weight, size):
    """``out`` (the source's shape, ``size`` along ``dim``) = the adjoint of :func:`resample_taps`
    applied to ``grad``."""
    g3, out3 = _around(grad, dim), _around(out, dim)
    weight = weight.astype(grad.dtype, copy=False)
    run = _scatter_par if g3.shape[0] > 1 and use_parallel(grad.size, PARALLEL_THRESHOLD) else _scatter
    run(g3, out3, index, weight)


# ---------------------------------------------------------------------------------------------
# grid sampling
#
# Inputs are viewed as (N, C, D, H, W) (D = 1 for 2-D sampling) and grids as (N, L, k), k = 2 or 3
# coordinates (x, y[, z]) in [-1, 1]. Each output point reads the product of per-dim taps: for
# dim d, ``_taps`` gives up to four (index, weight, d weight / d position) and the derivative of
# the position with respect to the grid coordinate (the unnormalising scale times the padding's
# slope). Taps outside the input read zero. Modes: 0 bilinear, 1 nearest, 2 bicubic; padding
# modes: 0 zeros, 1 border, 2 reflection.

_A = -0.75  # Keys' cubic convolution parameter, as PyTorch's


@njit(cache=True, error_model="numpy", nogil=True)
def _clip(pos, size):
    """``pos`` clipped to [0, size - 1] and its slope; the bounds themselves get slope 0."""
    if pos <= 0.0:
        return 0.0, 0.0
    if pos >= size - 1.0:
        return size - 1.0, 0.0
    return pos, 1.0


@njit(cache=True, error_model="numpy", nogil=True)
def _reflect(pos, twice_low, twice_high):
    """``pos`` mirrored into [twice_low / 2, twice_high / 2] as often as it takes, and its slope."""
    if twice_low == twice_high:
        return 0.0, 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    slope = 1.0
    if pos < low:
        pos, slope = low - pos, -1.0
    else:
        pos = pos - low
    extra = np.fmod(pos, span)
    if math.floor(pos / span) % 2.0 == 0.0:
        return extra + low, slope
    return span - extra + low, -slope


@njit(cache=True, error_model="numpy", nogil=True)
def _pad(pos, size, padding, align_corners):
    if padding == 0:
        return pos, 1.0
    slope = 1.0
    if padding == 2:
        if align_corners:
            pos, slope = _reflect(pos, 0.0, 2.0 * (size - 1))
        else:
            pos, slope = _reflect(pos, -1.0, 2.0 * size - 1.0)
    pos, clip_slope = _clip(pos, size)
    return pos, slope * clip_slope


@njit(cache=True, error_model="numpy", nogil=True)
def _index(pos):
    """Integer index of a whole-valued position; positions past int64 become -1 (outside)."""
    if not (-1e15 < pos < 1e15):
        return -1
    return int(pos)


@njit(cache=True, error_model="numpy", nogil=True)
def _near(d):
    return ((_A + 2.0) * d - (_A + 3.0)) * d * d + 1.0


@njit(cache=True, error_model="numpy", nogil=True)
def _far(d):
    return ((_A * d - 5.0 * _A) * d + 8.0 * _A) * d - 4.0 * _A


@njit(cache=True, error_model="numpy", nogil=True)
def _near_slope(d):
    return (3.0 * (_A + 2.0) * d - 2.0 * (_A + 3.0)) * d


@njit(cache=True, error_model="numpy", nogil=True)
def _far_slope(d):
    return (3.0 * _A * d - 10.0 * _A) * d + 8.0 * _A


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _position(coord, size, align_corners):
    """The source position of grid coordinate ``coord`` along a dim of ``size``, and d position
    / d coord."""
    if align_corners:
        scale = (size - 1) / 2.0
        return (coord + 1.0) * scale, scale
    return ((coord + 1.0) * size - 1.0) / 2.0, size / 2.0


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _linear(coord, size, padding, align_corners):
    """The two linear taps of ``coord``: the first's index, the fraction past it (the second's
    weight) and d position / d coord through the padding."""
    pos, scale = _position(coord, size, align_corners)
    pos, pad_slope = _pad(pos, size, padding, align_corners)
    base = math.floor(pos)
    return base, pos - base, scale * pad_slope


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _taps(coord, size, mode, padding, align_corners, d, p, index, weight, slope):
    """``index[d, p]``, ``weight[d, p]`` and ``slope[d, p]`` (d weight / d position): the taps of
    grid coordinate ``coord`` along a dim of ``size``. Returns d position / d coord."""
    if mode == 0:
        base, frac, chain = _linear(coord, size, padding, align_corners)
        index[d, p, 0], index[d, p, 1] = _index(base), _index(base + 1.0)
        weight[d, p, 0], weight[d, p, 1] = 1.0 - frac, frac
        slope[d, p, 0], slope[d, p, 1] = -1.0, 1.0
        return chain
    pos, scale = _position(coord, size, align_corners)
    if mode == 2:
        base = math.floor(pos)
        t = pos - base
        weight[d, p, 0], weight[d, p, 1] = _far(t + 1.0), _near(t)
        weight[d, p, 2], weight[d, p, 3] = _near(1.0 - t), _far(2.0 - t)
        slope[d, p, 0], slope[d, p, 1] = _far_slope(t + 1.0), _near_slope(t)
        slope[d, p, 2], slope[d, p, 3] = -_near_slope(1.0 - t), -_far_slope(2.0 - t)
        for j in range(4):
            tap, _ = _pad(base - 1.0 + j, size, padding, align_corners)
            index[d, p, j] = _index(tap)
        return scale
    pos, pad_slope = _pad(pos, size, padding, align_corners)
    base = math.floor(pos)
    frac = pos - base
    if frac > 0.5 or (frac == 0.5 and base % 2.0 != 0.0):
        base += 1.0
    index[d, p, 0], weight[d, p, 0], slope[d, p, 0] = _index(base), 1.0, 0.0
    return 0.0


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _dim_taps_of(grid, n, size, mode, padding, align_corners, d, index, weight, slope, chain):
    for p in range(grid.shape[1]):
        chain[d, p] = _taps(grid[n, p, 2 - d], size, mode, padding, align_corners, d, p, index, weight, slope)


@njit(cache=True, error_model="numpy", nogil=True)
def _dim_taps(grid, n, size, mode, padding, align_corners, d, index, weight, slope, chain):
    """The taps of every point along dim ``d`` (of D, H, W; grid coordinate 2 - d). Each padding
    mode gets its own inlined loop, so that the per-point code carries no branch on it."""
    if padding == 0:
        _dim_taps_of(grid, n, size, mode, 0, align_corners, d, index, weight, slope, chain)
    elif padding == 1:
        _dim_taps_of(grid, n, size, mode, 1, align_corners, d, index, weight, slope, chain)
    else:
        _dim_taps_of(grid, n, size, mode, 2, align_corners, d, index, weight, slope, chain)


@njit(cache=True, error_model="numpy", nogil=True, inline="always")
def _plan_bilinear_of(grid, n, H, W, padding, align_corners, offset, weight, dweight, derivative):
    for p in range(grid.shape[1]):
        bx, fx, cx = _linear(grid[n, p, 0], W, padding, align_corners)
        by, fy, cy = _linear(grid[n, p, 1], H, padding, align_corners)
        k = 0
        for b in range(2):
            # Each tap's index from its own position: one past a position beyond int64 is outside too.
            y, wy, sy = _index(by + b), fy if b else 1.0 - fy, 1.0 if b else -1.0
            for e in range(2):
                x, wx, sx = _index(bx + e), fx if e else 1.0 - fx, 1.0 if e else -1.0
                inside = 0 <= y < H and 0 <= x < W
                offset[p, k] = y * W + x if inside else 0
                weight[p, k] = wy * wx if inside else 0.0
                if derivative:
                    dweight[p, k, 0] = wy * sx * cx if inside else 0.0
                    dweight[p, k, 1] = sy * wx * cy if inside else 0.0
                k += 1


@njit(cache=True, error_model="numpy", nogil=True)
def _plan_bilinear(grid, n, H, W, padding, align_corners, offset, weight, dweight, derivative):
    """:func:`_plan` for bilinear sampling at a 2-D grid, in one loop over the points (the
    common case, planned without the per-dim tap tables); the padding mode gets its own loop."""
    if padding == 0:
        _plan_bilinear_of(grid, n, H, W, 0, align_corners, offset, weight, dweight, derivative)
    elif padding == 1:
        _plan_bilinear_of(grid, n, H, W, 1, align_corners, offset, weight, dweight, derivative)
    else:
        _plan_bilinear_of(grid, n, H, W, 2, align_corners, offset, weight, dweight, derivative)


@njit(cache=True, error_model="numpy", nogil=True)
def _plan(grid, n, D, H, W, mode, padding, align_corners, offset, weight, dweight, derivative):
    """For every output point ``p`` of batch item ``n``: the flat offsets into a (D, H, W) plane
    of its taps (``offset[p, k]``), their weights and, if ``derivative``, the weights' derivatives
    with respect to the grid coordinates (``dweight[p, k, :]``, x first). Taps outside the plane
    get weight 0."""
    L, k_dims = grid.shape[1], grid.shape[2]
    per_dim = 4 if mode == 2 else 2 if mode == 0 else 1
    # Left uninitialised: the loop below reads only the taps that _dim_taps writes.
    index = np.empty((3, L, 4), dtype=np.int64)
    tap_weight = np.empty((3, L, 4))
    slope = np.empty((3, L, 4))
    chain = np.empty((3, L))
    counts = (1 if k_dims == 2 else per_dim, per_dim, per_dim)
    # 2-D grids have no depth coordinate: one tap at depth 0 (index 0, weight 1, slope 0).
    if k_dims == 2:
        for p in range(L):
            index[0, p, 0], tap_weight[0, p, 0], slope[0, p, 0], chain[0, p] = 0, 1.0, 0.0, 0.0
    else:
        _dim_taps(grid, n, D, mode, padding, align_corners, 0, index, tap_weight, slope, chain)
    _dim_taps(grid, n, H, mode, padding, align_corners, 1, index, tap_weight, slope, chain)
    _dim_taps(grid, n, W, mode, padding, align_corners, 2, index, tap_weight, slope, chain)
    for p in range(L):
        k = 0
        for a in range(counts[0]):
            z, wz = index[0, p, a], tap_weight[0, p, a]
            for b in range(counts[1]):
                y, wy = index[1, p, b], tap_weight[1, p, b]
                for e in range(counts[2]):
                    x, wx = index[2, p, e], tap_weight[2, p, e]
                    inside = 0 <= z < D and 0 <= y < H and 0 <= x < W
                    offset[p, k] = (z * H + y) * W + x if inside else 0
                    weight[p, k] = wz * wy * wx if inside else 0.0
                    if derivative:
                        dweight[p, k, 0] = wz * wy * slope[2, p, e] * chain[2, p] if inside else 0.0
                        dweight[p, k, 1] = wz * slope[1, p, b] * wx * chain[1, p] if inside else 0.0
                        dweight[p, k, 2] = slope[0, p, a] * wy * wx * chain[0, p] if inside else 0.0
                    k += 1


@njit(cache=True, error_model="numpy", nogil=True)
def _sample_batch(x, grid, out, n, mode, padding, align_corners, what, other, taps):
    """One batch item of the forward (``what`` 0: ``out`` (N, C, L)), the input's cotangent
    (1: scattered into ``x`` from the cotangent ``other`` (N, C, L)), the grid's cotangent (2:
    ``out`` (N, L, k) from ``other``) or the tangent along a grid tangent (3: ``out`` (N, C, L)
    from ``other`` (N, L, k)). ``x`` is (N, C, D*H*W)."""
    C, L, k_dims = x.shape[1], grid.shape[1], grid.shape[2]
    D, H, W = x.shape[2], x.shape[3], x.shape[4]
    offset = np.empty((L, taps), dtype=np.int64)
    # Tap weights in the input's type, as PyTorch's kernels hold them: half the traffic for float32.
    weight = np.empty((L, taps), dtype=x.dtype)
    derivative = what >= 2
    dweight = np.empty((L, taps, 3) if derivative else (0, 0, 3))
    if mode == 0 and k_dims == 2:
        _plan_bilinear(grid, n, H, W, padding, align_corners, offset, weight, dweight, derivative)
    else:
        _plan(grid, n, D, H, W, mode, padding, align_corners, offset, weight, dweight, derivative)
    planes = x.reshape((x.shape[0], C, D * H * W))
    if what == 3:
        for p in range(L):
            for k in range(taps):
                w = 0.0
                for d in range(k_dims):
                    w += dweight[p, k, d] * other[n, p, d]
                weight[p, k] = w
    # 2-D bilinear sampling, the common case, passes its tap count as a constant: the loops over a
    # point's taps then unroll.
    if taps == 4 and what != 2:
        _sweep4(planes, out, other, n, what, offset, weight)
    elif taps == 4:
        _sweep(planes, out, other, n, what, offset, weight, dweight, 4)
    else:
        _sweep(planes, out, other, n, what, offset, weight, dweight, taps)


@njit(cache=True, error_model="numpy", nogil=True)
def _sweep4(planes, out, other, n, what, offset, weight):
    """:func:`_sweep` for four taps a point (2-D bilinear) and no grid cotangent, unrolled. Channels
    outside, points inside: one plane and the streamed tap tables stay in cache (a point's taps
    land anywhere in its plane)."""
    C, L = planes.shape[1], offset.shape[0]
    for c in range(C):
        for p in range(L):
            o0, o1, o2, o3 = offset[p, 0], offset[p, 1], offset[p, 2], offset[p, 3]
            w0, w1, w2, w3 = weight[p, 0], weight[p, 1], weight[p, 2], weight[p, 3]
            if what == 1:
                g = other[n, c, p]
                planes[n, c, o0] += w0 * g
                planes[n, c, o1] += w1 * g
                planes[n, c, o2] += w2 * g
                planes[n, c, o3] += w3 * g
            else:
                out[n, c, p] = (w0 * planes[n, c, o0] + w1 * planes[n, c, o1] + w2 * planes[n, c, o2]
                                + w3 * planes[n, c, o3])


@njit(cache=True, error_model="numpy", nogil=True)
def _sweep(planes, out, other, n, what, offset, weight, dweight, taps):
    """The sums of :func:`_sample_batch` over a planned batch item."""
    C, L = planes.shape[1], offset.shape[0]
    if what == 0 or what == 3:
        for c in range(C):
            for p in range(L):
                acc = 0.0
                for k in range(taps):
                    acc += weight[p, k] * planes[n, c, offset[p, k]]
                out[n, c, p] = acc
    elif what == 1:
        for c in range(C):
            for p in range(L):
                g = other[n, c, p]
                for k in range(taps):
                    planes[n, c, offset[p, k]] += weight[p, k] * g
    else:
        total = np.zeros((L, taps))
        for c in range(C):
            for p in range(L):
                g = other[n, c, p]
                for k in range(taps):
                    total[p, k] += g * planes[n, c, offset[p, k]]
        _grid_cotangent(dweight, total, out, n, L, taps)


@njit(cache=True, error_model="numpy", nogil=True)
def _grid_cotangent(dweight, total, dgrid, n, L, taps):
    # Each location's grid cotangent: its taps' summed g * value, weighted by the taps'
    # derivatives in each grid coordinate.
    for p in range(L):
        for d in range(dgrid.shape[2]):
            acc = 0.0
            for k in range(taps):
                acc += dweight[p, k, d] * total[p, k]
            dgrid[n, p, d] = acc


@njit(cache=True, error_model="numpy", nogil=True)
def _sample(x, grid, out, mode, padding, align_corners, what, other, taps):
    for n in range(grid.shape[0]):
        _sample_batch(x, grid, out, n, mode, padding, align_corners, what, other, taps)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _sample_par(x, grid, out, mode, padding, align_corners, what, other, taps):
    for n in prange(grid.shape[0]):
        _sample_batch(x, grid, out, n, mode, padding, align_corners, what, other, taps)


@njit(cache=True, error_model="numpy", nogil=True)
def _backward_batch(x, dx, grid, dgrid, g, n, mode, padding, align_corners, taps):
    """Both cotangents of one batch item from one plan: the input's scattered into ``dx`` and
    the grid's into ``dgrid`` (N, L, k), from the cotangent ``g`` (N, C, L)."""
    C, L = x.shape[1], grid.shape[1]
    D, H, W = x.shape[2], x.shape[3], x.shape[4]
    offset = np.empty((L, taps), dtype=np.int64)
    weight = np.empty((L, taps), dtype=x.dtype)
    dweight = np.empty((L, taps, 3))
    if mode == 0 and grid.shape[2] == 2:
        _plan_bilinear(grid, n, H, W, padding, align_corners, offset, weight, dweight, True)
    else:
        _plan(grid, n, D, H, W, mode, padding, align_corners, offset, weight, dweight, True)
    planes = x.reshape((x.shape[0], C, D * H * W))
    dplanes = dx.reshape((x.shape[0], C, D * H * W))
    if taps == 4:
        _sweep_both4(planes, dplanes, g, dgrid, n, offset, weight, dweight)
    else:
        _sweep_both(planes, dplanes, g, dgrid, n, offset, weight, dweight, taps)


@njit(cache=True, error_model="numpy", nogil=True)
def _sweep_both4(planes, dplanes, g, dgrid, n, offset, weight, dweight):
    """:func:`_sweep_both` for four taps a point (2-D bilinear), unrolled."""
    C, L = planes.shape[1], offset.shape[0]
    total = np.zeros((L, 4))
    for c in range(C):
        for p in range(L):
            o0, o1, o2, o3 = offset[p, 0], offset[p, 1], offset[p, 2], offset[p, 3]
            w0, w1, w2, w3 = weight[p, 0], weight[p, 1], weight[p, 2], weight[p, 3]
            gv = g[n, c, p]
            dplanes[n, c, o0] += w0 * gv
            dplanes[n, c, o1] += w1 * gv
            dplanes[n, c, o2] += w2 * gv
            dplanes[n, c, o3] += w3 * gv
            total[p, 0] += gv * planes[n, c, o0]
            total[p, 1] += gv * planes[n, c, o1]
            total[p, 2] += gv * planes[n, c, o2]
            total[p, 3] += gv * planes[n, c, o3]
    for p in range(L):
        for d in range(dgrid.shape[2]):
            dgrid[n, p, d] = dweight[p, 0, d] * total[p, 0] + dweight[p, 1, d] * total[p, 1] + \
                dweight[p, 2, d] * total[p, 2] + dweight[p, 3, d] * total[p, 3]


@njit(cache=True, error_model="numpy", nogil=True)
def _sweep_both(planes, dplanes, g, dgrid, n, offset, weight, dweight, taps):
    """The input's and the grid's cotangent sums of :func:`_backward_batch`, in one pass over
    the cotangent and the input."""
    C, L = planes.shape[1], offset.shape[0]
    total = np.zeros((L, taps))
    for c in range(C):
        for p in range(L):
            gv = g[n, c, p]
            for k in range(taps):
                o = offset[p, k]
                dplanes[n, c, o] += weight[p, k] * gv
                total[p, k] += gv * planes[n, c, o]
    _grid_cotangent(dweight, total, dgrid, n, L, taps)


@njit(cache=True, error_model="numpy", nogil=True)
def _backward(x, dx, grid, dgrid, g, mode, padding, align_corners, taps):
    for n in range(grid.shape[0]):
        _backward_batch(x, dx, grid, dgrid, g, n, mode, padding, align_corners, taps)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _backward_par(x, dx, grid, dgrid, g, mode, padding, align_corners, taps):
    for n in prange(grid.shape[0]):
        _backward_batch(x, dx, grid, dgrid, g, n, mode, padding, align_corners, taps)


def _volumes(x):
    """(N, C, D, H, W) view of a (N, C, H, W) or (N, C, D, H, W) array."""
    return x.reshape(x.shape[:2] + (1,) * (5 - x.ndim) + x.shape[2:])


def _points(grid):
    return grid.reshape((grid.shape[0], -1, grid.shape[-1]))


def _tap_count(mode, grid):
    return (4 if mode == 2 else 2 if mode == 0 else 1) ** grid.shape[-1]


def _parallel(x, grid, taps) -> bool:
    return grid.shape[0] > 1 and use_parallel(grid.shape[0] * grid.shape[1] * taps * x.shape[1], PARALLEL_THRESHOLD)


def _run(x, grid, out, mode, padding, align_corners, what, other):
    # Batch items write disjoint slices of ``out`` (or of ``x`` when scattering).
    taps = _tap_count(mode, grid)
    run = _sample_par if _parallel(x, grid, taps) else _sample
    run(x, grid, out, mode, padding, align_corners, what, other, taps)


def grid_sample(out, x, grid, mode, padding_mode, align_corners):
    """``out`` (N, C, *grid points) = ``x`` sampled at ``grid``."""
    planes = out.reshape(out.shape[:2] + (-1,))
    _run(_volumes(x), _points(grid), planes, mode, padding_mode, align_corners, 0, planes)


def grid_sample_input_backward(out, grad, grid, mode, padding_mode, align_corners, input_shape):
    """``out`` (the input's shape) = the cotangent of the input, from ``grad``."""
    g = grad.reshape(grad.shape[:2] + (-1,))
    volumes = _volumes(out)
    volumes[...] = 0
    _run(volumes, _points(grid), g, mode, padding_mode, align_corners, 1, g)


def grid_sample_backward(input_grad, grid_grad, grad, x, grid, mode, padding_mode, align_corners):
    """``input_grad`` (the input's shape) and ``grid_grad`` (the grid's shape) = the cotangents
    of the input and of the grid, from ``grad``, with the taps planned once for both."""
    g = grad.reshape(grad.shape[:2] + (-1,))
    volumes = _volumes(input_grad)
    volumes[...] = 0
    points = _points(grid)
    taps = _tap_count(mode, points)
    run = _backward_par if _parallel(volumes, points, taps) else _backward
    run(_volumes(x), volumes, points, _points(grid_grad), g, mode, padding_mode, align_corners, taps)


def grid_sample_grid_backward(out, grad, x, grid, mode, padding_mode, align_corners):
    """``out`` (the grid's shape) = the cotangent of the grid, from ``grad``."""
    g = grad.reshape(grad.shape[:2] + (-1,))
    _run(_volumes(x), _points(grid), _points(out), mode, padding_mode, align_corners, 2, g)


def grid_sample_grid_jvp(out, x, grid, tangent, mode, padding_mode, align_corners):
    """``out`` (N, C, *grid points) = the derivative of the samples along the grid tangent."""
    planes = out.reshape(out.shape[:2] + (-1,))
    _run(_volumes(x), _points(grid), planes, mode, padding_mode, align_corners, 3, _points(tangent))
