"""exp, tanh and sigmoid as branch-free scalar code that LLVM vectorizes in CPU kernels.

A call into libm per element stops the loop vectorizer; these bodies use only arithmetic,
comparisons (compiled to selects) and float/int bit casts, so a kernel runs 8 float32 or 4 float64
lanes per instruction. Polynomials are minimax fits on the reduced range (Remez, weighted for
relative error, coefficients rounded to the working precision); all results are within 2 ulp.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

_f32 = np.float32
_f64 = np.float64


def _cpu_specialized(generic, f32, f64):
    """A scalar function that runs ``generic`` in Python and on other targets, and compiles to
    ``f32`` or ``f64`` (chosen by the argument's type) in CPU code. All three are plain Python
    functions that Numba can compile."""
    def fn(x):
        return generic(x)

    @overload(fn)
    def _any_target(x):
        return generic

    @overload(fn, target="cpu")
    def _cpu(x):
        if x == types.float32:
            return f32
        if x == types.float64:
            return f64
        return generic

    return fn


# ---------------------------------------------------------------------------------- exp
# exp(x) = 2**k * exp(r), k = round(x / ln 2), |r| <= ln2 / 2. Adding 1.5 * 2**mantissa_bits
# rounds x / ln 2 to an integer that can be read from the low bits of the sum, so no float-to-int
# conversion (undefined for NaN) is needed. ln 2 is split in two so that k * hi is exact.
# 2**k is applied as two factors so that results in the subnormal range round only once.

_E32_HI, _E32_LO = _f32(89.0), _f32(-104.0)          # beyond: inf and 0 for sure
_E32_LOG2E = _f32(1.4426950408889634)
_E32_SHIFT = _f32(12582912.0)
_E32_SHIFT_BITS = np.int32(_f32(12582912.0).view(np.int32))
_E32_LN2_HI = _f32(0.693145751953125)
_E32_LN2_LO = _f32(1.428606765330187e-06)
# exp(r) = 1 + r + r**2 * q(r)
_E32_Q0, _E32_Q1, _E32_Q2, _E32_Q3, _E32_Q4, _E32_Q5 = (
    _f32(0.5), _f32(0.1666666716337204), _f32(0.04166646674275398), _f32(0.008333360776305199),
    _f32(0.0013933597365394235), _f32(0.00019857799634337425))
_ONE32 = _f32(1.0)


@register_jitable
def _exp_f32_parts(x):
    """exp(x) as ``(h + l) * s1 * s2``: h is exp(r) rounded, l its rounding error (about 30 bits
    in all), s1 and s2 powers of 2."""
    x = _E32_HI if x > _E32_HI else x
    x = _E32_LO if x < _E32_LO else x
    t = x * _E32_LOG2E + _E32_SHIFT
    k = np.float32(t).view(np.int32) - _E32_SHIFT_BITS
    kf = t - _E32_SHIFT
    r_hi = x - kf * _E32_LN2_HI
    r_lo = kf * _E32_LN2_LO
    r = r_hi - r_lo
    q = _E32_Q0 + r * (_E32_Q1 + r * (_E32_Q2 + r * (_E32_Q3 + r * (_E32_Q4 + r * _E32_Q5))))
    # Fast2Sum twice: 1 + r_hi exactly as hi + lo, then h + l = hi + (lo + ...), so that the
    # rounding of 1 + r + r**2 q happens once, and l keeps what it dropped.
    hi = _ONE32 + r_hi
    lo = ((_ONE32 - hi) + r_hi) + (r * r * q - r_lo)
    h = hi + lo
    l = (hi - h) + lo
    k1 = k >> 1
    s1 = np.int32((k1 + 127) << 23).view(np.float32)
    s2 = np.int32((k - k1 + 127) << 23).view(np.float32)
    return h, l, s1, s2


@register_jitable
def _exp_f32(x):
    h, l, s1, s2 = _exp_f32_parts(x)
    return h * s1 * s2


_E64_HI, _E64_LO = 710.0, -746.0
_E64_LOG2E = 1.4426950408889634
_E64_SHIFT = 6755399441055744.0
_E64_SHIFT_BITS = np.int64(_f64(6755399441055744.0).view(np.int64))
_E64_LN2_HI = 6.93147180369123816490e-01
_E64_LN2_LO = 1.90821492927058770002e-10
(_E64_Q0, _E64_Q1, _E64_Q2, _E64_Q3, _E64_Q4, _E64_Q5, _E64_Q6, _E64_Q7, _E64_Q8, _E64_Q9,
 _E64_Q10) = (0.5, 0.1666666666666667, 0.041666666666666616, 0.008333333333326167,
              0.0013888888888917957, 0.00019841269874720782, 2.4801587245743317e-05,
              2.7557255514241685e-06, 2.755734961910229e-07, 2.510517362495958e-08,
              2.0889373969671216e-09)


@register_jitable
def _exp_f64(x):
    x = _E64_HI if x > _E64_HI else x
    x = _E64_LO if x < _E64_LO else x
    t = x * _E64_LOG2E + _E64_SHIFT
    k = np.float64(t).view(np.int64) - _E64_SHIFT_BITS
    kf = t - _E64_SHIFT
    r = (x - kf * _E64_LN2_HI) - kf * _E64_LN2_LO
    q = _E64_Q0 + r * (_E64_Q1 + r * (_E64_Q2 + r * (_E64_Q3 + r * (_E64_Q4 + r * (
        _E64_Q5 + r * (_E64_Q6 + r * (_E64_Q7 + r * (_E64_Q8 + r * (_E64_Q9 + r * _E64_Q10)))))))))
    p = 1.0 + (r + r * r * q)
    # k // 2 through the same rounding trick: AVX2 has no 64-bit arithmetic shift.
    k1 = np.float64(kf * 0.5 + _E64_SHIFT).view(np.int64) - _E64_SHIFT_BITS
    s1 = np.int64((k1 + 1023) << 52).view(np.float64)
    s2 = np.int64((k - k1 + 1023) << 52).view(np.float64)
    return p * s1 * s2


_exp = _cpu_specialized(lambda x: math.exp(x), _exp_f32, _exp_f64)


@register_jitable
def exp(x):
    """The exponential of ``x``."""
    return _exp(x)


# ---------------------------------------------------------------------------------- tanh
# float32, on a = |x| (the sign is copied back, so -0.0 stays -0.0). Below _T32 an odd polynomial,
# tanh(a) = a + a**3 * P(a**2). Above, 1 - u with u = 2 / (exp(2a) + 1), where exp(2a) + 1 is
# carried as hi + lo and u corrected to first order in lo: rounded float32 steps would cost up to
# 2 ulp. 2a is clamped where tanh is 1 in float32, so exp(2a) stays finite.
_T32 = _f32(0.625)
_T32_CLAMP = _f32(9.5)
_T32_P0, _T32_P1, _T32_P2, _T32_P3, _T32_P4, _T32_P5 = (
    _f32(-0.3333333432674408), _f32(0.13333304226398468), _f32(-0.05395926535129547),
    _f32(0.021768948063254356), _f32(-0.008344029076397419), _f32(0.0022928302641958))
_TWO32 = _f32(2.0)
_HALF32 = _f32(0.5)


@register_jitable
def _tanh_f32(x):
    a = abs(x)
    s = a * a
    p = _T32_P0 + s * (_T32_P1 + s * (_T32_P2 + s * (_T32_P3 + s * (_T32_P4 + s * _T32_P5))))
    small = a + a * s * p
    c = _T32_CLAMP if a > _T32_CLAMP else a
    h, l, s1, s2 = _exp_f32_parts(c + c)
    e_hi = h * s1 * s2
    d_hi = e_hi + _ONE32
    d_lo = ((e_hi - d_hi) + _ONE32) + l * s1 * s2
    u = _TWO32 / d_hi
    big = _ONE32 - (u - u * u * d_lo * _HALF32)
    return math.copysign(small if a < _T32 else big, x)


_tanh = _cpu_specialized(lambda x: math.tanh(x), _tanh_f32, lambda x: math.tanh(x))


@register_jitable
def tanh(x):
    """The hyperbolic tangent of ``x``."""
    return _tanh(x)


# ---------------------------------------------------------------------------------- sigmoid
# With e = exp(-|x|), which never overflows: 1 / (1 + e) for x >= 0 and e / (1 + e) below, which
# keeps tiny results accurate. float32 carries e and 1 + e as hi + lo pairs and corrects the one
# rounded division to first order: three rounded float32 steps would miss by up to 2.4 ulp.
def _sigmoid_generic(x):
    e = math.exp(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


@register_jitable
def _sigmoid_f32(x):
    h, l, s1, s2 = _exp_f32_parts(-abs(x))
    e_hi = h * s1 * s2
    d_hi = _ONE32 + e_hi
    d_lo = ((_ONE32 - d_hi) + e_hi) + l * s1 * s2
    pos = x >= 0
    q = (_ONE32 if pos else e_hi) / d_hi
    # Relative corrections: -d_lo / d_hi, and for x < 0 also + l / h (= e_lo / e_hi). The
    # reciprocals need only a few bits: 1 / d_hi is q or 1 - q, and 1 / h ~ (1 + g)(1 + g**2)
    # with g = 1 - h. (Selecting the two corrections, not their factors, keeps the loop
    # vectorizable: LLVM gives up on the latter.)
    g = _ONE32 - h
    corr_neg = l * ((_ONE32 + g) * (_ONE32 + g * g)) - d_lo * (_ONE32 - q)
    corr_pos = -d_lo * q
    return q + q * (corr_pos if pos else corr_neg)


@register_jitable
def _sigmoid_f64(x):
    e = _exp_f64(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


_sigmoid = _cpu_specialized(_sigmoid_generic, _sigmoid_f32, _sigmoid_f64)


@register_jitable
def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` of ``x``."""
    return _sigmoid(x)
