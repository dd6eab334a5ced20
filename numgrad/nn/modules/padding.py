"""Padding layers: constant (and zero), reflection, replication and circular padding of the
last 1, 2 or 3 dims, all over ``F.pad``."""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _amounts(padding, dims: int) -> tuple:
    """``padding`` as a tuple of (left, right) amounts, one int standing for all ``2 * dims``."""
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * (2 * dims)


class _PadNd(Module):
    dims = 1
    mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _amounts(padding, self.dims)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """ConstantPad1d(padding, value)

    Pads the last dim with ``value``; ``padding`` is an int or (left, right)."""
    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """ConstantPad2d(padding, value)

    Pads the last two dims with ``value``; ``padding`` is an int or (left, right, top, bottom)."""
    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """ConstantPad3d(padding, value)

    Pads the last three dims with ``value``; ``padding`` is an int or a 6-tuple, last dim first."""
    dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """ZeroPad1d(padding)

    Pads the last dim with zeros; ``padding`` is an int or (left, right)."""
    dims = 1


class ZeroPad2d(_ZeroPadNd):
    """ZeroPad2d(padding)

    Pads the last two dims with zeros; ``padding`` is an int or (left, right, top, bottom)."""
    dims = 2


class ZeroPad3d(_ZeroPadNd):
    """ZeroPad3d(padding)

    Pads the last three dims with zeros; ``padding`` is an int or a 6-tuple, last dim first."""
    dims = 3


class ReflectionPad1d(_PadNd):
    """ReflectionPad1d(padding)

    Pads the last dim with its mirror image, the edge not repeated."""
    dims, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """ReflectionPad2d(padding)

    Pads the last two dims with their mirror image, the edges not repeated."""
    dims, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """ReflectionPad3d(padding)

    Pads the last three dims with their mirror image, the edges not repeated."""
    dims, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """ReplicationPad1d(padding)

    Pads the last dim by repeating its edge values."""
    dims, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """ReplicationPad2d(padding)

    Pads the last two dims by repeating their edge values."""
    dims, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """ReplicationPad3d(padding)

    Pads the last three dims by repeating their edge values."""
    dims, mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        if input.ndim not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """CircularPad1d(padding)

    Pads the last dim by wrapping around: the left pad repeats the end, the right the start."""
    dims = 1


class CircularPad2d(_CircularPadNd):
    """CircularPad2d(padding)

    Pads the last two dims by wrapping around."""
    dims = 2


class CircularPad3d(_CircularPadNd):
    """CircularPad3d(padding)

    Pads the last three dims by wrapping around."""
    dims = 3
