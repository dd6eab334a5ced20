"""exp, tanh and sigmoid as branch-free scalar code that LLVM vectorizes in CPU kernels: a libm
call per element stops the loop vectorizer, these bodies use only arithmetic, selects and
float/int bit casts. All are within 1.2 ulp (float64 tanh is libm's)."""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable


def cpu_specialized(generic, f32, f64, inline="never"):
    """A scalar function that runs ``generic`` in Python and on other targets, and compiles to
    ``f32`` or ``f64`` (chosen by the argument's type) in CPU code. All three are plain Python
    functions that Numba can compile. ``inline="always"`` inlines the body into its caller even
    past LLVM's threshold: a call left in a loop stops its vectorization."""
    def fn(x):
        return generic(x)

    @overload(fn)
    def _any_target(x):
        return generic

    @overload(fn, target="cpu", inline=inline)
    def _cpu(x):
        if x == types.float32:
            return f32
        if x == types.float64:
            return f64
        return generic

    return fn


# ---------------------------------------------------------------------------------- exp
# exp(x) = 2**k * exp(r), k = round(x / ln 2), |r| <= ln2 / 2. Adding 1.5 * 2**mantissa_bits
# rounds to an integer that can be read from the low bits of the sum: no float-to-int conversion,
# which is undefined for NaN. ln 2 is split so that k * ln2_hi is exact, and 1 + r + r**2 q(r) is
# summed with Fast2Sum so that it rounds once (hi) and keeps its error (lo) for callers that need
# more than float precision. 2**k is applied as two factors: subnormal results round only once.
#
# q is a minimax fit of (exp(r) - 1 - r) / r**2 on [-ln2/2, ln2/2] (Remez, relative error
# 2.7e-9 for float32 and 2.7e-18 for float64).

def _exp_parts_for(ft, it, mant_bits, x_min, x_max, ln2_hi, ln2_lo, q):
    one, half = ft(1.0), ft(0.5)
    x_min, x_max = ft(x_min), ft(x_max)
    log2e, ln2_hi, ln2_lo = ft(1.0 / math.log(2.0)), ft(ln2_hi), ft(ln2_lo)
    shift = ft(1.5 * 2.0 ** mant_bits)
    shift_bits = shift.view(it)
    bias = it((1 << (8 * ft(0).itemsize - mant_bits - 2)) - 1)
    mbits = it(mant_bits)

    @register_jitable
    def parts(x):
        x = x_max if x > x_max else x
        x = x_min if x < x_min else x
        t = x * log2e + shift
        kf = t - shift
        k = ft(t).view(it) - shift_bits
        # k // 2 by the same trick: AVX2 has no 64-bit arithmetic shift.
        k1 = ft(kf * half + shift).view(it) - shift_bits
        r_hi = x - kf * ln2_hi
        r_lo = kf * ln2_lo
        r = r_hi - r_lo
        s = one + r_hi
        e = ((one - s) + r_hi) + (r * r * q(r) - r_lo)
        hi = s + e
        lo = (s - hi) + e
        s1 = it((k1 + bias) << mbits).view(ft)
        s2 = it((k - k1 + bias) << mbits).view(ft)
        return hi, lo, s1, s2

    return parts


@register_jitable
def _q32(r):
    return np.float32(0.5) + r * (np.float32(0.1666666716337204) + r * (
        np.float32(0.04166646674275398) + r * (np.float32(0.008333360776305199) + r * (
            np.float32(0.0013933597365394235) + r * np.float32(0.00019857799634337425)))))


@register_jitable
def _q64(r):
    return 0.5 + r * (0.1666666666666667 + r * (0.041666666666666616 + r * (
        0.008333333333326167 + r * (0.0013888888888917957 + r * (0.00019841269874720782 + r * (
            2.4801587245743317e-05 + r * (2.7557255514241685e-06 + r * (
                2.755734961910229e-07 + r * (2.510517362495958e-08 + r * 2.0889373969671216e-09)))))))))


# Clamps: beyond them exp is inf or 0 in that precision. ln2_lo = ln 2 - ln2_hi to 17 digits.
_exp_parts32 = _exp_parts_for(np.float32, np.int32, 23, -104.0, 89.0,
                              0.693145751953125, 1.4286068203094173e-06, _q32)
