"""The NumPy arrays MPI reads and writes for numgrad tensors, and how a call is run:
blocking, bounded by a timeout, or returning a Work handle."""
from __future__ import annotations

import os

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import _mpi
from .process_group import _seconds
from .work import Work


def contiguous_array(t, name: str = "tensor"):
    """``(array, view)``: a C-contiguous array MPI can use in place of ``t``'s memory: ``t``'s own
    memory when it is contiguous (``view`` None), else a copy to be written back into ``view``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a numgrad Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError(f"numgrad.distributed exchanges CPU tensors, but {name} is on {t.device}: "
                           f"move it with .cpu() first")
    refuse_bfloat16(t.dtype, name)
    view = t._np_view()
    if view.flags.c_contiguous:
        return view, None
    return np.ascontiguousarray(view), view


def refuse_bfloat16(dtype, name: str) -> None:
    if dtype is dtypes.bfloat16:
        raise TypeError(f"numgrad.distributed does not exchange bfloat16 tensors (MPI has no bfloat16 type), "
                        f"but {name} is bfloat16: convert it with .float() first")


def write_back(t, arr, view):
    """Finish an in-place write into ``t``: copy a staged result back and bump the version."""
    if view is not None:
        np.copyto(view, arr)
    t._bump_version()


def copy_into(t, values, name: str = "output tensor"):
    """Copy ``values`` (an array of the same number of elements) into tensor ``t``."""
    view = t._np_view()
    if view.size != values.size:
        raise ValueError(f"{name} has {view.size} elements, expected {values.size}")
    np.copyto(view, values.reshape(view.shape), casting="no")
    t._bump_version()


def divide(arr, n: int):
    """Turn a sum into an average in place (floor division for integers)."""
    if arr.dtype.kind in "fc" or arr.dtype in dtypes.NARROW_NUMPY:
        arr /= n
    else:
        np.floor_divide(arr, n, out=arr)


def checking() -> bool:
    """Whether collectives first check that all ranks passed matching tensors
    (``NUMGRAD_DISTRIBUTED_DEBUG`` set to ``DETAIL`` or ``1``); read on each call, as every
    rank must decide alike."""
    return os.environ.get("NUMGRAD_DISTRIBUTED_DEBUG", "").upper() in ("1", "DETAIL")


def check_match(pg, what: str, numel: int, dtype, extra: int = 0):
    """Raise the same RuntimeError on every rank when the ranks disagree on a collective's
    element count, dtype or root: without it MPI may hang or truncate."""
    if not checking():
        return
    mine = np.array([numel, np.dtype(dtype).num, extra], dtype=np.int64)
    every = np.empty((pg.size(), 3), dtype=np.int64)
    pg._comm.Allgather(mine, every)
    if (every != mine).any():
        names = {np.dtype(c).num: np.dtype(c).name for c in np.typecodes["All"] if c not in "OSUVMm"}
        parts = "; ".join(f"rank {pg._ranks[r]}: {n} elements of {names.get(int(k), k)} (root/op {x})"
                          for r, (n, k, x) in enumerate(every.tolist()))
        raise RuntimeError(f"{what}: the ranks passed tensors that do not match: {parts}")


def run(pg, what: str, blocking, start, finish, async_op: bool, timeout, result=None):
    """Run a call: ``blocking()`` when no timeout applies, else ``start()`` (a request) waited on
    up to the timeout; with ``async_op`` return the Work of ``start()``. ``finish()`` runs once
    the data has arrived."""
    MPI = _mpi.load()
    limit = _seconds(timeout) if timeout is not None else pg._timeout
    if async_op:
        return Work(MPI, [start()], finish, limit, what, result)
    if limit is None:
        blocking()
        if finish is not None:
            finish()
        return None
    Work(MPI, [start()], finish, limit, what, result).wait()
    return None


def broadcast_coalesced(tensors, pg, root: int = 0):
    """Give every rank ``root``'s values of ``tensors``, one broadcast per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for group in by_dtype.values():
        arrays = [t._np_view() for t in group]
        flat = np.concatenate([a.reshape(-1) for a in arrays]) if arrays else None
        pg._comm.Bcast(flat, root)
        if pg.rank() != root:
            start = 0
            for t, a in zip(group, arrays):
                np.copyto(a, flat[start:start + a.size].reshape(a.shape))
                start += a.size
                t._bump_version()
