"""The package name printed in type names (``numgrad.float32``, ``numgrad.Size([2])``).

``numgrad.compat`` sets it to ``torch`` while it runs a program written for PyTorch, so that
the program prints what it prints under PyTorch."""
from __future__ import annotations

_package = ["numgrad"]


def package() -> str:
    """The prefix of printed type names."""
    return _package[0]


def set_package(name: str) -> None:
    """Prints type names as ``<name>.float32``, ``<name>.Size(...)``, ... from now on."""
    _package[0] = name
