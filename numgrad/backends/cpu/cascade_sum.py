"""Float sums on the CPU in PyTorch's order, so that a sum, a mean or a loss rounds as it does
in PyTorch (single-threaded) to the last bit.

PyTorch walks a reduction as an iterator over the input's dims, reordered (reduced dims first,
then by stride) and coalesced; each pair of innermost dims is one chunk, summed by one of four
strategies chosen by its strides, and chunks are added into the zero-filled result in turn.
Within a chunk, a run of elements is summed by a cascade (:func:`_cascade`): four accumulators,
each level taking over the one below after a fixed number of rows. The strategies split a run
into 4 interleaved streams (:func:`_row_sum`), or into vector lanes of 32 bytes and then streams
(:func:`_inner`), or sum 4 or 32 bytes' worth of neighbouring columns at once. The exact order
was established by comparing results with PyTorch's bit for bit.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types, uint64
from numba.extending import overload

_K = dict(cache=True, nogil=True, error_model="numpy")
_LEVELS = 4
_STREAMS = 4
_VECTOR_BYTES = 32
# Columns summed side by side: a page of each row (a multiple of 4 vectors).
_WIDE_BYTES = 4096


def _term(v, nan_zero):
    """``v`` as a term of the sum: a NaN counts as ``nan_zero`` unless that is None (nansum)."""
    raise NotImplementedError("callable from @njit code only")


@overload(_term)
def _term_typed(v, nan_zero):
    if isinstance(nan_zero, types.NoneType):
        return lambda v, nan_zero: v
    return lambda v, nan_zero: v if v == v else nan_zero


def geometry(shape, strides, reduce_dims):
    """The reduction's loop nest as PyTorch's iterator orders it: ``(sizes, input strides,
    output strides)``, innermost first, coalesced; output strides index the contiguous result
    of the kept dims and are 0 on reduced dims."""
    nd = len(shape)
    out_strides = [0] * nd
    n = 1
    for d in range(nd - 1, -1, -1):
        if d not in reduce_dims:
            out_strides[d] = n
            n *= shape[d]
    operands = (out_strides, list(strides))

    def order(d0, d1):
        # >0: d1 goes inside d0. Reduced dims go innermost, then smaller strides; a zero
        # stride (broadcast) decides nothing; equal strides put the smaller dim inside.
        for k, st in enumerate(operands):
            s0, s1 = st[d0], st[d1]
            if k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(nd - 1, -1, -1))
    # Insertion sort that steps over undecided pairs without stopping.
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = order(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    sizes = [shape[p] for p in perm]
    st = [[o[p] for p in perm] for o in operands]
    last = 0
    for d in range(1, len(sizes)):
        if sizes[last] == 1 or sizes[d] == 1 or all(sizes[last] * s[last] == s[d] for s in st):
            if sizes[last] == 1:
                for s in st:
                    s[last] = s[d]
            sizes[last] *= sizes[d]
        else:
            last += 1
            for s in st:
                s[last] = s[d]
            sizes[last] = sizes[d]
    keep = last + 1 if sizes else 0
    return sizes[:keep], st[1][:keep], st[0][:keep]


# Constants passed through ``_int`` reach the callee as plain integers: Numba would compile a
# function once more for each literal argument it is called with.
_int = np.int64


@njit(**_K)
def _level_bits(n):
    # Rows per level: 16, or more for runs past 2**19 so that four levels cover them.
    c = 0
    m = n - 1
    while m > 0:
        c += 1
        m >>= 1
    return max(4, c // _LEVELS)


@njit(**_K)
def _add_rows(a, q, rows, row_stride, lane_stride, width, acc, nan_zero):
    """``acc[l] += a[q + r * row_stride + l * lane_stride]`` for each row r < rows in turn."""
    grouped = 0
    if lane_stride == 1:
        # Eight rows per pass over the lanes, each lane adding them in order: the lanes stay in
        # registers between rows.
        grouped = rows - rows % 8
        for r in range(0, grouped, 8):
            q0 = q + r * row_stride
            q1, q2, q3 = q0 + row_stride, q0 + 2 * row_stride, q0 + 3 * row_stride
            q4, q5, q6, q7 = q0 + 4 * row_stride, q0 + 5 * row_stride, q0 + 6 * row_stride, q0 + 7 * row_stride
            for lane in range(width):
                t = acc[lane]
                t += _term(a[uint64(q0 + lane)], nan_zero)
                t += _term(a[uint64(q1 + lane)], nan_zero)
                t += _term(a[uint64(q2 + lane)], nan_zero)
                t += _term(a[uint64(q3 + lane)], nan_zero)
                t += _term(a[uint64(q4 + lane)], nan_zero)
                t += _term(a[uint64(q5 + lane)], nan_zero)
                t += _term(a[uint64(q6 + lane)], nan_zero)
                t += _term(a[uint64(q7 + lane)], nan_zero)
                acc[lane] = t
    for r in range(grouped, rows):
        q0 = q + r * row_stride
        for lane in range(width):
            acc[lane] += _term(a[uint64(q0 + lane * lane_stride)], nan_zero)


@njit(**_K)
def _cascade(a, p, n, row_stride, lane_stride, width, acc, nan_zero):
    """For each lane l < width, the cascaded sum of ``a[p + i * row_stride + l * lane_stride]``
    over rows i < n, left in ``acc[:width]`` (``acc`` is scratch for 4 levels of lanes)."""
    # With unsigned indices and no views, Numba emits neither wraparound checks nor reference
    # counting in the loops, and the lanes vectorize.
    bits = _level_bits(n)
    step = 1 << bits
    mask = step - 1
    levels = _LEVELS if n >= step else 1  # short runs (most rows) only use the first level
    for k in range(levels * width):
        acc[k] = 0
    i = 0
    while i + step <= n:
        _add_rows(a, p + i * row_stride, step, row_stride, lane_stride, width, acc, nan_zero)
        i += step
        for level in range(1, _LEVELS):
            lo = level * width
            for lane in range(width):
                acc[lo + lane] += acc[lo - width + lane]
                acc[lo - width + lane] = 0
            if i & (mask << (level * bits)):
                break
    _add_rows(a, p + i * row_stride, n - i, row_stride, lane_stride, width, acc, nan_zero)
    for level in range(1, levels):
        lo = level * width
        for lane in range(width):
            acc[lane] += acc[lo + lane]


@njit(**_K)
def _row_sum(a, p, n, stride, acc, nan_zero):
    """Sum of a strided run of ``n`` elements: 4 interleaved cascaded streams, then the rest."""
    q = n // _STREAMS
    _cascade(a, p, q, _STREAMS * stride, stride, _int(_STREAMS), acc, nan_zero)
    total = acc[0]
    for i in range(_STREAMS * q, n):
        total += _term(a[uint64(p + i * stride)], nan_zero)
    for k in range(1, _STREAMS):
        total += acc[k]
    return total


@njit(**_K)
def _inner(a, p, n, acc, zero, nan_zero):
    """Sum of a contiguous run of ``n`` elements, at least a vector's worth: lanes of a vector,
    then streams of vectors, then the leftover elements and the lanes one by one."""
    width = _VECTOR_BYTES // acc.itemsize
    vectors = n // width
    q = vectors // _STREAMS
    if q:
        _cascade(a, p, q, _STREAMS * width, _int(1), _STREAMS * width, acc, nan_zero)
    else:
        # Under four vectors (short rows): no streams to sum, whose zeros, added to lanes that
        # start at +0.0 and so are never -0.0, would change nothing.
        for lane in range(width):
            acc[lane] = 0
    for v in range(_STREAMS * q, vectors):
        for lane in range(width):
            acc[lane] += _term(a[uint64(p + v * width + lane)], nan_zero)
    if q:
        for k in range(1, _STREAMS):
            for lane in range(width):
                acc[lane] += acc[k * width + lane]
    total = zero
    for i in range(vectors * width, n):
        total += _term(a[uint64(p + i)], nan_zero)
    for lane in range(width):
        total += acc[lane]
    return total


@njit(**_K)
def _chunk(a, bi, out, bo, size0, size1, i0, i1, o0, o1, acc, zero, nan_zero):
    width = _VECTOR_BYTES // acc.itemsize
    if o0 != 0:
        # Nothing reduced in this chunk: PyTorch adds it elementwise.
        for j in range(size1):
            for i in range(size0):
                out[bo + i * o0 + j * o1] += _term(a[bi + i * i0 + j * i1], nan_zero)
    elif i0 == 1 and size0 >= width:
        for j in range(size1):
            out[bo + j * o1] += _inner(a, bi + j * i1, size0, acc, zero, nan_zero)
    elif i1 == 1 and size1 >= width:
        # Contiguous columns: blocks of 4 vectors of columns cascade down the rows, the rest
        # are summed one by one. Each column's cascade is its own, so up to a page's worth of
        # blocks go down the rows together (fewer passes over the rows, the same sums).
        block = _STREAMS * width
        full = size1 - size1 % block
        wide = _WIDE_BYTES // acc.itemsize
        for j in range(0, full, wide):
            w = min(wide, full - j)
            _cascade(a, bi + j, size0, i0, _int(1), w, acc, nan_zero)
            for lane in range(w):
                out[bo + (j + lane) * o1] += acc[lane]
        for j in range(full, size1):
            out[bo + j * o1] += _row_sum(a, bi + j, size0, i0, acc, nan_zero)
    elif i0 < i1:
        for j in range(size1):
            out[bo + j * o1] += _row_sum(a, bi + j * i1, size0, i0, acc, nan_zero)
    else:
        j = 0
        while j + _STREAMS <= size1:
            _cascade(a, bi + j * i1, size0, i0, i1, _int(_STREAMS), acc, nan_zero)
            for lane in range(_STREAMS):
                out[bo + (j + lane) * o1] += acc[lane]
            j += _STREAMS
        for j in range(j, size1):
            out[bo + j * o1] += _row_sum(a, bi + j * i1, size0, i0, acc, nan_zero)


@njit(**_K)
def cascade_sum(a, offset, sizes, in_strides, out_strides, out, nan_zero):
    """Sum the strided operand at ``a[offset:]`` over the loop nest ``sizes`` (at least two
    dims, innermost first, see :func:`plan`) into the contiguous ``out``: a chunk
    (:func:`_chunk`) per index of the outer dims."""
    zero = out.dtype.type(0)
    out[:] = zero
    nd = sizes.shape[0]
    acc = np.empty(_LEVELS * _WIDE_BYTES // out.itemsize, dtype=out.dtype)
    outer = 1
    for d in range(2, nd):
        outer *= sizes[d]
    idx = np.zeros(nd, dtype=np.int64)
    bi = offset
    bo = _int(0)
    for _ in range(outer):
        _chunk(a, bi, out, bo, sizes[0], sizes[1], in_strides[0], in_strides[1], out_strides[0], out_strides[1],
               acc, zero, nan_zero)
        d = 2
        while d < nd:
            idx[d] += 1
            bi += in_strides[d]
            bo += out_strides[d]
            if idx[d] < sizes[d]:
                break
            bi -= in_strides[d] * sizes[d]
            bo -= out_strides[d] * sizes[d]
            idx[d] = 0
            d += 1


def plan(source, acc, shape, strides, reduce_dims, divisor=None, skip_nan=False):
    """``f(buf, offset) -> out`` summing a ``source``-dtype operand laid out as given into
    ``acc`` in PyTorch's order (each result divided by ``divisor`` if given; NaNs counted as 0
    with ``skip_nan``); None where this order does not apply: other dtypes, negative strides, or
    nothing to sum or to produce."""
    source, acc = np.dtype(source), np.dtype(acc)
    if acc.kind != "f" or acc.itemsize < 4 or source.kind != "f" or source.itemsize > acc.itemsize \
            or source.itemsize < 4 or any(s < 0 for s in strides):
        return None
    n_out = 1
    n_red = 1
    for d, s in enumerate(shape):
        if d in reduce_dims:
            n_red *= s
        else:
            n_out *= s
    if n_out == 0 or n_red == 0:
        return None
    sizes, in_strides, out_strides = geometry(shape, strides, set(reduce_dims))
    # The innermost two dims are one chunk: a 0-d or 1-d nest gets a dim of one element.
    while len(sizes) < 2:
        sizes, in_strides, out_strides = sizes + [1], in_strides + [0], out_strides + [0]
    if out_strides[0] != 0 and out_strides[1] == 0:
        # PyTorch's chunk then walks the reduced dim inside.
        for v in (sizes, in_strides, out_strides):
            v[0], v[1] = v[1], v[0]
    d = acc.type(1 if divisor is None else divisor)
    nan_zero = acc.type(0) if skip_nan else None
    zeros, empty, scratch = np.zeros, np.empty, _LEVELS * _WIDE_BYTES // acc.itemsize
    if len(sizes) == 2:
        # One chunk (most sums): called straight from here, cascade_sum is never compiled for it
        # (compiling it re-optimizes all of _chunk's code, 1.5 s per dtype).
        (size0, size1), (i0, i1), (o0, o1), zero = sizes, in_strides, out_strides, acc.type(0)

        def total(buf, offset):
            out = zeros(n_out, acc)
            _chunk(buf, offset, out, 0, size0, size1, i0, i1, o0, o1, empty(scratch, acc), zero, nan_zero)
            return out
    else:
        sizes, in_strides, out_strides = (np.array(v, dtype=np.int64) for v in (sizes, in_strides, out_strides))

        def total(buf, offset):
            out = empty(n_out, acc)
            cascade_sum(buf, offset, sizes, in_strides, out_strides, out, nan_zero)
            return out
    if d == 1:
        return total

    def run(buf, offset):
        out = total(buf, offset)
        np.divide(out, d, out=out)
        return out
    if d == 0:
        def quiet(buf, offset):
            with np.errstate(divide="ignore", invalid="ignore"):  # inf or nan, as PyTorch, unwarned
                return run(buf, offset)
        return quiet
    return run
