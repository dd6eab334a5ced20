"""Device memory through one caching pool (``pool.py``), and the statistics ``numgrad.cuda`` reports.

On a GPU the pool is installed as Numba's External Memory Management plugin, so every device
allocation (tensors and kernel scratch) reuses cached blocks. The simulator has no EMM: there,
tensor storage is carved from pooled host buffers by ``empty`` itself, so the same statistics
count the bytes of live tensors.
"""
from __future__ import annotations

import ctypes
import os
import weakref

import numpy as np

from . import runtime
from .pool import CachingPool

_pool = None
_emm_installed = False


def pool():
    """The process's caching pool, or None before the first device allocation."""
    return _pool


def _simulated_pool():
    global _pool
    if _pool is None:
        # Simulated device memory is host memory; dropping the buffer releases it.
        _pool = CachingPool(lambda n: np.empty(n, dtype=np.uint8), lambda handle: None)
    return _pool


class _Lease:
    """Host bytes standing in for one pooled block: arrays built on it keep it alive (it is their
    NumPy base), and when the last one dies the block goes back to the pool."""

    def __init__(self, block, nbytes):
        self.block = block
        self.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "version": 3,
                                    "data": (block.handle.ctypes.data, False)}


def empty(numel: int, dtype):
    """An uninitialised 1-D device array of ``numel`` elements, allocated through the pool."""
    cuda = runtime.module()
    dtype = np.dtype(dtype)
    if _emm_installed or not runtime.simulated() or numel <= 0:
        return cuda.device_array(max(numel, 0), dtype=dtype)
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    p = _simulated_pool()
    nbytes = numel * dtype.itemsize
    block = p.malloc(nbytes)
    lease = _Lease(block, block.size)
    weakref.finalize(lease, p.free, block)
    # Size classes are multiples of 512 B, so every itemsize divides the block.
    arr = np.asarray(lease).view(dtype)[:numel]
    return FakeCUDAArray(arr)


def _caching_manager(cuda):
    """Numba's EMM plugin class backed by the caching pool (defined lazily: it subclasses
    ``numba.cuda`` classes)."""
    from numba.cuda.cudadrv import driver as drv
    from numba.cuda.cudadrv.driver import AutoFreePointer, CudaAPIError, driver

    binding = getattr(drv, "binding", None)
    if binding is not None:  # numba-cuda: NVIDIA's Python bindings return the pointer
        out_of_memory = binding.CUresult.CUDA_ERROR_OUT_OF_MEMORY

        def driver_alloc(nbytes):
            return int(driver.cuMemAlloc(nbytes))

        def raw_free(handle):
            driver.cuMemFree(binding.CUdeviceptr(handle))
    else:  # Numba's own ctypes driver fills in an out-argument
        from numba.cuda.cudadrv import drvapi, enums
        out_of_memory = enums.CUDA_ERROR_OUT_OF_MEMORY

        def driver_alloc(nbytes):
            ptr = drvapi.cu_device_ptr()
            driver.cuMemAlloc(ctypes.byref(ptr), nbytes)
            return int(ptr.value)

        def raw_free(handle):
            driver.cuMemFree(drvapi.cu_device_ptr(handle))

    def raw_alloc(nbytes):
        try:
            return driver_alloc(nbytes)
        except CudaAPIError as exc:
            if exc.code == out_of_memory:
                raise MemoryError(f"CUDA out of memory: tried to allocate {nbytes} bytes") from exc
            raise

    class CachingMemoryManager(cuda.GetIpcHandleMixin, cuda.HostOnlyCUDAMemoryManager):
        """Device allocations from numgrad's caching pool; host allocations as Numba's."""

        def initialize(self):
            global _pool
            if _pool is None:
                _pool = CachingPool(raw_alloc, raw_free)

        def memalloc(self, size):
            block = _pool.malloc(size)
            key = block.handle
            allocations = self.allocations

            def release():
                allocations.pop(key, None)
                _pool.free(block)

            # As Numba's own manager: the pointer lives while any owned view of it does.
            mem = AutoFreePointer(weakref.proxy(self.context), ctypes.c_void_p(block.handle), size,
                                  finalizer=release)
            allocations[key] = mem
            return mem.own()

        def get_memory_info(self):
            free, total = driver.cuMemGetInfo()
            return cuda.MemoryInfo(free=free, total=total)

        def reset(self):
            super().reset()
            if _pool is not None:
                _pool.forget()  # the context's memory is gone with it

        @property
        def interface_version(self):
            return 1

    return CachingMemoryManager


def install(cuda) -> None:
    """Make the pool Numba's device allocator; a no-op under the simulator or with
    ``NUMGRAD_NO_CUDA_MEMORY_CACHING=1``. Must run before the first CUDA context exists."""
    global _emm_installed
    if runtime.simulated() or os.environ.get("NUMGRAD_NO_CUDA_MEMORY_CACHING", "0") not in ("", "0"):
        return
    cuda.set_memory_manager(_caching_manager(cuda))
    _emm_installed = True


def empty_cache() -> None:
    """Release cached, unused blocks back to the device."""
    if _pool is None:
        return
    if _emm_installed:
        # Blocks are returned when their last array dies, possibly with kernels still queued.
        runtime.module().synchronize()
    _pool.empty_cache()


def stats() -> dict:
    """The pool's counters (all zero before the first allocation)."""
    if _pool is None:
        return CachingPool(None, None).stats()
    return _pool.stats()


def reset_peak_stats() -> None:
    if _pool is not None:
        _pool.reset_peak_stats()

