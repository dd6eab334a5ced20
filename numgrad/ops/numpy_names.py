"""NumPy's keyword names ``axis`` and ``keepdims``, accepted wherever a function takes ``dim`` and
``keepdim``, as PyTorch's argument parser accepts them."""
from __future__ import annotations

import functools
import inspect
from types import FunctionType

__all__ = ["accepts_numpy_names"]

_ALIASES = (("axis", "dim"), ("keepdims", "keepdim"))


def accepts_numpy_names(fn):
    """``fn``, or a wrapper of it that renames ``axis=`` to ``dim=`` and ``keepdims=`` to
    ``keepdim=`` where ``fn`` takes the PyTorch name but not the NumPy one."""
    if not isinstance(fn, FunctionType):
        return fn
    # Decorated functions are read through to the function that declares the parameters.
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return fn
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    renames = tuple((alias, name) for alias, name in _ALIASES if name in params and alias not in params)
    if not renames:
        return fn

    @functools.wraps(fn)
    def with_numpy_names(*args, **kwargs):
        if kwargs:
            for alias, name in renames:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{alias}'")
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)
    return with_numpy_names
