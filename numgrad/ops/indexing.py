"""Indexing: ``x[...]`` reads and writes. Basic indices (ints, slices, None, Ellipsis) are views."""
from __future__ import annotations

from .. import shapes
from . import views

__all__ = []


def _expand_index(index, ndim):
    """Normalise an index to a tuple with Ellipsis replaced by full slices."""
    if not isinstance(index, tuple):
        index = (index,)
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    out = []
    for i in index:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - consumed))
        else:
            out.append(i)
    return out


def _is_basic(i) -> bool:
    return i is None or isinstance(i, slice) or (isinstance(i, int) and not isinstance(i, bool)) \
        or (hasattr(i, "__index__") and not hasattr(i, "_storage") and not isinstance(i, (list, tuple, bool)))


def basic_index(x, index):
    """Apply ints, slices and None as views; returns (view, remaining advanced index or None)."""
    items = _expand_index(index, x.ndim)
    out = x
    dim = 0
    for i in items:
        if i is None:
            out = views.unsqueeze(out, dim)
            dim += 1
        elif isinstance(i, slice):
            size = out._shape[dim]
            start, stop, step = i.start, i.stop, i.step
            if step is not None and _as_int(step) <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, step = slice(_opt_int(start), _opt_int(stop), _opt_int(step)).indices(size)
            length = max(0, (stop - start + step - 1) // step)
            if start != 0 or length != size or step != 1:
                out = views._slice(out, dim, start if length else 0, length, step)
            dim += 1
        else:
            out = views.select(out, dim, _as_int(i))
    return out


def _as_int(v):
    return shapes._as_index(v, "index")


def _opt_int(v):
    return None if v is None else _as_int(v)


def getitem(x, index):
    items = index if isinstance(index, tuple) else (index,)
    if all(_is_basic(i) or i is Ellipsis for i in items):
        if x.ndim == 0 and any(isinstance(i, int) for i in items):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return basic_index(x, index)
    from . import advanced
    return advanced.getitem(x, index)


def setitem(x, index, value):
    items = index if isinstance(index, tuple) else (index,)
    if all(_is_basic(i) or i is Ellipsis for i in items):
        target = basic_index(x, index)
        target.copy_(value) if hasattr(value, "_storage") else target.fill_(value) \
            if not _needs_grad_path(x) else target.copy_(_scalar_tensor(value, x))
        if target._storage is x._storage and target is not x:
            _rebase_view_write(x, target)
        return
    from . import advanced
    advanced.setitem(x, index, value)


def _needs_grad_path(x) -> bool:
    return x.requires_grad


def _scalar_tensor(value, x):
    from ..creation import tensor
    return tensor(value, dtype=x.dtype, device=x.device)


def _rebase_view_write(base, view):
    """After writing into a view of ``base``, give ``base`` the history of that write."""
    from ..autograd import views_history
    views_history.propagate_view_write(base, view)
