"""Host memory: allocations that fail as PyTorch's do, and glibc kept from handing freed tensor
memory back to the kernel between training steps.

glibc adapts its thresholds to the largest block freed so far; a step that frees many buffers
of a few MiB each then trims the heap at its end, and the next step page-faults every buffer
in again (thousands of faults a step, a third of a small CNN's step time).
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

# mallopt parameters (malloc.h) and the ceilings of glibc's own adaptive scheme on 64-bit.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 32 << 20
_TRIM_THRESHOLD = 64 << 20


def keep_freed_memory() -> bool:
    """Fix glibc's mmap and trim thresholds at the ceilings its adaptive scheme would reach:
    blocks under 32 MiB come from the heap, and up to 64 MiB of freed heap stays mapped for
    reuse. Leaves the allocator alone where the user tuned it (``MALLOC_*_`` variables) or
    where the C library is not glibc. Returns whether the thresholds were set."""
    if any(k in os.environ for k in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mmap_set = mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    return bool(mmap_set) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))


def out_of_memory(nbytes: int) -> RuntimeError:
    """The error PyTorch raises when a host allocation of ``nbytes`` fails."""
    return RuntimeError(f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
                        f"memory: you tried to allocate {nbytes} bytes. Error code 12 (Cannot allocate memory)")


def host_buffer(allocate, numel: int, np_dtype) -> np.ndarray:
    """``allocate(numel, dtype=np_dtype)`` (``np.empty``, ``np.zeros``), with running out of
    memory reported as PyTorch reports it. Hot paths catch MemoryError themselves and raise
    :func:`out_of_memory`."""
    try:
        return allocate(numel, dtype=np_dtype)
    except MemoryError:
        raise out_of_memory(numel * np.dtype(np_dtype).itemsize) from None
