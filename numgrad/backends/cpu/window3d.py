"""CPU kernels of volumetric sliding windows, on arrays: vol2col and its adjoint col2vol, and the
argmax of each window (max pooling) or of each adaptive cell (adaptive max pooling).

A window of a (D, H, W) plane starts at (i*sd - pd, j*sh - ph, k*sw - pw) and has taps ``dil``
apart; taps outside the plane are padding. Samples (or planes) are independent, so the ``_par``
forms split them over threads.
"""
from __future__ import annotations

from numba import njit, prange

from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 16


@njit(cache=True, error_model="numpy", nogil=True)
def _vol2col_sample(x, out, n, g, pad_value):
    C, D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, od, oh, ow = g
    for c in range(C):
        for a in range(kd):
            for b in range(kh):
                for e in range(kw):
                    row = ((c * kd + a) * kh + b) * kw + e
                    for i in range(od):
                        z = i * sd - pd + a * dd
                        for j in range(oh):
                            y = j * sh - ph + b * dh
                            col = (i * oh + j) * ow
                            for k in range(ow):
                                u = k * sw - pw + e * dw
                                if 0 <= z < D and 0 <= y < H and 0 <= u < W:
                                    out[n, row, col + k] = x[n, c, z, y, u]
                                else:
                                    out[n, row, col + k] = pad_value


@njit(cache=True, error_model="numpy", nogil=True)
def _vol2col(x, out, g, pad_value):
    for n in range(x.shape[0]):
        _vol2col_sample(x, out, n, g, pad_value)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _vol2col_par(x, out, g, pad_value):
    for n in prange(x.shape[0]):
        _vol2col_sample(x, out, n, g, pad_value)


@njit(cache=True, error_model="numpy", nogil=True)
def _col2vol_sample(cols, out, n, g):
    C, D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, od, oh, ow = g
    for c in range(C):
        for z in range(D):
            for y in range(H):
                for u in range(W):
                    out[n, c, z, y, u] = 0
        for a in range(kd):
            for b in range(kh):
                for e in range(kw):
                    row = ((c * kd + a) * kh + b) * kw + e
                    for i in range(od):
                        z = i * sd - pd + a * dd
                        if z < 0 or z >= D:
                            continue
                        for j in range(oh):
                            y = j * sh - ph + b * dh
                            if y < 0 or y >= H:
                                continue
                            col = (i * oh + j) * ow
                            for k in range(ow):
                                u = k * sw - pw + e * dw
                                if 0 <= u < W:
                                    out[n, c, z, y, u] += cols[n, row, col + k]


@njit(cache=True, error_model="numpy", nogil=True)
def _col2vol(cols, out, g):
    for n in range(out.shape[0]):
        _col2vol_sample(cols, out, n, g)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _col2vol_par(cols, out, g):
    for n in prange(out.shape[0]):
        _col2vol_sample(cols, out, n, g)


def _sizes(geom):
    return tuple(int(v) for v in geom[1:])


def vol2col(out, x, geom, pad_value):
    """``out`` (N, C*kd*kh*kw, od*oh*ow) = the windows of ``x`` (N, C, D, H, W) as columns;
    padding taps read ``pad_value``."""
    run = _vol2col_par if x.shape[0] > 1 and use_parallel(out.size, PARALLEL_THRESHOLD) else _vol2col
    run(x, out, _sizes(geom), out.dtype.type(pad_value))


def col2vol(out, cols, geom):
    """``out`` (N, C, D, H, W) = the columns ``cols`` summed back onto their taps (the adjoint of
    :func:`vol2col`); padding taps are dropped."""
    run = _col2vol_par if out.shape[0] > 1 and use_parallel(cols.size, PARALLEL_THRESHOLD) else _col2vol
    run(cols, out, _sizes(geom))


