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
from numba import njit, prange

from .gathered_rows import PREFETCH_DISTANCE, prefetch_row, sum_rows
from .parallel import parallel_njit, use_parallel

PARALLEL_THRESHOLD = 1 << 16
# The modes as numbered by the ops layer: 0 sum, 1 mean, 2 max.
MEAN, MAX = 1, 2


@njit(cache=True, error_model="numpy", nogil=True)
def _bag_count(indices, start, end, padding_idx):
    count = 0
    for i in range(start, end):
        if indices[i] != padding_idx:
            count += 1
    return count


@njit(cache=True, error_model="numpy", nogil=True)
def _sum_bags(out, weight, indices, offsets, psw, mean, padding_idx, first, stop):
    """Bags ``first`` to ``stop`` of ``out`` = the sums of their rows in order, each scaled by
    ``psw`` when it has entries, divided by how many when ``mean``."""
    for b in range(first, stop):
        start, end = offsets[b], offsets[b + 1]
        if psw.shape[0]:
            sum_rows(out[b], weight, indices, start, end, padding_idx, psw)
        else:
            sum_rows(out[b], weight, indices, start, end, padding_idx, None)
        if mean:
            count = _bag_count(indices, start, end, padding_idx)
            if count > 1:
                # In the table's type: for float32, the same quotient as in float64, rounded once.
                divisor = out.dtype.type(count)
                for d in range(out.shape[1]):
                    out[b, d] /= divisor


# The maxima build in buffers of their own: the compiler then knows they alias no operand, and
# the loop over a row vectorizes.
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
                prefetch_row(weight, indices[i + PREFETCH_DISTANCE])
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
    else:
        _sum_bags(out, weight, indices, offsets, psw, mode == MEAN, padding_idx, first, stop)


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
    # Counted, without an exit from the loops, so that they vectorize; an index is outside
    # [0, num_weights) when, read as unsigned, it is at least num_weights.
    decreasing = 0
    for b in range(1, k):
        decreasing += offsets[b] < offsets[b - 1]
    limit = np.uint64(num_weights)
    outside = 0
    for i in range(n):
        outside += np.uint64(indices[i]) >= limit
    if k and offsets[0] != 0:
        problem = FIRST_OFFSET
    elif k and offsets[k - 1] > n:
        problem = LAST_OFFSET
    elif decreasing:
        problem = DECREASING
    elif outside:
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
    if weight.strides[1] != weight.itemsize:
        weight = np.ascontiguousarray(weight)  # the sums load a row's columns as vectors
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
