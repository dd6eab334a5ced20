"""Index kernels for the CPU: gather, scatter (assign, add, multiply), index validation,
nonzero, repeat indices and histograms.

Every kernel walks a coalesced loop nest given as int64 arrays (shape, per-operand strides and
offsets), so ndim never triggers a compile; Numba compiles each once per dtype signature.
Indices reaching ``gather``/``scatter`` are already validated: these kernels do not bounds-check.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...memo import Memo
from ... import dtypes, shapes
from ..iteration import plan
from .parallel import parallel_njit

# Waking threads costs more than a gather of fewer elements saves (and much more on a busy
# machine), so only very large gathers run in parallel.
PARALLEL_THRESHOLD = 1 << 21

_U = np.uint64
_MOVE_VIEW = {d: np.uint16 for d in dtypes.NARROW_NUMPY}


@njit(cache=True, nogil=True)
def _ptr(r, shape, strides, k, offset):
    """Start of row ``r`` (an index over all but the innermost dim) for operand ``k``."""
    p = offset
    rem = r
    for d in range(shape.shape[0] - 2, -1, -1):
        i = rem % shape[d]
        rem //= shape[d]
        p += i * strides[k, d]
    return p


@njit(cache=True, nogil=True)
def _rows(shape):
    n = 1
    for d in range(shape.shape[0] - 1):
        n *= shape[d]
    return n


@njit(cache=True, nogil=True, inline="always")
def _gather_row(out, po, so, idx, pi, si, src, ps, ss, dstride, inner):
    # Positions are cast to unsigned (they are never negative): Numba then drops its
    # negative-index wraparound, which otherwise blocks vectorization.
    if si == 0:
        # One index for the whole row (index_select): a strided, often contiguous, copy.
        base = ps + idx[pi] * dstride
        if so == 1 and ss == 1:
            ub = _U(base)
            uo = _U(po)
            for j in range(inner):
                uj = _U(j)
                out[uo + uj] = src[ub + uj]
        else:
            for j in range(inner):
                out[_U(po + j * so)] = src[_U(base + j * ss)]
    else:
        for j in range(inner):
            out[_U(po + j * so)] = src[_U(ps + j * ss + idx[_U(pi + j * si)] * dstride)]


@njit(cache=True, nogil=True)
def gather(shape, strides, offsets, out, idx, src, dstride):
    """out[p_out] = src[p_src + idx[p_idx] * dstride] over the loop nest."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    so, si, ss = strides[0, nd - 1], strides[1, nd - 1], strides[2, nd - 1]
    for r in range(_rows(shape)):
        po = _ptr(r, shape, strides, 0, offsets[0])
        pi = _ptr(r, shape, strides, 1, offsets[1])
        ps = _ptr(r, shape, strides, 2, offsets[2])
        _gather_row(out, po, so, idx, pi, si, src, ps, ss, dstride, inner)


