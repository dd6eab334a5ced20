"""Basic indexing: ints, slices, None and Ellipsis make views (``basic_index``), and writes go
through such a view (``write_view``). ``ops/indexing.py`` sends every other index to advanced
indexing (``ops/advanced.py``)."""
from __future__ import annotations

import operator

from .. import shapes
from . import slice_views, views
from ..creation import tensor
from ..autograd.inplace import propagate_view_write

def is_int(i) -> bool:
    if isinstance(i, bool) or hasattr(i, "_storage"):
        return False
    try:
        operator.index(i)
    except TypeError:
        return False
    return True


def is_basic(i) -> bool:
    return i is None or i is Ellipsis or isinstance(i, slice) or is_int(i)


def _is_advanced(i) -> bool:
    import numpy as np
    return hasattr(i, "_storage") or isinstance(i, (bool, list, tuple, np.ndarray, np.bool_))


def check_types(items):
    for i in items:
        if isinstance(i, str):
            # PyTorch reads a string as data for an index tensor, and no dtype holds it.
            raise TypeError("new(): invalid data type 'str'")
        if not (is_basic(i) or _is_advanced(i)):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                             f"are valid indices (got {type(i).__name__})")


def _expand_index(index, ndim):
    """The index as a list of (item, its position in ``index``) with its Ellipsis replaced by
    full slices (a second one is empty)."""
    items = list(index) if isinstance(index, tuple) else [index]
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out, seen = [], False
    for pos, i in enumerate(items):
        if i is Ellipsis:
            if not seen:
                out.extend([(slice(None), pos)] * (ndim - consumed))
            seen = True
        else:
            out.append((i, pos))
    return out


def _slice_bounds(i: slice, size: int):
    """(start, length, step) of a slice over ``size`` items; steps must be positive."""
    step = 1 if i.step is None else as_int(i.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(_opt_int(i.start), _opt_int(i.stop), step).indices(size)
    length = max(0, (stop - start + step - 1) // step)
    return (start if length else 0), length, step


def basic_index(x, index):
    """Apply ints, slices, None and Ellipsis as one chain of views. As in PyTorch, a lone slice
    always makes a slice view, full slices inside a tuple are skipped, and an index that changes
    nothing gives an alias: never ``x`` itself."""
    if isinstance(index, slice):
        if not x.ndim:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        return slice_views.slice_view(x, 0, *_slice_bounds(index, x._shape[0]))
    items = _expand_index(index, x.ndim)
    out = x
    dim = 0   # dim of ``out`` the next item applies to
    for i, pos in items:
        if i is None:
            out = views.unsqueeze(out, dim)
            dim += 1
            continue
        size = out._shape[dim]
        if isinstance(i, slice):
            start, length, step = _slice_bounds(i, size)
            if start != 0 or length != size or step != 1:
                out = slice_views.slice_view(out, dim, start, length, step)
            dim += 1
        else:
            k = as_int(i)
            if not -size <= k < size:
                # PyTorch names the int's position in the index, not a dim.
                raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
            out = slice_views.select(out, dim, k)
    return slice_views.alias(out) if out is x else out


def as_int(v):
    return shapes._as_index(v, "index")


def _opt_int(v):
    return None if v is None else as_int(v)


def write_view(x, target, value):
    """Write ``value`` (broadcast) into ``target``, a view of ``x`` made by basic indexing."""
    if hasattr(value, "_storage"):
        target.copy_(value)
    elif x._requires_grad:
        target.copy_(_scalar_tensor(value, x))
    else:
        target.fill_(value)
    if target._storage is x._storage and target is not x:
        _rebase_view_write(x, target)


def _scalar_tensor(value, x):
    return tensor(value, dtype=x.dtype, device=x.device)


def _rebase_view_write(base, view):
    """After writing into a view of ``base``, give ``base`` the history of that write."""
    propagate_view_write(base, view)
