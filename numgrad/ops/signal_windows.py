"""Signal windows (Hann, Hamming, Blackman, Bartlett, Kaiser) as PyTorch's factories make them."""
from __future__ import annotations

import math

from .. import dtypes
from ..creation import arange, ones
from ..layouts import check_layout
from . import functional_elementwise as _E

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(name: str, window_length: int, periodic: bool, dtype, layout, device, requires_grad, body):
    """Checks the request, answers the degenerate lengths, and evaluates ``body(n, N)`` on the
    positions ``n`` of a symmetric window of ``N`` points (one more, then dropped, when periodic)."""
    check_layout(layout, name)
    dtype = dtype or dtypes.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if window_length <= 1:
        return ones(window_length, dtype=dtype, device=device, requires_grad=requires_grad)
    points = window_length + 1 if periodic else window_length
    window = body(arange(points, dtype=dtype, device=device), points)
    if periodic:
        window = window[:-1]
    return window.contiguous().requires_grad_(requires_grad)


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False):
    """hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor

    ``alpha - beta * cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, layout, device, requires_grad,
                   lambda n, N: _E.cos(n * (2 * math.pi / (N - 1))) * -beta + alpha)


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False):
    """hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor

    ``0.5 - 0.5 * cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, layout, device, requires_grad,
                   lambda n, N: _E.cos(n * (2 * math.pi / (N - 1))) * -0.5 + 0.5)


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor

    ``0.42 - 0.5 * cos(2 pi n / (N - 1)) + 0.08 * cos(4 pi n / (N - 1))``."""
    def body(n, N):
        phase = n * (math.pi / (N - 1))
        return _E.cos(phase * 4) * 0.08 - _E.cos(phase * 2) * 0.5 + 0.42
    return _window("blackman_window", window_length, periodic, dtype, layout, device, requires_grad, body)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False):
    """bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor

    The triangle ``1 - |2 n / (N - 1) - 1|``."""
    def body(n, N):
        ramp = n * (2.0 / (N - 1))
        # The falling half mirrors the rising one: 2 - x, as PyTorch computes it.
        return _E.where(n < (N - 1) // 2 + 1, ramp, 2 - ramp)
    return _window("bartlett_window", window_length, periodic, dtype, layout, device, requires_grad, body)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False):
    """kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor

    ``I0(beta * sqrt(1 - ((n - h) / h) ** 2)) / I0(beta)`` with ``h = (N - 1) / 2``."""
    def body(n, N):
        half = (N - 1) / 2.0
        radius = 1 - ((n - half) / half) ** 2
        return _E.i0(_E.sqrt(_E.clamp_min(radius, 0.0)) * beta) / _E.i0(n.new_tensor(beta))
    return _window("kaiser_window", window_length, periodic, dtype, layout, device, requires_grad, body)
