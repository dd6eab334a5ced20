"""log, log1p (float32 and float64), expm1, tanh, sigmoid, erf, erfc, sin and cos (float32) as
branch-free scalar code that LLVM vectorizes in CPU kernels, within 1 ulp. Only arithmetic,
selects and unsigned integer views of the bits are used: a libm call, a float/int conversion or a
signed 64-bit shift would stop the vectorizer on AVX2 machines. float32 is computed in float64
and rounded once, which makes it nearly correctly rounded; other targets (CUDA) run the libm
functions."""
from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
from numba import types
from numba.extending import intrinsic, register_jitable

from .. import scalar_math
from ..scalar_math import _exp_parts64
from .shared import fused_multiply_add as fma

# ln 2 to 40 digits, split so that k * _LN2_HI is exact for every float64 exponent k (|k| < 2**11).
with localcontext() as _ctx:  # the caller's decimal context is left as it was
    _ctx.prec = 40
    _LN2 = Decimal(2).ln()
    _LN2_HI = float((np.float64(float(_LN2)).view(np.uint64) & ~np.uint64(0xFFF)).view(np.float64))
    _LN2_LO = float(_LN2 - Decimal(_LN2_HI))

_U = np.uint64


@intrinsic
def _select(typingctx, cond, a, b):
    """``a if cond else b`` as one select instruction. A conditional expression in a body that
    is inlined into inlined code (erf into gelu into a kernel) trips Numba's SSA pass."""
    if isinstance(cond, types.Boolean) and isinstance(a, types.Float) and a == b:
        return a(cond, a, b), lambda context, builder, sig, args: builder.select(*args)
    return None


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


# erf and erfc (float32, in float64). On a = |x|: below 1, erf(a) = a P(a**2); from 1 on,
# erfc(a) = exp(-a**2) G(1 / a). P and G are Chebyshev interpolants written in the power basis:
# P of erf(a) / a in z = a**2 on [0, 1] (degree 8, relative error 9e-13), G of erfc(a) exp(a**2)
# on [1, 10.1] in u = (2 / a - (1 / 10.1 + 1)) / (1 - 1 / 10.1) (degree 18, relative error 6e-12).
# Past 10.1, erfc is below half float32's smallest subnormal: a is clamped there.
_ERF_P = (
    1.1283791670946755, -0.3761263888962243, 0.11283791308371346,
    -0.026866133217784745, 0.005223783412140401, -0.0008542636647544656,
    0.0001195654689864501, -1.390924464154008e-05, 1.0589143666959874e-06)
_ERFC_G = (
    0.2760919452929528, 0.18425859417034243, -0.03679108350565079,
    0.0030757646208893147, 0.0018604053223394074, -0.0012930935422596577,
    0.00047238390194575804, -8.574103557803056e-05, -2.6438611667114596e-05,
    3.486021727003151e-05, -1.9911775339664928e-05, 7.0672291096678595e-06,
    -1.2360628626370976e-06, 1.056840861373973e-07, 5.457636090891591e-07,
    -1.1912100633612442e-06, 5.576560062380802e-07, 1.7843922250904143e-07,
    -1.363987394142896e-07)
_ERFC_A_MAX = 10.1
_ERFC_U_SCALE = 2.0 / (1.0 - 1.0 / _ERFC_A_MAX)
_ERFC_U_SHIFT = (1.0 / _ERFC_A_MAX + 1.0) / (1.0 - 1.0 / _ERFC_A_MAX)


@register_jitable
def _erf_p(z):
    p0, p1, p2, p3, p4, p5, p6, p7, p8 = _ERF_P
    h = fma(z, p8, p7)
    h = fma(z, h, p6)
    h = fma(z, h, p5)
    h = fma(z, h, p4)
    h = fma(z, h, p3)
    h = fma(z, h, p2)
    h = fma(z, h, p1)
    h = fma(z, h, p0)
    return h


