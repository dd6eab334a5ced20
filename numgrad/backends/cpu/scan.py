"""Scan (cumulative) kernels for the CPU, generated from a reduction op's ``combine`` body.

``scan`` walks every row along the scanned dim: the kept dims pick the row (in the input and in
the contiguous output), and the running accumulator is written out after each element.
"""
from __future__ import annotations

import numpy as np

from ... import shapes
from ...memo import Memo
from .. import codegen

_SOURCE = """\
import numpy as np
from numba import njit, uint64
from numgrad.ops.records import get_op
_combine = njit(error_model="numpy")(get_op({name!r}).combine)
_c = np.{acc}
_K = dict(cache=True, error_model="numpy", nogil=True)


@njit(**_K)
def scan(kshape, kin, kout, n, sin, sout, a, offset, out, init):
    nk = kshape.shape[0]
    rows = 1
    for d in range(nk):
        rows *= kshape[d]
    for r in range(rows):
        p = offset
        q = 0
        rem = r
        for d in range(nk - 1, -1, -1):
            idx = rem % kshape[d]
            rem //= kshape[d]
            p += idx * kin[d]
            q += idx * kout[d]
        acc = init
        for i in range(n):
            acc = _combine(acc, _c(a[uint64(p + i * sin)]))
            out[uint64(q + i * sout)] = acc
"""

_mods: dict = {}


def kernels(op, acc_np):
    """The generated scan module of ``op`` for one accumulator dtype (memoized)."""
    key = (op.name, acc_np)
    mod = _mods.get(key)
    if mod is None:
        mod = _mods[key] = codegen.load_module(f"scan_{op.name}_{acc_np.name}",
                                               _SOURCE.format(name=op.name, acc=acc_np.name),
                                               depends_on=codegen.source_files(op.combine))
    return mod


# The loop nest of a call layout, worked out once: (kept shape, kept input and output strides,
# n, input and output stride along the scanned dim).
_geometries = Memo(4096)


def run(op, acc_np, buf, offset, shape, strides, dim, init):
    """Scan ``dim`` of a strided operand; returns a contiguous array of ``shape``."""
    acc_np = np.dtype(acc_np)
    out = np.empty(shape, dtype=acc_np)
    if out.size == 0:
        return out
    key = (shape, strides, dim)
    geometry = _geometries.get(key)
    if geometry is None:
        out_strides = shapes.contiguous_strides(shape)
        kept = [d for d in range(len(shape)) if d != dim]
        geometry = _geometries[key] = (
            np.array([shape[d] for d in kept], dtype=np.int64), np.array([strides[d] for d in kept], dtype=np.int64),
            np.array([out_strides[d] for d in kept], dtype=np.int64), shape[dim] if shape else 1,
            strides[dim] if shape else 0, out_strides[dim] if shape else 0)
    kernels(op, acc_np).scan(*geometry, buf, offset, out.reshape(-1), acc_np.type(init))
    return out

