"""``numgrad.cuda``: GPU availability and device management, as ``torch.cuda``."""
from __future__ import annotations


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
    from .devices import require_cuda
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
