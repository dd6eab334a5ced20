"""Fill kernels for factories: arange, linspace and logspace sequences."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .mt19937 import fmadd


@njit(cache=True, nogil=True)
def affine(out, start, step):
    """out[i] = start + i * step, computed in the type of start/step then stored."""
    for i in range(out.shape[0]):
        out[i] = start + i * step


@njit(cache=True, nogil=True)
def _to_narrow(x, bfloat):
    """The float16 (or with ``bfloat`` the bfloat16) nearest to ``x`` (ties to even), as a float32."""
    a = abs(np.float64(x))
    if a == 0.0 or a != a:
        return x
    # Significant bits, the exponent of the smallest subnormal, and the first number that
    # rounds to infinity.
    digits, lowest, limit = (8, -133, 3.3961775292304e38) if bfloat else (11, -24, 65520.0)
    if a >= limit:
        return np.float32(math.copysign(math.inf, x))
    spacing = math.ldexp(1.0, max(math.frexp(a)[1] - digits, lowest))
    return np.float32(math.copysign(np.rint(a / spacing) * spacing, x))


@njit(cache=True, nogil=True, error_model="numpy")
def linspace(out, start, end, step, mode):
    """Evenly spaced values computed from both ends, as PyTorch computes each: ``start + step *
    i`` for the first half, ``end - step * (n - 1 - i)`` for the second, a multiply-add rounded
    once in the type of ``out``/``start``/``end``/``step`` (float32 or float64), ``i`` first
    converted to that type. ``mode`` 1 truncates each value (integer results); mode 2 rounds
    every operation to float16 instead (3: to bfloat16), 16-bit arithmetic having no multiply-add."""
    n = out.shape[0]
    middle = n // 2
    for i in range(n):
        k = i if i < middle else n - 1 - i
        # The index in out's type, converted as C converts it.
        out[i] = k
        if mode >= 2:
            bfloat = mode == 3
            scaled = _to_narrow(step * _to_narrow(out[i], bfloat), bfloat)
            out[i] = _to_narrow(start + scaled if i < middle else end - scaled, bfloat)
        elif i < middle:
            out[i] = fmadd(step, out[i], start)
        else:
            out[i] = fmadd(-step, out[i], end)
        if mode == 1:
            out[i] = np.trunc(out[i])


@njit(cache=True, nogil=True, error_model="numpy")
def logspace(out, start, end, step, base):
    """out[i] = base ** (start + step * i) for the first half, base ** (end - step * (n - 1 - i))
    for the second, each operation rounded (no multiply-add), as PyTorch's logspace computes it."""
    n = out.shape[0]
    middle = n // 2
    for i in range(n):
        if i < middle:
            out[i] = math.pow(base, start + step * np.float64(i))
        else:
            out[i] = math.pow(base, end - step * np.float64(n - 1 - i))
