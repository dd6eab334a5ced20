"""Scan (cumulative) kernels for CUDA, generated from a reduction op's ``combine`` body.

Each thread scans whole rows along the scanned dim (a grid-stride loop over rows): the kept
dims pick the row in the input and in the contiguous output, and the running accumulator is
stored after each element. Rows are independent, so many short rows fill the GPU; one very long
row runs on one thread.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from . import runtime

_SOURCE = """\
import numpy as np
from numba import cuda
from numgrad.ops.records import get_op
_combine = cuda.jit(device=True)(get_op({name!r}).combine)
_c = np.{acc}
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(**_K)
def scan(rows, kshape, kin, kout, n, sin, sout, a, offset, out, init):
    r = cuda.grid(1)
    while r < rows:
        p = offset
        q = 0
        rem = r
        for d in range(kshape.shape[0] - 1, -1, -1):
            idx = rem % kshape[d]
            rem //= kshape[d]
            p += idx * kin[d]
            q += idx * kout[d]
        acc = init
        for i in range(n):
            acc = _combine(acc, _c(a[p + i * sin]))
            out[q + i * sout] = acc
        r += cuda.gridsize(1)
"""

_mods: dict = {}


def kernels(op, acc_np):
    key = (op.name, acc_np)
    mod = _mods.get(key)
    if mod is None:
        mod = _mods[key] = codegen.load_module(f"cuda_scan_{op.name}_{acc_np.name}",
                                               _SOURCE.format(name=op.name, acc=acc_np.name),
                                               depends_on=codegen.source_files(op.combine))
    return mod


def run(op, acc_np, buf, offset, shape, strides, dim, init, out):
    """Scan ``dim`` of a strided device operand into the contiguous device array ``out``."""
    acc_np = np.dtype(acc_np)
    numel = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if numel == 0:
        return
    out_strides = []
    acc = 1
    for s in reversed(shape):
        out_strides.append(acc)
        acc *= s
    out_strides = out_strides[::-1]
    kept = [d for d in range(len(shape)) if d != dim]
    kshape = runtime.int64s(tuple(int(shape[d]) for d in kept) or (1,))
    kin = runtime.int64s(tuple(int(strides[d]) for d in kept) or (0,))
    kout = runtime.int64s(tuple(int(out_strides[d]) for d in kept) or (0,))
    n = shape[dim] if shape else 1
    sin = strides[dim] if shape else 0
    sout = out_strides[dim] if shape else 0
    rows = numel // n
    runtime.launch(kernels(op, acc_np).scan, runtime.blocks_for(rows), runtime.geometry()[0],
                   rows, kshape, kin, kout, n, sin, sout, buf, offset, out, acc_np.type(init))