@register_jitable
def _erfc_g(u):
    (g0, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11, g12, g13, g14, g15, g16, g17, g18) = _ERFC_G
    h = fma(u, g18, g17)
    h = fma(u, h, g16)
    h = fma(u, h, g15)
    h = fma(u, h, g14)
    h = fma(u, h, g13)
    h = fma(u, h, g12)
    h = fma(u, h, g11)
    h = fma(u, h, g10)
    h = fma(u, h, g9)
    h = fma(u, h, g8)
    h = fma(u, h, g7)
    h = fma(u, h, g6)
    h = fma(u, h, g5)
    h = fma(u, h, g4)
    h = fma(u, h, g3)
    h = fma(u, h, g2)
    h = fma(u, h, g1)
    h = fma(u, h, g0)
    return h


@register_jitable(inline="always")
def _erf_parts(d):
    """erf(min(|d|, 1)) and erfc(max(|d|, 1)); NaN stays NaN (min and max keep their first
    argument's NaN)."""
    a = abs(d)
    c = min(a, 1.0)
    below = c * _erf_p(c * c)
    b = min(max(a, 1.0), _ERFC_A_MAX)
    hi, lo, s1, s2 = _exp_parts64(-(b * b))
    return below, (hi * s1 * s2) * _erfc_g(_ERFC_U_SCALE / b - _ERFC_U_SHIFT)


@register_jitable
def _erf_f32(x):
    d = np.float64(x)
    below, above = _erf_parts(d)
    return np.float32(math.copysign(_select(abs(d) < 1.0, below, 1.0 - above), d))


@register_jitable
def _erfc_f32(x):
    d = np.float64(x)
    below, above = _erf_parts(d)
    tail = _select(d < 0.0, 2.0 - above, above)
    return np.float32(_select(abs(d) < 1.0, 1.0 - math.copysign(below, d), tail))


