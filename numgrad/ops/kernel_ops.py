"""Ops computed by one kernel per backend, and the dispatcher that applies them.

A kernel op is declared once, with :func:`kernel_op`:

- ``prepare(*inputs, **params) -> Call`` checks the arguments, raising PyTorch's exceptions, and
  says what the call computes: the result's shape and dtype and the normalised parameters;
- ``kernels`` names, per device type, the backend function that computes it on arrays:
  ``kernel(out, *inputs, **params)``, every array C-contiguous and shaped as its tensor, in the
  call's compute dtype; ``HOST`` runs the CPU kernel on host copies (CUDA tensors in and out);
- ``vjp`` and ``jvp`` give the derivative rules per input, as for every other op, or ``vjp_all``
  one joint rule that returns the cotangents of all inputs at once (a fused backward kernel).

:func:`apply` does the rest for every kernel op alike: the device check, allocation, the arrays
the kernel sees (16-bit floats widened to float32 on the CPU, where Numba has no arithmetic for them),
the host fallback, the tape entry, forward-mode tangents and the profiler event. Kernels never
see a tensor and never record anything.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Optional

from .. import dtypes, shapes
from ..autograd import profiler
from ..autograd import tape
from ..devices import CPU
from ..tensor import Tensor
from .registry import check_devices
from .records import Op, register

HOST = "host"


@dataclass(frozen=True)
class Call:
    """What one call of a kernel op computes: the result's ``shape`` and ``dtype``, the dtype the
    kernel reads its inputs in (``compute``, the result's by default) and the normalised
    ``params`` (handed to the kernel and to the derivative rules)."""

    shape: tuple
    dtype: dtypes.dtype
    params: dict = field(default_factory=dict)
    compute: Optional[dtypes.dtype] = None


def kernel_op(name: str, nin: int, *, prepare: Callable, kernels: dict, vjp=(), jvp=(), vjp_all=None,
              backward_name: str = "", event: str = "") -> Op:
    """Declare an op computed by a kernel per backend (see the module docstring).

    ``kernels`` maps a device type to ``"<module under numgrad.backends>.<function>"`` (imported
    on first use, so that declaring an op compiles and imports nothing) or to ``HOST``. ``event`` is the
    profiler's name for a call (see :class:`~numgrad.ops.records.Op`)."""
    return register(Op(name=name, nin=nin, vjp=tuple(vjp), jvp=tuple(jvp), vjp_all=vjp_all, kind="kernel",
                       prepare=prepare, kernels=dict(kernels), backward_name=backward_name, event=event))


def apply(op: Op, inputs: tuple, params: dict):
    """``op`` on the tensors ``inputs`` with keyword ``params``: one kernel and one tape entry."""
    if profiler.enabled:
        return profiler.timed(op.event, _apply, op, inputs, params)
    return _apply(op, inputs, params)


def _apply(op: Op, inputs: tuple, params: dict):
    call = op.prepare(*inputs, **params)
    device = check_devices(list(inputs))
    result = _compute(op, call, [tape.plain(x) for x in inputs], device)
    return tape.record_result(op, inputs, result, call.params)


_resolved: dict = {}


def _kernel(op: Op, device_type: str):
    entry = op.kernels.get(device_type)
    if entry is None:
        raise NotImplementedError(f"Could not run '{op.name}' with arguments from the "
                                  f"'{device_type.upper()}' backend.")
    if entry == HOST:
        return HOST
    kernel = _resolved.get(entry)
    if kernel is None:
        module, _, function = entry.rpartition(".")
        kernel = _resolved[entry] = getattr(importlib.import_module("numgrad.backends." + module), function)
    return kernel


def _compute(op: Op, call: Call, inputs: list, device):
    kernel = _kernel(op, device.type)
    if kernel is HOST:
        return _compute(op, call, [x.to("cpu") for x in inputs], CPU).to(device)
    out_dtype = _widened(call.dtype, device)
    result = Tensor._empty(call.shape, out_dtype, device)
    if result.numel():
        compute = _widened(call.compute or call.dtype, device)
        kernel(_array(result), *[_array(x.to(compute) if x.dtype is not compute else x) for x in inputs],
               **call.params)
    return result if out_dtype is call.dtype else result.to(call.dtype)


def _widened(dtype, device):
    return dtypes.float32 if dtype in dtypes.NARROW_FLOATING and device.type == "cpu" else dtype


def _array(x):
    """The elements of tensor ``x`` as one C-contiguous array of its shape (NumPy on the CPU, a
    device array on CUDA), copied only when ``x`` is not contiguous."""
    if x._strides != shapes.contiguous_strides(x._shape):
        x = x.contiguous()
    return x._storage.data[x._offset:x._offset + shapes.prod(x._shape)].reshape(x._shape)
