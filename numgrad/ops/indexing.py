"""Indexing: ``x[...]`` reads and writes (``Tensor.__getitem__`` and ``__setitem__``). Basic
indices (ints, slices, None, Ellipsis) are views (``ops/basic_indexing.py``); anything else goes
to advanced indexing (``ops/advanced.py``)."""
from __future__ import annotations

from . import advanced
from .basic_indexing import basic_index, check_types, is_basic, is_int, write_view


def getitem(x, index):
    """``x[index]``: a view for basic indices, a copy for advanced ones."""
    items = index if isinstance(index, tuple) else (index,)
    check_types(items)
    if all(is_basic(i) for i in items):
        if x.ndim == 0 and any(is_int(i) for i in items):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return basic_index(x, index)
    return advanced.getitem(x, index)


def setitem(x, index, value):
    """``x[index] = value``: writes through the indexed view (broadcasting ``value``)."""
    if isinstance(value, str):
        raise TypeError(f"can't assign a str to a {x.type()}")
    items = index if isinstance(index, tuple) else (index,)
    check_types(items)
    if all(is_basic(i) for i in items):
        write_view(x, basic_index(x, index), value)
        return
    advanced.setitem(x, index, value)
