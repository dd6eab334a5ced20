"""Tensor factories: tensor, as_tensor, from_numpy, zeros, ones, full, arange, linspace, ..."""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes, shapes
from .backends import require_cuda
from .devices import as_device
from .layouts import check_layout
from .storage import Storage
from .tensor import Tensor, make_requires_grad
from .ops.registry import check_out_grad

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "empty", "zeros", "ones", "full", "eye",
           "arange", "linspace", "logspace", "empty_like", "zeros_like", "ones_like", "full_like",
           "scalar_tensor", "empty_strided"]


def _scalar_dtype(x) -> dtypes.dtype:
    """The dtype PyTorch infers for one Python or NumPy number."""
    if isinstance(x, (bool, np.bool_)):
        return dtypes.bool
    if isinstance(x, np.generic):
        return dtypes.from_numpy(x.dtype)
    if isinstance(x, numbers.Integral):
        return dtypes.int64
    if isinstance(x, numbers.Real):
        return dtypes.get_default_dtype()
    if x is None or isinstance(x, numbers.Number):
        raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
    raise TypeError(f"new(): invalid data type '{type(x).__name__}'")


def _leading_shape(data) -> list:
    shape = []
    x = data
    while True:
        if isinstance(x, (Tensor, np.ndarray)):
            return shape + list(x.shape)
        if not isinstance(x, (list, tuple)):
            return shape
        shape.append(len(x))
        if not x:
            return shape
        x = x[0]


def _scan(data):
    """The shape and inferred dtype of nested data, checking that it is rectangular.

    The dtype promotes over every element: Python bools, ints and floats count as bool, int64
    and the default float; NumPy values and tensors bring their own dtype."""
    shape = _leading_shape(data)
    found = [None]

    def take(d):
        found[0] = d if found[0] is None else dtypes.promote_types(found[0], d)

    def visit(x, dim):
        if isinstance(x, (Tensor, np.ndarray)):
            if tuple(x.shape) != tuple(shape[dim:]):
                raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {x.shape[0] if x.ndim else 0})")
            take(x.dtype if isinstance(x, Tensor) else dtypes.from_numpy(x.dtype))
        elif dim == len(shape):
            if isinstance(x, (list, tuple)):
                raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as a number")
            take(_scalar_dtype(x))
        elif not isinstance(x, (list, tuple)):
            raise TypeError("not a sequence")
        elif len(x) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
        else:
            for y in x:
                visit(y, dim + 1)

    visit(data, 0)
    return tuple(shape), found[0] or dtypes.get_default_dtype()


