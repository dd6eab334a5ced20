"""log, log1p (float32 and float64), expm1, tanh and sigmoid (float32) as branch-free scalar code
that LLVM vectorizes in CPU kernels, within 1 ulp. Only arithmetic, selects and unsigned integer
views of the bits are used: a libm call, a float/int conversion or a signed 64-bit shift would
stop the vectorizer on AVX2 machines. float32 is computed in float64 and rounded once, which
makes it nearly correctly rounded; other targets (CUDA) run the libm functions."""
from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
from numba.extending import register_jitable

from .. import scalar_math
from ..scalar_math import _exp_parts64

# ln 2 to 40 digits, split so that k * _LN2_HI is exact for every float64 exponent k (|k| < 2**11).
with localcontext() as _ctx:  # the caller's decimal context is left as it was
    _ctx.prec = 40
    _LN2 = Decimal(2).ln()
    _LN2_HI = float((np.float64(float(_LN2)).view(np.uint64) & ~np.uint64(0xFFF)).view(np.float64))
    _LN2_LO = float(_LN2 - Decimal(_LN2_HI))

_U = np.uint64
_MANT_MASK = _U((1 << 52) - 1)
_SQRT_HALF_BITS = np.float64(math.sqrt(0.5)).view(_U)
# k + 1024 + 2**52 is read as a float by placing it in the mantissa of 2**52.
_TWO52_BITS = np.float64(2.0 ** 52).view(_U)
_K_OFFSET = 2.0 ** 52 + 1024.0
_TINY = 2.0 ** -54          # below it log1p(x) rounds to x
_MIN_NORMAL = 2.0 ** -1022
_TWO54 = 2.0 ** 54

# R(z) = 2 atanh(s) / s - 2 with z = s**2, |s| <= 3 - 2 sqrt(2) ~ 0.1716: the Taylor series
# sum 2 z**i / (2i + 1). Ten terms leave a relative error below 1e-18 of log(1 + f), five below
# 1e-11, which is plenty for a float32 result.
_R = tuple(2.0 / (2 * i + 1) for i in range(1, 11))


@register_jitable
def _r_poly10(z):
    c1, c2, c3, c4, c5, c6, c7, c8, c9, c10 = _R
    return z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * (c6 + z * (
        c7 + z * (c8 + z * (c9 + z * c10)))))))))


@register_jitable
def _r_poly5(z):
    c1, c2, c3, c4, c5 = _R[:5]
    return z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * c5))))


def _log_reduced_for(r_poly):
    @register_jitable
    def log_reduced(u, c):
        """log(u) + c for a finite u > 0 and a small correction c: u = 2**k * m with m in
        [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f), and
        log(1 + f) = f - f**2/2 + s (f**2/2 + R(s**2)), summed so that the largest terms round
        last."""
        sub = u < _MIN_NORMAL
        u = u * _TWO54 if sub else u
        k_adj = -54.0 if sub else 0.0
        ix = np.float64(u).view(np.uint64) - _SQRT_HALF_BITS
        m = np.uint64(np.uint64(ix & _MANT_MASK) + _SQRT_HALF_BITS).view(np.float64)
        # ix + 2**62 is the (wrapped) non-negative biased exponent difference: a logical shift.
        kb = np.uint64(ix + np.uint64(1 << 62)) >> np.uint64(52)
        k = np.uint64(_TWO52_BITS + kb).view(np.float64) - _K_OFFSET + k_adj
        f = m - 1.0
        s = f / (2.0 + f)
        hfsq = 0.5 * f * f
        r = r_poly(s * s)
        return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + (k * _LN2_LO + c))) - f)
    return log_reduced


def _log_for(log_reduced):
    @register_jitable
    def log_(x):
        y = log_reduced(x, 0.0)
        y = math.nan if x < 0 else y
        y = -math.inf if x == 0 else y
        return x + x if not x < math.inf else y
    return log_


