"""The CPU generator's engine: a 32-bit Mersenne Twister (MT19937) and the way each distribution
turns its words into numbers, chosen so that a seed gives the numbers PyTorch's CPU generator gives.

An engine state is a uint32 array of 624 words plus one uint32 word holding the read position.
Kernels draw from it in the order the elements are listed and advance it in place.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

N = 624
_M = 397
_U32 = np.uint64(0xFFFFFFFF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_TWIST = np.uint64(0x9908B0DF)
_ONE = np.uint64(1)
_S1, _S7, _S11, _S15, _S18, _S30, _S32 = (np.uint64(k) for k in (1, 7, 11, 15, 18, 30, 32))
_B, _C = np.uint64(0x9D2C5680), np.uint64(0xEFC60000)
_INIT = np.uint64(1812433253)
_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)
# Integer ranges from here up take 64 random bits per draw, not 32 (less modulo bias).
WIDE_RANGE = 1 << 28
# Permutations from here up draw 64 bits per swap.
WIDE_PERMUTATION = 0xFFFFFFFF // 20


def new_state() -> np.ndarray:
    """An unseeded engine state (seed it with :func:`seed`)."""
    return np.zeros(N + 1, dtype=np.uint32)


@njit(cache=True, nogil=True)
def seed(state, s):
    """Knuth's initialisation from the low 32 bits of ``s``; the next draw regenerates."""
    prev = np.uint64(s) & _U32
    state[0] = prev
    for j in range(1, N):
        prev = (_INIT * (prev ^ (prev >> _S30)) + np.uint64(j)) & _U32
        state[j] = prev
    state[N] = N


@njit(cache=True, nogil=True)
def _twisted(state, k, nxt, far):
    y = (np.uint64(state[k]) & _UPPER) | (np.uint64(state[nxt]) & _LOWER)
    v = np.uint64(state[far]) ^ (y >> _S1)
    if y & _ONE:
        v ^= _TWIST
    return v


@njit(cache=True, nogil=True)
def _regenerate(state):
    # Three loops without index wraparound: the first two vectorize.
    for k in range(N - _M):
        state[k] = _twisted(state, k, k + 1, k + _M)
    for k in range(N - _M, N - 1):
        state[k] = _twisted(state, k, k + 1, k + _M - N)
    state[N - 1] = _twisted(state, N - 1, 0, _M - 1)
    state[N] = 0


@njit(cache=True, nogil=True)
def _tempered(y):
    y ^= y >> _S11
    y ^= (y << _S7) & _B
    y ^= (y << _S15) & _C
    y ^= y >> _S18
    return y & _U32


@njit(cache=True, nogil=True)
def _word(state):
    """The next tempered 32-bit word, as uint64."""
    if state[N] >= N:
        _regenerate(state)
    i = state[N]
    state[N] = i + 1
    return _tempered(np.uint64(state[i]))


@njit(cache=True, nogil=True)
def _words(state, buf, count):
    """buf[:count] = the next ``count`` words, a state's worth at a time."""
    pos = np.int64(state[N])
    k = 0
    while k < count:
        if pos >= N:
            _regenerate(state)
            pos = 0
        m = min(N - pos, count - k)
        for j in range(m):
            buf[k + j] = _tempered(np.uint64(state[pos + j]))
        pos += m
        k += m
    state[N] = pos


@njit(cache=True, nogil=True)
def _word64(state):
    """64 bits from two words, the first one high."""
    hi = _word(state)
    return (hi << _S32) | _word(state)


@njit(cache=True, nogil=True)
def _unit(state, bits):
    """A uniform double on [0, 1) with ``bits`` random bits: 53 take two words, fewer one."""
    if bits == 53:
        return np.float64(_word64(state) & _MASK53) * 2.0 ** -53
    return np.float64(_word(state) & ((_ONE << np.uint64(bits)) - _ONE)) * 2.0 ** -bits


@intrinsic
def fmadd(typingctx, a, b, c):
    """a * b + c rounded once, for float32 or float64: LLVM's fma, one instruction (vectorizable)
    on x86 with FMA3, as PyTorch's kernels compute it. Rounding a float32 a * b + c to
    float64 first, or adding a product's error separately, differs when the sum lies exactly
    halfway between two results."""
    if a not in (types.float32, types.float64) or not a == b == c:
        return None

    def codegen(context, builder, signature, args):
        f = context.get_value_type(a)
        name = "llvm.fma.f32" if a == types.float32 else "llvm.fma.f64"
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(f, [f, f, f]), name)
        return builder.call(fma, args)
    return a(a, a, a), codegen


