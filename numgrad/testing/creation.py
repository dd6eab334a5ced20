"""Random test tensors, like ``torch.testing.make_tensor``, and views of arrays with unusual strides."""
from __future__ import annotations

import math

import numpy as np

import numgrad

from .dtypes import FLOAT_DTYPES, _dtype_name


def _make_array(shape, dtype: str, rng: np.random.Generator, low=None, high=None) -> np.ndarray:
    """Random values of ``dtype`` in ``[low, high)``: small integers, floats in [-5, 5) by default."""
    shape = tuple(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOAT_DTYPES or dtype == "bfloat16":
        lo = -5.0 if low is None else low
        hi = 5.0 if high is None else high
        return np.asarray(rng.uniform(lo, hi, shape)).astype(dtype)
    info = np.iinfo(dtype)
    lo = max(info.min, -9 if low is None else math.ceil(low))
    hi = min(info.max, 10 if high is None else math.ceil(high))
    return np.asarray(rng.integers(lo, max(hi, lo + 1), shape)).astype(dtype)


def make_tensor(*shape, dtype, low=None, high=None, seed: int = 0, noncontiguous: bool = False,
                requires_grad: bool = False) -> "numgrad.Tensor":
    """A tensor of random values of ``dtype`` in ``[low, high)``, like ``torch.testing.make_tensor``.

    ``noncontiguous=True`` returns a view that steps through a larger buffer.
    """
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    arr = _make_array(shape, _dtype_name(dtype), np.random.default_rng(seed), low, high)
    t = noncontiguous_view(arr) if noncontiguous else numgrad.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def noncontiguous_view(arr: np.ndarray) -> "numgrad.Tensor":
    """A tensor equal to ``arr`` that strides over every other element of its storage."""
    if arr.ndim == 0:
        return numgrad.tensor(arr)
    big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
    big[..., ::2] = arr
    return numgrad.tensor(big)[..., ::2]


def transposed_view(arr: np.ndarray) -> "numgrad.Tensor":
    """A tensor equal to ``arr`` whose storage holds it with its first and last dims swapped."""
    if arr.ndim < 2:
        return numgrad.tensor(arr)
    return numgrad.tensor(np.ascontiguousarray(np.swapaxes(arr, 0, -1))).transpose(0, -1)
