"""Pure-Numba factorizations for when no LAPACK library is found: LU with partial pivoting,
Cholesky, Householder QR, cyclic Jacobi eigh and one-sided Jacobi SVD, in float64.

The batched kernels take the arguments of :mod:`.lapack`'s and return the same ``(batch, info)``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_EPS = np.finfo(np.float64).eps
_SWEEPS = 100


@njit(cache=True, nogil=True)
def finite(m):
    """True if every entry of the matrix ``m`` is finite."""
    for v in m.ravel():
        if not np.isfinite(v):
            return False
    return True


@njit(cache=True, nogil=True)
def _dot(x, y):
    # Numba's np.dot calls SciPy's BLAS, which is what this module stands in for.
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    return acc


@njit(cache=True, nogil=True, error_model="numpy")
def _lu(w, piv):
    """P w = L U in place, by the row exchanges getrf makes (``piv[k]``: the row swapped with k);
    returns the 1-based index of the first zero pivot, 0 if none."""
    n = w.shape[0]
    info = 0
    for k in range(n):
        p = k
        for r in range(k + 1, n):
            if abs(w[r, k]) > abs(w[p, k]):
                p = r
        piv[k] = p
        if p != k:
            for c in range(n):
                w[k, c], w[p, c] = w[p, c], w[k, c]
        if w[k, k] == 0:
            if info == 0:
                info = k + 1
            continue
        for r in range(k + 1, n):
            f = w[r, k] / w[k, k]
            w[r, k] = f
            for c in range(k + 1, n):
                w[r, c] -= f * w[k, c]
    return info


@njit(cache=True, nogil=True, error_model="numpy")
def _lu_solve(w, piv, x):
    """x <- A^{-1} x for A = P^T L U factored by :func:`_lu`."""
    n = w.shape[0]
    for k in range(n):
        if piv[k] != k:
            for c in range(x.shape[1]):
                x[k, c], x[piv[k], c] = x[piv[k], c], x[k, c]
    for r in range(n):
        for k in range(r):
            x[r] -= w[r, k] * x[k]
    for r in range(n - 1, -1, -1):
        for k in range(r + 1, n):
            x[r] -= w[r, k] * x[k]
        x[r] /= w[r, r]


@njit(cache=True, nogil=True, error_model="numpy")
def inv(a, out):
    n = a.shape[1]
    piv = np.empty(n, np.int64)
    for i in range(a.shape[0]):
        if not finite(a[i]):
            out[i] = np.nan
            continue
        w = a[i].astype(np.float64)
        info = _lu(w, piv)
        if info:
            return i, info
        x = np.eye(n)
        _lu_solve(w, piv, x)
        out[i] = x
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def _logdet(a, piv):
    """(sign, log|det|) of ``a`` through its LU factors; (0, -inf) when singular."""
    w = a.astype(np.float64)
    if _lu(w, piv):
        return 0.0, -np.inf
    s, la = 1.0, 0.0
    for j in range(w.shape[0]):
        if (w[j, j] < 0) != (piv[j] != j):
            s = -s
        la += np.log(abs(w[j, j]))
    return s, la


@njit(cache=True, nogil=True, error_model="numpy")
def det(a, out):
    piv = np.empty(a.shape[1], np.int64)
    for i in range(a.shape[0]):
        if not finite(a[i]):
            out[i] = np.nan
            continue
        w = a[i].astype(np.float64)
        if _lu(w, piv):
            out[i] = 0
            continue
        d = 1.0
        for j in range(w.shape[0]):
            d *= w[j, j] if piv[j] == j else -w[j, j]
        out[i] = d
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def slogdet(a, sign, logabs):
    piv = np.empty(a.shape[1], np.int64)
    for i in range(a.shape[0]):
        if not finite(a[i]):
            sign[i] = np.nan
            logabs[i] = np.nan
        else:
            sign[i], logabs[i] = _logdet(a[i], piv)
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def solve(a, b, out):
    piv = np.empty(a.shape[1], np.int64)
    for i in range(a.shape[0]):
        if not finite(a[i]):
            out[i] = np.nan
            continue
        w = a[i].astype(np.float64)
        info = _lu(w, piv)
        if info:
            return i, info
        x = b[i].astype(np.float64)
        _lu_solve(w, piv, x)
        out[i] = x
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def cholesky(a, out):
    """L L^T = A from A's lower triangle, column by column; info is the order of the first
    leading minor that is not positive-definite, as potrf reports it."""
    n = a.shape[1]
    for i in range(a.shape[0]):
        if not finite(a[i]):
            return i, -1
        low = np.zeros((n, n))
        for j in range(n):
            d = a[i, j, j] - np.sum(low[j, :j] ** 2)
            if not d > 0:
                return i, j + 1
            low[j, j] = np.sqrt(d)
            for r in range(j + 1, n):
                low[r, j] = (a[i, r, j] - np.sum(low[r, :j] * low[j, :j])) / low[j, j]
        out[i] = low
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def _householder(w):
    """QR of the m x n ``w`` in place: R in the upper triangle, reflector j (with an implicit
    leading 1) below the diagonal of column j; returns the reflectors' scales (geqrf's tau)."""
    m, n = w.shape
    k = min(m, n)
    tau = np.zeros(k)
    for j in range(k):
        alpha = w[j, j]
        xnorm = np.sqrt(np.sum(w[j + 1:, j] ** 2))
        if xnorm == 0:
            continue
        beta = -np.copysign(np.hypot(alpha, xnorm), alpha)
        tau[j] = (beta - alpha) / beta
        w[j + 1:, j] /= alpha - beta
        w[j, j] = beta
        for c in range(j + 1, n):
            s = tau[j] * (w[j, c] + _dot(w[j + 1:, j], w[j + 1:, c]))
            w[j, c] -= s
            w[j + 1:, c] -= s * w[j + 1:, j]
    return tau


@njit(cache=True, nogil=True, error_model="numpy")
def qr(a, q, r):
    m, n = a.shape[1], a.shape[2]
    k = min(m, n)
    for i in range(a.shape[0]):
        if not finite(a[i]):
            return i, -1
        w = a[i].astype(np.float64)
        tau = _householder(w)
        r[i] = np.triu(w[:k])
        # Q's first k columns: the reflectors applied, last first, to those of the identity.
        x = np.eye(m, k)
        for j in range(k - 1, -1, -1):
            for c in range(k):
                s = tau[j] * (x[j, c] + _dot(w[j + 1:, j], x[j + 1:, c]))
                x[j, c] -= s
                x[j + 1:, c] -= s * w[j + 1:, j]
        q[i] = x
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def _jacobi_eigh(s):
    """Eigenvalues (ascending) and eigenvectors (columns) of the symmetric ``s`` (destroyed) by
    cyclic Jacobi rotations, each zeroing one off-diagonal pair."""
    n = s.shape[0]
    v = np.eye(n)
    for _ in range(_SWEEPS):
        off = 0.0
        for p in range(n):
            for q in range(p + 1, n):
                off += s[p, q] ** 2
        if off <= (_EPS * _EPS) * np.sum(s * s) or off == 0:
            break
        for p in range(n - 1):
            for q in range(p + 1, n):
                if s[p, q] == 0:
                    continue
                theta = (s[q, q] - s[p, p]) / (2 * s[p, q])
                # tan of the rotation angle, the smaller root of t^2 + 2 theta t - 1 = 0.
                t = np.copysign(1.0, theta) / (abs(theta) + np.sqrt(theta * theta + 1))
                if abs(theta) > 1e150:
                    t = 0.5 / theta
                c = 1 / np.sqrt(t * t + 1)
                sn = t * c
                for r in range(n):
                    x, y = s[r, p], s[r, q]
                    s[r, p], s[r, q] = c * x - sn * y, sn * x + c * y
                for r in range(n):
                    x, y = s[p, r], s[q, r]
                    s[p, r], s[q, r] = c * x - sn * y, sn * x + c * y
                for r in range(n):
                    x, y = v[r, p], v[r, q]
                    v[r, p], v[r, q] = c * x - sn * y, sn * x + c * y
    w = np.diag(s).copy()
    order = np.argsort(w)
    return w[order], v[:, order]


@njit(cache=True, nogil=True, error_model="numpy")
def _symmetric_lower(a):
    n = a.shape[0]
    s = np.empty((n, n))
    for r in range(n):
        for c in range(r + 1):
            s[r, c] = s[c, r] = a[r, c]
    return s


@njit(cache=True, nogil=True, error_model="numpy")
def eigh(a, w, v):
    for i in range(a.shape[0]):
        if not finite(a[i]):
            return i, -1
        wi, vi = _jacobi_eigh(_symmetric_lower(a[i]))
        w[i] = wi
        v[i] = vi
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def eigvalsh(a, w):
    for i in range(a.shape[0]):
        if not finite(a[i]):
            return i, -1
        w[i] = _jacobi_eigh(_symmetric_lower(a[i]))[0]
    return -1, 0


@njit(cache=True, nogil=True, error_model="numpy")
def _complete(u, valid):
    """Replaces the columns of ``u`` not marked ``valid`` by unit vectors orthogonal to all others
    (Gram-Schmidt, twice, on the unit vector that keeps most of its length)."""
    m = u.shape[0]
    for c in range(u.shape[1]):
        if valid[c]:
            continue
        best, best_norm = np.zeros(m), -1.0
        for e in range(m):
            x = np.zeros(m)
            x[e] = 1
            for _ in range(2):
                for o in range(u.shape[1]):
                    if valid[o]:
                        x -= _dot(u[:, o], x) * u[:, o]
            nx = np.sqrt(_dot(x, x))
            if nx > best_norm:
                best, best_norm = x, nx
        u[:, c] = best / best_norm
        valid[c] = True


@njit(cache=True, nogil=True, error_model="numpy")
def _jacobi_svd(x, full):
    """(U, S, V) of the tall m x n ``x`` (destroyed) by one-sided Jacobi: rotate pairs of columns
    until all are orthogonal; then S holds their norms (descending) and U the normalized columns.
    U is m x m when ``full``, else m x n."""
    m, n = x.shape
    v = np.eye(n)
    for _ in range(_SWEEPS):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                alpha = _dot(x[:, p], x[:, p])
                beta = _dot(x[:, q], x[:, q])
                gamma = _dot(x[:, p], x[:, q])
                if abs(gamma) <= _EPS * np.sqrt(alpha * beta) or gamma == 0:
                    continue
                rotated = True
                zeta = (beta - alpha) / (2 * gamma)
                t = np.copysign(1.0, zeta) / (abs(zeta) + np.sqrt(1 + zeta * zeta))
                c = 1 / np.sqrt(1 + t * t)
                sn = c * t
                for r in range(m):
                    a, b = x[r, p], x[r, q]
                    x[r, p], x[r, q] = c * a - sn * b, sn * a + c * b
                for r in range(n):
                    a, b = v[r, p], v[r, q]
                    v[r, p], v[r, q] = c * a - sn * b, sn * a + c * b
        if not rotated:
            break
    s = np.sqrt(np.sum(x * x, axis=0))
    order = np.argsort(-s)
    s = s[order]
    u = np.zeros((m, m if full else n))
    valid = np.zeros(u.shape[1], np.bool_)
    # Columns of (numerically) zero norm carry no direction: they are completed like the extra
    # columns of a full U.
    tiny = s[0] * m * _EPS
    for j in range(n):
        if s[j] > tiny:
            u[:, j] = x[:, order[j]] / s[j]
            valid[j] = True
    _complete(u, valid)
    return u, s, v[:, order]


@njit(cache=True, nogil=True, error_model="numpy")
def svd(a, u, s, vh, full):
    m, n = a.shape[1], a.shape[2]
    for i in range(a.shape[0]):
        if not finite(a[i]):
            return i, -1
        if m >= n:
            uu, ss, vv = _jacobi_svd(a[i].astype(np.float64), full)
            u[i] = uu
            vh[i] = vv.T
        else:
            # A^T = U' S V'^T, so A = V' S U'^T.
            uu, ss, vv = _jacobi_svd(a[i].T.astype(np.float64), full)
            u[i] = vv
            vh[i] = uu.T
        s[i] = ss
    return -1, 0
