"""Maximum, minimum, the clamps and where, whose results are one of their operands at each
element; nan_to_num, which replaces values; and copy. Each with its scalar math, its derivatives
and, where the signature is plain, its public function.

The clamps, where, nan_to_num and copy take more than ``out=``: their functions are in
``functional_elementwise``.
"""
from __future__ import annotations

import math

from ..functional_elementwise import where
from ..records import elementwise
from .binding import binary
from .comparisons import isfinite, isnan, logical_not


def _maximum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x >= y else y


def _minimum(x, y):
    if x != x:
        return x
    if y != y:
        return y
    return x if x <= y else y


def _max_share(ans, x, y):
    # Ties split the gradient equally, as PyTorch does; where either is NaN, both take all of it.
    return where(x < y, 0.0, 1 - (x == y) * 0.5)


def _min_share(ans, x, y):
    return where(x > y, 0.0, 1 - (x == y) * 0.5)


maximum = binary(elementwise("maximum", _maximum, nin=2,
                             d=(_max_share, lambda ans, x, y: _max_share(ans, y, x))),
                 "Elementwise maximum; NaN propagates.")
minimum = binary(elementwise("minimum", _minimum, nin=2,
                             d=(_min_share, lambda ans, x, y: _min_share(ans, y, x))),
                 "Elementwise minimum; NaN propagates.")


# fmax/fmin ignore a NaN operand (NaN only where both are); ties and NaN pick x, and so does
# the gradient, as PyTorch's.
def _fmax(x, y):
    if y != y:
        return x
    if x != x:
        return y
    return x if x >= y else y


def _fmin(x, y):
    if y != y:
        return x
    if x != x:
        return y
    return x if x <= y else y


def _fmax_picks_x(ans, x, y):
    return (x >= y) | isnan(y)


def _fmin_picks_x(ans, x, y):
    return (x <= y) | isnan(y)


fmax = binary(elementwise("fmax", _fmax, nin=2,
                          d=(_fmax_picks_x, lambda ans, x, y: logical_not(_fmax_picks_x(ans, x, y)))),
              "Elementwise maximum ignoring NaN: NaN only where both are NaN.")
fmin = binary(elementwise("fmin", _fmin, nin=2,
                          d=(_fmin_picks_x, lambda ans, x, y: logical_not(_fmin_picks_x(ans, x, y)))),
              "Elementwise minimum ignoring NaN: NaN only where both are NaN.")


# A NaN operand gives NaN, as in PyTorch (the sum is NaN then; integers never take that branch).
def _clamp_min(x, lo):
    if x != x or lo != lo:
        return x + lo
    return lo if x < lo else x


def _clamp_max(x, hi):
    if x != x or hi != hi:
        return x + hi
    return hi if x > hi else x


def _clamp(x, lo, hi):
    if x != x or lo != lo or hi != hi:
        return x + lo + hi
    y = lo if x < lo else x
    return hi if y > hi else y


elementwise("clamp_min", _clamp_min, nin=2, variants={"tt": "ClampMinBackward1"},
            d=(lambda ans, x, lo: x >= lo, lambda ans, x, lo: x < lo))
elementwise("clamp_max", _clamp_max, nin=2, variants={"tt": "ClampMaxBackward1"},
            d=(lambda ans, x, hi: x <= hi, lambda ans, x, hi: x > hi))
# min(max(x, lo), hi): where lo > hi every element is hi.
elementwise("clamp", _clamp, nin=3, variants={"tss": "ClampBackward1"},
            d=(lambda ans, x, lo, hi: (x >= lo) & (x <= hi), lambda ans, x, lo, hi: (x < lo) & (lo <= hi),
               lambda ans, x, lo, hi: (x > hi) | (lo > hi)))


def _where(c, x, y):
    return x if c != 0 else y


elementwise("where", _where, nin=3,
            vjp=(None, lambda g, ans, c, x, y: where(c, g, 0.0), lambda g, ans, c, x, y: where(c, 0.0, g)),
            jvp=(None, lambda t, ans, c, x, y: where(c, t, 0.0), lambda t, ans, c, x, y: where(c, 0.0, t)))


def _nan_to_num(x, nan, posinf, neginf):
    if x != x:
        return nan
    if x == math.inf:
        return posinf
    if x == -math.inf:
        return neginf
    return x


elementwise("nan_to_num", _nan_to_num, nin=4, d=(lambda ans, x, n, p, m: isfinite(x), None, None, None))
elementwise("copy", lambda x: x, result="same", vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,),
            backward_name="ToCopyBackward0")
