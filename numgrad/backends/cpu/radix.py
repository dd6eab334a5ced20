"""LSD radix sort of rows for the CPU: values and their original positions, stable.

Values become unsigned keys whose integer order is PyTorch's sort order (-0.0 equal to 0.0, NaN
after +inf; all bits flipped for descending). Each key, less the row's smallest, is packed above
its index into one 64-bit word, so the radix passes move key and index together and the sort is
stable by construction; keys too wide to share a word with the index travel beside it. Rows of a
few values are sorted by insertion instead.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

from .parallel import parallel_njit

_K = dict(cache=True, error_model="numpy", nogil=True)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_MAX_PASSES = 8
# Byte digits: a pass writes to 2**d places at once, and 256 of them stay within the first-level
# cache and TLB even when other processes share the core; 2048 would save a pass on an idle
# machine but ran 2-3 times slower per pass on a busy one.
_MAX_DIGIT = 8
_INSERTION_MAX = 16
# Keys of 25 to 34 bits whose top bits take few values (floats: the sign and the exponent) sort
# in three passes: two of 10-bit digits, which cost little more per pass than bytes, and one over
# the rest, which writes to only as many places as its digit takes values. A sample of the keys
# tells whether the top is sparse; rows shorter than _SPARSE_MIN_N would not repay its counters.
_LOW = 10
_TOP_MAX = 14
_SPARSE_MIN_N = 1 << 16
_SAMPLE = 1024
_SPARSE_VALUES = 256


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
def _keys(bits, keys, top, inf, wmask, sh, is_float, descending):
    """keys[j] = the key of bits[j], in a loop the compiler vectorizes (the passes that follow
    cannot be); returns the smallest and largest key and how many values the key cannot give
    back (-0.0 and NaN, see _restore)."""
    kmin = wmask
    kmax = np.uint64(0)
    lossy = 0
    for j in range(bits.shape[0]):
        b = np.uint64(bits[j])
        k = _key(b, top, inf, wmask, sh, is_float, descending)
        keys[j] = k
        kmin = min(kmin, k)
        kmax = max(kmax, k)
        if is_float:
            lossy += np.int64(b == top) + np.int64((b & (wmask ^ top)) > inf)
    return kmin, kmax, lossy


@njit(**_K)
def _digits(R, n):
    """Passes and digit width for LSD passes over n words with R-bit keys: the cheapest plan
    with digits of at most 8 bits, a pass costing a read and a write of every word plus
    clearing and summing its 2**d counters."""
    if R == 0:
        return 0, 1
    best, best_cost = 0, 0
    for npass in range((R + _MAX_DIGIT - 1) // _MAX_DIGIT, _MAX_PASSES + 1):
        cost = npass * (n + 2 * (1 << ((R + npass - 1) // npass)))
        if best == 0 or cost < best_cost:
            best, best_cost = npass, cost
    return best, (R + best - 1) // best


@njit(**_K)
def _histograms(keys, hist, base, npass, d):
    """hist[p, v] = how many keys, less ``base``, have digit p (``d`` bits) equal to v, for all
    passes in one read."""
    nb = 1 << d
    m = np.uint64(nb - 1)
    hist[:npass, :nb] = 0
    # Unrolled by hand for the common pass counts: a loop over the passes per key runs several
    # times slower.
    s1, s2, s3 = np.uint64(d), np.uint64(2 * d), np.uint64(3 * d)
    n = keys.shape[0]
    if npass == 1:
        for j in range(n):
            hist[0, (np.uint64(keys[j]) - base) & m] += 1
    elif npass == 2:
        for j in range(n):
            k = np.uint64(keys[j]) - base
            hist[0, k & m] += 1
            hist[1, (k >> s1) & m] += 1
    elif npass == 3:
        for j in range(n):
            k = np.uint64(keys[j]) - base
            hist[0, k & m] += 1
            hist[1, (k >> s1) & m] += 1
            hist[2, (k >> s2) & m] += 1
    elif npass == 4:
        for j in range(n):
            k = np.uint64(keys[j]) - base
            hist[0, k & m] += 1
            hist[1, (k >> s1) & m] += 1
            hist[2, (k >> s2) & m] += 1
            hist[3, (k >> s3) & m] += 1
    else:
        for j in range(n):
            k = np.uint64(keys[j]) - base
            for p in range(npass):
                hist[p, (k >> np.uint64(p * d)) & m] += 1


@njit(**_K)
def _starts(counts, nb):
    """Turn digit counts into each digit's first output position, in place."""
    acc = 0
    for v in range(nb):
        c = counts[v]
        counts[v] = acc
        acc += c


