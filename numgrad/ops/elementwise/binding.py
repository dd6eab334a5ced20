"""The public function of an elementwise op with a plain signature, made from the op's record:
``name(input, *, out=None)`` or ``name(input, other, *, out=None)``, which runs the op and nothing
else. A family module calls the binder right after the op's declaration, with its docstring; the
function is exported from ``ops.functional_elementwise`` beside the ones written by hand there."""
from __future__ import annotations

from .. import functional_elementwise as _namespace
from ..registry import run_elementwise


def unary(op, doc: str):
    """``op.name(input, *, out=None)``, documented by ``doc``."""
    def fn(input, *, out=None):
        return run_elementwise(op, (input,), out)
    # The op it dispatches and nothing else (Tensor's in-place methods may run the op directly).
    fn.elementwise_op = op
    return _exported(fn, op.name, f"{op.name}(input, *, out=None) -> Tensor\n\n{doc}")


def binary(op, doc: str):
    """``op.name(input, other, *, out=None)``, documented by ``doc``."""
    def fn(input, other, *, out=None):
        return run_elementwise(op, (input, other), out)
    return _exported(fn, op.name, f"{op.name}(input, other, *, out=None) -> Tensor\n\n{doc}")


def alias(fn, name: str):
    """``fn`` exported under ``name`` too (``multiply`` for ``mul``), profiled under that name, as
    PyTorch's aliases are."""
    named = _namespace.aliased(fn, name)
    _export(name, named)
    return named


def _exported(fn, name: str, doc: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    # Where it is exported: pickle finds a function by its module and name.
    fn.__module__ = _namespace.__name__
    _export(name, fn)
    return fn


def _export(name: str, fn):
    # The namespace's __all__ is what ``numgrad`` and Tensor's methods take.
    if hasattr(_namespace, name):
        raise ValueError(f"elementwise function {name} bound twice")
    setattr(_namespace, name, fn)
    _namespace.__all__.append(name)
