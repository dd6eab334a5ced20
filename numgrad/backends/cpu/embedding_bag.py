"""CPU kernels of embedding bags, on arrays.

Bag ``b`` holds positions ``offsets[b]`` up to ``offsets[b + 1]`` of the flat ``indices``; each
position picks a row of the table, and entries equal to ``padding_idx`` (-1 for none) are left out
of the bag (of its count too). ``mode`` 0 sums the rows (each scaled by its per-sample weight when
there are any), 1 averages them and 2 takes their elementwise maximum, recording which row won.
Bags are independent, so the forward's ``_par`` form splits them over threads; the backward
scatters into shared rows and runs on one thread.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 16
# How many positions ahead of the one being added the forward asks the cache for a row.
PREFETCH_DISTANCE = 16
_CACHE_LINE = 64
# The modes as numbered by the ops layer: 0 sum, 1 mean, 2 max.
MEAN, MAX = 1, 2


@intrinsic
def _prefetch_row(typingctx, table, r):
    """Hints the CPU to bring row ``r`` of the 2-D ``table`` into its caches (LLVM's prefetch, one
    per cache line of a contiguous row): the rows a bag reads lie anywhere in the table, and a
    read that waits on memory for each row leaves the adds idle."""
    if not (isinstance(table, types.Array) and table.ndim == 2 and isinstance(r, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        array = context.make_array(table)(context, builder, args[0])
        width = cgutils.unpack_tuple(builder, array.shape, 2)[1]
        row_stride = cgutils.unpack_tuple(builder, array.strides, 2)[0]
        row = context.cast(builder, args[1], r, types.intp)
        data = builder.bitcast(array.data, cgutils.voidptr_t)
        start = builder.gep(data, [builder.mul(row, row_stride)])
        itemsize = context.get_abi_sizeof(context.get_data_type(table.dtype))
        nbytes = builder.mul(width, width.type(itemsize))
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32]), "llvm.prefetch.p0i8")
        with cgutils.for_range_slice(builder, width.type(0), nbytes, width.type(_CACHE_LINE)) as (offset, _):
            # A read (0), to be kept in all cache levels (3), of data (1).
            builder.call(prefetch, [builder.gep(start, [offset]), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(table, r), codegen


@njit(cache=True, error_model="numpy", nogil=True)
def _bag_count(indices, start, end, padding_idx):
    count = 0
    for i in range(start, end):
        if indices[i] != padding_idx:
            count += 1
    return count


# Each bag loop is written out whole, with the bag accumulating in a buffer of its own: the
# compiler then knows the buffer aliases no operand, and the loops over a row vectorize (a helper
# taking the buffer as an argument, or prefetching through a call, runs at half the speed). Rows
# are copied out element by element: a slice assignment costs more than the copy itself.
@njit(cache=True, error_model="numpy", nogil=True)
def _sum_bags(out, weight, indices, offsets, mean, padding_idx, first, stop):
    """Bags ``first`` to ``stop`` of ``out`` = the sums of their rows in order (divided by how
    many when ``mean``), the rows added two at a time: half the passes over the buffer."""
    D, n = out.shape[1], indices.shape[0]
    acc = np.empty(D, dtype=out.dtype)
    for b in range(first, stop):
        acc[:] = 0
        count = 0
        pending = -1
        for i in range(offsets[b], offsets[b + 1]):
            if i + PREFETCH_DISTANCE < n:
                _prefetch_row(weight, indices[i + PREFETCH_DISTANCE])
            r = indices[i]
            if r == padding_idx:
                continue
            count += 1
            if pending < 0:
                pending = r
                continue
            row, other = weight[pending], weight[r]
            for d in range(D):
                acc[d] = acc[d] + row[d] + other[d]
            pending = -1
        if pending >= 0:
            row = weight[pending]
            for d in range(D):
                acc[d] += row[d]
        if mean and count > 1:
            # In the table's type: for float32, the same quotient as in float64, rounded once.
            divisor = out.dtype.type(count)
            for d in range(D):
                acc[d] /= divisor
        for d in range(D):
            out[b, d] = acc[d]


@njit(cache=True, error_model="numpy", nogil=True)
def _weighted_sum_bags(out, weight, indices, offsets, psw, padding_idx, first, stop):
    """Bags ``first`` to ``stop`` of ``out`` = the sums of their rows scaled by ``psw``."""
    D, n = out.shape[1], indices.shape[0]
    acc = np.empty(D, dtype=out.dtype)
    for b in range(first, stop):
        acc[:] = 0
        for i in range(offsets[b], offsets[b + 1]):
            if i + PREFETCH_DISTANCE < n:
                _prefetch_row(weight, indices[i + PREFETCH_DISTANCE])
            r = indices[i]
            if r == padding_idx:
                continue
            row, c = weight[r], psw[i]
            for d in range(D):
                acc[d] += c * row[d]
        for d in range(D):
            out[b, d] = acc[d]


@njit(cache=True, error_model="numpy", nogil=True)
def _max_bags(out, weight, indices, offsets, padding_idx, argmax, first, stop):
    """Bags ``first`` to ``stop`` of ``out`` = the elementwise maxima of their rows, ``argmax``
    the row each came from (0 and -1 for a bag with no rows)."""
    D, n = out.shape[1], indices.shape[0]
    acc = np.empty(D, dtype=out.dtype)
    won = np.empty(D, dtype=argmax.dtype)
    for b in range(first, stop):
        acc[:] = 0
        won[:] = -1
        count = 0
        for i in range(offsets[b], offsets[b + 1]):
            if i + PREFETCH_DISTANCE < n:
                _prefetch_row(weight, indices[i + PREFETCH_DISTANCE])
            r = indices[i]
            if r == padding_idx:
                continue
            row = weight[r]
            for d in range(D):
                if count == 0 or row[d] > acc[d]:
                    acc[d] = row[d]
                    won[d] = r
            count += 1
        for d in range(D):
            out[b, d] = acc[d]
            argmax[b, d] = won[d]


@njit(cache=True, error_model="numpy", nogil=True)
def _reduce_bags(out, weight, indices, offsets, psw, mode, padding_idx, argmax, first, stop):
    if mode == MAX:
        _max_bags(out, weight, indices, offsets, padding_idx, argmax, first, stop)
    elif psw.shape[0]:
        _weighted_sum_bags(out, weight, indices, offsets, psw, padding_idx, first, stop)
    else:
        _sum_bags(out, weight, indices, offsets, mode == MEAN, padding_idx, first, stop)


# Bags per task of the parallel form: enough that a task's setup is noise.
_BAGS_PER_TASK = 16


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _reduce_bags_par(out, weight, indices, offsets, psw, mode, padding_idx, argmax):
    bags = out.shape[0]
    for task in prange((bags + _BAGS_PER_TASK - 1) // _BAGS_PER_TASK):
        first = task * _BAGS_PER_TASK
        _reduce_bags(out, weight, indices, offsets, psw, mode, padding_idx, argmax, first,
                     min(first + _BAGS_PER_TASK, bags))


@njit(cache=True, error_model="numpy", nogil=True)
def _scatter_bags(out, g, indices, offsets, psw, mode, padding_idx, argmax, divisor):
    out[:] = 0
    D = out.shape[1]
    if mode == MAX:
        for b in range(g.shape[0]):
            for d in range(D):
                r = argmax[b, d]
                if r >= 0:
                    out[r, d] += g[b, d]
        return
    share = np.empty(D, dtype=g.dtype)
    for b in range(g.shape[0]):
        start, end = offsets[b], offsets[b + 1]
        scale = g.dtype.type(1)
        if mode == MEAN:
            count = _bag_count(indices, start, end, padding_idx)
            if count > 1:
                scale = g.dtype.type(1) / count
        # The bag's cotangent, scaled, in a buffer of its own (see _reduce_bags).
        for d in range(D):
            share[d] = scale * g[b, d]
        for i in range(start, end):
            r = indices[i]
            if r == padding_idx:
                continue
            if psw.shape[0] or divisor.shape[0]:
                c = g.dtype.type(1)
                if psw.shape[0]:
                    c = c * psw[i]
                if divisor.shape[0]:
                    c = c / divisor[i]
                for d in range(D):
                    out[r, d] += c * share[d]
            else:
                for d in range(D):
                    out[r, d] += share[d]


@njit(cache=True, error_model="numpy", nogil=True)
def _dot_rows(out, g, weight, indices, offsets, padding_idx):
    out[:] = 0
    for b in range(g.shape[0]):
        for i in range(offsets[b], offsets[b + 1]):
            r = indices[i]
            total = g.dtype.type(0)
            if r != padding_idx:
                for d in range(g.shape[1]):
                    total += g[b, d] * weight[r, d]
            out[i] = total


# What ``bag_bounds`` finds wrong, in the order PyTorch checks.
FIRST_OFFSET, LAST_OFFSET, DECREASING, INDEX = 1, 2, 3, 4


@njit(cache=True, nogil=True)
def bag_bounds(indices, offsets, num_weights, include_last_offset):
    """The bags' bounds (bag ``b`` runs from ``bounds[b]`` to ``bounds[b + 1]``) from the user's
    ``offsets``, and the first thing wrong with them and ``indices`` as ``(problem, position)``:
    ``(0, 0)`` for nothing, else a problem code above and the offending position of ``indices``
    for ``INDEX``. The last bag of ``include_last_offset`` runs to the end of ``indices``, and
    one offset or none makes no bag."""
    n, k = indices.shape[0], offsets.shape[0]
    problem, position = 0, 0
    if k and offsets[0] != 0:
        problem = FIRST_OFFSET
    elif k and offsets[k - 1] > n:
        problem = LAST_OFFSET
    else:
        for b in range(1, k):
            if offsets[b] < offsets[b - 1]:
                problem = DECREASING
                break
    # Counted first, without an exit from the loop, so that the loop vectorizes.
    outside = 0
    for i in range(n):
        outside += (indices[i] < 0) | (indices[i] >= num_weights)
    if problem == 0 and outside:
        for i in range(n):
            if indices[i] < 0 or indices[i] >= num_weights:
                problem, position = INDEX, i
                break
    if include_last_offset and k <= 1:
        return np.zeros(1, dtype=np.int64), problem, position
    bags = k - 1 if include_last_offset else k
    bounds = np.empty(bags + 1, dtype=np.int64)
    for b in range(bags):
        bounds[b] = offsets[b]
    bounds[bags] = n
    return bounds, problem, position


def _no_weights(dtype):
    return np.empty(0, dtype=dtype)


def embedding_bag(out, weight, psw=None, *, indices, offsets, mode, padding_idx, argmax, **unused):
    """``out`` (B, D) = the reduction of each bag's rows of ``weight`` (N, D); for ``MAX`` the
    winning rows go to ``argmax`` (B, D), -1 for an empty bag."""
    psw = _no_weights(weight.dtype) if psw is None else psw
    parallel = out.shape[0] > 1 and use_parallel(indices.shape[0] * out.shape[1], PARALLEL_THRESHOLD)
    if parallel:
        _reduce_bags_par(out, weight, indices, offsets, psw, mode, padding_idx, argmax)
    else:
        _reduce_bags(out, weight, indices, offsets, psw, mode, padding_idx, argmax, 0, out.shape[0])


def embedding_bag_backward(out, g, psw=None, *, indices, offsets, mode, padding_idx, argmax, divisor, **unused):
    """``out`` (N, D) = the cotangent ``g`` (B, D) of each bag sent back to the rows it read, each
    position's share divided by ``divisor`` when there is one."""
    psw = _no_weights(g.dtype) if psw is None else psw
    divisor = _no_weights(g.dtype) if divisor is None else divisor.astype(g.dtype, copy=False)
    _scatter_bags(out, g, indices, offsets, psw, mode, padding_idx, argmax, divisor)


def embedding_bag_per_sample_weights_backward(out, g, weight, *, indices, offsets, padding_idx, **unused):
    """``out`` (n,) = for each position, the dot product of its bag's cotangent and its row."""
    _dot_rows(out, g, weight, indices, offsets, padding_idx)
