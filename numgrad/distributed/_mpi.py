"""Loading mpi4py on first use: importing numgrad never needs it."""
from __future__ import annotations

import importlib.util

_MISSING = ("numgrad.distributed runs on MPI and needs mpi4py, which is not installed: "
            "pip install 'numgrad[distributed]' (or pip install mpi4py mpich)")


def mpi_available() -> bool:
    """Whether mpi4py can be imported, without importing it."""
    return importlib.util.find_spec("mpi4py") is not None


_loaded = []


def load():
    """The ``mpi4py.MPI`` module, or RuntimeError naming what to install."""
    if not _loaded:
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise RuntimeError(_MISSING) from exc
        _loaded.append(MPI)
    return _loaded[0]