_exp_parts64 = _exp_parts_for(np.float64, np.int64, 52, -746.0, 710.0,
                              0.6931471803691238, 1.9082149292705877e-10, _q64)


def _exp_for(parts):
    @register_jitable
    def exp_(x):
        hi, lo, s1, s2 = parts(x)
        return hi * s1 * s2
    return exp_


_exp = cpu_specialized(lambda x: math.exp(x), _exp_for(_exp_parts32), _exp_for(_exp_parts64))


@register_jitable
def exp(x):
    """The exponential of ``x``."""
    return _exp(x)


# ---------------------------------------------------------------------------------- tanh
# float32, on a = |x| with the sign copied back (so -0.0 stays -0.0). Below 0.625 an odd
# polynomial, tanh(a) = a + a**3 * P(a**2), P a minimax fit (relative error 6e-10). Above, 1 - u
# with u = 2 / (exp(2a) + 1): exp(2a) + 1 is carried as hi + lo and u corrected to first order in
# lo, since rounding each step would cost up to 2 ulp. a is clamped where tanh rounds to 1, so
# exp(2a) stays finite. float64 keeps libm: with float64's longer polynomials LLVM no longer
# vectorizes this body, and the scalar version is slower than libm's.
@register_jitable
def _tanh32(x):
    one = np.float32(1.0)
    a = abs(x)
    s = a * a
    p = np.float32(-0.3333333432674408) + s * (np.float32(0.13333304226398468) + s * (
        np.float32(-0.05395926535129547) + s * (np.float32(0.021768948063254356) + s * (
            np.float32(-0.008344029076397419) + s * np.float32(0.0022928302641958)))))
    small = a + a * s * p
    c = np.float32(9.5) if a > np.float32(9.5) else a
    hi, lo, s1, s2 = _exp_parts32(c + c)
    e_hi = hi * s1 * s2
    d_hi = e_hi + one
    d_lo = ((e_hi - d_hi) + one) + lo * s1 * s2
    u = np.float32(2.0) / d_hi
    big = one - (u - u * u * d_lo * np.float32(0.5))
    return math.copysign(small if a < np.float32(0.625) else big, x)


_tanh = cpu_specialized(lambda x: math.tanh(x), _tanh32, lambda x: math.tanh(x))


@register_jitable
def tanh(x):
    """The hyperbolic tangent of ``x``."""
    return _tanh(x)


# ---------------------------------------------------------------------------------- sigmoid
# With e = exp(-|x|), which never overflows: 1 / (1 + e) for x >= 0 and e / (1 + e) below, which
# keeps tiny results accurate. e and 1 + e are carried as hi + lo pairs and the one rounded
# division is corrected to first order: three rounded steps would miss by up to 2.4 ulp.
def _sigmoid_generic(x):
    e = math.exp(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


def _sigmoid_for(ft, parts):
    one = ft(1.0)

    @register_jitable
    def sigmoid_(x):
        hi, lo, s1, s2 = parts(-abs(x))
        e_hi = hi * s1 * s2
        d_hi = one + e_hi
        d_lo = ((one - d_hi) + e_hi) + lo * s1 * s2
        pos = x >= 0
        q = (one if pos else e_hi) / d_hi
        # Relative corrections: -d_lo / d_hi, and for x < 0 also + lo / hi (= e_lo / e_hi). The
        # reciprocals need only a few bits: 1 / d_hi is q or 1 - q, and 1 / hi ~ (1 + g)(1 + g**2)
        # with g = 1 - hi. (Selecting the two corrections, not their factors, keeps the loop
        # vectorizable: LLVM gives up on the latter.)
        g = one - hi
        corr_neg = lo * ((one + g) * (one + g * g)) - d_lo * (one - q)
        corr_pos = -d_lo * q
        return q + q * (corr_pos if pos else corr_neg)

    return sigmoid_


_sigmoid = cpu_specialized(_sigmoid_generic, _sigmoid_for(np.float32, _exp_parts32),
                            _sigmoid_for(np.float64, _exp_parts64))


@register_jitable
def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` of ``x``."""
    return _sigmoid(x)
