"""Host fallback for ops that have CPU kernels only (advanced indexing, sorting, linear algebra).

``on_host`` decorates an op's public function: when a CUDA tensor is among its arguments, the
tensors are copied to the host with ``to('cpu')``, the CPU implementation runs, and tensor
results are copied back with ``to(device)``. Both copies are recorded ops, so autograd flows
through the fallback unchanged. In-place ops write the host result back into their CUDA
``self`` and take its history; ``out=`` tensors receive the result. Correct, not fast: each call
pays two transfers.
"""
from __future__ import annotations

import functools

from ..autograd import tape
from ..tensor import Tensor


def _find_device(obj):
    if isinstance(obj, Tensor):
        return obj.device if obj.device.type == "cuda" else None
    if isinstance(obj, (list, tuple)):
        for x in obj:
            d = _find_device(x)
            if d is not None:
                return d
    elif isinstance(obj, dict):
        return _find_device(list(obj.values()))
    return None


def _map(obj, fn):
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_map(x, fn) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(x, fn) for x in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn) for k, v in obj.items()}
    return obj


def _host(t):
    return t.to("cpu") if t.device.type == "cuda" else t


def on_host(fn, inplace: bool = False):
    """``fn`` with CUDA tensor arguments run through its CPU implementation (see module doc).

    ``inplace`` marks functions that modify their first argument and return it (or None)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        device = _find_device(args) or _find_device(kwargs)
        if device is None:
            return fn(*args, **kwargs)
        out = kwargs.pop("out", None)
        host_args = _map(args, _host)
        result = fn(*host_args, **_map(kwargs, _host))
        if inplace:
            self = args[0]
            moved = host_args[0].to(device)
            self._write(moved)
            tape.rebase(self, moved)
            return self if result is not None else None
        result = _map(result, lambda t: t.to(device))
        if out is not None:
            _write_out(result, out)
            return out
        return result
    wrapper.__wrapped_for_cuda__ = fn
    return wrapper


def on_host_inplace(fn):
    """:func:`on_host` for a function that modifies its first argument and returns it (or None)."""
    return on_host(fn, inplace=True)


def _write_out(result, out):
    if isinstance(out, Tensor):
        out.resize_(result.shape)
        out.copy_(result)
        return
    for r, o in zip(result, out):
        _write_out(r, o)
