"""Scalar bodies of the special functions (gamma family, erfinv, Bessel I0/I1, sinc, logit).

Each computes in float64 whatever its argument's type, guards its poles and overflows before
calling ``math`` (the simulated CUDA target runs them in Python, where those raise), and is
accurate to a few ulp of float64.
"""
from __future__ import annotations

import math

from numba.extending import register_jitable

_INF = math.inf
_NAN = math.nan
_PI = math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@register_jitable
def _is_pole(x):
    """True for 0 and the negative integers (and -inf)."""
    return x <= 0.0 and (x <= -4503599627370496.0 or x == math.floor(x))


# B_2k for k = 1..10: the coefficients of the Stirling series.
_B2K = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0, -691.0 / 2730.0, 7.0 / 6.0,
        -3617.0 / 510.0, 43867.0 / 798.0, -174611.0 / 330.0)


@register_jitable
def _bernoulli(k):
    return _B2K[k - 1]


# ---------------------------------------------------------------------------------- gamma family
@register_jitable
def lgamma(x):
    """log |Gamma(x)|: +inf at the poles."""
    x = float(x)
    if x != x:
        return x
    if _is_pole(x):
        return _INF
    return math.lgamma(x)


@register_jitable
def _digamma_positive(x):
    # psi(x) = psi(x + m) - sum 1/(x + j), shifted to x >= 10 where the Stirling series
    # ln x - 1/(2x) - sum B_2k / (2k x^2k) is below 1e-17 after B_16.
    acc = 0.0
    while x < 10.0:
        acc += 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    s = 0.0
    zk = z
    for k in range(1, 9):
        s += _bernoulli(k) / (2 * k) * zk
        zk *= z
    return math.log(x) - 0.5 / x - s - acc


@register_jitable
def digamma(x):
    """The logarithmic derivative of Gamma: -inf at +0, +inf at -0, NaN at negative integers."""
    x = float(x)
    if x != x:
        return x
    if x == 0.0:
        return -math.copysign(_INF, x)
    if x > 0.0:
        if x == _INF:
            return x
        return _digamma_positive(x)
    if _is_pole(x):
        return _NAN
    # Reflection: psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so x less its nearest
    # integer gives it without the rounding of pi * x for large |x|. That difference is exact,
    # also near 0, where x - floor(x) would round 1 - 1e-30 to 1 (and pi / tan(pi) is ~1e16).
    r = x - math.floor(x + 0.5)
    return _digamma_positive(1.0 - x) - _PI / math.tan(_PI * r)


@register_jitable
def _polygamma_positive(n, x):
    # (-1)^(n+1) n! sum_j 1/(x + j)^(n+1) up to x + m >= 20 + n, then the asymptotic series
    # (n-1)!/x^n [1 + n/(2x) + sum_k B_2k C(2k+n-1, n-1) / x^2k]. For x > 0 and n >= 1.
    sign = 1.0 if n % 2 == 1 else -1.0
    nfact = math.gamma(n + 1.0)
    acc = 0.0
    limit = 20.0 + n
    while x < limit:
        acc += 1.0 / x ** (n + 1)
        x += 1.0
    z = 1.0 / (x * x)
    s = 1.0 + n / (2.0 * x)
    b = n * (n + 1) / 2.0
    zk = z
    for k in range(1, 11):
        s += _bernoulli(k) * b * zk
        b *= (2.0 * k + n) * (2.0 * k + n + 1.0) / ((2.0 * k + 1.0) * (2.0 * k + 2.0))
        zk *= z
    return sign * (nfact * acc + nfact / n * s / x ** n)


@register_jitable
def polygamma(n, x):
    """The n-th derivative of digamma (n >= 0)."""
    n = int(n)
    if n == 0:
        return digamma(x)
    x = float(x)
    if x != x or x == -_INF:
        return _NAN
    if x == _INF:
        return 0.0
    if _is_pole(x):
        return (1.0 if n % 2 == 1 else -1.0) * _INF
    if x > 0.0:
        return _polygamma_positive(n, x)
    if x > -0.5:
        # One step of the recurrence from x + 1 keeps the pole term exact; 1 - (x + 1) below
        # would lose x near 0.
        sign = 1.0 if n % 2 == 0 else -1.0
        return _polygamma_positive(n, x + 1.0) - sign * math.gamma(n + 1.0) / x ** (n + 1)
    # x = r - m with 0 < r < 1: the m terms of the recurrence down from r are a sum over
    # (1 - r) + k, k < m, which two values at positive points give in closed form, so the cost
    # does not grow with |x|.
    r = x - math.floor(x)
    m = -math.floor(x)
    parity = 1.0 if n % 2 == 0 else -1.0
    return _polygamma_positive(n, r) - parity * (_polygamma_positive(n, 1.0 - r)
                                                 - _polygamma_positive(n, 1.0 - r + m))


