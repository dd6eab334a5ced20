"""The Numba CUDA target, imported on first use, and the launch geometry of every kernel.

This package is the only place that imports ``numba.cuda`` (from the ``numba-cuda`` package when
installed). Under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) each GPU thread is a Python
thread, so launches use tiny blocks and grids; grid-stride loops make any geometry correct.
"""
from __future__ import annotations

import os

_cuda = None
_error = None


def _set_simulator_flag():
    # The built-in target reads the flag from Numba's config, which was loaded with numba itself.
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        from numba.core import config
        config.ENABLE_CUDASIM = 1


def module():
    """``numba.cuda``, or ImportError (kept) when the CUDA target cannot be imported."""
    global _cuda, _error
    if _cuda is None:
        if _error is not None:
            raise ImportError(_error)
        try:
            _set_simulator_flag()
            from numba import cuda
        except Exception as exc:  # a missing package or a broken driver install
            _error = f"numba.cuda is unavailable: {exc}"
            raise ImportError(_error) from exc
        _cuda = cuda
        from . import memory
        memory.install(cuda)
    return _cuda


def simulated() -> bool:
    """True when kernels run on Numba's CUDA simulator."""
    return bool(module().config.ENABLE_CUDASIM)


_geometry = None


def geometry():
    """(threads per 1-D block, side of a 2-D matmul tile, most blocks of a grid-stride launch)."""
    global _geometry
    if _geometry is None:
        if simulated():
            _geometry = (8, 4, 2)
        else:
            sms = module().get_current_device().MULTIPROCESSOR_COUNT
            _geometry = (256, 16, 32 * sms)
    return _geometry


def blocks_for(n: int) -> int:
    """Blocks of a grid-stride launch over ``n`` items: enough to fill the GPU, no more."""
    tpb, _, most = geometry()
    return max(1, min(most, (n + tpb - 1) // tpb))
