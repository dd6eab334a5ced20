"""LSD radix sort of rows for the CPU: values and their original positions, stable.

Values become unsigned keys whose integer order is PyTorch's sort order (-0.0 equal to 0.0, NaN
after +inf; all bits flipped for descending). Each key, less the row's smallest, is packed above
its index into one 64-bit word, so the radix passes move key and index together and the sort is
stable by construction; keys too wide to share a word with the index travel beside it.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

_K = dict(cache=True, error_model="numpy", nogil=True)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_MAX_PASSES = 8
_SPLIT_MIN = 1 << 14


@njit(inline="always")
def _key(b, top, inf, wmask, sh, is_float, descending):
    """The sort key of the bits ``b`` of one value. Branch-free: the sign of random data would
    defeat the branch predictor."""
    b = np.uint64(b)
    if is_float:
        k = b ^ (top | ((np.uint64(0) - (b >> sh)) & wmask))
        k ^= wmask * np.uint64(b == top)
        k |= wmask * np.uint64((b & (wmask ^ top)) > inf)
    else:
        k = b ^ top
    return k ^ (wmask * np.uint64(descending))


@njit(inline="always")
def _unkey(k, top, wmask, sh, is_float, descending):
    """The bits of the value whose key is ``k`` (-0.0 and NaN payloads aside, see _restore)."""
    k ^= wmask * np.uint64(descending)
    if not is_float:
        return k ^ top
    return k ^ (top | (((k >> sh) - np.uint64(1)) & wmask))


@njit(inline="always")
def _bitlen(v):
    r = 0
    while v:
        v >>= np.uint64(1)
        r += 1
    return r


@njit(**_K)
def _key_range(bits, top, inf, wmask, sh, is_float, descending):
    kmin = wmask
    kmax = np.uint64(0)
    for j in range(bits.shape[0]):
        k = _key(bits[j], top, inf, wmask, sh, is_float, descending)
        kmin = min(kmin, k)
        kmax = max(kmax, k)
    return kmin, kmax


@njit(**_K)
def _pack(bits, words, base, ibu, top, inf, wmask, sh, is_float, descending):
    """words[j] = (key_j - base) << ibu | j; returns the smallest and largest key and how many
    values the key cannot give back (-0.0 and NaN, see _restore)."""
    kmin = wmask
    kmax = np.uint64(0)
    lossy = 0
    for j in range(bits.shape[0]):
        b = np.uint64(bits[j])
        k = _key(b, top, inf, wmask, sh, is_float, descending)
        kmin = min(kmin, k)
        kmax = max(kmax, k)
        words[j] = ((k - base) << ibu) | np.uint64(j)
        if is_float:
            lossy += np.int64(b == top) + np.int64((b & (wmask ^ top)) > inf)
    return kmin, kmax, lossy


@njit(**_K)
def _fill_keys(bits, keys, idx, base, top, inf, wmask, sh, is_float, descending):
    for j in range(bits.shape[0]):
        keys[j] = _key(bits[j], top, inf, wmask, sh, is_float, descending) - base
        idx[j] = j


@njit(**_K)
def _rebase(words, delta):
    for i in range(words.shape[0]):
        words[i] -= delta


@njit(inline="always")
def _count(h, k, P):
    """Count the first P bytes of key ``k`` (``P`` is a literal at every call site, so the
    tests below fold away and the shifts are constants)."""
    m = np.uint64(255)
    h[0, np.int64(k & m)] += 1
    if P > 1:
        h[1, np.int64((k >> np.uint64(8)) & m)] += 1
    if P > 2:
        h[2, np.int64((k >> np.uint64(16)) & m)] += 1
        h[3, np.int64((k >> np.uint64(24)) & m)] += 1
    if P > 4:
        h[4, np.int64((k >> np.uint64(32)) & m)] += 1
        h[5, np.int64((k >> np.uint64(40)) & m)] += 1
        h[6, np.int64((k >> np.uint64(48)) & m)] += 1
        h[7, np.int64((k >> np.uint64(56)) & m)] += 1


@njit(inline="always")
def _count_pairs(words, h0, h1, ibu, P):
    for i in range(0, words.shape[0] - 1, 2):
        _count(h0, words[i] >> ibu, P)
        _count(h1, words[i + 1] >> ibu, P)


@njit(**_K)
def _histograms(words, hist, ibu, npass, d):
    """hist[0, p, v] = how many words have digit p (``d`` bits, above bit ``ibu``) equal to v,
    for all passes in one read. Even and odd words count into separate tables: skewed data
    (the exponent byte of floats) would otherwise chain each increment on the previous one."""
    nb = 1 << d
    m = np.uint64(nb - 1)
    n = words.shape[0]
    # Short rows count into one table: clearing and merging a second costs more than it saves.
    split = n >= _SPLIT_MIN
    h0 = hist[0]
    h1 = hist[1] if split else h0
    rows = 1 if npass == 1 else 2 if npass == 2 else 4 if npass <= 4 else 8
    h0[:rows, :nb] = 0
    h1[:rows, :nb] = 0
    # Unrolled by hand: a loop over the passes per word runs several times slower.
    if npass == 1:
        for i in range(0, n - 1, 2):
            h0[0, np.int64((words[i] >> ibu) & m)] += 1
            h1[0, np.int64((words[i + 1] >> ibu) & m)] += 1
    elif npass == 2:
        _count_pairs(words, h0, h1, ibu, 2)
    elif npass <= 4:
        _count_pairs(words, h0, h1, ibu, 4)
    else:
        _count_pairs(words, h0, h1, ibu, 8)
    if n % 2:
        k = words[n - 1] >> ibu
        for p in range(npass):
            h0[p, np.int64((k >> np.uint64(p * d)) & m)] += 1
    if split:
        for p in range(npass):
            for v in range(nb):
                h0[p, v] += h1[p, v]


@njit(**_K)
def _starts(counts, nb):
    """Turn digit counts into each digit's first output position, in place."""
    acc = 0
    for v in range(nb):
        c = counts[v]
        counts[v] = acc
        acc += c


