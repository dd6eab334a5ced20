"""The dispatcher's side of the CUDA backend, with the interface of ``cpu_kernels.py``: tensors in,
kernels run.

Elementwise ops, reductions and scans run generated CUDA kernels; index-returning reductions
(argmax/argmin, median, mode) and the ``arange``/``linspace`` fills run their CPU kernels on a
host copy (see ``host_fallback.py`` for the ops that do so at the op level).
"""
from __future__ import annotations

import numpy as np

from .. import shapes
from ..backends.cuda import elementwise as _ew
from ..backends.cuda import memory
from ..backends.cuda import reduce as _red
from ..backends.cuda import scan as _scan
from ..dtypes import scalar_as
from ..storage import Storage
from ..tensor import Tensor
from . import cpu_kernels

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def _compute_np(compute):
    c = np.dtype(compute.numpy)
    # float16 values are widened to float32 registers and rounded back on store.
    return _F32 if c == _F16 else c


def _layouts(inputs, shape):
    """Each input's broadcast strides over ``shape``, or None for what the kernel takes as a
    scalar: a Python number, or a 0-d CPU tensor (as in PyTorch)."""
    return [shapes.broadcast_strides(x._shape, x._strides, shape)
            if hasattr(x, "_storage") and x.device.type == "cuda" else None for x in inputs]


def _operands(inputs, layouts, c):
    return [(x._storage.data, x._offset) if layout is not None
            else scalar_as(x.item() if hasattr(x, "_storage") else x, c)
            for x, layout in zip(inputs, layouts)]


def elementwise(op, compute, result, inputs, shape):
    c = _compute_np(compute)
    layouts = _layouts(inputs, shape)
    _ew.launcher(op, c, shape, result._strides, layouts)(
        result._storage.data, result._offset, _operands(inputs, layouts, c))


def elementwise_plan(op, compute, result_dtype, shape, strides, inputs):
    """``run(inputs) -> Tensor``: ``op`` on operands laid out as ``inputs`` are, into a fresh
    tensor of ``shape``/``strides``; what the general path decides per call is decided once."""
    c = _compute_np(compute)
    layouts = _layouts(inputs, shape)
    launch = _ew.launcher(op, c, shape, strides, layouts)
    device = next(x._storage.device for x, layout in zip(inputs, layouts) if layout is not None)
    # The device was checked when the plan was made; allocations go straight to the pool.
    n, res_np, make, empty = shapes.prod(shape), result_dtype.numpy, Tensor._make, memory.empty

    def run(inputs):
        buf = empty(n, res_np)
        launch(buf, 0, _operands(inputs, layouts, c))
        return make(Storage(buf, device), shape, strides, 0, result_dtype)
    return run


def _new(shape, dtype, device):
    return Tensor._empty(shape, dtype, device)


def _flat(t):
    data, n = t._storage.data, t.numel()
    # Slicing a device array costs tens of microseconds; a fresh tensor's storage is its window.
    return data if t._offset == 0 and data.shape[0] == n else data[t._offset:t._offset + n]


def reduce(op, x, dims, compute, init, out_shape, result_dtype):
    """Reduce ``dims`` of ``x`` with ``op`` accumulating in ``compute``; a new tensor of ``out_shape``."""
    out = _new(out_shape, result_dtype, x.device)
    if out.numel() == 0:
        return out
    if any(x._shape[d] == 0 for d in dims):
        out._fill_raw(init)
        return out
    _red.run(op, _compute_np(compute), x._storage.data, x._offset, x._shape, x._strides, dims, init,
             _flat(out))
    return out


def scan(op, x, dim, compute, init, result_dtype):
    """Cumulative ``op`` of ``x`` along ``dim``; a new contiguous tensor."""
    out = _new(x._shape, result_dtype, x.device)
    _scan.run(op, _compute_np(compute), x._storage.data, x._offset, x._shape, x._strides, dim, init,
              _flat(out))
    return out


def select(kind, x, dim, out_shape, *args):
    """argmax/argmin, median or mode along ``dim``: the CPU kernel on a host copy."""
    values, indices = cpu_kernels.select(kind, x.detach().cpu(), dim, out_shape, *args)
    return values.to(x.device), indices.to(x.device)


def cumulative_extreme(x, dim, want_max):
    """cummax/cummin along ``dim``: the CPU kernel on a host copy."""
    values, indices = cpu_kernels.cumulative_extreme(x.detach().cpu(), dim, want_max)
    return values.to(x.device), indices.to(x.device)


def _fill_on_host(t, fill, *args):
    host = Tensor._empty(t._shape, t.dtype)
    fill(host, *args)
    t._write(host)


def fill_affine(t, start, step):
    _fill_on_host(t, cpu_kernels.fill_affine, start, step)


def fill_linspace(t, start, end, step):
    _fill_on_host(t, cpu_kernels.fill_linspace, start, end, step)


def fill_logspace(t, start, end, step, base):
    _fill_on_host(t, cpu_kernels.fill_logspace, start, end, step, base)