def _host(x):
    """Replace tensors inside nested data by NumPy views of their values."""
    if isinstance(x, Tensor):
        return x.detach().cpu()._np_view()
    if isinstance(x, (list, tuple)) and any(isinstance(y, (Tensor, list, tuple)) for y in x):
        return [_host(y) for y in x]
    return x


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor

    Constructs a tensor by copying ``data`` (a number, nested lists/tuples, a NumPy array or a
    tensor). The dtype is inferred as PyTorch does: bool, int64 or the default float, promoted
    over all elements; NumPy arrays and tensors keep theirs."""
    if isinstance(data, Tensor):
        src = data.detach()
        t = (src.to(dtypes.as_dtype(dtype)) if dtype is not None else src).clone()
    else:
        shape, inferred = _scan(data)
        d = dtypes.as_dtype(dtype) if dtype is not None else inferred
        if d in dtypes.NARROW_FLOATING:
            # Each number becomes a 16-bit float through a float, as in PyTorch (rounded twice).
            with np.errstate(over="ignore"):
                arr = np.array(_host(data), dtype=np.float32, order="C").astype(d.numpy).reshape(shape)
        else:
            arr = np.array(_host(data), dtype=d.numpy, copy=True, order="C").reshape(shape)
        t = Tensor._from_numpy_array(arr)
    dev = as_device(device)
    if dev != t.device:
        t = t.to(dev)
    if requires_grad:
        make_requires_grad(t)
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
        return from_cuda_array(data)
    return tensor(data, dtype=dtype, device=device)


def from_cuda_array(obj) -> Tensor:
    """A CUDA tensor sharing the memory of an object exposing ``__cuda_array_interface__``."""
    data, shape, strides, np_dtype, index = require_cuda().import_array(obj)
    return Tensor._make(Storage(data, as_device(f"cuda:{index}")), shape, strides, 0, dtypes.from_numpy(np_dtype))


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


def _finish(t: Tensor, requires_grad: bool, out, name: str = "") -> Tensor:
    """Apply ``requires_grad`` or copy into ``out`` (resized to fit) as factories do."""
    if out is not None:
        if out._requires_grad:
            check_out_grad("aten::" + name, out)
        if tuple(out.shape) != tuple(t.shape):
            out.resize_(t.shape)
        out.copy_(t)
        return out
    if requires_grad:
        make_requires_grad(t)
    return t


def _factory(name, shape_args, dtype, device, requires_grad, fill, out=None, size=None):
    shape = shapes.parse_size(shape_args, name, size)
    d = dtypes.as_dtype(dtype) if dtype is not None else \
        (out.dtype if out is not None else dtypes.get_default_dtype())
    dev = as_device(device) if device is not None or out is None else out.device
    if fill is not None and fill == 0 and out is None and dev.type == "cpu":
        t = Tensor._make(Storage.cpu_zeros(shapes.prod(shape), d), shape, shapes.contiguous_strides(shape), 0, d)
    else:
        t = Tensor._empty(shape, d, dev)
        if fill is not None:
            t._fill_raw(fill)
    return _finish(t, requires_grad, out, name)


def empty(*args, size=None, dtype=None, device=None, layout=None,
          requires_grad=False, out=None, memory_format=None,
          pin_memory=False):
    """empty(*size, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A tensor of the given size whose values are uninitialised."""
    check_layout(layout, "empty")
    return _factory("empty", args, dtype, device, requires_grad, None, out, size)


def zeros(*args, size=None, dtype=None, device=None, layout=None, requires_grad=False, out=None):
    """zeros(*size, *, dtype=None, device=None, requires_grad=False) -> Tensor filled with 0."""
    check_layout(layout, "zeros")
    return _factory("zeros", args, dtype, device, requires_grad, 0, out, size)


def ones(*args, size=None, dtype=None, device=None, layout=None, requires_grad=False, out=None):
    """ones(*size, *, dtype=None, device=None, requires_grad=False) -> Tensor filled with 1."""
    check_layout(layout, "ones")
    return _factory("ones", args, dtype, device, requires_grad, 1, out, size)


def full(size, fill_value, *, dtype=None, device=None, layout=None, requires_grad=False, out=None):
    """full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor

    The dtype follows ``fill_value`` when not given: bool, int64 or the default float."""
    check_layout(layout, "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None and out is None:
        dtype = _scalar_dtype(fill_value)
    dtypes.check_fill_value(fill_value, dtypes.as_dtype(dtype) if dtype is not None else out.dtype)
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    return _factory("full", size, dtype, device, requires_grad, fill_value, out)


def empty_strided(size, stride, *, dtype=None, device=None, layout=None, requires_grad=False):
    """An uninitialised tensor with explicit sizes and strides (in elements)."""
    check_layout(layout, "empty_strided")
    size, stride = shapes.parse_size((size,), "empty_strided"), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if shapes.prod(size) and any(st < 0 and s > 1 for s, st in zip(size, stride)):
        # A negative stride would reach before the buffer's first element.
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if shapes.prod(size) else 0
    t = Tensor._make(Storage.empty(span, d, as_device(device)), size, stride, 0, d)
    return _finish(t, requires_grad, None)


def scalar_tensor(s, *, dtype=None, device=None, layout=None, requires_grad=False) -> Tensor:
    """A 0-d tensor holding ``s`` (of the default float dtype unless ``dtype`` is given)."""
    check_layout(layout, "scalar_tensor")
    return full((), s, dtype=dtype or dtypes.get_default_dtype(), device=device, requires_grad=requires_grad)


def eye(n, m=None, *, dtype=None, device=None, layout=None, requires_grad=False, out=None) -> Tensor:
    """eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor

    A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    check_layout(layout, "eye")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    t.diagonal()._fill_raw(1)
    return _finish(t, requires_grad, out, "eye")


def _like(input, dtype, device):
    return (dtypes.as_dtype(dtype) if dtype is not None else input.dtype,
            as_device(device) if device is not None else input.device)


def empty_like(input, *, dtype=None, device=None, layout=None,
               requires_grad=False, memory_format=None) -> Tensor:
    """An uninitialised tensor with ``input``'s shape, dtype and device."""
    check_layout(layout, "empty_like")
    d, dev = _like(input, dtype, device)
    return empty(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def zeros_like(input, *, dtype=None, device=None, layout=None,
               requires_grad=False, memory_format=None) -> Tensor:
    """A tensor of zeros with ``input``'s shape, dtype and device."""
    check_layout(layout, "zeros_like")
    d, dev = _like(input, dtype, device)
    return zeros(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def ones_like(input, *, dtype=None, device=None, layout=None,
              requires_grad=False, memory_format=None) -> Tensor:
    """A tensor of ones with ``input``'s shape, dtype and device."""
    check_layout(layout, "ones_like")
    d, dev = _like(input, dtype, device)
    return ones(input.shape, dtype=d, device=dev, requires_grad=requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, layout=None,
              requires_grad=False, memory_format=None) -> Tensor:
    """A tensor filled with ``fill_value`` with ``input``'s shape, dtype and device."""
    check_layout(layout, "full_like")
    d, dev = _like(input, dtype, device)
    return full(input.shape, fill_value, dtype=d, device=dev, requires_grad=requires_grad)


def _number(v):
    return v.item() if isinstance(v, Tensor) else v


def arange(start, end=None, step=1, *, dtype=None, device=None, layout=None,
           requires_grad=False, out=None) -> Tensor:
    """arange(start=0, end, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor

    Values from ``start`` to ``end`` (excluded) in steps of ``step``. The dtype is int64 when all
    three are integers, else the default float."""
    check_layout(layout, "arange")
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, numbers.Integral) for v in (start, end, step)) \
            else dtypes.get_default_dtype()
    d = dtypes.as_dtype(dtype)
    if d is dtypes.bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not d.is_floating_point:
        # An integer arange takes its bounds and step in the integer type first, as PyTorch does.
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if all(isinstance(v, numbers.Integral) for v in (start, end, step)):
        n = -((start - end) // step)
    else:
        n = math.ceil((end - start) / step)
    if n >= 1 << 63:
        raise RuntimeError("invalid size, possible overflow?")
    t = empty(max(n, 0), dtype=d, device=device)
    if n > 0:
        t._fill_affine(start, step)
    return _finish(t, requires_grad, out, "arange")


def _scalar_to(value, d: dtypes.dtype):
    """``value`` converted to ``d`` as PyTorch converts a factory's number: an error where it
    overflows ``d``; integers wrap into unsigned types; floats truncate to integers."""
    if isinstance(value, numbers.Integral):
        v = int(value)
        if not -(1 << 63) <= v < (1 << 64):
            raise OverflowError("int too big to convert")
        src = np.int64(v) if v < (1 << 63) else np.uint64(v)
    else:
        v = src = np.float64(value)
    if d.is_floating_point:
        if math.isfinite(v) and abs(v) > dtypes.FLOAT_MAX[d]:
            raise dtypes.overflow_error(d)
        # A 16-bit float is made from a float, so a double or an integer is rounded twice.
        return src.astype(np.float32).astype(d.numpy) if d in dtypes.NARROW_FLOATING else src.astype(d.numpy)
    info = np.iinfo(d.numpy)
    if isinstance(src, np.floating):
        fits = float(info.min) <= v <= float(info.max)
    else:
        fits = v <= info.max and (v >= info.min if info.min < 0 else -v <= info.max)
    if not fits:
        raise dtypes.overflow_error(d)
    return (int(v) - int(info.min)) % (1 << info.bits) + int(info.min)


def _range_ends(start, end, steps, d: dtypes.dtype):
    """linspace's (start, end, step) in ``d``'s own arithmetic (float64 for integer dtypes)."""
    start, end = _scalar_to(start, d), _scalar_to(end, d)
    if not d.is_floating_point:
        return float(start), float(end), (float(end) - float(start)) / (steps - 1)
    with np.errstate(all="ignore"):
        # NumPy's float16 arithmetic rounds each operation to half as PyTorch's does.
        return start, end, (end - start) / d.numpy.type(steps - 1)


def linspace(start, end, steps, *, dtype=None, device=None, layout=None,
             requires_grad=False, out=None) -> Tensor:
    """linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor

    ``steps`` evenly spaced values from ``start`` to ``end``, both included: the first half
    counted from ``start``, the second from ``end``, with PyTorch's roundings."""
    check_layout(layout, "linspace")
    start, end = _number(start), _number(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if d is dtypes.bool:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    t = empty(steps, dtype=d, device=device)
    if steps == 1:
        # A fill: half precision takes any number unchecked (rounded, maybe to inf).
        with np.errstate(over="ignore"):
            t._fill_raw(float(start) if d is dtypes.float16 else _scalar_to(start, d).item()
                        if d.is_floating_point else _scalar_to(start, d))
    elif steps > 1:
        t._fill_linspace(*_range_ends(start, end, steps, d))
    return _finish(t, requires_grad, out, "linspace")


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, layout=None,
             requires_grad=False, out=None) -> Tensor:
    """logspace(start, end, steps, base=10.0, *, dtype=None, ...) -> Tensor

    ``base ** x`` for ``x`` in ``linspace(start, end, steps)``, the exponents computed as
    PyTorch's logspace computes them (in double precision from ``start`` and ``end`` of ``dtype``)."""
    check_layout(layout, "logspace")
    start, end = _number(start), _number(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if d is dtypes.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    t = empty(steps, dtype=d, device=device)
    if steps == 1:
        t._fill_logspace(float(start), float(start), 0.0, float(base))
    elif steps > 1:
        s, e = _scalar_to(start, d), _scalar_to(end, d)
        # The ends' difference is taken in d's arithmetic (wrapping in int64), the rest in double.
        with np.errstate(all="ignore"):
            diff = float(e - s) if d.is_floating_point else float((e - s + (1 << 63)) % (1 << 64) - (1 << 63))
        t._fill_logspace(float(s), float(e), diff / (steps - 1), float(base))
    return _finish(t, requires_grad, out, "logspace")