# sin and cos (float32, in float64). With a = |x|, a * 2/pi = k + f, k an integer and |f| <= 1/2:
# sin(a) is sin(y), cos(y), -sin(y), -cos(y) for k mod 4 = 0, 1, 2, 3, with y = f pi/2. 2/pi is
# cut into 28-bit chunks c_j, so that each product a c_j is exact (a float32 has 24 bits), and
# each product is reduced mod 4 exactly; k is the integer nearest the remainders' total, taken
# out before they are summed, so that cancellation near a multiple of pi/2 loses nothing. For
# a = M 2**E (M an integer below 2**24) the bits of 2/pi whose product with a is a multiple of
# 4 can be left out, and those past bit E + 88 weigh below 2**-64: five chunks from bit 1 serve
# a < 2**77 (E < 54), five from bit 53 the rest of float32's range. sin(y) and cos(y) are
# Taylor polynomials (truncation below 3e-13 on |y| <= pi/4). Over every float32 input sin, cos
# and erf are within 0.5000 ulp and erfc within 0.5001 (NUMGRAD_EXHAUSTIVE=1 tests/test_vecmath.py).
def _two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits), from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239) in integers."""
    one = 1 << (bits + 64)

    def atan_inv(n):
        total, term, k = 0, one // n, 1
        while term:
            total += term // k if k % 4 == 1 else -(term // k)
            term //= n * n
            k += 2
        return total
    pi = 16 * atan_inv(5) - 4 * atan_inv(239)  # pi * 2**(bits + 64), to within a few units
    return (2 * one << bits) // pi


def _chunks_of_two_over_pi(skip: int, n: int = 5, width: int = 28) -> tuple:
    """Bits skip + 1 ... skip + n * width of 2/pi as n floats of ``width`` bits each."""
    last = skip + n * width
    bits = _two_over_pi(last)
    return tuple(math.ldexp((bits >> (last - skip - width * (j + 1))) & ((1 << width) - 1),
                            -(skip + width * (j + 1))) for j in range(n))


_TWO_OVER_PI_LOW = _chunks_of_two_over_pi(0)
_TWO_OVER_PI_HIGH = _chunks_of_two_over_pi(52)
_HIGH_FROM = 2.0 ** 77
_TWO54 = 2.0 ** 54
_RINT = 1.5 * 2.0 ** 52  # x + _RINT - _RINT rounds |x| < 2**51 to an integer
_SIN = tuple((-1) ** i / math.factorial(2 * i + 1) for i in range(1, 7))
_COS = tuple((-1) ** i / math.factorial(2 * i) for i in range(2, 8))


@register_jitable
def _mod4(v):
    """v mod 4 in [-2, 2], exactly, for an exact product v >= 0: past 2**54 v is a multiple of 4,
    below, v + 2**54 rounds to one (its ulp is 4)."""
    v = min(v, _TWO54)
    return v - ((v + _TWO54) - _TWO54)


@register_jitable(inline="always")
def _sin_cos_parts(d):
    """(sin(y), cos(y), k mod 4) with |d| = (k + y / (pi/2)) pi/2, |y| <= pi/4 (about)."""
    a = abs(d)
    high = a >= _HIGH_FROM
    l0, l1, l2, l3, l4 = _TWO_OVER_PI_LOW
    h0, h1, h2, h3, h4 = _TWO_OVER_PI_HIGH
    r0 = _mod4(a * _select(high, h0, l0))
    r1 = _mod4(a * _select(high, h1, l1))
    r2 = _mod4(a * _select(high, h2, l2))
    r3 = _mod4(a * _select(high, h3, l3))
    r4 = _mod4(a * _select(high, h4, l4))
    k = ((((r0 + r1) + (r2 + r3)) + r4) + _RINT) - _RINT
    f = ((((r0 - k) + r1) + r2) + r3) + r4
    q = k - 4.0 * (((k * 0.25 - 0.375) + _RINT) - _RINT)
    y = f * (math.pi / 2)
    z = y * y
    s1, s2, s3, s4, s5, s6 = _SIN
    c2, c3, c4, c5, c6, c7 = _COS
    t = fma(z, fma(z, fma(z, fma(z, fma(z, s6, s5), s4), s3), s2), s1)
    sin_y = fma(y * z, t, y)
    t = fma(z, fma(z, fma(z, fma(z, fma(z, c7, c6), c5), c4), c3), c2)
    cos_y = fma(z, fma(z, t, -0.5), 1.0)
    return sin_y, cos_y, q


@register_jitable
def _sin_f32(x):
    d = np.float64(x)
    sin_y, cos_y, q = _sin_cos_parts(d)
    v = _select(abs(q - 2.0) == 1.0, cos_y, sin_y)
    v = _select(q >= 2.0, -v, v)
    # d - d is NaN for inf and NaN; it is added before the sign so that sin(-0.0) is -0.0.
    return np.float32(math.copysign(1.0, d) * (v + (d - d)))


@register_jitable
def _cos_f32(x):
    d = np.float64(x)
    sin_y, cos_y, q = _sin_cos_parts(d)
    v = _select(abs(q - 2.0) == 1.0, sin_y, cos_y)
    return np.float32(_select(abs(q - 1.5) < 1.0, -v, v) + (d - d))


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
# float64 erf, erfc, sin and cos keep libm's: the float32 routines lean on float64's precision.
_libm_erf = register_jitable(lambda x: math.erf(x))
_libm_erfc = register_jitable(lambda x: math.erfc(x))
_libm_sin = register_jitable(lambda x: math.sin(x))
_libm_cos = register_jitable(lambda x: math.cos(x))
_erf = _specialized(_libm_erf, _erf_f32, _libm_erf)
_erfc = _specialized(_libm_erfc, _erfc_f32, _libm_erfc)
_sin = _specialized(_libm_sin, _sin_f32, _libm_sin)
_cos = _specialized(_libm_cos, _cos_f32, _libm_cos)


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


# erf and erfc inline in the functions that call them (gelu): each is past LLVM's threshold.
@register_jitable(inline="always")
def erf(x):
    """The error function of ``x``."""
    return _erf(x)


@register_jitable(inline="always")
def erfc(x):
    """``1 - erf(x)``, accurate where erf is near 1."""
    return _erfc(x)


@register_jitable
def sin(x):
    """The sine of ``x`` (radians)."""
    return _sin(x)


@register_jitable
def cos(x):
    """The cosine of ``x`` (radians)."""
    return _cos(x)
