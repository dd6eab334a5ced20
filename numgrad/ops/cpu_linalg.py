"""The dispatcher's side of the CPU LAPACK kernels (``backends/cpu/lapack.py``): stacks of
matrices become C-contiguous (batch, rows, cols) arrays, results are fresh tensors, and a failed
factorization raises :class:`Failure` for ``decompositions.py`` to word as PyTorch does."""
from __future__ import annotations

from .. import shapes
from ..backends.cpu.lapack import Failure, run
from ..creation import eye
from ..tensor import Tensor

__all__ = ["Failure", "inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "eigh", "eigvalsh"]


def _stack(x):
    """A C-contiguous (batch, rows, cols) array holding the matrices of tensor ``x``."""
    r, c = x._shape[-2:]
    v = x._np_view()
    if not v.flags.c_contiguous:
        v = x.detach().contiguous()._np_view()
    return v.reshape(shapes.prod(x._shape[:-2]), r, c)


def _new(shape, like):
    return Tensor._empty(tuple(shape), like.dtype, like.device)


def _arr(t, *trailing):
    return t._np_view().reshape((-1,) + trailing)


def inv(x):
    out = _new(x._shape, x)
    if out.numel():
        n = x._shape[-1]
        run("inv", _stack(x), _arr(out, n, n))
    return out


def det(x):
    out = _new(x._shape[:-2], x)
    if out.numel():
        a = _stack(x)
        if a.shape[1] == 0:
            out._fill_raw(1)
        else:
            run("det", a, _arr(out))
    return out


def slogdet(x):
    sign, logabs = _new(x._shape[:-2], x), _new(x._shape[:-2], x)
    if sign.numel():
        a = _stack(x)
        if a.shape[1] == 0:
            sign._fill_raw(1)
            logabs._fill_raw(0)
        else:
            run("slogdet", a, _arr(sign), _arr(logabs))
    return sign, logabs


def solve(a, b):
    """Solves a X = b for stacks with equal batch shapes: a (…, n, n), b (…, n, k)."""
    out = _new(b._shape, b)
    if out.numel():
        run("solve", _stack(a), _stack(b), _arr(out, *b._shape[-2:]))
    return out


def cholesky(x):
    out = _new(x._shape, x)
    if out.numel():
        n = x._shape[-1]
        run("cholesky", _stack(x), _arr(out, n, n))
    return out


def qr(x):
    """The reduced QR factorization: Q (…, m, k), R (…, k, n) with k = min(m, n)."""
    m, n = x._shape[-2:]
    k = min(m, n)
    batch = x._shape[:-2]
    q, r = _new(batch + (m, k), x), _new(batch + (k, n), x)
    if k and shapes.prod(batch):
        run("qr", _stack(x), _arr(q, m, k), _arr(r, k, n))
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
        run("svd", _stack(x), _arr(u, m, ru), _arr(s, k), _arr(vh, rv, n), full_matrices)
    elif full_matrices:
        # A matrix with no entries: any orthonormal basis completes it; LAPACK gives the identity.
        for t, d in ((u, m), (vh, n)):
            if t.numel():
                t.copy_(eye(d, dtype=t.dtype).expand(t.shape))
    return u, s, vh


def eigh(x):
    n = x._shape[-1]
    w, v = _new(x._shape[:-1], x), _new(x._shape, x)
    if w.numel():
        run("eigh", _stack(x), _arr(w, n), _arr(v, n, n))
    return w, v


def eigvalsh(x):
    n = x._shape[-1]
    w = _new(x._shape[:-1], x)
    if w.numel():
        run("eigvalsh", _stack(x), _arr(w, n))
    return w
