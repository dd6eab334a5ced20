"""The public entry: ``numgrad.compile`` on functions and modules, ``reset``, ``is_compiling``."""
from __future__ import annotations

import weakref

from ..nn.modules.module import Module
from ..tensor import tracing
from .compiled import CompiledFunction

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
_compiled = weakref.WeakSet()


class OptimizedModule(Module):
    """A module whose calls run compiled; it holds the original as ``_orig_mod`` and shares its
    parameters and buffers (its state-dict keys carry the ``_orig_mod.`` prefix, as PyTorch's)."""

    def __init__(self, mod, fullgraph: bool):
        super().__init__()
        self._orig_mod = mod
        self._compiled_call = CompiledFunction(mod.__call__, fullgraph=fullgraph,
                                               modules=[m for _, m in mod.named_modules()])
        _compiled.add(self._compiled_call)

    def forward(self, *args, **kwargs):
        return self._compiled_call(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._orig_mod, name)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None,
            options=None, disable: bool = False):
    """compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, disable=False)

    Compile a function or module: its first call for each signature (argument shapes, dtypes,
    strides, requires_grad, Python values) traces it, and later calls replay fused kernels
    generated from the trace, forward and backward. Results equal eager numgrad's bit for bit.
    Usable as a decorator, with or without arguments.

    What cannot be traced (an op outside the elementwise family, reading data into Python,
    writing in place) ends the trace: that signature then runs eagerly, or with
    ``fullgraph=True`` raises :class:`numgrad.compiler.GraphBreak` naming the op.
    ``numgrad.compiler.explain`` shows what a function's trace became. ``dynamic``, ``mode`` and
    ``options`` are accepted for PyTorch's code; kernels never depend on sizes anyway.
    """
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           + ", ".join(m for m in _MODES if m is not None))
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if backend not in ("inductor", "eager") and not callable(backend):
        raise RuntimeError(f"invalid backend {backend!r}: numgrad compiles with 'inductor' (fused Numba "
                           "kernels) or 'eager'")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if disable or backend != "inductor":
        return model
    if isinstance(model, Module):
        return OptimizedModule(model, fullgraph)
    if not callable(model):
        raise RuntimeError("torch.compile() expects a callable or an nn.Module")
    fn = CompiledFunction(model, fullgraph=fullgraph)
    _compiled.add(fn)
    return fn


def reset():
    """Forget every compiled signature: the next call of each compiled function traces again."""
    for fn in list(_compiled):
        fn._entries.clear()
        fn._count = 0
        fn._warned = False


def is_compiling() -> bool:
    """True while a compiled function is being traced."""
    return tracing[0] is not None
