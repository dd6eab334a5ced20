"""Writing a function's result into its first argument: the in-place forms (``x.op_(...)``) of
ops that have no in-place kernel, with the shape, dtype and autograd checks PyTorch makes."""
from __future__ import annotations

from .. import shapes
from ..autograd import tape as _tape
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.inplace import check_inplace as _autograd_check_inplace
from ..autograd.saving import save_snapshot as _save_snapshot
from ..tensor import Tensor
from .registry import can_cast
from ..dtypes import torch_type_name


def inplace_apply(self, fn, args, kwargs, takes_out=None):
    """Run ``fn(self, *args)`` writing its result into ``self``; bumps the version counter."""
    if _grad_state.enabled or _tape._dual_levels[0]:
        inputs = (self,) + tuple(args)
        if _tape.should_record(inputs) or _tape.has_tangents(inputs):
            _autograd_check_inplace(self, args)
            result = fn(self, *args, **kwargs)
            _check_inplace(self, result)
            _save_snapshot(result._grad_fn, self)
            self._write(result)
            _tape.rebase(self, result)
            return self
        _autograd_check_inplace(self)
    if takes_out is None:
        takes_out = has_out_parameter(fn)
    if takes_out:
        # ``out=`` would resize self; an in-place op must not change its shape.
        _check_inplace_broadcast(self, tuple(args) + tuple(kwargs.values()) if kwargs else args)
        return fn(self, *args, **kwargs, out=self)
    result = fn(self, *args, **kwargs)
    _check_inplace(self, result)
    self._write(result)
    return self


def _check_inplace_broadcast(self, args):
    others = [a._shape for a in args if isinstance(a, Tensor) and a._shape != self._shape]
    if others:
        shape = shapes.broadcast_shapes(self._shape, *others)
        if tuple(shape) != tuple(self.shape):
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast shape "
                f"[{', '.join(map(str, shape))}]")


def has_out_parameter(fn) -> bool:
    """Whether ``fn`` accepts ``out=`` (then the in-place form writes through it)."""
    code = getattr(fn, "__code__", None)
    return code is not None and "out" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def _check_inplace(self, result):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, result.shape))}]")
    # As ``out=`` is checked: a float result (and its history) must not land in an integer self.
    if not can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"result type {torch_type_name(result.dtype)} can't be cast to the desired output "
                           f"type {torch_type_name(self.dtype)}")