@parallel_njit(cache=True, nogil=True)
def gather_par(shape, strides, offsets, out, idx, src, dstride):
    """``gather`` with rows (or, for one dim, blocks of it) spread over threads."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    so, si, ss = strides[0, nd - 1], strides[1, nd - 1], strides[2, nd - 1]
    rows = _rows(shape)
    if rows == 1:
        block = 4096
        for b in prange((inner + block - 1) // block):
            lo = np.int64(b) * block
            for j in range(lo, min(inner, lo + block)):
                out[_U(offsets[0] + j * so)] = src[_U(offsets[2] + j * ss + idx[_U(offsets[1] + j * si)] * dstride)]
        return
    for pr in prange(rows):
        # prange counts in unsigned integers; mixed with int64 they would become floats.
        r = np.int64(pr)
        po = _ptr(r, shape, strides, 0, offsets[0])
        pi = _ptr(r, shape, strides, 1, offsets[1])
        ps = _ptr(r, shape, strides, 2, offsets[2])
        _gather_row(out, po, so, idx, pi, si, src, ps, ss, dstride, inner)


@njit(cache=True, nogil=True)
def scatter(shape, strides, offsets, out, idx, src, dstride, mode):
    """out[p_out + idx[p_idx] * dstride] (=, +=, *=, max=, min=) src[p_src] for mode 0, 1, 2, 3,
    4, in loop order, so that with repeated indices the last write wins. Max and min propagate NaN."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    so, si, ss = strides[0, nd - 1], strides[1, nd - 1], strides[2, nd - 1]
    for r in range(_rows(shape)):
        po = _ptr(r, shape, strides, 0, offsets[0])
        pi = _ptr(r, shape, strides, 1, offsets[1])
        ps = _ptr(r, shape, strides, 2, offsets[2])
        if mode == 0:
            for j in range(inner):
                out[_U(po + j * so + idx[_U(pi + j * si)] * dstride)] = src[_U(ps + j * ss)]
        elif mode == 1:
            for j in range(inner):
                p = _U(po + j * so + idx[_U(pi + j * si)] * dstride)
                out[p] = out[p] + src[_U(ps + j * ss)]
        elif mode == 2:
            for j in range(inner):
                p = _U(po + j * so + idx[_U(pi + j * si)] * dstride)
                out[p] = out[p] * src[_U(ps + j * ss)]
        elif mode == 3:
            for j in range(inner):
                p = _U(po + j * so + idx[_U(pi + j * si)] * dstride)
                v = src[_U(ps + j * ss)]
                if v > out[p] or v != v:
                    out[p] = v
        else:
            for j in range(inner):
                p = _U(po + j * so + idx[_U(pi + j * si)] * dstride)
                v = src[_U(ps + j * ss)]
                if v < out[p] or v != v:
                    out[p] = v


@njit(cache=True, nogil=True)
def check_range(shape, strides, offset, idx, lo, hi):
    """The first index outside [lo, hi) as (True, value); (False, 0) when all are inside."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    si = strides[0, nd - 1]
    for r in range(_rows(shape)):
        p = _ptr(r, shape, strides, 0, offset)
        for j in range(inner):
            v = idx[p + j * si]
            if v < lo or v >= hi:
                return True, np.int64(v)
    return False, np.int64(0)


@njit(cache=True, nogil=True)
def add_offsets(shape, strides, offsets, out, idx, size, stride):
    """out += wrap(idx) * stride, where negative indices count from ``size``; stops at the first
    index outside [-size, size) and returns (True, it) without having used it."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    so, si = strides[0, nd - 1], strides[1, nd - 1]
    for r in range(_rows(shape)):
        po = _ptr(r, shape, strides, 0, offsets[0])
        pi = _ptr(r, shape, strides, 1, offsets[1])
        for j in range(inner):
            v = np.int64(idx[pi + j * si])
            if v < -size or v >= size:
                return True, v
            if v < 0:
                v += size
            out[po + j * so] += v * stride
    return False, np.int64(0)


@njit(cache=True, nogil=True)
def count_nonzero(shape, strides, offset, a):
    n = 0
    nd = shape.shape[0]
    inner = shape[nd - 1]
    s = strides[0, nd - 1]
    for r in range(_rows(shape)):
        p = _ptr(r, shape, strides, 0, offset)
        for j in range(inner):
            if a[p + j * s] != 0:
                n += 1
    return n


@njit(cache=True, nogil=True)
def nonzero(shape, strides, offset, a, out):
    """Row-major coordinates of the nonzero elements of a strided array into ``out`` (n + 1,
    ndim), row by row over all but the innermost dim. Every element's coordinates are written
    and the count advances only past nonzero ones: no branch to mispredict on a random mask (the
    extra row takes the writes after the last hit)."""
    nd = shape.shape[0]
    inner = shape[nd - 1]
    s = strides[0, nd - 1]
    outer = np.zeros(nd, dtype=np.int64)
    k = 0
    for r in range(_rows(shape)):
        rem = r
        for d in range(nd - 2, -1, -1):
            outer[d] = rem % shape[d]
            rem //= shape[d]
        p = _ptr(r, shape, strides, 0, offset)
        for j in range(inner):
            for d in range(nd - 1):
                out[k, d] = outer[d]
            out[k, nd - 1] = j
            k += a[p + j * s] != 0


