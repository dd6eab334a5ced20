"""``numgrad.accelerator``: the device-agnostic view of the accelerator (CUDA when present)."""
from __future__ import annotations

from . import cuda
from .devices import device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "synchronize"]


def is_available() -> bool:
    """True when an accelerator (a CUDA GPU) is usable."""
    return cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator's device type, as ``device('cuda')``; None without one."""
    return device("cuda") if cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices (0 without one)."""
    return cuda.device_count()


def current_device_index() -> int:
    """The index of the current accelerator device."""
    return cuda.current_device()


def synchronize(device=None) -> None:
    """Waits for all work queued on the accelerator to complete."""
    cuda.synchronize(device)
