"""Batched LAPACK kernels for the CPU, looped over the leading dims of float32/float64 stacks of
matrices (pure-Numba loops from :mod:`.dense_loops` when no LAPACK is found). Failures come back
as :class:`Failure`.

Every kernel returns ``(batch, info)`` for the first matrix that failed, ``(-1, 0)`` if none;
info > 0 is LAPACK's (the 1-based pivot or minor that broke down), -1 a non-finite input.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from . import blas, dense_loops


class Failure(Exception):
    """A factorization failed: ``batch`` is the flat index of the matrix, ``order`` LAPACK's info
    (the 1-based pivot or minor that broke down); ``order`` is 0 for non-finite input."""

    def __init__(self, batch: int, order: int):
        super().__init__(batch, order)
        self.batch = batch
        self.order = order


_finite = dense_loops.finite


# LAPACK is column-major: each matrix is first copied transposed into a C-contiguous buffer, which
# LAPACK then reads as the matrix itself (the copy is needed anyway: LAPACK works in place).
@njit(cache=True, nogil=True)
def _inv(a, out, ik):
    n = a.shape[1]
    w = np.empty((n, n), a.dtype)
    x = np.empty((n, n), a.dtype)
    piv = np.empty(n, ik.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            out[i] = np.nan
            continue
        w[:, :] = a[i].T
        info = blas.getrf(n, w, piv)
        if info > 0:
            return i, info
        x[:, :] = 0
        for j in range(n):
            x[j, j] = 1
        blas.getrs(n, n, w, piv, x)
        out[i] = x.T
    return -1, 0


@njit(cache=True, nogil=True)
def _det(a, out, ik):
    n = a.shape[1]
    w = np.empty((n, n), a.dtype)
    piv = np.empty(n, ik.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            out[i] = np.nan
            continue
        # det(A) = det(A^T): LAPACK factors A^T here, as PyTorch does for a row-major A, which
        # gives the same rounding (det([[1, 2], [3, 4]]) is exactly -2 in float32).
        w[:, :] = a[i]
        if blas.getrf(n, w, piv) > 0:
            out[i] = 0
            continue
        d = 1.0
        for j in range(n):
            d *= w[j, j] if piv[j] == j + 1 else -w[j, j]
        out[i] = d
    return -1, 0


@njit(cache=True, nogil=True)
def _slogdet(a, sign, logabs, ik):
    n = a.shape[1]
    w = np.empty((n, n), a.dtype)
    piv = np.empty(n, ik.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            sign[i] = np.nan
            logabs[i] = np.nan
            continue
        w[:, :] = a[i]  # A^T, as in _det
        if blas.getrf(n, w, piv) > 0:
            sign[i] = 0
            logabs[i] = -np.inf
            continue
        s, la = 1.0, 0.0
        for j in range(n):
            d = w[j, j]
            if (d < 0) != (piv[j] != j + 1):
                s = -s
            la += np.log(abs(d))
        sign[i] = s
        logabs[i] = la
    return -1, 0


@njit(cache=True, nogil=True)
def _solve(a, b, out, ik):
    n, k = b.shape[1], b.shape[2]
    w = np.empty((n, n), a.dtype)
    x = np.empty((k, n), a.dtype)
    piv = np.empty(n, ik.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            out[i] = np.nan
            continue
        w[:, :] = a[i].T
        info = blas.getrf(n, w, piv)
        if info > 0:
            return i, info
        x[:, :] = b[i].T
        blas.getrs(n, k, w, piv, x)
        out[i] = x.T
    return -1, 0


@njit(cache=True, nogil=True)
def _cholesky(a, out, ik):
    # The row-major lower triangle is the column-major upper one: potrf's U^T is then L itself.
    n = a.shape[1]
    w = np.empty((n, n), a.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i, -1
        w[:, :] = a[i]
        info = blas.potrf_upper(n, w, ik)
        if info > 0:
            return i, info
        for r in range(n):
            for c in range(r + 1, n):
                w[r, c] = 0
        out[i] = w
    return -1, 0


@njit(cache=True, nogil=True)
def _qr(a, q, r, ik):
    m, n = a.shape[1], a.shape[2]
    k = min(m, n)
    w = np.empty((n, m), a.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i, -1
        w[:, :] = a[i].T
        r[i] = blas.qr(m, n, w, ik).T
        q[i] = w[:k].T
    return -1, 0


@njit(cache=True, nogil=True)
def _svd(a, u, s, vh, full, ik):
    m, n = a.shape[1], a.shape[2]
    w = np.empty((n, m), a.dtype)
    uw = np.empty((u.shape[2], m), a.dtype)
    vw = np.empty((n, vh.shape[1]), a.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i, -1
        w[:, :] = a[i].T
        if blas.gesdd(full, m, n, w, s[i], uw, vw, ik) != 0:
            return i, -1
        u[i] = uw.T
        vh[i] = vw.T
    return -1, 0


@njit(cache=True, nogil=True)
def _eigh(a, w, v, ik):
    n = a.shape[1]
    x = np.empty((n, n), a.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i, -1
        x[:, :] = a[i].T
        if blas.syevd(True, n, x, w[i], ik) != 0:
            return i, -1
        v[i] = x.T
    return -1, 0


@njit(cache=True, nogil=True)
def _eigvalsh(a, w, ik):
    n = a.shape[1]
    x = np.empty((n, n), a.dtype)
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i, -1
        x[:, :] = a[i].T
        if blas.syevd(False, n, x, w[i], ik) != 0:
            return i, -1
    return -1, 0


_LAPACK = {"inv": _inv, "det": _det, "slogdet": _slogdet, "solve": _solve, "cholesky": _cholesky, "qr": _qr,
           "svd": _svd, "eigh": _eigh, "eigvalsh": _eigvalsh}


def run(name, *arrays):
    """Run kernel ``name`` (LAPACK's, else the pure-Numba one) on C-contiguous (batch, rows,
    cols) ``arrays`` and raise its :class:`Failure`, if any."""
    if blas.available():
        batch, info = _LAPACK[name](*arrays, blas.int_witness())
    else:
        batch, info = getattr(dense_loops, name)(*arrays)
    if batch >= 0:
        raise Failure(int(batch), max(int(info), 0))