@njit(cache=True, nogil=True)
def repeat_index(repeats, out):
    """out = [0] * repeats[0] + [1] * repeats[1] + ...; ``repeats`` is validated non-negative."""
    k = 0
    for i in range(repeats.shape[0]):
        for _ in range(repeats[i]):
            out[k] = i
            k += 1


@njit(cache=True, nogil=True)
def bincount(x, weights, use_weights, out):
    for i in range(x.shape[0]):
        if use_weights:
            out[x[i]] += weights[i]
        else:
            out[x[i]] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def histc(x, lo, hi, out):
    """Equal-width bins over [lo, hi]; the top edge belongs to the last bin, others are dropped."""
    bins = out.shape[0]
    width = hi - lo
    for i in range(x.shape[0]):
        v = x[i]
        if v >= lo and v <= hi:
            b = int((v - lo) * bins / width)
            if b >= bins:
                b = bins - 1
            out[b] += 1


@njit(cache=True, nogil=True)
def minmax(x):
    """The smallest and largest element of 1-D ``x``; NaN for both if any element is NaN."""
    lo = x[0]
    hi = x[0]
    for i in range(x.shape[0]):
        v = x[i]
        if v != v:
            return v, v
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


# ---------------------------------------------------------------------------------------------
# Python entry points: tensors in, kernels run over a coalesced plan.

def _movable(buf):
    """Data movement needs no arithmetic: 16-bit float storage moves as its bit pattern."""
    v = _MOVE_VIEW.get(buf.dtype)
    return buf.view(v) if v is not None else buf


# Loop plans as the int64 arrays kernels read (never write), memoized by geometry: planning
# costs more than copying a thousand indices.
_plans = Memo(1024)


def _plan_arrays(shape, strides_list, offsets):
    key = (tuple(shape), tuple(tuple(s) for s in strides_list))
    arrays = _plans.get(key)
    if arrays is None:
        lshape, lstrides = plan(key[0], list(key[1]))
        if not lshape:
            lshape, lstrides = (1,), [(0,) for _ in strides_list]
        arrays = _plans[key] = (np.array(lshape, dtype=np.int64),
                                np.array(lstrides, dtype=np.int64).reshape(len(strides_list), -1))
    return arrays[0], arrays[1], np.array(offsets, dtype=np.int64)


def run_gather(out, out_strides, idx, idx_strides, src, src_strides, dstride):
    """Fill tensor ``out`` (its own layout given as ``out_strides``) from ``src`` through ``idx``;
    the stride tuples are over ``out``'s shape (0 where an operand is broadcast)."""
    n = shapes.prod(out._shape)
    if n == 0:
        return
    shp, st, off = _plan_arrays(out._shape, [out_strides, idx_strides, src_strides],
                                [out._offset, idx._offset, src._offset])
    fn = gather_par if n >= PARALLEL_THRESHOLD else gather
    fn(shp, st, off, _movable(out._storage.data), idx._storage.data, _movable(src._storage.data), dstride)


def run_scatter(out, shape, out_strides, idx, idx_strides, src, src_strides, dstride, mode):
    """Write ``src`` into tensor ``out`` through ``idx`` over the loop nest ``shape``; mode 0
    assigns, 1 adds, 2 multiplies, 3 keeps the maximum, 4 the minimum (``src`` has ``out``'s dtype)."""
    if shapes.prod(shape) == 0:
        return
    shp, st, off = _plan_arrays(shape, [out_strides, idx_strides, src_strides],
                                [out._offset, idx._offset, src._offset])
    obuf, sbuf = out._storage.data, src._storage.data
    if mode == 0:
        scatter(shp, st, off, _movable(obuf), idx._storage.data, _movable(sbuf), dstride, 0)
    elif obuf.dtype in dtypes.NARROW_NUMPY:
        # No 16-bit float arithmetic on the CPU: accumulate in a float32 copy of the whole storage.
        wide = obuf.astype(np.float32)
        scatter(shp, st, off, wide, idx._storage.data, sbuf.astype(np.float32), dstride, mode)
        obuf[...] = wide
    else:
        scatter(shp, st, off, obuf, idx._storage.data, sbuf, dstride, mode)


