"""The dispatcher's side of the CPU backend: tensors become (buffer, offset, strides) for its kernels,
whose results become tensors."""
from __future__ import annotations

import numpy as np

from .. import dtypes, shapes
from ..backends.cpu import elementwise as _ew, fill, reduce as _red, scan as _scan, select as _sel
from ..dtypes import scalar_as
from ..devices import CPU
from ..backends.cpu.memory import host_buffer, out_of_memory
from ..storage import Storage
from ..tensor import Tensor

_F32 = np.dtype(np.float32)
# Numba has no CPU arithmetic for the 16-bit floats: they are storage formats, widened to compute.
_NARROW = dtypes.NARROW_NUMPY


def _operand(x, shape, compute_np):
    """(buffer, offset, strides) of a tensor broadcast to ``shape``, or of a Python scalar."""
    if hasattr(x, "_storage"):
        buf = x._storage.data
        offset = x._offset
        strides = shapes.broadcast_strides(x._shape, x._strides, shape)
        if buf.dtype in _NARROW:
            view = x._np_view()
            buf = np.ascontiguousarray(view, dtype=_F32).reshape(-1)
            offset = 0
            strides = shapes.broadcast_strides(x._shape, shapes.contiguous_strides(x._shape), shape)
        return buf, offset, strides
    return np.array([scalar_as(x, compute_np)]), 0, (0,) * len(shape)


def elementwise(op, compute, result, inputs, shape):
    compute_np = compute.numpy
    if compute_np in _NARROW:
        compute_np = _F32
    operands = [_operand(x, shape, compute_np) for x in inputs]
    out_buf = result._storage.data
    if out_buf.dtype in _NARROW:
        tmp = host_buffer(np.empty, shapes.prod(shape), _F32)
        _ew.run(op, compute_np, tmp, 0, shapes.contiguous_strides(shape), shape, operands)
        with np.errstate(over="ignore"):  # overflow to inf, silently, as PyTorch rounds
            result._np_view()[...] = tmp.reshape(shape)
        return
    _ew.run(op, compute_np, out_buf, result._offset, result._strides, shape, operands)


def _operand_strides(inputs, shape):
    """Each input's broadcast strides (None for a Python scalar); None if any is a 16-bit float."""
    strides = []
    for x in inputs:
        if hasattr(x, "_storage"):
            if x._storage.data.dtype in _NARROW:
                return None
            strides.append(shapes.broadcast_strides(x._shape, x._strides, shape))
        else:
            strides.append(None)
    return strides


def elementwise_plan(op, compute, result_dtype, shape, strides, inputs):
    """``run(inputs) -> Tensor``: ``op`` on operands laid out as ``inputs`` are, into a fresh
    tensor of ``shape``/``strides``; None where 16-bit float storage needs the general path."""
    res_np = result_dtype.numpy
    operand_strides = _operand_strides(inputs, shape)
    if res_np in _NARROW or compute.numpy in _NARROW or operand_strides is None:
        return None
    launch = _ew.launcher(op, compute.numpy, shape, strides, operand_strides)
    n = shapes.prod(shape)
    make, empty, cpu = Tensor._make, np.empty, CPU

    def run(inputs):
        try:
            buf = empty(n, res_np)
        except MemoryError:
            raise out_of_memory(n * res_np.itemsize) from None
        launch(buf, 0, inputs)
        return make(Storage(buf, cpu), shape, strides, 0, result_dtype)
    return run


def elementwise_into_plan(op, compute, out, inputs):
    """``run(out, inputs)``: ``op`` written into ``out`` (of the broadcast shape), for calls laid
    out as ``out`` and ``inputs`` are; None where 16-bit float storage needs the general path."""
    shape = out._shape
    operand_strides = _operand_strides(inputs, shape)
    if out._storage.data.dtype in _NARROW or compute.numpy in _NARROW or operand_strides is None:
        return None
    launch = _ew.launcher(op, compute.numpy, shape, out._strides, operand_strides)
    aliased = None
    if operand_strides[0] is not None:
        aliased = _ew.launcher(op, compute.numpy, shape, out._strides, operand_strides, inplace=True)
    if aliased is None:
        def run(out, inputs):
            launch(out._storage.data, out._offset, inputs)
        return run

    def run(out, inputs):
        data = out._storage.data
        x = inputs[0]
        if x._storage.data is data and x._offset == out._offset:
            aliased(data, out._offset, inputs)
        else:
            launch(data, out._offset, inputs)
    return run


def fill_plan(op, dtype, shape, strides):
    """``fill(buf, offset, (value,))``: ``op`` of one Python scalar written over a tensor of
    ``dtype``, ``shape`` and ``strides``; False where 16-bit float storage needs the general path."""
    if dtype.numpy in _NARROW:
        return False
    return _ew.launcher(op, dtype.numpy, shape, strides, (None,))