# ---------------------------------------------------------------------------------- erfinv
@register_jitable
def erfinv(x):
    """The inverse error function on [-1, 1]: a first guess refined by Halley steps.

    Below 0.5 the guess is the Maclaurin series and the steps solve erf(y) = |x|; above, the
    guess inverts erfc's leading asymptote and the steps solve erfc(y) = 1 - |x|, which is
    exact there and keeps full relative accuracy as |x| approaches 1."""
    x = float(x)
    a = abs(x)
    if x != x or a > 1.0:
        return _NAN
    if a == 1.0:
        return math.copysign(_INF, x)
    if a == 0.0:
        return x
    tail = a > 0.5
    q = 1.0 - a
    if tail:
        t = math.sqrt(-math.log(q))
        u = t * t - math.log(t * 1.7724538509055160)
        y = math.sqrt(u) if u > 0.0 else t
    else:
        c = SQRT_PI_OVER_2 * a
        c2 = c * c
        y = c * (1.0 + c2 * (1.0 / 3.0 + c2 * (7.0 / 30.0 + c2 * 127.0 / 630.0)))
    for _ in range(12):
        slope = _TWO_OVER_SQRT_PI * math.exp(-y * y)
        if tail:
            d = (q - math.erfc(y)) / slope
        else:
            d = (math.erf(y) - a) / slope
        # Halley: f''/f' = -2y for erf and erfc alike.
        step = d / (1.0 + y * d)
        y -= step
        if abs(step) <= 1e-16 * y:
            break
    return math.copysign(y, x)


# ---------------------------------------------------------------------------------- Bessel
@register_jitable
def _bessel_i_series(a, nu):
    # I_nu(a) = (a/2)^nu sum_k (a^2/4)^k / (k! (k + nu)!), nu in {0, 1}: positive terms.
    q = 0.25 * a * a
    term = 1.0 if nu == 0 else 0.5 * a
    s = term
    k = 1
    while k < 500:
        term *= q / (k * (k + nu))
        s += term
        if term <= 1e-17 * s:
            break
        k += 1
    return s


@register_jitable
def _bessel_i_asymptotic(a, nu):
    # e^a / sqrt(2 pi a) sum_k t_k, t_k = t_(k-1) ((2k-1)^2 - 4 nu^2) / (8 k a), for a > 30
    # where the terms fall below 1e-17 long before they start to grow. e^a is applied in two
    # halves: I_nu stays finite a little beyond where e^a overflows.
    if a > 1500.0:
        return _INF
    mu = 4.0 * nu * nu
    t = 1.0
    s = 1.0
    for k in range(1, 60):
        t *= ((2.0 * k - 1.0) ** 2 - mu) / (8.0 * k * a)
        s += t
        if abs(t) <= 1e-17 * abs(s):
            break
    h = math.exp(0.5 * a)
    return h * (h * s / math.sqrt(2.0 * _PI * a))


@register_jitable
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    a = abs(float(x))
    if a != a:
        return a
    if a <= 30.0:
        return _bessel_i_series(a, 0)
    return _bessel_i_asymptotic(a, 0)


@register_jitable
def i1(x):
    """The modified Bessel function of the first kind, order 1 (odd in x)."""
    x = float(x)
    a = abs(x)
    if a != a:
        return a
    r = _bessel_i_series(a, 1) if a <= 30.0 else _bessel_i_asymptotic(a, 1)
    return math.copysign(r, x)


# ---------------------------------------------------------------------------------- others
@register_jitable
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    x = float(x)
    if x == 0.0:
        return 1.0
    if x == _INF or x == -_INF:
        return 0.0
    y = _PI * x
    return math.sin(y) / y


@register_jitable
def logit(x, eps):
    """log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] (no clamp for eps < 0)."""
    z = float(x)
    eps = float(eps)
    if eps >= 0.0:
        lo, hi = eps, 1.0 - eps
        z = lo if z < lo else (hi if z > hi else z)
    if z != z or z < 0.0 or z > 1.0:
        return _NAN
    if z == 0.0:
        return -_INF
    if z == 1.0:
        return _INF
    return math.log(z / (1.0 - z))
