"""Batched matrix-product kernels for the CPU: BLAS (through Numba's ``np.dot``) for float32 and
float64, plain loops for integer dtypes, float16 widened to float32.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import shapes

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@njit(cache=True, nogil=True)
def _bmm_blas(a, b, ia, ib, out, ta, tb):
    """out[i] = A[ia[i]] @ B[ib[i]] through BLAS gemm.

    A transposed operand arrives as its contiguous transpose (``ta``/``tb``); ``.T`` turns it
    into a Fortran-ordered view, which Numba hands to gemm with the transpose flag instead of
    copying. Each branch below is its own gemm call signature.
    """
    for i in range(out.shape[0]):
        if ta and tb:
            np.dot(a[ia[i]].T, b[ib[i]].T, out[i])
        elif ta:
            np.dot(a[ia[i]].T, b[ib[i]], out[i])
        elif tb:
            np.dot(a[ia[i]], b[ib[i]].T, out[i])
        else:
            np.dot(a[ia[i]], b[ib[i]], out[i])


@njit(cache=True, nogil=True, error_model="numpy")
def _mm_loop(x, y, o):
    """o = x @ y by the i-k-j loop order, which streams rows of y and o."""
    m, kk = x.shape
    n = y.shape[1]
    for i in range(m):
        for j in range(n):
            o[i, j] = 0
        for k in range(kk):
            xik = x[i, k]
            for j in range(n):
                o[i, j] += xik * y[k, j]


@njit(cache=True, nogil=True, error_model="numpy")
def _bmm_loop(a, b, ia, ib, out, ta, tb):
    """out[i] = A[ia[i]] @ B[ib[i]] for dtypes BLAS does not cover (integers)."""
    for i in range(out.shape[0]):
        if ta and tb:
            _mm_loop(a[ia[i]].T, b[ib[i]].T, out[i])
        elif ta:
            _mm_loop(a[ia[i]].T, b[ib[i]], out[i])
        elif tb:
            _mm_loop(a[ia[i]], b[ib[i]].T, out[i])
        else:
            _mm_loop(a[ia[i]], b[ib[i]], out[i])


def _blas_available() -> bool:
    # Numba's np.dot needs SciPy's BLAS bindings; without them float matmul falls back to loops.
    try:
        import scipy.linalg.cython_blas  # noqa: F401
    except ImportError:
        return False
    return True


_HAS_BLAS = None


def _stack(x, batch):
    """``x`` (…, R, C) as a 3-D C-contiguous array of its own matrices, a transpose flag, and the
    index of the matrix that each of the ``batch`` output matrices reads (broadcasting)."""
    r, c = x._shape[-2], x._shape[-1]
    own = (1,) * (len(batch) - (x.ndim - 2)) + tuple(x._shape[:-2])
    nb = shapes.prod(own)
    v = x._np_view()
    if v.dtype == _F16:
        v = v.astype(_F32)
    if v.flags.c_contiguous:
        arr, trans = v.reshape(nb, r, c), False
    elif v.swapaxes(-1, -2).flags.c_contiguous:
        arr, trans = v.swapaxes(-1, -2).reshape(nb, c, r), True
    else:
        arr, trans = x.detach().contiguous()._np_view().reshape(nb, r, c), False
        if arr.dtype == _F16:
            arr = arr.astype(_F32)
    if nb == 1:
        idx = np.zeros(max(shapes.prod(batch), 1), dtype=np.int64)
    elif nb == shapes.prod(batch):
        idx = np.arange(nb, dtype=np.int64)
    else:
        idx = np.ascontiguousarray(np.broadcast_to(np.arange(nb, dtype=np.int64).reshape(own), batch)).reshape(-1)
    return arr, trans, idx


def bmm(a, b, out):
    """Writes ``a @ b`` into the fresh contiguous tensor ``out`` of shape (*batch, M, N).

    ``a`` is (…, M, K) and ``b`` is (…, K, N); their batch dims broadcast to ``batch``."""
    batch = tuple(out._shape[:-2])
    if out.numel() == 0:
        return
    if a._shape[-1] == 0:
        out._fill_raw(0)
        return
    x, ta, ia = _stack(a, batch)
    y, tb, ib = _stack(b, batch)
    m, n = out._shape[-2], out._shape[-1]
    o = out._np_view().reshape(-1, m, n)
    if o.dtype == _F16:
        tmp = np.empty(o.shape, dtype=_F32)
        bmm_arrays(x, y, ia, ib, tmp, ta, tb)
        o[...] = tmp
        return
    bmm_arrays(x, y, ia, ib, o, ta, tb)


def bmm_arrays(x, y, ia, ib, o, ta, tb):
    """The kernel call on prepared arrays (see :func:`_stack`); ``o`` is (batch, M, N)."""
    global _HAS_BLAS
    if _HAS_BLAS is None:
        _HAS_BLAS = _blas_available()
    if o.dtype in _BLAS_DTYPES and _HAS_BLAS:
        _bmm_blas(x, y, ia, ib, o, ta, tb)
    else:
        _bmm_loop(x, y, ia, ib, o, ta, tb)
