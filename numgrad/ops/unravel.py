"""unravel_index: flat indices back to coordinates in a shape."""
from __future__ import annotations

from .. import dtypes
from ..creation import tensor

__all__ = ["unravel_index"]


def unravel_index(indices, shape):
    """unravel_index(indices, shape) -> tuple of Tensors

    The coordinates in ``shape`` of the flat (row-major) ``indices``, one int64 tensor per
    dimension; negative indices count from the end, as Python's floor division gives."""
    if not hasattr(indices, "_storage"):
        indices = tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype is dtypes.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if 0 in shape:
        raise RuntimeError("ZeroDivisionError")
    rest = indices.to(dtypes.int64)
    coords = []
    for size in reversed(shape):
        coords.append(rest.remainder(size))
        rest = rest.div(size, rounding_mode="floor")
    return tuple(reversed(coords))
