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
def _sum_bag(acc, weight, indices, start, end, psw, padding_idx):
    """``acc`` = the (weighted) sum of the bag's rows, in order; returns how many it read."""
    D = acc.shape[0]
    for d in range(D):
        acc[d] = 0
    count = 0
    # Unweighted rows are added two at a time: half the passes over ``acc``, the same order.
    pending = -1
    for i in range(start, end):
        r = indices[i]
        if r == padding_idx:
            continue
        count += 1
        if psw.shape[0]:
            row, c = weight[r], psw[i]
            for d in range(D):
                acc[d] += c * row[d]
        elif pending < 0:
            pending = r
        else:
            first, second = weight[pending], weight[r]
            for d in range(D):
                acc[d] = acc[d] + first[d] + second[d]
            pending = -1
    if pending >= 0:
        row = weight[pending]
        for d in range(D):
            acc[d] += row[d]
    return count


@njit(cache=True, error_model="numpy", nogil=True)
def _max_bag(acc, weight, indices, start, end, padding_idx, won):
    """``acc`` = the elementwise maximum of the bag's rows, ``won`` the row each came from."""
    D = acc.shape[0]
    count = 0
    for i in range(start, end):
        r = indices[i]
        if r == padding_idx:
            continue
        row = weight[r]
        for d in range(D):
            if count == 0 or row[d] > acc[d]:
                acc[d] = row[d]
                won[d] = r
        count += 1
    if count == 0:
        for d in range(D):
            acc[d] = 0
            won[d] = -1
    return count


@njit(cache=True, error_model="numpy", nogil=True)
def _reduce_bag(out, weight, indices, offsets, psw, mode, padding_idx, argmax, b, acc):
    start, end = offsets[b], offsets[b + 1]
    if mode == MAX:
        _max_bag(acc, weight, indices, start, end, padding_idx, argmax[b])
    else:
        count = _sum_bag(acc, weight, indices, start, end, psw, padding_idx)
        if mode == MEAN and count > 1:
            for d in range(acc.shape[0]):
                acc[d] /= count
    for d in range(acc.shape[0]):
        out[b, d] = acc[d]


@njit(cache=True, error_model="numpy", nogil=True)
def _reduce_bags(out, weight, indices, offsets, psw, mode, padding_idx, argmax):
    # Bags accumulate in a buffer of their own: the compiler knows it aliases no operand, so the
    # loops over a row vectorize.
    acc = np.empty(out.shape[1], dtype=out.dtype)
    for b in range(out.shape[0]):
        _reduce_bag(out, weight, indices, offsets, psw, mode, padding_idx, argmax, b, acc)


@parallel_njit(cache=True, error_model="numpy", nogil=True)
def _reduce_bags_par(out, weight, indices, offsets, psw, mode, padding_idx, argmax):
    for b in prange(out.shape[0]):
        acc = np.empty(out.shape[1], dtype=out.dtype)
        _reduce_bag(out, weight, indices, offsets, psw, mode, padding_idx, argmax, b, acc)


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


def _no_weights(dtype):
    return np.empty(0, dtype=dtype)


def embedding_bag(out, weight, psw=None, *, indices, offsets, mode, padding_idx, argmax, **unused):
    """``out`` (B, D) = the reduction of each bag's rows of ``weight`` (N, D); for ``MAX`` the
    winning rows go to ``argmax`` (B, D), -1 for an empty bag."""
    psw = _no_weights(weight.dtype) if psw is None else psw
    parallel = out.shape[0] > 1 and use_parallel(indices.shape[0] * out.shape[1], PARALLEL_THRESHOLD)
    run = _reduce_bags_par if parallel else _reduce_bags
    run(out, weight, indices, offsets, psw, mode, padding_idx, argmax)


def embedding_bag_backward(out, g, psw=None, *, indices, offsets, mode, padding_idx, argmax, divisor, **unused):
    """``out`` (N, D) = the cotangent ``g`` (B, D) of each bag sent back to the rows it read, each
    position's share divided by ``divisor`` when there is one."""
    psw = _no_weights(g.dtype) if psw is None else psw
    divisor = _no_weights(g.dtype) if divisor is None else divisor.astype(g.dtype, copy=False)
    _scatter_bags(out, g, indices, offsets, psw, mode, padding_idx, argmax, divisor)


def embedding_bag_per_sample_weights_backward(out, g, weight, *, indices, offsets, padding_idx, **unused):
    """``out`` (n,) = for each position, the dot product of its bag's cotangent and its row."""
    _dot_rows(out, g, weight, indices, offsets, padding_idx)
