"""CUDA backend: device memory, host transfers and interop; kernels live in the submodules.

Importing this package imports nothing from Numba's CUDA target: ``runtime.module()`` does, on
first use, so that ``import numgrad`` works (and compiles nothing) on machines without CUDA.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ... import dtypes
from . import memory, runtime

_BFLOAT16 = dtypes.bfloat16.numpy


def is_available() -> bool:
    """True when the CUDA target imports and sees a GPU (or runs the simulator)."""
    try:
        return bool(runtime.module().is_available())
    except Exception:
        return False


def device_count() -> int:
    return len(runtime.module().gpus)


def current_device() -> int:
    cuda = runtime.module()
    return 0 if runtime.simulated() else cuda.get_current_device().id


def synchronize(device=None):
    runtime.module().synchronize()


def _check_index(device):
    n = device_count()
    if device.index is not None and device.index >= n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {device.index}, but "
                           f"{n} device{'s' if n != 1 else ''} visible)")


def _check_dtype(dtype: np.dtype) -> None:
    if dtype == _BFLOAT16:
        raise RuntimeError("bfloat16 tensors are CPU-only in numgrad: its CUDA kernels have no bfloat16 "
                           "arithmetic (use float16 or float32 on the GPU)")


def empty(numel: int, dtype: np.dtype, device):
    """An uninitialised 1-D device array of ``numel`` elements on ``device``."""
    _check_index(device)
    _check_dtype(dtype)
    return memory.empty(numel, dtype)


def to_host(data, offset: int, numel: int) -> np.ndarray:
    """A host copy of elements ``offset .. offset + numel`` of a device array."""
    out = np.empty(numel, dtype=data.dtype)
    if numel:
        data[offset:offset + numel].copy_to_host(out)
    return out


def to_device(src, device):
    """A device copy of a 1-D host array or of a whole device array."""
    _check_index(device)
    _check_dtype(src.dtype)
    out = memory.empty(src.shape[0], src.dtype)
    if src.shape[0]:
        if isinstance(src, np.ndarray):
            out.copy_to_device(np.ascontiguousarray(src))
        else:
            out.copy_to_device(src)
    return out


def pointer(data) -> int:
    """The device address of a device array's first element."""
    if runtime.simulated():
        # Simulated device memory is host memory: its address is the wrapped array's.
        return data._ary.__array_interface__["data"][0]
    return data.__cuda_array_interface__["data"][0]


def import_array(obj):
    """The memory of an object exposing ``__cuda_array_interface__``, shared, not copied:
    (flat device array, shape, strides in elements, NumPy dtype, device index)."""
    cai = obj.__cuda_array_interface__
    dt = np.dtype(cai["typestr"])
    if cai.get("descr") not in (None, [("", cai["typestr"])]) or dt.kind == "V":
        raise TypeError(f"can't convert a structured CUDA array ({cai['typestr']}) to a tensor")
    shape = tuple(cai["shape"])
    item = dt.itemsize
    strides = cai.get("strides")
    strides = tuple(s // item for s in strides) if strides else _contiguous(shape)
    if any(s < 0 for s in strides):
        raise ValueError("the tensor has negative strides, which numgrad does not support")
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    return _wrap(cai["data"][0], extent, dt, obj), shape, strides, dt, current_device()


def _contiguous(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


class _Owner:
    """Keeps the exporting object alive as long as the imported array lives."""

    def __init__(self, obj, extent, dt, ptr):
        self.obj = obj
        self.__cuda_array_interface__ = {"shape": (extent,), "typestr": dt.str, "data": (ptr, False),
                                         "strides": None, "version": 3}


def _wrap(ptr, extent, dt, obj):
    cuda = runtime.module()
    if runtime.simulated():
        from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
        if extent == 0:
            return FakeCUDAArray(np.empty(0, dtype=dt))
        buf = (ctypes.c_char * (extent * dt.itemsize)).from_address(ptr)
        arr = np.frombuffer(buf, dtype=dt, count=extent)
        arr_owner = _Owner(obj, extent, dt, ptr)
        fake = FakeCUDAArray(arr)
        fake._numgrad_owner = arr_owner
        return fake
    if extent == 0:
        return cuda.device_array(0, dtype=dt)
    return cuda.as_cuda_array(_Owner(obj, extent, dt, ptr))


def device_name() -> str:
    if runtime.simulated():
        return "Numba CUDA simulator"
    name = runtime.module().get_current_device().name
    return name.decode() if isinstance(name, bytes) else name