@njit(inline="always")
def _moves(hist, t, d, width, n, first):
    """Whether pass t (digits of ``d`` bits below it, its own of ``width``) moves anything: a
    digit equal across the ``n`` keys (``first`` is the first key) leaves their order as it
    is."""
    return hist[t, (first >> np.uint64(t * d)) & np.uint64((1 << width) - 1)] != n


@njit(**_K)
def _skewed(counts, nb, n):
    """Whether the commonest digit takes more than one word in eight."""
    most = 0
    for v in range(nb):
        most = max(most, counts[v])
    return most * 8 > n


@njit(inline="always")
def _put4(dst, pos, w0, w1, w2, w3, v0, v1, v2, v3):
    """Place four consecutive words: their counts are read together and corrected for the
    digits repeated among them, so no word waits on another's count going through memory."""
    q0 = pos[v0]
    q1 = pos[v1] + (v1 == v0)
    q2 = pos[v2] + (v2 == v0) + (v2 == v1)
    q3 = pos[v3] + (v3 == v0) + (v3 == v1) + (v3 == v2)
    # In order, so that a digit repeated in the group ends with its last count.
    pos[v0] = q0 + 1
    pos[v1] = q1 + 1
    pos[v2] = q2 + 1
    pos[v3] = q3 + 1
    # Unsigned indices: no negative-index wraparound check in the hot loop.
    dst[np.uint64(q0)] = w0
    dst[np.uint64(q1)] = w1
    dst[np.uint64(q2)] = w2
    dst[np.uint64(q3)] = w3


@njit(inline="always")
def _put(dst, pos, w, v):
    q = pos[v]
    pos[v] = q + 1
    dst[np.uint64(q)] = w


@njit(inline="always")
def _word(keys, j, base, ibu):
    """Key j, less ``base``, above its index ``j``."""
    return ((np.uint64(keys[j]) - base) << ibu) | np.uint64(j)


@njit(**_K)
def _scatter_keys(keys, dst, pos, shift, m, base, ibu, skewed):
    """The first pass: each key, less ``base``, packed above its index on its way to
    ``dst``. ``skewed``: few digits take most keys (see _put4)."""
    n = keys.shape[0]
    s = shift + ibu
    if not skewed:
        # A loop of its own from 0: one starting at a variable bound ran half as fast again.
        for j in range(n):
            w = _word(keys, j, base, ibu)
            _put(dst, pos, w, (w >> s) & m)
        return
    end = n - n % 4
    for j in range(0, end, 4):
        w0, w1 = _word(keys, j, base, ibu), _word(keys, j + 1, base, ibu)
        w2, w3 = _word(keys, j + 2, base, ibu), _word(keys, j + 3, base, ibu)
        _put4(dst, pos, w0, w1, w2, w3, (w0 >> s) & m, (w1 >> s) & m, (w2 >> s) & m,
              (w3 >> s) & m)
    for j in range(end, n):
        w = _word(keys, j, base, ibu)
        _put(dst, pos, w, (w >> s) & m)


@njit(**_K)
def _scatter(src, dst, pos, shift, m, skewed):
    n = src.shape[0]
    if not skewed:
        for i in range(n):
            w = src[i]
            _put(dst, pos, w, (w >> shift) & m)
        return
    end = n - n % 4
    for i in range(0, end, 4):
        w0, w1, w2, w3 = src[i], src[i + 1], src[i + 2], src[i + 3]
        _put4(dst, pos, w0, w1, w2, w3, (w0 >> shift) & m, (w1 >> shift) & m,
              (w2 >> shift) & m, (w3 >> shift) & m)
    for i in range(end, n):
        w = src[i]
        _put(dst, pos, w, (w >> shift) & m)