# Dense fills draw their words this many elements at a time.
_CHUNK = 2048


@njit(cache=True, nogil=True)
def _units(state, buf, out, start, m, bits):
    """out[start:start + m] = uniform doubles with ``bits`` random bits (``buf`` holds 2 * m
    words)."""
    if bits == 53:
        _words(state, buf, 2 * m)
        for j in range(m):
            out[start + j] = np.float64(((buf[2 * j] << _S32) | buf[2 * j + 1]) & _MASK53) * 2.0 ** -53
    else:
        _words(state, buf, m)
        mask = (_ONE << np.uint64(bits)) - _ONE
        # Hoisted: Numba computes float ** int by a loop that LLVM leaves inside this one.
        scale = 2.0 ** -bits
        for j in range(m):
            out[start + j] = np.float64(buf[j] & mask) * scale


@njit(cache=True, nogil=True, error_model="numpy")
def uniform_single(out, state, low, span):
    """out[i] = u * span + low in float32, rounded once (a fused multiply-add), u with 24 random
    bits; ``low`` and ``span`` are float32."""
    scale = np.float32(2.0 ** -24)
    buf = np.empty(_CHUNK, np.uint64)
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        _words(state, buf, m)
        for j in range(m):
            out[start + j] = fmadd(np.float32(buf[j] & _MASK24) * scale, span, low)


@njit(cache=True, nogil=True, error_model="numpy")
def uniform_double(out, state, bits, low, span):
    """out[i] = u * span + low rounded once (a fused multiply-add), u with ``bits`` random bits."""
    buf = np.empty(2 * _CHUNK, np.uint64)
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        _units(state, buf, out, start, m, bits)
        for j in range(start, start + m):
            out[j] = fmadd(out[j], span, low)


@njit(cache=True, nogil=True, error_model="numpy")
def normal_pairs(out, state, cache, mean, std):
    """Box-Muller one element at a time, as for small or strided tensors: each pair of doubles
    gives two normals, the second kept in ``cache`` (``[valid, value]``) for the next element,
    also across calls."""
    two_pi = 2.0 * np.pi
    for i in range(out.shape[0]):
        if cache[0] != 0.0:
            cache[0] = 0.0
            z = cache[1]
        else:
            u1 = _unit(state, 53)
            u2 = _unit(state, 53)
            r = np.sqrt(-2.0 * np.log1p(-u2))
            theta = two_pi * u1
            cache[0] = 1.0
            cache[1] = r * np.sin(theta)
            z = r * np.cos(theta)
        out[i] = fmadd(z, std, mean)


@njit(cache=True, nogil=True, error_model="numpy")
def _box_muller_16(out, start, mean, std, fused):
    # Uniforms u[0:8] and u[8:16] of the block become the cosine and sine halves of 8 pairs.
    two_pi = 2.0 * np.pi
    for j in range(8):
        u1 = 1.0 - np.float64(out[start + j])
        u2 = np.float64(out[start + j + 8])
        r = np.sqrt(-2.0 * np.log(u1))
        theta = two_pi * u2
        if fused:
            out[start + j] = fmadd(r * np.cos(theta), std, mean)
            out[start + j + 8] = fmadd(r * np.sin(theta), std, mean)
        else:
            out[start + j] = r * np.cos(theta) * std + mean
            out[start + j + 8] = r * np.sin(theta) * std + mean


@njit(cache=True, nogil=True, error_model="numpy")
def _box_muller_16_float(out, start, mean, std):
    # The scalar Box-Muller in float32 arithmetic (the angle formed in double, then rounded).
    two_pi = 2.0 * np.pi
    for j in range(8):
        u1 = np.float32(1.0) - out[start + j]
        radius = np.sqrt(np.float32(-2.0) * np.log(u1))
        theta = np.float32(two_pi * np.float64(out[start + j + 8]))
        out[start + j] = radius * np.cos(theta) * std + mean
        out[start + j + 8] = radius * np.sin(theta) * std + mean


