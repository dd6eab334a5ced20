"""``numgrad.cuda``: GPU availability and device management, as ``torch.cuda``."""
from __future__ import annotations

from .legacy import tensor_types

(BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor, FloatTensor,
 DoubleTensor) = tensor_types("cuda")


def _backend():
    from .backends import cuda
    return cuda


def is_available() -> bool:
    """True when a CUDA GPU (or Numba's CUDA simulator) and the Numba CUDA target are usable."""
    try:
        return _backend().is_available()
    except ImportError:
        return False


def device_count() -> int:
    """The number of visible CUDA devices (0 without CUDA)."""
    if not is_available():
        return 0
    return _backend().device_count()


def _require():
    from .backends import require_cuda
    return require_cuda()


def current_device() -> int:
    """The index of the current CUDA device."""
    return _require().current_device()


def synchronize(device=None) -> None:
    """Waits for all kernels on the current CUDA device to complete."""
    _require().synchronize(device)


def get_device_name(device=None) -> str:
    """The name of a CUDA device."""
    backend = _require()
    return backend.device_name()


# ------------------------------------------------------------------------------ memory statistics
def _memory():
    from .backends.cuda import memory
    return memory


def memory_allocated(device=None) -> int:
    """Bytes of device memory held by live tensors (in the allocator's 512 B size classes)."""
    return _memory().stats()["allocated_bytes"]


def max_memory_allocated(device=None) -> int:
    """The peak of :func:`memory_allocated` since the start or the last :func:`reset_peak_memory_stats`."""
    return _memory().stats()["peak_allocated_bytes"]


def memory_reserved(device=None) -> int:
    """Bytes of device memory held by the caching allocator: in use plus cached for reuse."""
    return _memory().stats()["reserved_bytes"]


def max_memory_reserved(device=None) -> int:
    """The peak of :func:`memory_reserved`."""
    return _memory().stats()["peak_reserved_bytes"]


def reset_peak_memory_stats(device=None) -> None:
    """Restart the peaks of the memory statistics from the current values."""
    _memory().reset_peak_stats()


def empty_cache() -> None:
    """Release the cached, unused device memory held by the caching allocator."""
    _memory().empty_cache()


def memory_stats(device=None) -> dict:
    """The caching allocator's counters, under PyTorch's key names."""
    s = _memory().stats()
    return {"allocated_bytes.all.current": s["allocated_bytes"],
            "allocated_bytes.all.peak": s["peak_allocated_bytes"],
            "reserved_bytes.all.current": s["reserved_bytes"],
            "reserved_bytes.all.peak": s["peak_reserved_bytes"],
            "num_device_alloc": s["num_allocs"], "num_device_free": s["num_frees"]}