@njit(**_K)
def _scatter(src, dst, pos, shift, m):
    for i in range(src.shape[0]):
        w = src[i]
        v = np.int64((w >> shift) & m)
        q = pos[v]
        pos[v] = q + 1
        # An unsigned position: no negative-index wraparound check in the hot loop.
        dst[np.uint64(q)] = w


@njit(**_K)
def _scatter_pairs(keys, idx, keys_to, idx_to, pos, shift, m):
    for i in range(keys.shape[0]):
        k = keys[i]
        v = np.int64((k >> shift) & m)
        q = np.uint64(pos[v])
        pos[v] += 1
        keys_to[q] = k
        idx_to[q] = idx[i]


@njit(**_K)
def _digits(R):
    """Passes and digit width for R-bit keys: one pass up to 11 bits (2048 buckets), else
    bytes, whose 256 write streams stay in L1."""
    if R == 0:
        return 0, 1
    if R <= 11:
        return 1, R
    return (R + 7) // 8, 8


@njit(**_K)
def _radix(a, b, hist, R, ibu):
    """Stable LSD radix sort of the words in ``a`` by their R key bits above bit ``ibu``; digits
    equal across the row are skipped. Returns the buffer holding the result."""
    npass, d = _digits(R)
    if npass == 0:
        return a
    nb = 1 << d
    m = np.uint64(nb - 1)
    _histograms(a, hist, ibu, npass, d)
    n = a.shape[0]
    first = a[0] >> ibu
    src, dst = a, b
    for t in range(npass):
        pos = hist[0, t]
        shift = np.uint64(t * d)
        if pos[np.int64((first >> shift) & m)] == n:
            continue
        _starts(pos, nb)
        _scatter(src, dst, pos, ibu + shift, m)
        src, dst = dst, src
    return src


@njit(**_K)
def _unpack(words, out_bits, out_idx, ibu, base, top, wmask, sh, is_float, descending):
    imask = (np.uint64(1) << ibu) - np.uint64(1)
    for i in range(words.shape[0]):
        w = words[i]
        out_idx[i] = np.int64(w & imask)
        out_bits[i] = _unkey((w >> ibu) + base, top, wmask, sh, is_float, descending)


@njit(**_K)
def _restore(bits, out_bits, out_idx, top, inf, wmask):
    """Copy back the values the key loses: the sign of -0.0 and NaN payloads."""
    for q in range(bits.shape[0]):
        a = np.uint64(out_bits[q]) & (wmask ^ top)
        if a == 0 or a > inf:
            out_bits[q] = bits[out_idx[q]]