# float32 blocks: the vectorized single-precision Box-Muller of PyTorch's AVX2 kernels, with
# Cephes-style polynomial log and sincos; "fused" steps are multiply-adds rounded once.
_F1, _F2, _FHALF = np.float32(1.0), np.float32(2.0), np.float32(0.5)
_SQRT_HALF = np.float32(0.707106781186547524)
_LOG_P = (np.float32(7.0376836292e-2), np.float32(-1.1514610310e-1), np.float32(1.1676998740e-1),
          np.float32(-1.2420140846e-1), np.float32(1.4249322787e-1), np.float32(-1.6668057665e-1),
          np.float32(2.0000714765e-1), np.float32(-2.4999993993e-1), np.float32(3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_FOUR_OVER_PI = np.float32(1.27323954473516)
_DP1, _DP2, _DP3 = np.float32(-0.78515625), np.float32(-2.4187564849853515625e-4), np.float32(-3.77489497744594108e-8)
_COS_P = (np.float32(2.443315711809948e-5), np.float32(-1.388731625493765e-3), np.float32(4.166664568298827e-2))
_SIN_P = (np.float32(-1.9515295891e-4), np.float32(8.3321608736e-3), np.float32(-1.6666654611e-1))
_TWO_PI_F = np.float32(2.0 * np.pi)
_I23, _EXP_MASK, _EXP_BIAS = np.int32(23), np.int32(0xFF), np.int32(126)
_MANT_MASK, _HALF_EXP = np.int32(0x7FFFFF), np.int32(0x3F000000)
_J1, _J2, _J4, _NOT1 = np.int32(1), np.int32(2), np.int32(4), np.int32(~1)


@njit(cache=True, nogil=True, error_model="numpy")
def _log32(e, m):
    """log(u) for float32 u = m * 2**e in (0, 1], m in [1/2, 1): with m moved into
    [sqrt(1/2), sqrt(2)), log(1 + x) by a degree-9 polynomial in x = m - 1."""
    small = m < _SQRT_HALF
    # Selects rather than branches, so that a loop of these vectorizes.
    x = np.float32(m - _F1) + m if small else m - _F1
    e = e - _F1 if small else e
    z = x * x
    y = fmadd(_LOG_P[0], x, _LOG_P[1])
    y = fmadd(y, x, _LOG_P[2])
    y = fmadd(y, x, _LOG_P[3])
    y = fmadd(y, x, _LOG_P[4])
    y = fmadd(y, x, _LOG_P[5])
    y = fmadd(y, x, _LOG_P[6])
    y = fmadd(y, x, _LOG_P[7])
    y = fmadd(y, x, _LOG_P[8])
    y = fmadd(y * x, z, e * _LOG_Q1)
    y = fmadd(z, -_FHALF, y)
    return fmadd(e, _LOG_Q2, x + y)


@njit(cache=True, nogil=True, error_model="numpy")
def _sincos32(t):
    """(sin t, cos t) for float32 t >= 0: reduced by multiples of pi/4 (pi/4 in three parts),
    then a polynomial per octant."""
    # int32 throughout (Numba widens int32 arithmetic to int64, which AVX2 cannot convert to
    # float in vector registers).
    j = np.int32(np.int32(np.int32(t * _FOUR_OVER_PI) + _J1) & _NOT1)
    y = np.float32(j)
    x = fmadd(y, _DP1, t)
    x = fmadd(y, _DP2, x)
    x = fmadd(y, _DP3, x)
    z = x * x
    c = fmadd(_COS_P[0], z, _COS_P[1])
    c = fmadd(c, z, _COS_P[2])
    c = fmadd(c * z, z, -(z * _FHALF))
    c = c + _F1
    s = fmadd(_SIN_P[0], z, _SIN_P[1])
    s = fmadd(s, z, _SIN_P[2])
    s = fmadd(s * z, x, x)
    swap = (j & _J2) != 0
    sin_t = c if swap else s
    cos_t = s if swap else c
    sin_t = -sin_t if (j & _J4) != 0 else sin_t
    cos_t = -cos_t if (np.int32(~np.int32(j - _J2)) & _J4) != 0 else cos_t
    return sin_t, cos_t


@njit(cache=True, nogil=True, error_model="numpy")
def _box_muller_single(out, start, stop, mean, std, u, t):
    """The float32 blocks of out[start:stop]: their 8 pairs each are copied into the scratch
    arrays ``u`` and ``t`` (1 - u1 and 2 pi u2) so that one straight loop over all pairs
    vectorizes, then copied back."""
    m = np.float32(mean)
    sd = np.float32(std)
    p = 0
    for i in range(start, stop, 16):
        for j in range(8):
            u[p + j] = _F1 - np.float32(out[i + j])
            t[p + j] = _TWO_PI_F * np.float32(out[i + j + 8])
        p += 8
    # frexp from the bits (u is a normal float32 in (0, 1]), in int32 as in _sincos32.
    bits = u.view(np.int32)
    for k in range(p):
        b = bits[k]
        e = np.float32(np.int32(np.int32(np.int32(b >> _I23) & _EXP_MASK) - _EXP_BIAS))
        bits[k] = np.int32(np.int32(b & _MANT_MASK) | _HALF_EXP)
        r = np.sqrt(-_F2 * _log32(e, u[k]))
        s, c = _sincos32(t[k])
        u[k] = fmadd(r * c, sd, m)
        t[k] = fmadd(r * s, sd, m)
    p = 0
    for i in range(start, stop, 16):
        for j in range(8):
            out[i + j] = u[p + j]
            out[i + j + 8] = t[p + j]
        p += 8


@njit(cache=True, nogil=True, error_model="numpy")
def normal_blocks(out, state, bits, mean, std, fused, narrow):
    """Box-Muller in blocks of 16, as for dense tensors of 16 elements or more: every element
    first gets a uniform, then each block turns its 16 into normals; when 16 does not divide
    the size, the last 16 elements get fresh uniforms and are transformed again. ``fused``
    scales by std and adds mean with one rounding (float64 results; elsewhere it cannot
    change the result). ``narrow`` (the float32 buffer of a 16-bit float tensor): uniforms of
    24 bits for the whole blocks only, transformed in float32, as PyTorch draws them."""
    n = out.shape[0]
    buf = np.empty(2 * _CHUNK, np.uint64)
    u = np.empty(_CHUNK // 2, np.float32)
    t = np.empty(_CHUNK // 2, np.float32)
    drawn = n - n % 16 if narrow else n
    # A chunk's uniforms are transformed while still in cache: the transform draws nothing.
    for start in range(0, drawn, _CHUNK):
        m = min(_CHUNK, drawn - start)
        _units(state, buf, out, start, m, bits)
        _blocks(out, start, start + m - m % 16, bits, mean, std, fused, narrow, u, t)
    if n % 16:
        _units(state, buf, out, n - 16, np.int64(16), bits)  # int64: a literal 16 would compile _units again
        _blocks(out, n - 16, n, bits, mean, std, fused, narrow, u, t)


@njit(cache=True, nogil=True, error_model="numpy")
def _blocks(out, start, stop, bits, mean, std, fused, narrow, u, t):
    if narrow:
        for i in range(start, stop, 16):
            _box_muller_16_float(out, i, np.float32(mean), np.float32(std))
    elif bits == 24:
        _box_muller_single(out, start, stop, mean, std, u, t)
    else:
        for i in range(start, stop, 16):
            _box_muller_16(out, i, mean, std, fused)


@njit(cache=True, nogil=True)
def integers(out, state, low, span, wide):
    """out[i] = low + draw mod span, a draw being 64 bits if ``wide`` else 32."""
    buf = np.empty(2 * _CHUNK, np.uint64)
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        if wide:
            _words(state, buf, 2 * m)
            for j in range(m):
                out[start + j] = low + np.int64(((buf[2 * j] << _S32) | buf[2 * j + 1]) % span)
        else:
            _words(state, buf, m)
            for j in range(m):
                out[start + j] = low + np.int64(buf[j] % span)


@njit(cache=True, nogil=True)
def bernoulli(out, state, p):
    """out[i] = 1 where a 53-bit uniform falls below the probability ``p``."""
    buf = np.empty(2 * _CHUNK, np.uint64)
    u = np.empty(_CHUNK)
    n = out.shape[0]
    for start in range(0, n, _CHUNK):
        m = min(_CHUNK, n - start)
        _units(state, buf, u, 0, m, 53)
        for j in range(m):
            out[start + j] = u[j] < p


@njit(cache=True, nogil=True)
def permutation(out, state, wide):
    """A uniformly random permutation of 0 .. n-1: swap i with i + draw mod (n - i), forwards;
    ``wide`` (for sizes near 2**32) draws 64 bits and builds it inside out instead."""
    n = out.shape[0]
    if not wide:
        for i in range(n):
            out[i] = i
        for i in range(n - 1):
            z = i + np.int64(_word(state) % np.uint64(n - i))
            tmp = out[i]
            out[i] = out[z]
            out[z] = tmp
        return
    for i in range(n):
        z = np.int64(_word64(state) % np.uint64(i + 1))
        out[i] = out[z]
        out[z] = i


# Distributions drawn from 53-bit uniforms into float64 ``out``, one uniform per element.
@njit(cache=True, nogil=True, error_model="numpy")
def exponential(out, state, lambd):
    """-log(1 - u) / lambd."""
    uniform_double(out, state, 53, 0.0, 1.0)
    scale = -1.0 / lambd
    for i in range(out.shape[0]):
        out[i] = scale * np.log1p(-out[i])


@njit(cache=True, nogil=True, error_model="numpy")
def geometric(out, state, p):
    """The number of Bernoulli(p) trials up to the first success: ceil(log(u) / log(1 - p))."""
    uniform_double(out, state, 53, 0.0, 1.0)
    denominator = np.log1p(-p)
    for i in range(out.shape[0]):
        out[i] = np.ceil(np.log(out[i]) / denominator)


@njit(cache=True, nogil=True, error_model="numpy")
def cauchy(out, state, median, sigma):
    """median + sigma * tan(pi * (u - 1/2)), the multiply-add rounded once."""
    uniform_double(out, state, 53, 0.0, 1.0)
    for i in range(out.shape[0]):
        out[i] = fmadd(sigma, np.tan(np.pi * (out[i] - 0.5)), median)


@njit(cache=True, nogil=True, error_model="numpy")
def log_normal(out, state, cache, mean, std):
    """exp of one-at-a-time normals (see :func:`normal_pairs`, whose pending normal it shares)."""
    normal_pairs(out, state, cache, mean, std)
    for i in range(out.shape[0]):
        out[i] = np.exp(out[i])


@njit(cache=True, nogil=True)
def categorical(probs, out, state):
    """out[i, j] = a category drawn for row i of ``probs`` (weights, not necessarily normalized):
    the first whose cumulative weight, summed and normalized in the weights' own precision,
    reaches a 53-bit uniform."""
    rows, k = probs.shape
    cum = np.empty(k, probs.dtype)
    for i in range(rows):
        cum[0] = probs[i, 0]
        for j in range(1, k):
            cum[j] = cum[j - 1] + probs[i, j]
        total = cum[k - 1]
        for j in range(k):
            cum[j] = cum[j] / total
        cum[k - 1] = 1
        for s in range(out.shape[1]):
            u = _unit(state, 53)
            lo, hi = 0, k
            while hi > lo:
                mid = lo + (hi - lo) // 2
                if cum[mid] < u:
                    lo = mid + 1
                else:
                    hi = mid
            out[i, s] = lo


_INT64_MIN = np.int64(-(1 << 63))


@njit(cache=True, nogil=True)
def _truncated(x):
    """x (already whole) as int64; NaN and numbers out of range give -2**63, as x86's
    conversion does in PyTorch's sampler (LLVM leaves that case undefined)."""
    if -9.223372036854775808e18 <= x < 9.223372036854775808e18:
        return np.int64(x)
    return _INT64_MIN


@njit(cache=True, nogil=True, error_model="numpy")
def _poisson_one(state, lam):
    """One Poisson(lam) draw from 53-bit uniforms: below 10, multiply uniforms until the product
    falls to exp(-lam); from 10, Hörmann's transformed rejection (PTRS), two uniforms a try."""
    if lam == 0.0:
        return np.int64(0)
    if lam < 10.0:
        limit = np.exp(-lam)
        k = np.int64(0)
        prod = 1.0
        while True:
            prod *= _unit(state, 53)
            if prod <= limit:
                return k
            k += 1
    root = np.sqrt(lam)
    log_lam = np.log(lam)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    log_inv_alpha = np.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2.0)
    while True:
        u = _unit(state, 53) - 0.5
        v = _unit(state, 53)
        us = 0.5 - abs(u)
        # Tested as a double: PyTorch's compiled sampler never sees its integer out of range.
        k = np.floor((2.0 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return _truncated(k)
        if k < 0 or (us < 0.013 and v > us):
            continue
        # The acceptance test in logs, each side summed left to right as the sampler does.
        accept = -lam + k * log_lam - math.lgamma(k + 1.0)
        if np.log(v) + log_inv_alpha - np.log(a / (us * us) + b) <= accept:
            return _truncated(k)


@njit(cache=True, nogil=True, error_model="numpy")
def poisson(rates, out, state):
    """out[i] = a Poisson draw (int64) of rate rates[i] (float64), in order. Stops at the first
    rate that is not >= 0 (negative or NaN) and returns its index, having drawn for those before
    it, as PyTorch's sampler does before raising; returns -1 when all are valid."""
    for i in range(rates.shape[0]):
        lam = rates[i]
        if not lam >= 0.0:
            return i
        out[i] = _poisson_one(state, lam)
    return -1
