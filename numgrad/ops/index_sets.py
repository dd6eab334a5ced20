"""Index sets built from sizes alone: tril_indices, triu_indices and combinations (which picks
the elements of a tensor at such index tuples, so gradients flow through index_select)."""
from __future__ import annotations

import itertools
import operator

import numpy as np

from .. import dtypes
from ..dtypes import torch_type_name
from ..creation import arange, empty, tensor
from .advanced import nonzero

__all__ = ["tril_indices", "triu_indices", "combinations"]


def _triangle(name, row, col, offset, dtype, device, lower):
    row, col, offset = operator.index(row), operator.index(col), operator.index(offset)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype.is_floating_point or dtype is dtypes.bool:
        raise NotImplementedError(f"\"{name}\" not implemented for '{torch_type_name(dtype)}'")
    # Element (i, j) is kept when j - i is on the right side of the offset; nonzero lists the
    # kept ones row by row, PyTorch's order.
    shift = arange(col, device=device).unsqueeze(0) - arange(row, device=device).unsqueeze(1)
    keep = shift <= offset if lower else shift >= offset
    return nonzero(keep).t().contiguous().to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """tril_indices(row, col, offset=0, *, dtype=numgrad.long, device=None) -> Tensor

    The coordinates of the lower triangle (on and below diagonal ``offset``) of a ``row`` x
    ``col`` matrix, as a 2 x N tensor: row indices, then column indices."""
    return _triangle("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None):
    """triu_indices(row, col, offset=0, *, dtype=numgrad.long, device=None) -> Tensor

    The coordinates of the upper triangle (on and above diagonal ``offset``) of a ``row`` x
    ``col`` matrix, as a 2 x N tensor: row indices, then column indices."""
    return _triangle("triu_indices", row, col, offset, dtype, device, False)


def combinations(input, r: int = 2, with_replacement: bool = False):
    """combinations(input, r=2, with_replacement=False) -> Tensor

    The length-``r`` combinations of the elements of 1-D ``input``, one per row, in the order of
    ``itertools.combinations`` (``combinations_with_replacement`` when ``with_replacement``)."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    r = operator.index(r)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty((0,), dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    # The index tuples depend on the length alone: metadata, built in Python.
    flat = np.fromiter(itertools.chain.from_iterable(pick(range(input.shape[0]), r)), dtype=np.int64)
    index = tensor(flat, device=input.device)
    return input.index_select(0, index).reshape(-1, r)