def first_out_of_range(idx, lo, hi):
    """The first element of integer tensor ``idx`` outside [lo, hi), or None."""
    if idx.numel() == 0:
        return None
    shp, st, off = _plan_arrays(idx._shape, [idx._strides], [idx._offset])
    bad, v = check_range(shp, st, off[0], idx._storage.data, lo, hi)
    return int(v) if bad else None


def accumulate_offsets(out, idx, idx_strides, size, stride):
    """out (contiguous int64) += wrapped idx * stride; returns the first bad index or None."""
    if out.numel() == 0:
        return None
    shp, st, off = _plan_arrays(out._shape, [out._strides, idx_strides], [out._offset, idx._offset])
    bad, v = add_offsets(shp, st, off, out._storage.data, idx._storage.data, size, stride)
    return int(v) if bad else None


@njit(cache=True, nogil=True)
def _compress(src, keep, out):
    """``out[:n] = src[keep]`` for 1-D ``src`` and ``keep``, ``n`` the kept count; ``out`` has one
    element more. Every element is written and the position advances only past kept ones: no
    branch to mispredict on a random mask (the extra element takes the writes after the last)."""
    k = 0
    for i in range(keep.shape[0]):
        out[k] = src[i]
        k += keep[i]


@njit(cache=True, nogil=True)
def _compress_rows(src, keep, out):
    """The rows of 2-D ``src`` where ``keep`` is True, in order, into ``out``."""
    k = 0
    width = src.shape[1]
    for i in range(keep.shape[0]):
        if keep[i]:
            for j in range(width):
                out[k, j] = src[i, j]
            k += 1


def compress_rows(src, keep):
    """A new array of the rows of the C-contiguous 2-D ``src`` where the bool ``keep`` (one per
    row, C-contiguous) is True: one pass, no coordinates."""
    n = int(np.count_nonzero(keep))
    moved = _movable(src)
    if src.shape[1] == 1:
        out = np.empty(n + 1, dtype=moved.dtype)
        _compress(moved.reshape(-1), keep, out)
        out = out[:n].reshape(n, 1)
    else:
        out = np.empty((n, src.shape[1]), dtype=moved.dtype)
        _compress_rows(moved, keep, out)
    return out.view(src.dtype)


@njit(cache=True, nogil=True)
def _fill_kept(x, keep, value):
    """``x[i] = value`` where ``keep[i]``, for 1-D ``x`` and ``keep``: a select per element, which
    vectorizes, where a branch would be mispredicted on a random mask."""
    for i in range(keep.shape[0]):
        x[i] = value if keep[i] else x[i]


@njit(cache=True, nogil=True)
def _fill_kept_rows(x, keep, value):
    """The rows of 2-D ``x`` where ``keep`` is True set to ``value``."""
    for i in range(keep.shape[0]):
        if keep[i]:
            for j in range(x.shape[1]):
                x[i, j] = value


def fill_rows(x, keep, value):
    """Set the rows of the C-contiguous 2-D ``x`` where the bool ``keep`` (one per row,
    C-contiguous) is True to ``value``, a one-element array of ``x``'s dtype, in place."""
    moved = _movable(x)
    fill = value.view(moved.dtype)[0]
    if x.shape[1] == 1:
        _fill_kept(moved.reshape(-1), keep, fill)
    else:
        _fill_kept_rows(moved, keep, fill)


def nonzero_coords(x):
    """(n, ndim) int64 array of the coordinates of x's nonzero elements, row-major."""
    if x.numel() == 0:
        return np.empty((0, x.ndim), dtype=np.int64)
    buf = _movable(x._storage.data)
    shape = x._shape if x._shape else (1,)
    strides = x._strides if x._strides else (0,)
    shp = np.array(shape, dtype=np.int64)
    st = np.array([strides], dtype=np.int64)
    n = count_nonzero(*_plan_arrays(x._shape, [x._strides], [x._offset])[:2], x._offset, buf)
    out = np.empty((n + 1, len(shape)), dtype=np.int64)
    nonzero(shp, st, x._offset, buf, out)
    return out[:n, :x.ndim]
