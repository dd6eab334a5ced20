"""Sort kernels for the CPU: stable argsort of rows, binary search and run-length grouping.

Values are first mapped to unsigned keys whose integer order is PyTorch's sort order (-0.0 equal
to 0.0, NaN after +inf; all bits flipped for descending), so one stable unsigned sort serves
every dtype and direction: an LSD radix sort for long rows, a merge sort for short ones.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

_RADIX_MIN = 256
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@njit(cache=True, nogil=True)
def float_keys(x, bits, out, top, descending):
    """Order-preserving unsigned keys of float rows ``x``, whose bit patterns are ``bits``."""
    rows, n = x.shape
    for r in range(rows):
        for j in range(n):
            v = x[r, j]
            b = bits[r, j]
            if v != v:
                k = ~(b ^ b)
            elif v == 0:
                k = top
            elif b & top:
                k = ~b
            else:
                k = b | top
            out[r, j] = ~k if descending else k


@njit(cache=True, nogil=True)
def int_keys(bits, out, top, descending):
    """Order-preserving unsigned keys of integer rows given as unsigned ``bits``: the sign bit
    flipped for signed types (``top`` is 0 for unsigned ones)."""
    rows, n = bits.shape
    for r in range(rows):
        for j in range(n):
            k = bits[r, j] ^ top
            out[r, j] = ~k if descending else k


@njit(cache=True, nogil=True)
def _radix_argsort(keys, perm, shifts, mask):
    """Stable LSD radix argsort of one row of unsigned keys, one digit per entry of ``shifts``;
    digits that are equal across the row are skipped. All histograms come from one pass."""
    n = keys.shape[0]
    npass = shifts.shape[0]
    nb = np.int64(mask) + 1
    hist = np.zeros((npass, nb), dtype=np.int64)
    for i in range(n):
        k = keys[i]
        for p in range(npass):
            hist[p, np.int64((k >> shifts[p]) & mask)] += 1
    src_k = keys.copy()
    dst_k = np.empty_like(keys)
    src_i = np.arange(n)
    dst_i = np.empty(n, dtype=np.int64)
    pos = np.empty(nb, dtype=np.int64)
    for p in range(npass):
        h = hist[p]
        if h[np.int64((keys[0] >> shifts[p]) & mask)] == n:
            continue
        acc = 0
        for b in range(nb):
            pos[b] = acc
            acc += h[b]
        shift = shifts[p]
        for i in range(n):
            k = src_k[i]
            b = np.int64((k >> shift) & mask)
            q = pos[b]
            pos[b] = q + 1
            # Unsigned positions: no negative-index wraparound in the hot loop.
            dst_k[np.uint64(q)] = k
            dst_i[np.uint64(q)] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
    perm[:] = src_i


@njit(cache=True, nogil=True)
def _argsort_row(keys, perm, shifts, mask):
    if keys.shape[0] >= _RADIX_MIN:
        _radix_argsort(keys, perm, shifts, mask)
    else:
        perm[:] = np.argsort(keys, kind="mergesort")


@njit(cache=True, nogil=True)
def argsort_rows(keys, perm, shifts, mask):
    """Stable ascending argsort of each row of ``keys`` into ``perm``."""
    for r in range(keys.shape[0]):
        _argsort_row(keys[r], perm[r], shifts, mask)


@njit(cache=True, nogil=True, parallel=True)
def argsort_rows_par(keys, perm, shifts, mask):
    for r in prange(keys.shape[0]):
        _argsort_row(keys[r], perm[r], shifts, mask)


@njit(cache=True, nogil=True)
def take_rows(x, perm, out, k):
    """out[r, j] = x[r, perm[r, j]] for the first ``k`` columns."""
    for r in range(x.shape[0]):
        for j in range(k):
            out[r, j] = x[r, np.uint64(perm[r, j])]


@njit(cache=True, nogil=True, parallel=True)
def take_rows_par(x, perm, out, k):
    for r in prange(x.shape[0]):
        for j in range(k):
            out[r, j] = x[r, np.uint64(perm[r, j])]


@njit(cache=True, nogil=True)
def searchsorted(seq, values, right, out):
    """For each row: out[r, j] = the insertion point of values[r, j] in sorted seq[r] (seq has
    one row for all, or one per values row)."""
    m = seq.shape[1]
    shared = seq.shape[0] == 1
    for r in range(values.shape[0]):
        s = seq[0] if shared else seq[r]
        for j in range(values.shape[1]):
            v = values[r, j]
            lo, hi = 0, m
            while lo < hi:
                mid = (lo + hi) >> 1
                a = s[mid]
                # PyTorch's comparisons: a NaN value goes after everything.
                go_right = not (v < a) if right else not (v <= a)
                if go_right:
                    lo = mid + 1
                else:
                    hi = mid
            out[r, j] = lo


@njit(cache=True, nogil=True)
def group_runs(sorted_keys, group):
    """group[i] = the run number of sorted_keys[i]; returns the number of runs."""
    n = sorted_keys.shape[0]
    g = 0
    for i in range(n):
        if i > 0 and sorted_keys[i] != sorted_keys[i - 1]:
            g += 1
        group[i] = g
    return g + 1 if n else 0


@njit(cache=True, nogil=True)
def unique_scatter(perm, group, values, n_groups, uniq, inverse, counts):
    """Scatter the sort's run numbers back: the first value, the inverse map and the size of
    each run."""
    for i in range(n_groups):
        counts[i] = 0
    for i in range(perm.shape[0]):
        g = group[i]
        if counts[g] == 0:
            uniq[g] = values[perm[i]]
        counts[g] += 1
        inverse[perm[i]] = g


def keys_of(rows: np.ndarray, descending: bool) -> np.ndarray:
    """Unsigned sort keys (as wide as the values) of a 2-D C-contiguous array."""
    dt = rows.dtype
    if dt == np.float16:
        rows = rows.astype(np.float32)
        dt = rows.dtype
    udt = _UNSIGNED[dt.itemsize]
    out = np.empty(rows.shape, dtype=udt)
    bits = rows.view(udt)
    if dt.kind == "f":
        float_keys(rows, bits, out, udt(1) << udt(8 * dt.itemsize - 1), descending)
    else:
        top = udt(1) << udt(8 * dt.itemsize - 1) if dt.kind == "i" else udt(0)
        int_keys(bits, out, top, descending)
    return out


def argsort(rows: np.ndarray, descending: bool) -> np.ndarray:
    """Stable argsort (int64) of each row of a 2-D C-contiguous array, in PyTorch's order."""
    keys = keys_of(rows, descending)
    perm = np.empty(rows.shape, dtype=np.int64)
    if rows.size == 0:
        return perm
    udt = keys.dtype.type
    # Wider digits mean fewer passes but bigger histograms: worth it only for long rows.
    digit = 11 if rows.shape[1] >= (1 << 16) and keys.itemsize > 2 else 8
    shifts = np.arange(0, 8 * keys.itemsize, digit).astype(keys.dtype)
    fn = argsort_rows_par if rows.shape[0] > 1 and rows.size >= (1 << 21) else argsort_rows
    fn(keys, perm, shifts, udt((1 << digit) - 1))
    return perm


def take(rows: np.ndarray, perm: np.ndarray, k: int) -> np.ndarray:
    out = np.empty((rows.shape[0], k), dtype=rows.dtype)
    if out.size == 0:
        return out
    src, dst = rows, out
    if rows.dtype == np.float16:
        src, dst = rows.view(np.uint16), out.view(np.uint16)
    (take_rows_par if rows.size >= (1 << 21) else take_rows)(src, perm, dst, k)
    return out
