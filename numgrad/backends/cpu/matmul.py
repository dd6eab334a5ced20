"""Batched matrix-product kernels for the CPU: BLAS gemm for float32 and float64, blocked loops
for integer dtypes (and for floats when no BLAS library is found), 16-bit floats widened to float32.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import dtypes, shapes
from .memory import host_buffer, out_of_memory
from . import blas
from .parallel import note_blas

_NARROW = dtypes.NARROW_NUMPY  # 16-bit floats: widened to float32
_F32 = np.dtype(np.float32)
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# Blocks of the loop kernel: a 64 x 256 block of y (128 KiB in float64) stays in cache while
# every row of x passes over it.
_KB, _JB = 64, 256


@njit(cache=True, nogil=True)
def _bmm_blas(a, b, ia, ib, out, ta, tb, ik):
    """out[i] = A[ia[i]] @ B[ib[i]] through BLAS gemm.

    Row-major C = A B is column-major C^T = B^T A^T, so gemm gets B first; an operand stored as
    its contiguous transpose (``ta``/``tb``) is handed over with the transpose flag, uncopied.
    """
    m, n = out.shape[1], out.shape[2]
    k = a.shape[1] if ta else a.shape[2]
    op_a, ld_a = (blas.T, m) if ta else (blas.N, k)
    op_b, ld_b = (blas.T, k) if tb else (blas.N, n)
    plan = blas.gemm_plan(op_b, op_a, n, m, k, ld_b, ld_a, n, out, ik)
    for i in range(out.shape[0]):
        blas.gemm(plan, b[ib[i]], a[ia[i]], out[i])


@njit(cache=True, nogil=True)
def _mm_blas(a, ia, b, ib, out, m, n, k, ta, tb, ik):
    """out = A @ B through BLAS gemm, for one (m x k) A starting at ``a[ia]`` and one (k x n) B
    at ``b[ib]``, each stored row-major or as its row-major transpose (``ta``/``tb``): the
    plain-matrix case of :func:`_bmm_blas`, reading the flat buffers without 3-d views."""
    op_a, ld_a = (blas.T, m) if ta else (blas.N, k)
    op_b, ld_b = (blas.T, k) if tb else (blas.N, n)
    plan = blas.gemm_plan(op_b, op_a, n, m, k, ld_b, ld_a, n, out, ik)
    blas.gemm(plan, b[ib:], a[ia:], out)


@njit(cache=True, nogil=True, error_model="numpy")
def _mm_loop(x, y, o):
    """o = x @ y for C-contiguous matrices: blocks of y's rows and columns stay in cache while
    the i-k-j order streams contiguous rows of y and o through the innermost loop."""
    m, kk = x.shape
    n = y.shape[1]
    o[:, :] = 0
    for j0 in range(0, n, _JB):
        w = min(_JB, n - j0)
        for k0 in range(0, kk, _KB):
            for i in range(m):
                # 1-D row slices let Numba vectorize the innermost loop; 2-D indexing does not.
                orow = o[i, j0:j0 + w]
                for k in range(k0, min(k0 + _KB, kk)):
                    xik = x[i, k]
                    yrow = y[k, j0:j0 + w]
                    for j in range(w):
                        orow[j] += xik * yrow[j]


@njit(cache=True, nogil=True, error_model="numpy")
def _bmm_loop(a, b, ia, ib, out, ta, tb):
    """out[i] = A[ia[i]] @ B[ib[i]] by loops; a transposed operand is first copied to row-major."""
    for i in range(out.shape[0]):
        x = np.ascontiguousarray(a[ia[i]].T) if ta else a[ia[i]]
        y = np.ascontiguousarray(b[ib[i]].T) if tb else b[ib[i]]
        _mm_loop(x, y, out[i])


def _stack(x, batch):
    """``x`` (…, R, C) as a 3-D C-contiguous array of its own matrices, a transpose flag, and the
    index of the matrix that each of the ``batch`` output matrices reads (broadcasting)."""
    r, c = x._shape[-2], x._shape[-1]
    v = x._np_view()
    # A batch dim of stride 0 (an expanded operand) holds one matrix: kept as a size-1 dim that
    # the index broadcasts, never copied out once per batch entry.
    if any(s == 0 for s in v.strides[:-2]):
        v = v[tuple(slice(0, 1) if s == 0 else slice(None) for s in v.strides[:-2])]
    own = (1,) * (len(batch) - (x.ndim - 2)) + tuple(v.shape[:-2])
    nb = shapes.prod(own)
    if v.dtype in _NARROW:
        v = v.astype(_F32)
    if v.flags.c_contiguous:
        arr, trans = v.reshape(nb, r, c), False
    elif v.swapaxes(-1, -2).flags.c_contiguous:
        arr, trans = v.swapaxes(-1, -2).reshape(nb, c, r), True
    else:
        arr, trans = np.ascontiguousarray(v).reshape(nb, r, c), False
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
    if o.dtype in _NARROW:
        tmp = host_buffer(np.empty, o.size, _F32).reshape(o.shape)
        bmm_arrays(x, y, ia, ib, tmp, ta, tb)
        o[...] = tmp
        return
    bmm_arrays(x, y, ia, ib, o, ta, tb)


def bmm_plan(a, b, out_shape, wrap):
    """``run(a, b)``: :func:`bmm` into a fresh buffer for operands laid out as ``a`` and ``b``
    are, resolved once, returning ``wrap(buffer)`` (the caller's result of shape ``out_shape``
    over the flat buffer); None where the general path is needed (integers, float16, no
    elements, an operand that must be copied)."""
    dt = a._storage.data.dtype
    n_out = shapes.prod(out_shape)
    if dt not in _BLAS_DTYPES or n_out == 0 or a._shape[-1] == 0:
        return None
    batch = tuple(out_shape[:-2])
    geometry = []
    for t in (a, b):
        arr, trans, idx = _stack(t, batch)
        if arr.__array_interface__["data"][0] != t._np_view().__array_interface__["data"][0]:
            return None  # _stack copied it
        geometry.append((arr.shape, arr.strides, trans, idx))
    (xs, xst, ta, ia), (ys, yst, tb, ib) = geometry
    o_shape = (max(shapes.prod(batch), 1), out_shape[-2], out_shape[-1])
    item = dt.itemsize
    nd, empty = np.ndarray, np.empty
    work = out_shape[-2] * out_shape[-1] * a._shape[-1]  # of one product: what OpenBLAS splits

    def run(a, b):
        x = nd(xs, dt, a._storage.data, a._offset * item, xst)
        y = nd(ys, dt, b._storage.data, b._offset * item, yst)
        try:
            buf = empty(n_out, dt)
        except MemoryError:
            raise out_of_memory(n_out * item) from None
        if blas.available():
            note_blas(work)
            _bmm_blas(x, y, ia, ib, buf.reshape(o_shape), ta, tb, blas.int_witness())
        else:
            _bmm_loop(x, y, ia, ib, buf.reshape(o_shape), ta, tb)
        return wrap(buf)
    if batch or not blas.available():
        return run
    m, n, k = out_shape[0], out_shape[1], a._shape[-1]
    witness = blas.int_witness()

    def run_matrices(a, b):
        # Plain matrices (the common case) skip building 3-d views of the operands.
        try:
            buf = empty(n_out, dt)
        except MemoryError:
            raise out_of_memory(n_out * item) from None
        note_blas(work)
        _mm_blas(a._storage.data, a._offset, b._storage.data, b._offset, buf, m, n, k, ta, tb, witness)
        return wrap(buf)
    return run_matrices


def bmm_arrays(x, y, ia, ib, o, ta, tb):
    """The kernel call on prepared arrays (see :func:`_stack`); ``o`` is (batch, M, N)."""
    if o.dtype in _BLAS_DTYPES and blas.available():
        note_blas(o.shape[1] * o.shape[2] * (x.shape[1] if ta else x.shape[2]))
        _bmm_blas(x, y, ia, ib, o, ta, tb, blas.int_witness())
    else:
        _bmm_loop(x, y, ia, ib, o, ta, tb)