@njit(**_K)
def _scatter_pairs(keys, idx, keys_to, idx_to, pos, shift, m):
    for i in range(keys.shape[0]):
        k = keys[i]
        v = (k >> shift) & m
        q = np.uint64(pos[v])
        pos[v] += 1
        keys_to[q] = k
        idx_to[q] = idx[i]


@njit(**_K)
def _pack(keys, words, base, ibu):
    for j in range(keys.shape[0]):
        words[j] = _word(keys, j, base, ibu)


@njit(**_K)
def _insertion(words):
    """Sort a few words in place (all distinct: each holds its index)."""
    for i in range(1, words.shape[0]):
        w = words[i]
        j = i
        while j > 0 and words[j - 1] > w:
            words[j] = words[j - 1]
            j -= 1
        words[j] = w


@njit(**_K)
def _unpack(words, out_bits, ibu, base, top, wmask, sh, is_float, descending):
    """Split each sorted word, in place, into its index (left in ``words``) and its value."""
    imask = (np.uint64(1) << ibu) - np.uint64(1)
    for i in range(words.shape[0]):
        w = words[i]
        words[i] = w & imask
        out_bits[i] = _unkey((w >> ibu) + base, top, wmask, sh, is_float, descending)


@njit(**_K)
def _restore(bits, out_bits, out_idx, top, inf, wmask):
    """Copy back the values the key loses: the sign of -0.0 and NaN payloads."""
    for q in range(bits.shape[0]):
        a = np.uint64(out_bits[q]) & (wmask ^ top)
        if a == 0 or a > inf:
            out_bits[q] = bits[out_idx[q]]


@njit(**_K)
def _sparse_top(keys, base, shift, dt):
    """Whether few values, in a sample of the keys less ``base``, share their bits from
    ``shift`` up (``dt`` bits)."""
    seen = np.zeros(1 << dt, dtype=np.uint8)
    step = keys.shape[0] // _SAMPLE
    distinct = 0
    for s in range(_SAMPLE):
        v = (np.uint64(keys[s * step]) - base) >> shift
        distinct += 1 - seen[v]
        seen[v] = 1
    return distinct <= _SPARSE_VALUES


@njit(**_K)
def _sparse_histograms(keys, base, dt):
    """The digit counts of the sparse-top plan: rows 0 and 1 for the two 10-bit digits, row 2
    for the ``dt`` bits above them."""
    hist = np.zeros((3, 1 << max(_LOW, dt)), dtype=np.int64)
    m = np.uint64((1 << _LOW) - 1)
    s1, s2 = np.uint64(_LOW), np.uint64(2 * _LOW)
    for j in range(keys.shape[0]):
        k = np.uint64(keys[j]) - base
        hist[0, k & m] += 1
        hist[1, (k >> s1) & m] += 1
        hist[2, k >> s2] += 1
    return hist


@njit(**_K)
def _sort_packed(keys, out_bits, out_idx, a, hist, base, R, ibu, top, wmask, sh, is_float,
                 descending):
    """Keys sharing words with their indices: LSD passes back and forth between ``a`` and
    ``out_idx``, the first reading the keys, the last landing in ``out_idx``, where the words
    are unpacked. ``keys`` may be ``out_bits``: only the first pass reads them."""
    n = keys.shape[0]
    if n <= _INSERTION_MAX:
        _pack(keys, out_idx, base, ibu)
        _insertion(out_idx)
    else:
        # Digits of d bits, the last of dlast; the sparse plan only pays where byte digits
        # would take four passes.
        if (n >= _SPARSE_MIN_N and 3 * _MAX_DIGIT < R <= 2 * _LOW + _TOP_MAX
                and _sparse_top(keys, base, np.uint64(2 * _LOW), R - 2 * _LOW)):
            npass, d, dlast = 3, _LOW, R - 2 * _LOW
            hist = _sparse_histograms(keys, base, dlast)
        else:
            npass, d = _digits(R, n)
            dlast = d
            _histograms(keys, hist, base, npass, d)
        first = np.uint64(keys[0]) - base
        moving = 0
        for t in range(npass):
            moving += _moves(hist, t, d, dlast if t == npass - 1 else d, n, first)
        if moving == 0:
            _pack(keys, out_idx, base, ibu)
        done = 0
        for t in range(npass):
            width = dlast if t == npass - 1 else d
            if not _moves(hist, t, d, width, n, first):
                continue
            pos = hist[t]
            skewed = _skewed(pos, 1 << width, n)
            _starts(pos, 1 << width)
            shift = np.uint64(t * d)
            m = np.uint64((1 << width) - 1)
            # An odd number of passes left starts in out_idx, an even one in a.
            left = moving - done
            dst = out_idx if left % 2 else a
            if done == 0:
                _scatter_keys(keys, dst, pos, shift, m, base, ibu, skewed)
            else:
                _scatter(a if left % 2 else out_idx, dst, pos, ibu + shift, m, skewed)
            done += 1
    _unpack(out_idx, out_bits, ibu, base, top, wmask, sh, is_float, descending)


