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
_E32_Q0, _E32_Q1, _E32_Q2, _E32_Q3, _E32_Q4 = (
    _f32(0.5), _f32(0.16666577756404877), _f32(0.04166685417294502), _f32(0.008363140746951103),
    _f32(0.001390128512866795))
_ONE32 = _f32(1.0)


@register_jitable
def _exp_f32_parts(x):
    """exp(x) as (hi + lo) * s1 * s2: hi + lo carries about 30 bits, s1 and s2 are powers of 2."""
    x = _E32_HI if x > _E32_HI else x
    x = _E32_LO if x < _E32_LO else x
    t = x * _E32_LOG2E + _E32_SHIFT
    k = np.float32(t).view(np.int32) - _E32_SHIFT_BITS
    kf = t - _E32_SHIFT
    r_hi = x - kf * _E32_LN2_HI
    r_lo = kf * _E32_LN2_LO
    r = r_hi - r_lo
    q = _E32_Q0 + r * (_E32_Q1 + r * (_E32_Q2 + r * (_E32_Q3 + r * _E32_Q4)))
    # 1 + r_hi as an exact sum of two floats (Fast2Sum), so that exp rounds only once.
    hi = _ONE32 + r_hi
    lo = ((_ONE32 - hi) + r_hi) + (r * r * q - r_lo)
    k1 = k >> 1
    s1 = np.int32((k1 + 127) << 23).view(np.float32)
    s2 = np.int32((k - k1 + 127) << 23).view(np.float32)
    return hi, lo, s1, s2


@register_jitable
def _exp_f32(x):
    hi, lo, s1, s2 = _exp_f32_parts(x)
    return (hi + lo) * s1 * s2


@register_jitable
def _exp_f32_wide(x):
    """exp(x) of a float32 as a float64 with about 30 correct bits, for formulas that would
    otherwise lose float32 accuracy to the rounding of their own steps."""
    hi, lo, s1, s2 = _exp_f32_parts(x)
    return (np.float64(hi) + np.float64(lo)) * np.float64(s1) * np.float64(s2)


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
# float32, on |x| (the sign is copied back, so -0.0 stays -0.0): below _T32 an odd polynomial,
# tanh(a) = a + a**3 * P(a**2); above, 1 - 2 / (exp(2a) + 1), whose cancellation costs little once
# tanh(a) > 1/2. (Dividing in float64 would halve the vector width for half an ulp.)
_T32 = _f32(0.625)
_T32_P0, _T32_P1, _T32_P2, _T32_P3, _T32_P4 = (
    _f32(-0.333333283662796), _f32(0.13332770764827728), _f32(-0.05385095253586769),
    _f32(0.02099735662341118), _f32(-0.006096941418945789))
_TWO32 = _f32(2.0)


@register_jitable
def _tanh_f32(x):
    a = abs(x)
    s = a * a
    small = a + a * s * (_T32_P0 + s * (_T32_P1 + s * (_T32_P2 + s * (_T32_P3 + s * _T32_P4))))
    big = _ONE32 - _TWO32 / (_exp_f32(a + a) + _ONE32)
    return math.copysign(small if a < _T32 else big, x)


_tanh = _cpu_specialized(lambda x: math.tanh(x), _tanh_f32, lambda x: math.tanh(x))


@register_jitable
def tanh(x):
    """The hyperbolic tangent of ``x``."""
    return _tanh(x)


# ---------------------------------------------------------------------------------- sigmoid
# exp(-|x|) never overflows; e / (1 + e) for negative x keeps tiny results accurate. float32
# divides in float64: e / (1 + e) rounded three times in float32 can miss by 2.4 ulp.
def _sigmoid_generic(x):
    e = math.exp(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


@register_jitable
def _sigmoid_f32(x):
    e = _exp_f32_wide(-abs(x))
    return np.float32((1.0 if x >= 0 else e) / (1.0 + e))


@register_jitable
def _sigmoid_f64(x):
    e = _exp_f64(-abs(x))
    return (1.0 if x >= 0 else e) / (1.0 + e)


_sigmoid = _cpu_specialized(_sigmoid_generic, _sigmoid_f32, _sigmoid_f64)


@register_jitable
def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` of ``x``."""
    return _sigmoid(x)
