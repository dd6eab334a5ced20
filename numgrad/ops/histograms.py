"""histogram: counts (or summed weights) of values in bins, with the bins' edges."""
from __future__ import annotations

import numpy as np

from .. import dtypes, names
from ..creation import linspace, tensor
from ..return_types import return_type
from ..dtypes import torch_type_name

__all__ = ["histogram"]


def _edges(input, bins: int, range_):
    if range_ is not None:
        low, high = float(range_[0]), float(range_[1])
    elif input.numel():
        low, high = float(input.min()), float(input.max())
    else:
        low, high = 0.0, 1.0
    if low > high:
        raise RuntimeError(f"{names.package()}.histogramdd: min should not exceed max, but got min {low:g} max "
                           f"{high:g} for dimension 0")
    if low == high:
        # A single value gets a unit-wide range around it, as NumPy gives it.
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, bins + 1, dtype=input.dtype, device=input.device)


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False, out=None):
    """histogram(input, bins, *, range=None, weight=None, density=False, out=None) -> (Tensor, Tensor)

    Counts the values of ``input`` in ``bins`` equal bins over ``range`` (default: from the
    smallest to the largest value) or between the increasing edges of a 1-D tensor ``bins``;
    values outside are ignored and the last bin includes its right edge. ``weight`` sums
    weights instead of counts; ``density`` scales the result to integrate to one."""
    # PyTorch's kernel takes float32 and float64 only.
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{torch_type_name(input.dtype)}'")
    if hasattr(bins, "_storage"):
        if bins.ndim != 1:
            raise RuntimeError(f"{names.package()}.histogramdd: bins tensor should have one dimension, but got "
                               f"{bins.ndim} dimensions in the bins tensor for dimension 0")
        edges = bins.to(input.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"{names.package()}.histogramdd(): bins must be > 0, but got {bins} for dimension 0")
        edges = _edges(input, int(bins), range)
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise RuntimeError(f"{names.package()}.histogramdd: if weight tensor is provided it should have the same "
                           "shape as the input tensor excluding its innermost dimension")
    values = input.detach().cpu().numpy().reshape(-1)
    edge_values = edges.detach().cpu().numpy()
    counted = (values >= edge_values[0]) & (values <= edge_values[-1])
    # Right-open bins, except the last one, which holds its right edge.
    position = np.clip(np.searchsorted(edge_values, values[counted], side="right") - 1, 0, len(edge_values) - 2)
    amounts = None if weight is None else weight.detach().cpu().numpy().reshape(-1)[counted]
    hist = np.bincount(position, weights=amounts, minlength=len(edge_values) - 1).astype(values.dtype)
    if density:
        total = hist.sum()
        hist = hist / (total * np.diff(edge_values)) if total else hist * np.nan
    hist_t = tensor(hist.astype(values.dtype), device=input.device)
    if out is not None:
        out[0].resize_(hist_t.shape).copy_(hist_t)
        out[1].resize_(edges.shape).copy_(edges)
        hist_t, edges = out
    return return_type("histogram", ("hist", "bin_edges"))(hist_t, edges.detach().clone())