def _log1p_for(log_reduced):
    @register_jitable
    def log1p_(x):
        u = 1.0 + x
        # The rounding error of 1 + x, relative to u: log(u + d) = log(u) + d / u to first
        # order. Both differences are exact: Sterbenz's lemma for u - x when u >= 2, u in
        # [0.5, 2) otherwise.
        c = ((1.0 - (u - x)) if u >= 2.0 else (x - (u - 1.0))) / u
        y = log_reduced(u, c)
        y = x if abs(x) < _TINY else y
        y = math.nan if x < -1.0 else y
        y = -math.inf if x == -1.0 else y
        return x + x if not x < math.inf else y
    return log1p_


_log64 = _log_for(_log_reduced_for(_r_poly10))
_log1p64 = _log1p_for(_log_reduced_for(_r_poly10))
_log_in64 = _log_for(_log_reduced_for(_r_poly5))
_log1p_in64 = _log1p_for(_log_reduced_for(_r_poly5))


@register_jitable
def _expm1_f32(x):
    """float32 expm1 as 2**k (hi + lo) - 1 in float64, with exp's hi + lo: for k = 0, hi - 1 is
    exact and lo keeps the bits it loses, so small x keep their relative accuracy. Shorter than
    the float64 routine, so that LLVM inlines it into the loop and vectorizes it."""
    d = np.float64(x)
    hi, lo, s1, s2 = _exp_parts64(d)
    # expm1 has the sign of x: copysign restores -0.0 without a select, which would push the
    # body past the inlining threshold.
    return np.float32(math.copysign((hi * s1 * s2 - 1.0) + lo * s1 * s2, d))


@register_jitable
def _tanh_f32(x):
    """float32 tanh as e / (e + 2) in float64, e = expm1(2|x|) from exp's hi + lo (accurate for
    small |x| as in ``_expm1_f32``); |x| is clamped at 20, where tanh is 1 in float64."""
    a = abs(np.float64(x))
    a = 20.0 if a > 20.0 else a
    hi, lo, s1, s2 = _exp_parts64(a + a)
    e = (hi * s1 * s2 - 1.0) + lo * s1 * s2
    return np.float32(math.copysign(e / (e + 2.0), np.float64(x)))


@register_jitable
def _sigmoid_f32(x):
    """float32 sigmoid as 1 / (1 + exp(-x)) in float64: no overflow within float32's range,
    one rounding to float32."""
    hi, lo, s1, s2 = _exp_parts64(-np.float64(x))
    return np.float32(1.0 / (1.0 + (hi + lo) * s1 * s2))


def _f32_via_f64(f64):
    @register_jitable
    def f32(x):
        return np.float32(f64(np.float64(x)))
    return f32


def _specialized(generic, f32, f64):
    # These bodies are past LLVM's inlining threshold: inlined by Numba, they keep loops vectorized.
    return scalar_math.cpu_specialized(generic, f32, f64, inline="always")


_log = _specialized(lambda x: math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan),
                    _f32_via_f64(_log_in64), _log64)
_log1p = _specialized(lambda x: math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan),
                      _f32_via_f64(_log1p_in64), _log1p64)
# float64 expm1 keeps libm: an exact float64 version (TwoSum on 2**k (hi + lo) - 1) is past
# LLVM's inlining threshold in the kernels, and slower than libm as a call.
_libm_expm1 = register_jitable(lambda x: math.expm1(x))
_expm1 = _specialized(_libm_expm1, _expm1_f32, _libm_expm1)
# float64 keeps scalar_math's versions (tanh: libm): the float32 bodies here lean on float64's
# precision and range, which float64 itself cannot.
_tanh = _specialized(scalar_math.tanh, _tanh_f32, scalar_math.tanh)
_sigmoid = _specialized(scalar_math.sigmoid, _sigmoid_f32, scalar_math.sigmoid)


# Module-level wrappers: kernels that inline them are keyed on this file's contents.
@register_jitable
def log(x):
    """The natural logarithm of ``x``: -inf at 0, NaN below."""
    return _log(x)


@register_jitable
def log1p(x):
    """``log(1 + x)``, accurate for small ``x``: -inf at -1, NaN below."""
    return _log1p(x)


@register_jitable
def expm1(x):
    """``exp(x) - 1``, accurate for small ``x``."""
    return _expm1(x)


@register_jitable
def tanh(x):
    """The hyperbolic tangent of ``x``."""
    return _tanh(x)


@register_jitable
def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` of ``x``."""
    return _sigmoid(x)
