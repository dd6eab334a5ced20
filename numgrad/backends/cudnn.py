"""``numgrad.backends.cudnn``: PyTorch's cuDNN switches, kept as plain flags.

numgrad's convolutions are its own kernels, never cuDNN's: the flags are stored for programs that
set them and change nothing.
"""
from __future__ import annotations

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "is_available", "version"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: numgrad does not use cuDNN."""
    return False


def version():
    """None: numgrad does not use cuDNN."""
    return None
