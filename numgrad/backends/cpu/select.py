"""Index-returning reductions along one dim for the CPU: argmax/argmin, median and mode, and the
running extremes of cummax/cummin.

Each kernel walks the rows of a strided operand (kept dims pick the row, ``n`` elements at
stride ``s`` along the reduced dim) and writes a value and an int64 index per row. They are
plain module-level ``@njit(cache=True)`` functions: Numba compiles them on first use, once per
input dtype.
"""
from __future__ import annotations

import numpy as np
from numba import njit, uint64

from ...memo import Memo
from ..iteration import split_reduction
from . import ieee

_K = dict(cache=True, error_model="numpy", nogil=True)


@njit(**_K)
def _row_base(r, kshape, kstrides, offset):
    p = offset
    rem = r
    for d in range(kshape.shape[0] - 1, -1, -1):
        idx = rem % kshape[d]
        rem //= kshape[d]
        p += idx * kstrides[d]
    return p


@njit(**_K)
def _extreme(a, p, n, want_max):
    """The largest (``want_max``) or smallest of the contiguous run ``a[p:p + n]``, NaN if the
    run holds one: a loop that LLVM vectorizes."""
    best = a[p]
    if want_max:
        for i in range(1, n):
            best = ieee.maximum(best, a[uint64(p + i)])
    else:
        for i in range(1, n):
            best = ieee.minimum(best, a[uint64(p + i)])
    return best


@njit(**_K)
def argext(kshape, kstrides, n, s, a, offset, values, indices, want_max):
    """First index of the maximum (or minimum); the first NaN wins, as in PyTorch."""
    for r in range(values.shape[0]):
        p = _row_base(r, kshape, kstrides, offset)
        best = a[p]
        bi = 0
        if s == 1 and n > 1:
            # The extreme in one vectorized pass, then the first element equal to it (or the
            # first NaN), as the serial walk would have picked.
            best = _extreme(a, p, n, want_max)
            if best != best:
                while a[uint64(p + bi)] == a[uint64(p + bi)]:
                    bi += 1
            else:
                while a[uint64(p + bi)] != best:
                    bi += 1
                best = a[uint64(p + bi)]
        elif best == best:
            for i in range(1, n):
                v = a[uint64(p + i * s)]
                if v != v:
                    best = v
                    bi = i
                    break
                if (v > best) if want_max else (v < best):
                    best = v
                    bi = i
        values[r] = best
        indices[r] = bi


@njit(**_K)
def _gather_row(a, p, n, s, buf):
    for i in range(n):
        buf[i] = a[uint64(p + i * s)]


@njit(**_K)
def median(kshape, kstrides, n, s, a, offset, values, indices):
    """Lower median (element ``(n - 1) // 2`` of the sorted row); a row with NaN gives its first NaN."""
    buf = np.empty(n, dtype=a.dtype)
    for r in range(values.shape[0]):
        _gather_row(a, _row_base(r, kshape, kstrides, offset), n, s, buf)
        nan_at = -1
        for i in range(n):
            if buf[i] != buf[i]:
                nan_at = i
                break
        if nan_at >= 0:
            values[r] = buf[nan_at]
            indices[r] = nan_at
        else:
            order = np.argsort(buf, kind="mergesort")
            k = order[(n - 1) // 2]
            values[r] = buf[k]
            indices[r] = k


@njit(**_K)
def mode(kshape, kstrides, n, s, a, offset, values, indices):
    """Most frequent value of each row (the smallest on ties) and the last index holding it."""
    buf = np.empty(n, dtype=a.dtype)
    for r in range(values.shape[0]):
        _gather_row(a, _row_base(r, kshape, kstrides, offset), n, s, buf)
        order = np.argsort(buf, kind="mergesort")
        best_count = 0
        best_end = 0
        start = 0
        for i in range(1, n + 1):
            if i == n or buf[order[i]] != buf[order[start]]:
                if i - start > best_count:
                    best_count = i - start
                    best_end = i - 1
                start = i
        # A stable sort keeps equal values in index order: the run's end is the last index.
        values[r] = buf[order[best_end]]
        indices[r] = order[best_end]


@njit(**_K)
def cumext(kshape, kin, kout, n, sin, sout, a, offset, values, indices, want_max):
    """Running maximum (minimum) along each row and the last index reaching it; once a NaN is
    seen it stays, and each later NaN takes over the index, as in PyTorch."""
    rows = 1
    for d in range(kshape.shape[0]):
        rows *= kshape[d]
    for r in range(rows):
        p = _row_base(r, kshape, kin, offset)
        q = _row_base(r, kshape, kout, 0)
        best = a[p]
        bi = 0
        for i in range(n):
            v = a[uint64(p + i * sin)]
            if v != v or ((v >= best) if want_max else (v <= best)):
                best = v
                bi = i
            values[uint64(q + i * sout)] = best
            indices[uint64(q + i * sout)] = bi


def run_cumulative(buf, offset, shape, strides, dim, want_max):
    """cummax (``want_max``) or cummin of a strided operand along ``dim``: contiguous (values,
    indices) of ``shape``."""
    values = np.empty(shape, dtype=buf.dtype)
    indices = np.empty(shape, dtype=np.int64)
    if values.size:
        out_strides = [st // values.itemsize for st in values.strides]
        kept = [d for d in range(len(shape)) if d != dim]
        n = shape[dim] if shape else 1
        kernel_args = [np.array([v[d] for d in kept], dtype=np.int64) for v in (shape, strides, out_strides)]
        cumext(*kernel_args, n, strides[dim] if shape else 0, out_strides[dim] if shape else 0, buf, offset,
               values.reshape(-1), indices.reshape(-1), want_max)
    return values, indices


# The rows of a call layout, worked out once: (kept shape, kept strides, n, s, rows).
_geometries = Memo(4096)


def run(kernel, buf, offset, shape, strides, dim, *args):
    """Apply ``kernel`` along ``dim`` (``shape[dim] > 0``); returns flat (values, indices)."""
    key = (shape, strides, dim)
    geometry = _geometries.get(key)
    if geometry is None:
        kshape, kstrides, _, _ = split_reduction(shape, strides, {dim} if shape else set())
        rows = 1
        for k in kshape:
            rows *= k
        geometry = _geometries[key] = (np.array(kshape, dtype=np.int64), np.array(kstrides, dtype=np.int64),
                                       shape[dim] if shape else 1, strides[dim] if shape else 0, rows)
    kshape, kstrides, n, s, rows = geometry
    values = np.empty(rows, dtype=buf.dtype)
    indices = np.empty(rows, dtype=np.int64)
    if rows:
        kernel(kshape, kstrides, n, s, buf, offset, values, indices, *args)
    return values, indices