@njit(cache=True, error_model="numpy", nogil=True)
def _takes_over(v, top, best):
    """Whether ``v`` becomes the window's maximum in place of ``top`` (``best`` < 0: none yet):
    a larger value or a NaN replaces it, nothing replaces a NaN, ties keep the first."""
    return best < 0 or (v > top or v != v) and top == top


@njit(cache=True, error_model="numpy", nogil=True)
def _argmax_plane(x, out, p, g):
    """The flat index z*H*W + y*W + u of each window's first maximum; a NaN wins."""
    C, D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, od, oh, ow = g
    for i in range(od):
        for j in range(oh):
            for k in range(ow):
                best = -1
                top = x[p, 0]
                for a in range(kd):
                    z = i * sd - pd + a * dd
                    if z < 0 or z >= D:
                        continue
                    for b in range(kh):
                        y = j * sh - ph + b * dh
                        if y < 0 or y >= H:
                            continue
                        for e in range(kw):
                            u = k * sw - pw + e * dw
                            if u < 0 or u >= W:
                                continue
                            v = x[p, (z * H + y) * W + u]
                            if _takes_over(v, top, best):
                                best, top = (z * H + y) * W + u, v
                out[p, (i * oh + j) * ow + k] = best


@njit(cache=True, error_model="numpy", nogil=True)
def _argmax_planes(x, out, g):
    for p in range(x.shape[0]):
        _argmax_plane(x, out, p, g)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _argmax_planes_par(x, out, g):
    for p in prange(x.shape[0]):
        _argmax_plane(x, out, p, g)


def max_pool3d_indices(out, x, geom):
    """``out`` (N*C, od*oh*ow) int64 = the position in its (D*H*W) plane of each window's first
    maximum of ``x`` (N*C, D*H*W)."""
    work = out.size * geom.kd * geom.kh * geom.kw
    run = _argmax_planes_par if x.shape[0] > 1 and use_parallel(work, PARALLEL_THRESHOLD) else _argmax_planes
    run(x, out, _sizes(geom))


@njit(cache=True, error_model="numpy", nogil=True)
def _adaptive_argmax_plane(x, out, p, D, H, W, od, oh, ow):
    """As :func:`_argmax_plane`, over adaptive cells: cell i of n inputs pooled to m spans
    floor(i*n/m) up to ceil((i+1)*n/m)."""
    for i in range(od):
        z0, z1 = (i * D) // od, -((-(i + 1) * D) // od)
        for j in range(oh):
            y0, y1 = (j * H) // oh, -((-(j + 1) * H) // oh)
            for k in range(ow):
                u0, u1 = (k * W) // ow, -((-(k + 1) * W) // ow)
                best = -1
                top = x[p, 0]
                for z in range(z0, z1):
                    for y in range(y0, y1):
                        for u in range(u0, u1):
                            v = x[p, (z * H + y) * W + u]
                            if _takes_over(v, top, best):
                                best, top = (z * H + y) * W + u, v
                out[p, (i * oh + j) * ow + k] = best


@njit(cache=True, error_model="numpy", nogil=True)
def _adaptive_argmax_planes(x, out, D, H, W, od, oh, ow):
    for p in range(x.shape[0]):
        _adaptive_argmax_plane(x, out, p, D, H, W, od, oh, ow)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _adaptive_argmax_planes_par(x, out, D, H, W, od, oh, ow):
    for p in prange(x.shape[0]):
        _adaptive_argmax_plane(x, out, p, D, H, W, od, oh, ow)


def adaptive_max_pool3d_indices(out, x, input_size, output_size):
    """``out`` (planes, od*oh*ow) int64 = the position in its (D*H*W) plane of each adaptive
    cell's first maximum of ``x`` (planes, D*H*W)."""
    parallel = x.shape[0] > 1 and use_parallel(x.size, PARALLEL_THRESHOLD)
    run = _adaptive_argmax_planes_par if parallel else _adaptive_argmax_planes
    run(x, out, *(int(v) for v in input_size), *(int(v) for v in output_size))
