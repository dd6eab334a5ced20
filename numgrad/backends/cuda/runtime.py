"""The Numba CUDA target, imported on first use, and the launch geometry of every kernel.

This package is the only place that imports ``numba.cuda`` (from the ``numba-cuda`` package when
installed). Under the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) each GPU thread is a Python
thread, so launches use tiny blocks and grids; grid-stride loops make any geometry correct.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

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


_simulated = None


def simulated() -> bool:
    """True when kernels run on Numba's CUDA simulator."""
    global _simulated
    if _simulated is None:
        _simulated = bool(module().config.ENABLE_CUDASIM)
    return _simulated


_geometry = None


def geometry():
    """(threads per 1-D block, most blocks of a grid-stride launch)."""
    global _geometry
    if _geometry is None:
        if simulated():
            _geometry = (8, 2)
        else:
            sms = module().get_current_device().MULTIPROCESSOR_COUNT
            _geometry = (256, 32 * sms)
    return _geometry


def blocks_for(n: int) -> int:
    """Blocks of a grid-stride launch over ``n`` items: enough to fill the GPU, no more."""
    tpb, most = geometry()
    return max(1, min(most, (n + tpb - 1) // tpb))


# Kernels read shapes and strides from small int64 device arrays. A host array passed to a
# kernel would be copied in and back at every launch, and the copy back waits for the kernel;
# training loops repeat the same layouts, so each distinct one is copied once and kept.
_METADATA_LIMIT = 1024
_metadata: dict = {}


def int64s(values) -> object:
    """A device int64 array of ``values`` (a tuple of ints, or a tuple of equal-length tuples
    for a 2-D array), copied once per distinct value and cached."""
    arr = _metadata.get(values)
    if arr is None:
        if len(_metadata) >= _METADATA_LIMIT:
            # Launches are ordered on one stream, so kernels queued with a dropped array have
            # read it before anything can reuse its memory.
            _metadata.clear()
        arr = _metadata[values] = module().to_device(np.array(values, dtype=np.int64))
    return arr


# Per launch, Numba types every argument, builds a launch-configuration object and checks the
# grid size before it reaches the compiled kernel: tens of microseconds, more than a small
# kernel runs. After a signature's first launch its compiled kernel is called directly.
_compiled: dict = {}


def _argument_key(args) -> tuple:
    # What decides Numba's argument types: a scalar's Python or NumPy type, an array's dtype,
    # ndim and contiguity.
    return tuple(type(a) if isinstance(a, (int, float, np.generic))
                 else (a.dtype, a.ndim, a.flags["C_CONTIGUOUS"]) for a in args)


def _dim3(d) -> tuple:
    d = (d,) if isinstance(d, int) else tuple(d)
    return d + (1,) * (3 - len(d))


_stream = None


def launch(kernel, griddim, blockdim, *args) -> None:
    """``kernel[griddim, blockdim](*args)`` on the default stream, with Numba's per-call
    dispatch skipped once the signature has been compiled."""
    global _stream
    if simulated():
        kernel[griddim, blockdim](*args)
        return
    key = (kernel, _argument_key(args))
    compiled = _compiled.get(key)
    if compiled is None:
        configured = kernel[griddim, blockdim]
        with warnings.catch_warnings():
            # Small tensors make small grids, by design.
            warnings.filterwarnings("ignore", message=".*Grid size")
            configured(*args)
        _stream = configured.stream
        _compiled[key] = kernel.overloads[tuple(kernel.typeof_pyval(a) for a in args)]
        return
    compiled.launch(args, _dim3(griddim), _dim3(blockdim), _stream, 0)
