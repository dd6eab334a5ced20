"""How a DataLoader turns a list of samples into a batch: ``default_collate`` stacks, and
``default_convert`` (no batching) only turns NumPy data into tensors; both recurse into
dicts, namedtuples and sequences as PyTorch's do."""
from __future__ import annotations

import collections.abc
import copy

import numpy as np

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _rebuild(like, values: dict):
    """A copy of the mapping ``like`` holding ``values``; a plain dict when it cannot be copied
    and updated."""
    try:
        out = copy.copy(like)
        out.update(values)
        return out
    except (TypeError, AttributeError):
        return values


def default_convert(data):
    """default_convert(data): NumPy arrays and scalars in ``data`` become tensors; containers are
    rebuilt around them (tuples as lists, as PyTorch does); everything else is left alone."""
    from ...creation import as_tensor
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return as_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "SaUO":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(v) for k, v in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        items = [default_convert(d) for d in data]
        try:
            return type(data)(items)
        except TypeError:
            return items
    return data


def default_collate(batch):
    """default_collate(batch): a list of samples -> a batch.

    Tensors are stacked along a new first dim; NumPy arrays likewise, as tensors; Python numbers
    become 1-D tensors (int -> int64, float -> float64, bool -> bool); strings stay a list.
    Dicts, namedtuples and sequences are collated field by field (tuples come back as lists)."""
    from ...tensor import Tensor
    from ...creation import as_tensor, tensor
    from ...ops.movement import stack
    from ... import dtypes
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "SaUO":
            raise TypeError(_ERR.format(elem.dtype))
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(_ERR.format(type(elem)))
