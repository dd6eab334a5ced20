"""Sort kernels for the CPU: stable sort of rows (values and indices, see radix.py), binary
search and run-length grouping."""
from __future__ import annotations

import threading

import numba
import numpy as np
from numba import njit

from ... import dtypes
from .parallel import use_parallel
from .radix import sort_rows, sort_rows_par

_K = dict(cache=True, error_model="numpy", nogil=True)
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# The bit pattern of +inf of each floating type.
_INF_BITS = {dtypes.float16.numpy: 0x7C00, dtypes.bfloat16.numpy: 0x7F80, dtypes.float32.numpy: 0x7F800000,
             dtypes.float64.numpy: 0x7FF0000000000000}
_PARALLEL_THRESHOLD = 1 << 18
# Scratch kept for the next sort by the same thread, up to this size: fresh memory costs a page
# fault per page on first touch, as much as a radix pass.
_SCRATCH_KEEP_BYTES = 1 << 24
_scratch = threading.local()


def _scratch_words(n: int) -> np.ndarray:
    """n uint64 words of scratch, reused from this thread's last sort when big enough."""
    buf = getattr(_scratch, "words", None)
    if buf is None or buf.shape[0] < n:
        # Allocated by NumPy, which asks the kernel for huge pages: the radix passes' scattered
        # writes would otherwise miss the TLB.
        buf = np.empty(n, dtype=np.uint64)
        if buf.nbytes <= _SCRATCH_KEEP_BYTES:
            _scratch.words = buf
    return buf[:n]


def sort(rows: np.ndarray, descending: bool) -> tuple:
    """Stably sorted values and their int64 positions for each row of a 2-D C-contiguous array,
    in PyTorch's order."""
    dt = rows.dtype
    udt = _UNSIGNED[dt.itemsize]
    values = np.empty(rows.shape, dtype=dt)
    perm = np.empty(rows.shape, dtype=np.int64)
    if rows.size == 0:
        return values, perm
    w = 8 * dt.itemsize
    is_float = dt in _INF_BITS
    top = np.uint64(1 << (w - 1)) if is_float or dt.kind == "i" else np.uint64(0)
    inf = np.uint64(_INF_BITS.get(dt, 0))
    bits, out, idx = rows.view(udt), values.view(udt), perm.view(np.uint64)
    n = rows.shape[1]
    wide = 8 * dt.itemsize + (n - 1).bit_length() > 64  # key and index may overflow one word
    if rows.shape[0] > 1 and use_parallel(rows.size, _PARALLEL_THRESHOLD):
        # A few chunks per thread even out rows of uneven cost; each chunk reuses its scratch.
        chunks = min(rows.shape[0], 4 * numba.get_num_threads())
        sort_rows_par(bits, out, idx, chunks, wide, top, inf, is_float, bool(descending))
        return values, perm
    words = _scratch_words(3 * n if wide else n)
    a, b, ib = words[:n], words[n:2 * n], words[2 * n:]  # b and ib empty unless wide
    sort_rows(bits, out, idx, a, b, ib, top, inf, is_float, bool(descending))
    return values, perm


@njit(**_K)
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


@njit(**_K)
def group_runs(sorted_keys, group):
    """group[i] = the run number of sorted_keys[i]; returns the number of runs."""
    n = sorted_keys.shape[0]
    g = 0
    for i in range(n):
        if i > 0 and sorted_keys[i] != sorted_keys[i - 1]:
            g += 1
        group[i] = g
    return g + 1 if n else 0


@njit(**_K)
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