def _raw(x):
    """(buffer, offset, strides) of a tensor, with a 16-bit float widened to a float32 copy."""
    buf, offset, strides = x._storage.data, x._offset, x._strides
    if buf.dtype in _NARROW:
        buf = np.ascontiguousarray(x._np_view(), dtype=_F32).reshape(-1)
        offset, strides = 0, shapes.contiguous_strides(x._shape)
    return buf, offset, strides


def _tensor(arr, shape, dtype):
    """A contiguous tensor of ``shape`` over ``arr``, a kernel's fresh contiguous result."""
    if arr.dtype != dtype.numpy:
        with np.errstate(over="ignore"):  # 16-bit float results overflow to inf, silently, as PyTorch's
            arr = arr.astype(dtype.numpy)
    shape = tuple(shape)
    return Tensor._make(Storage(arr.reshape(-1), CPU), shape, shapes.contiguous_strides(shape), 0, dtype)


def reduce(op, x, dims, compute, init, out_shape, result_dtype):
    """Reduce ``dims`` of ``x`` with ``op`` accumulating in ``compute``; a new tensor of ``out_shape``."""
    buf, offset, strides = _raw(x)
    flat = _red.run(op, compute.numpy, buf, offset, x._shape, strides, dims, init)
    return _tensor(flat, out_shape, result_dtype)


def reduce_plan(op, x, dims, compute, init, out_shape, result_dtype, divisor=None):
    """``run(x) -> Tensor``: :func:`reduce` for tensors laid out as ``x`` is, resolved once
    (each result divided by ``divisor`` if given); None where a 16-bit float or an empty reduction
    needs the general path."""
    res_np = result_dtype.numpy
    if x._storage.data.dtype in _NARROW or compute.numpy != res_np:
        return None
    kernel = _red.plan(op, compute.numpy, x._shape, x._strides, dims, init, divisor,
                       source=x._storage.data.dtype)
    if kernel is None:
        return None
    strides = shapes.contiguous_strides(out_shape)
    make, cpu = Tensor._make, CPU

    def run(x):
        return make(Storage(kernel(x._storage.data, x._offset), cpu), out_shape, strides, 0, result_dtype)
    return run


def scan(op, x, dim, compute, init, result_dtype):
    """Cumulative ``op`` of ``x`` along ``dim``; a new contiguous tensor."""
    buf, offset, strides = _raw(x)
    return _tensor(_scan.run(op, compute.numpy, buf, offset, x._shape, strides, dim, init),
                   x._shape, result_dtype)


def select(kind, x, dim, out_shape, *args):
    """argmax/argmin ('argext'), 'median' or 'mode' of ``x`` along ``dim``: (values, indices)."""
    buf, offset, strides = _raw(x)
    values, indices = _sel.run(getattr(_sel, kind), buf, offset, x._shape, strides, dim, *args)
    return _tensor(values, out_shape, x.dtype), _tensor(indices, out_shape, dtypes.int64)


def cumulative_extreme(x, dim, want_max):
    """cummax (``want_max``) or cummin of ``x`` along ``dim``: (values, indices)."""
    buf, offset, strides = _raw(x)
    values, indices = _sel.run_cumulative(buf, offset, x._shape, strides, dim, want_max)
    return _tensor(values, x._shape, x.dtype), _tensor(indices, x._shape, dtypes.int64)


def fill_affine(t, start, step):
    data = t._storage.data
    tmp = host_buffer(np.empty, t.numel(), np.float64 if t.dtype.is_floating_point or isinstance(step, float)
                      or isinstance(start, float) else np.int64)
    fill.affine(tmp, tmp.dtype.type(start), tmp.dtype.type(step))
    t._np_view()[...] = tmp.astype(data.dtype) if data.dtype not in _NARROW else tmp


def fill_linspace(t, start, end, step):
    """``t`` = linspace values from ``start``, ``end`` and ``step``, numbers of ``t``'s dtype
    (float64 for integer dtypes), computed as PyTorch computes them for that dtype."""
    d = t.dtype
    buf = np.float32 if d is dtypes.float32 or d in dtypes.NARROW_FLOATING else np.float64
    mode = 2 if d is dtypes.float16 else 3 if d is dtypes.bfloat16 else 0 if d.is_floating_point else 1
    tmp = host_buffer(np.empty, t.numel(), buf)
    fill.linspace(tmp, buf(start), buf(end), buf(step), mode)
    # 2**63 becomes int64's smallest value, as x86 converts it in PyTorch's kernel.
    with np.errstate(invalid="ignore"):
        t._np_view()[...] = tmp


def fill_logspace(t, start, end, step, base):
    """``t`` = base ** (start + step * i) for the first half, base ** (end - step * (n - 1 - i))
    for the second, in double precision, then converted to ``t``'s dtype."""
    tmp = host_buffer(np.empty, t.numel(), np.float64)
    fill.logspace(tmp, float(start), float(end), float(step), float(base))
    if t.dtype in dtypes.NARROW_FLOATING:
        # A double becomes a 16-bit float through a float, as in PyTorch.
        tmp = tmp.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        t._np_view()[...] = tmp
