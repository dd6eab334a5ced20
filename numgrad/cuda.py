"""``numgrad.cuda``: GPU availability and device management."""
from __future__ import annotations


def is_available() -> bool:
    """True when a CUDA GPU and the Numba CUDA target are usable."""
    try:
        from .backends import cuda as _backend
    except ImportError:
        return False
    return _backend.is_available()


def device_count() -> int:
    """The number of visible CUDA devices (0 without CUDA)."""
    if not is_available():
        return 0
    from .backends import cuda as _backend
    return _backend.device_count()
