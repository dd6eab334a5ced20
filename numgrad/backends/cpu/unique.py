"""Unique-slice kernels for the CPU: a stable lexicographic sort of the rows of a 2-D array and
the grouping of equal neighbouring rows (unique and unique_consecutive along a dim)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ... import dtypes

_K = dict(cache=True, error_model="numpy", nogil=True)


@njit(**_K)
def _row_cmp(keys, a, b):
    """-1, 0 or 1 as row ``a`` sorts before, with or after row ``b``; NaN after every number."""
    for j in range(keys.shape[1]):
        x = keys[a, j]
        y = keys[b, j]
        if x < y:
            return -1
        if x > y:
            return 1
        if x != y:
            x_nan = x != x
            if x_nan != (y != y):
                return 1 if x_nan else -1
    return 0


@njit(**_K)
def lex_argsort(keys):
    """The permutation that stably sorts the rows of ``keys`` lexicographically: a bottom-up
    merge sort of row numbers, comparing rows only where their runs meet."""
    n = keys.shape[0]
    perm = np.arange(n)
    buf = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                # Taking from the left run on ties keeps the sort stable.
                if _row_cmp(keys, perm[j], perm[i]) < 0:
                    buf[k] = perm[j]
                    j += 1
                else:
                    buf[k] = perm[i]
                    i += 1
                k += 1
            while i < mid:
                buf[k] = perm[i]
                i += 1
                k += 1
            while j < hi:
                buf[k] = perm[j]
                j += 1
                k += 1
        perm, buf = buf, perm
        width *= 2
    return perm


@njit(**_K)
def group_rows(keys, perm, group):
    """group[i] = the run number of row perm[i] among equal neighbours (NaN equals nothing);
    returns the number of runs."""
    n = perm.shape[0]
    g = 0
    for i in range(n):
        if i > 0:
            a = perm[i - 1]
            b = perm[i]
            for j in range(keys.shape[1]):
                if keys[a, j] != keys[b, j]:
                    g += 1
                    break
        group[i] = g
    return g + 1 if n else 0


@njit(**_K)
def collect(values, perm, group, uniq, inverse, counts):
    """The first row of each run into ``uniq``, each row's run number into ``inverse`` (in the
    original order) and each run's length into ``counts``."""
    for g in range(counts.shape[0]):
        counts[g] = 0
    for i in range(perm.shape[0]):
        g = group[i]
        r = perm[i]
        if counts[g] == 0:
            for j in range(values.shape[1]):
                uniq[g, j] = values[r, j]
        counts[g] += 1
        inverse[r] = g


def unique_rows(rows: np.ndarray, sort: bool) -> tuple:
    """(unique rows, inverse, counts) of a C-contiguous 2-D array: equal rows grouped after a
    lexicographic sort, or only where they are neighbours when ``sort`` is False."""
    n = rows.shape[0]
    # Comparisons need numbers: 16-bit floats compare as float32, and move as their bit patterns.
    narrow = rows.dtype in dtypes.NARROW_NUMPY
    keys = rows.astype(np.float32) if narrow else rows
    values = rows.view(np.uint16) if narrow else rows
    perm = lex_argsort(keys) if sort and n > 1 else np.arange(n, dtype=np.int64)
    group = np.empty(n, dtype=np.int64)
    n_groups = group_rows(keys, perm, group) if n else 0
    uniq = np.empty((n_groups, rows.shape[1]), dtype=rows.dtype)
    inverse = np.empty(n, dtype=np.int64)
    counts = np.empty(n_groups, dtype=np.int64)
    if n:
        collect(values, perm, group, uniq.view(values.dtype), inverse, counts)
    return uniq, inverse, counts
