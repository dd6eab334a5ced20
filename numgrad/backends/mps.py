"""``numgrad.backends.mps``: Apple's Metal backend, which numgrad does not have."""
from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: numgrad has no MPS device."""
    return False


def is_built() -> bool:
    """False: numgrad has no MPS device."""
    return False
