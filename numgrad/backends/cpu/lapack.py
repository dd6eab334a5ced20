"""Batched LAPACK kernels for the CPU: Numba's ``np.linalg`` (SciPy's LAPACK) looped over the
leading dims of float32/float64 stacks of matrices. Failures come back as :class:`Failure`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import shapes


class Failure(Exception):
    """A factorization failed: ``batch`` is the flat index of the matrix, ``order`` LAPACK's info
    (the 1-based pivot or minor that broke down); ``order`` is 0 for non-finite input."""

    def __init__(self, batch: int, order: int):
        super().__init__(batch, order)
        self.batch = batch
        self.order = order


@njit(cache=True, nogil=True)
def _finite(m):
    for v in m.ravel():
        if not np.isfinite(v):
            return False
    return True


# Numba's LAPACK wrappers reject non-finite input; these results are NaN there, as in PyTorch.
@njit(cache=True, nogil=True)
def _inv(a, out):
    for i in range(a.shape[0]):
        if _finite(a[i]):
            out[i] = np.linalg.inv(a[i])
        else:
            out[i] = np.nan


@njit(cache=True, nogil=True)
def _det(a, out):
    for i in range(a.shape[0]):
        out[i] = np.linalg.det(a[i]) if _finite(a[i]) else np.nan


@njit(cache=True, nogil=True)
def _slogdet(a, sign, logabs):
    for i in range(a.shape[0]):
        if _finite(a[i]):
            s, la = np.linalg.slogdet(a[i])
            sign[i] = s
            logabs[i] = la
        else:
            sign[i] = np.nan
            logabs[i] = np.nan


@njit(cache=True, nogil=True)
def _solve(a, b, out):
    for i in range(a.shape[0]):
        if _finite(a[i]) and _finite(b[i]):
            out[i] = np.linalg.solve(a[i], b[i])
        else:
            out[i] = np.nan


@njit(cache=True, nogil=True)
def _cholesky(a, out):
    for i in range(a.shape[0]):
        out[i] = np.linalg.cholesky(a[i])


@njit(cache=True, nogil=True)
def _qr(a, q, r):
    for i in range(a.shape[0]):
        qi, ri = np.linalg.qr(a[i])
        q[i] = qi
        r[i] = ri


@njit(cache=True, nogil=True)
def _svd(a, u, s, vh, full):
    for i in range(a.shape[0]):
        ui, si, vhi = np.linalg.svd(a[i], full_matrices=full)
        u[i] = ui
        s[i] = si
        vh[i] = vhi


@njit(cache=True, nogil=True)
def _eigh(a, w, v):
    for i in range(a.shape[0]):
        wi, vi = np.linalg.eigh(a[i])
        w[i] = wi
        v[i] = vi


@njit(cache=True, nogil=True)
def _eigvalsh(a, w):
    for i in range(a.shape[0]):
        w[i] = np.linalg.eigvalsh(a[i])


@njit(cache=True, nogil=True, error_model="numpy")
def _lu_info(a):
    """(matrix, 1-based first zero pivot) of Gaussian elimination with partial pivoting, the
    pivot order getrf uses; (-1, 0) when every matrix is nonsingular."""
    n = a.shape[1]
    for i in range(a.shape[0]):
        m = a[i].astype(np.float64)
        for k in range(n):
            p = k
            best = abs(m[k, k])
            for r in range(k + 1, n):
                if abs(m[r, k]) > best:
                    best = abs(m[r, k])
                    p = r
            if best == 0:
                return i, k + 1
            for c in range(n):
                m[k, c], m[p, c] = m[p, c], m[k, c]
            for r in range(k + 1, n):
                f = m[r, k] / m[k, k]
                for c in range(k + 1, n):
                    m[r, c] -= f * m[k, c]
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def _cholesky_info(a):
    """(matrix, order of the first leading minor that is not positive-definite), as potrf
    reports it, reading the lower triangle; (-1, 0) when all succeed."""
    n = a.shape[1]
    for i in range(a.shape[0]):
        low = np.zeros((n, n))
        for j in range(n):
            d = a[i, j, j] - np.sum(low[j, :j] ** 2)
            if not d > 0:
                return i, j + 1
            low[j, j] = np.sqrt(d)
            for r in range(j + 1, n):
                low[r, j] = (a[i, r, j] - np.sum(low[r, :j] * low[j, :j])) / low[j, j]
    return -1, 0


@njit(cache=True, nogil=True)
def _first_nonfinite(a):
    for i in range(a.shape[0]):
        if not _finite(a[i]):
            return i
    return 0


def _stack(x):
    """A C-contiguous (batch, rows, cols) array holding the matrices of tensor ``x``."""
    r, c = x._shape[-2:]
    v = x._np_view()
    if not v.flags.c_contiguous:
        v = x.detach().contiguous()._np_view()
    return v.reshape(shapes.prod(x._shape[:-2]), r, c)


def _new(shape, like):
    from ...tensor import Tensor
    return Tensor._empty(tuple(shape), like.dtype, like.device)


def _arr(t, *trailing):
    return t._np_view().reshape((-1,) + trailing)


def _run(kernel, a, *args, info=None):
    """Run ``kernel``; on a LAPACK error, locate the failing matrix with ``info``."""
    try:
        kernel(a, *args)
    except np.linalg.LinAlgError as e:
        if "infs or NaNs" in str(e):
            raise Failure(_first_nonfinite(a), 0) from None
        batch, order = info(a) if info is not None else (0, 0)
        raise Failure(int(batch), int(order)) from None


def inv(x):
    out = _new(x._shape, x)
    if out.numel():
        n = x._shape[-1]
        _run(_inv, _stack(x), _arr(out, n, n), info=_lu_info)
    return out


def det(x):
    out = _new(x._shape[:-2], x)
    if out.numel():
        a = _stack(x)
        if a.shape[1] == 0:
            out._fill_raw(1)
        else:
            _run(_det, a, _arr(out))
    return out


def slogdet(x):
    sign, logabs = _new(x._shape[:-2], x), _new(x._shape[:-2], x)
    if sign.numel():
        a = _stack(x)
        if a.shape[1] == 0:
            sign._fill_raw(1)
            logabs._fill_raw(0)
        else:
            _run(_slogdet, a, _arr(sign), _arr(logabs))
    return sign, logabs


def solve(a, b):
    """Solves a X = b for stacks with equal batch shapes: a (…, n, n), b (…, n, k)."""
    out = _new(b._shape, b)
    if out.numel():
        _run(_solve, _stack(a), _stack(b), _arr(out, *b._shape[-2:]), info=_lu_info)
    return out


def cholesky(x):
    out = _new(x._shape, x)
    if out.numel():
        n = x._shape[-1]
        _run(_cholesky, _stack(x), _arr(out, n, n), info=_cholesky_info)
    return out


def qr(x):
    """The reduced QR factorization: Q (…, m, k), R (…, k, n) with k = min(m, n)."""
    m, n = x._shape[-2:]
    k = min(m, n)
    batch = x._shape[:-2]
    q, r = _new(batch + (m, k), x), _new(batch + (k, n), x)
    if k and shapes.prod(batch):
        _run(_qr, _stack(x), _arr(q, m, k), _arr(r, k, n))
    elif r.numel():
        r._fill_raw(0)
    return q, r


def svd(x, full_matrices):
    m, n = x._shape[-2:]
    k = min(m, n)
    batch = x._shape[:-2]
    ru, rv = (m, n) if full_matrices else (k, k)
    u, s, vh = _new(batch + (m, ru), x), _new(batch + (k,), x), _new(batch + (rv, n), x)
    if k and shapes.prod(batch):
        _run(_svd, _stack(x), _arr(u, m, ru), _arr(s, k), _arr(vh, rv, n), full_matrices)
    elif full_matrices:
        # A matrix with no entries: any orthonormal basis completes it; LAPACK gives the identity.
        from ...creation import eye
        for t, d in ((u, m), (vh, n)):
            if t.numel():
                t.copy_(eye(d, dtype=t.dtype).expand(t.shape))
    return u, s, vh


def eigh(x):
    n = x._shape[-1]
    w, v = _new(x._shape[:-1], x), _new(x._shape, x)
    if w.numel():
        _run(_eigh, _stack(x), _arr(w, n), _arr(v, n, n))
    return w, v


def eigvalsh(x):
    n = x._shape[-1]
    w = _new(x._shape[:-1], x)
    if w.numel():
        _run(_eigvalsh, _stack(x), _arr(w, n))
    return w
