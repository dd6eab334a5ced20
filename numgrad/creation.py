"""Tensor factories: tensor, as_tensor, from_numpy, zeros, ones, full, arange, linspace, ..."""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes, shapes
from .devices import CPU, as_device
from .tensor import Tensor

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "empty", "zeros", "ones", "full", "eye",
           "arange", "linspace", "logspace", "empty_like", "zeros_like", "ones_like", "full_like",
           "scalar_tensor", "empty_strided"]


def _infer_dtype(data) -> dtypes.dtype:
    """PyTorch's inference: bool, then int64, then the default float for Python data."""
    cat = -1
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            return item.dtype
        if isinstance(item, np.ndarray):
            return dtypes.from_numpy(item.dtype) if item.dtype != np.float64 or True else None
        if isinstance(item, (list, tuple)):
            stack.extend(item)
            continue
        if isinstance(item, (bool, np.bool_)):
            cat = max(cat, 0)
        elif isinstance(item, (numbers.Integral,)):
            cat = max(cat, 1)
        elif isinstance(item, numbers.Real):
            cat = max(cat, 2)
        elif isinstance(item, np.generic):
            return dtypes.from_numpy(item.dtype)
        else:
            raise TypeError(f"Could not infer dtype of {type(item).__name__}")
    return {-1: dtypes.get_default_dtype(), 0: dtypes.bool, 1: dtypes.int64}.get(cat, dtypes.get_default_dtype())


def _to_numpy_data(data, dtype):
    if isinstance(data, Tensor):
        return data.detach().cpu()._np_view()
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_to_numpy_data(x, dtype) for x in data]
    try:
        arr = np.array(data, dtype=dtype.numpy)
    except (ValueError, TypeError) as e:
        if isinstance(data, (list, tuple)):
            raise ValueError(f"expected sequence of equal-length lists: {e}") from None
        raise TypeError(f"can't convert {type(data).__name__} to a tensor") from None
    if arr.dtype == object:
        raise ValueError("too many dimensions or ragged nested sequence")
    return arr


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor

    Constructs a tensor by copying ``data`` (a number, nested lists/tuples, a NumPy array or a
    tensor). The dtype is inferred as PyTorch does: bool, int64 or the default float."""
    d = dtypes.as_dtype(dtype) if dtype is not None else _infer_dtype(data)
    arr = np.array(_to_numpy_data(data, d), dtype=d.numpy, copy=True, order="C")
    t = Tensor._from_numpy_array(arr)
    dev = as_device(device)
    if dev.type != "cpu":
        t = t.to(dev)
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Converts data to a tensor, sharing memory with a tensor or NumPy array when possible."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype or device) else data
    if isinstance(data, np.ndarray):
        t = from_numpy(data)
        if dtype is not None or device is not None:
            t = t.to(device=device, dtype=dtype)
        return t
    if hasattr(data, "__cuda_array_interface__"):
        from .backends import cuda
        return cuda.from_cuda_array(data)
    return tensor(data, dtype=dtype, device=device)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (writes go both ways)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides "
            "are not currently supported. (You can probably work around this by making a copy of your "
            "array  with array.copy().) ")
    dtypes.from_numpy(ndarray.dtype)
    return Tensor._from_numpy_array(ndarray)


def _factory(shape_args, dtype, device, requires_grad, fill):
    shape = shapes.parse_size(shape_args)
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    dev = as_device(device)
    t = Tensor._empty(shape, d, dev)
    if fill is not None:
        t._fill_raw(fill)
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, memory_format=None, pin_memory=False):
    """empty(*size, dtype=None, device=None, requires_grad=False) -> Tensor: uninitialised data."""
    return _factory(size, dtype, device, requires_grad, None)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    """zeros(*size, dtype=None, device=None, requires_grad=False) -> Tensor filled with 0."""
    return _factory(size, dtype, device, requires_grad, 0)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    """ones(*size, dtype=None, device=None, requires_grad=False) -> Tensor filled with 1."""
    return _factory(size, dtype, device, requires_grad, 1)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    """full(size, fill_value, *, dtype=None, ...) -> Tensor; dtype inferred from fill_value."""
    if dtype is None:
        dtype = _infer_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _factory((size,) if isinstance(size, int) else tuple(size), dtype, device, requires_grad, fill_value)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with explicit strides."""
    size, stride = tuple(size), tuple(stride)
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    from .storage import Storage
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if shapes.prod(size) else 0
    t = Tensor._make(Storage.empty(span, d, as_device(device)), size, stride, 0, d)
    t.requires_grad = requires_grad
    return t


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    return full((), s, dtype=dtype or dtypes.get_default_dtype(), device=device, requires_grad=requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    """eye(n, m=None, *, dtype=None, ...) -> Tensor: a 2-D identity (ones on the diagonal)."""
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    t.diagonal()._fill_raw(1)
    t.requires_grad = requires_grad
    return t


def _like(input, dtype, device):
    return (dtypes.as_dtype(dtype) if dtype is not None else input.dtype,
            as_device(device) if device is not None else input.device)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    d, dev = _like(input, dtype, device)
    return empty(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """A tensor of zeros with input's shape, dtype and device."""
    d, dev = _like(input, dtype, device)
    return zeros(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """A tensor of ones with input's shape, dtype and device."""
    d, dev = _like(input, dtype, device)
    return ones(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    d, dev = _like(input, dtype, device)
    return full(input.shape, fill_value, dtype=d, device=dev, requires_grad=requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """arange(start=0, end, step=1, *, dtype=None, ...) -> Tensor: values in [start, end)."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, numbers.Integral) for v in vals) \
            else dtypes.get_default_dtype()
    d = dtypes.as_dtype(dtype)
    n = max(0, math.ceil((end - start) / step))
    t = empty(n, dtype=d, device=device)
    t._fill_affine(start, step)
    t.requires_grad = requires_grad
    return t


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    """linspace(start, end, steps, ...) -> Tensor: ``steps`` evenly spaced values from start to end."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    t = empty(steps, dtype=d, device=device)
    if steps:
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        t._fill_linspace(start, end, step)
    t.requires_grad = requires_grad
    return t


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None):
    """logspace(start, end, steps, base=10.0, ...) -> Tensor: base ** linspace(start, end, steps)."""
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    exps = linspace(start, end, steps, dtype=dtypes.float64, device=device)
    t = (base ** exps).to(d)
    t.requires_grad = requires_grad
    return t


def _legacy_tensor(cls, args, device):
    """``Tensor(*sizes)`` (uninitialised float) or ``Tensor(sequence)`` (data, float)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)) and not isinstance(args[0], shapes.Size):
        if isinstance(args[0], Tensor):
            return args[0]
        return tensor(args[0], dtype=dtypes.get_default_dtype(), device=device)
    return empty(*args, dtype=dtypes.get_default_dtype(), device=device)
