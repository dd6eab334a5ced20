"""Fill kernels for factories: arange and linspace sequences."""
from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def affine(out, start, step):
    """out[i] = start + i * step, computed in the type of start/step then stored."""
    for i in range(out.shape[0]):
        out[i] = start + i * step


@njit(cache=True, nogil=True)
def linspace(out, start, end, step):
    """Evenly spaced values, computed from both ends so that the last value is exactly ``end``."""
    n = out.shape[0]
    half = n // 2
    for i in range(n):
        if i < half:
            out[i] = start + step * i
        else:
            out[i] = end - step * (n - 1 - i)