@njit(**_K)
def _sort_pairs(keys, out_bits, out_idx, ka, kb, ib, hist, base, R, top, wmask, sh, is_float,
                descending):
    """Keys as wide as 64 bits with the index beside them: the same LSD passes on two arrays."""
    n = keys.shape[0]
    npass, d = _digits(R, n)
    m = np.uint64((1 << d) - 1)
    for j in range(n):
        ka[j] = np.uint64(keys[j]) - base
        out_idx[j] = j
    _histograms(ka, hist, np.uint64(0), npass, d)
    first = ka[0]
    ia = out_idx
    for t in range(npass):
        if _moves(hist, t, d, d, n, first):
            _starts(hist[t], 1 << d)
            _scatter_pairs(ka, ia, kb, ib, hist[t], np.uint64(t * d), m)
            ka, kb = kb, ka
            ia, ib = ib, ia
    for i in range(n):
        out_idx[i] = ia[i]
        out_bits[i] = _unkey(ka[i] + base, top, wmask, sh, is_float, descending)


@njit(**_K)
def _sort_row(bits, out_bits, out_idx, a, b, ib, hist, top, inf, is_float, descending):
    n = bits.shape[0]
    W = bits.itemsize * 8
    sh = np.uint64(W - 1)
    wmask = _ALL >> np.uint64(64 - W)
    ibu = np.uint64(_bitlen(np.uint64(n - 1)))
    # The keys wait in the values' own buffer until the first pass has read them.
    kmin, kmax, lossy = _keys(bits, out_bits, top, inf, wmask, sh, is_float, descending)
    R = _bitlen(kmax - kmin)
    if R + ibu <= 64:
        _sort_packed(out_bits, out_bits, out_idx, a, hist, kmin, R, ibu, top, wmask, sh,
                     is_float, descending)
    else:
        _sort_pairs(out_bits, out_bits, out_idx, a, b, ib, hist, kmin, R, top, wmask, sh,
                    is_float, descending)
    if is_float and lossy:
        _restore(bits, out_bits, out_idx, top, inf, wmask)


@njit(**_K)
def sort_rows(bits, out_bits, out_idx, a, b, ib, top, inf, is_float, descending):
    """Stable sort of each row of ``bits`` (values as unsigned integers) into ``out_bits``, with
    the original positions in ``out_idx`` (uint64). ``a`` is a scratch row of uint64; ``b`` and
    ``ib`` too when keys may be too wide to share a word with the index, else empty."""
    hist = np.empty((_MAX_PASSES, 1 << _MAX_DIGIT), dtype=np.int64)
    for r in range(bits.shape[0]):
        _sort_row(bits[r], out_bits[r], out_idx[r], a, b, ib, hist, top, inf, is_float,
                  descending)


@parallel_njit(**_K)
def sort_rows_par(bits, out_bits, out_idx, chunks, wide, top, inf, is_float, descending):
    rows, n = bits.shape
    per = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        a = np.empty(n, dtype=np.uint64)
        b = np.empty(n if wide else 0, dtype=np.uint64)
        ib = np.empty(n if wide else 0, dtype=np.uint64)
        hist = np.empty((_MAX_PASSES, 1 << _MAX_DIGIT), dtype=np.int64)
        for r in range(c * per, min(rows, (c + 1) * per)):
            _sort_row(bits[r], out_bits[r], out_idx[r], a, b, ib, hist, top, inf, is_float,
                      descending)