@njit(**_K)
def _sort_row_pairs(bits, out_bits, out_idx, ka, kb, ia, ib, hist, top, inf, wmask, sh,
                    is_float, descending):
    """Keys as wide as 64 bits with the index beside them: the same LSD passes on two arrays."""
    kmin, kmax = _key_range(bits, top, inf, wmask, sh, is_float, descending)
    _fill_keys(bits, ka, ia, kmin, top, inf, wmask, sh, is_float, descending)
    npass, d = _digits(_bitlen(kmax - kmin))
    nb = 1 << d
    m = np.uint64(nb - 1)
    z = np.uint64(0)
    _histograms(ka, hist, z, npass, d)
    n = bits.shape[0]
    for t in range(npass):
        pos = hist[0, t]
        shift = np.uint64(t * d)
        if pos[np.int64((ka[0] >> shift) & m)] == n:
            continue
        _starts(pos, nb)
        _scatter_pairs(ka, ia, kb, ib, pos, shift, m)
        ka, kb = kb, ka
        ia, ib = ib, ia
    for i in range(n):
        out_idx[i] = np.int64(ia[i])
        out_bits[i] = _unkey(ka[i] + kmin, top, wmask, sh, is_float, descending)


@njit(**_K)
def _sort_row(bits, out_bits, out_idx, a, b, ia, ib, hist, top, inf, is_float, descending):
    n = bits.shape[0]
    W = bits.itemsize * 8
    sh = np.uint64(W - 1)
    wmask = _ALL >> np.uint64(64 - W)
    ibu = np.uint64(_bitlen(np.uint64(n - 1)))
    packed = True
    lossy = 1
    if W + ibu > 64:
        kmin, kmax = _key_range(bits, top, inf, wmask, sh, is_float, descending)
        R = _bitlen(kmax - kmin)
        packed = R + ibu <= 64
        base = kmin
        if packed:
            lossy = _pack(bits, a, base, ibu, top, inf, wmask, sh, is_float, descending)[2]
        else:
            _sort_row_pairs(bits, out_bits, out_idx, a, b, ia, ib, hist, top, inf, wmask, sh,
                            is_float, descending)
    else:
        base = np.uint64(0)
        kmin, kmax, lossy = _pack(bits, a, base, ibu, top, inf, wmask, sh, is_float, descending)
        R = _bitlen(kmax)
        # Subtracting the smallest key is a pass of its own: worth it when it saves a digit.
        if _digits(_bitlen(kmax - kmin))[0] < _digits(R)[0]:
            _rebase(a, kmin << ibu)
            base = kmin
            R = _bitlen(kmax - kmin)
    if packed:
        res = _radix(a, b, hist, R, ibu)
        _unpack(res, out_bits, out_idx, ibu, base, top, wmask, sh, is_float, descending)
    if is_float and lossy:
        _restore(bits, out_bits, out_idx, top, inf, wmask)


@njit(**_K)
def sort_rows(bits, out_bits, out_idx, a, b, ia, ib, top, inf, is_float, descending):
    """Stable sort of each row of ``bits`` (values as unsigned integers) into ``out_bits``, with
    the original positions in ``out_idx``. ``a``/``b`` (uint64) and ``ia``/``ib`` (wide keys
    only) are scratch rows."""
    hist = np.empty((2, _MAX_PASSES, 2048), dtype=np.int64)
    for r in range(bits.shape[0]):
        _sort_row(bits[r], out_bits[r], out_idx[r], a, b, ia, ib, hist, top, inf, is_float, descending)


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def sort_rows_par(bits, out_bits, out_idx, chunks, wide, top, inf, is_float, descending):
    rows, n = bits.shape
    per = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        a = np.empty(n, dtype=np.uint64)
        b = np.empty(n, dtype=np.uint64)
        ia = np.empty(n if wide else 0, dtype=np.uint64)
        ib = np.empty(n if wide else 0, dtype=np.uint64)
        hist = np.empty((2, _MAX_PASSES, 2048), dtype=np.int64)
        for r in range(c * per, min(rows, (c + 1) * per)):
            _sort_row(bits[r], out_bits[r], out_idx[r], a, b, ia, ib, hist, top, inf, is_float,
                      descending)
