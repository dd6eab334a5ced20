"""Reduction kernels for CUDA, generated from an op's ``combine(acc, x)`` body.

``blocks``: each block reduces one output element (or one of ``split`` slices of it): its
threads accumulate strided partials, then combine them by a shared-memory tree down to one
warp, whose 32 partials warp 0 combines with shuffles (on a GPU). When the outputs are too
few to fill the GPU, a first pass writes ``split`` partials per output and a
second pass reduces those. ``threads`` gives each thread a whole output, for short reductions.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import split_reduction
from . import runtime

_SOURCE = """\
import numpy as np
from numba import cuda
from numgrad.ops.registry import get_op
_combine = cuda.jit(device=True)(get_op({name!r}).combine)
_c = np.{acc}
_TPB = {tpb}
_LAST = {last}
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(device=True)
def _offset(o, shape, strides):
    # Memory offset of the o-th element (row-major) of a strided block.
    p = 0
    for d in range(shape.shape[0] - 1, -1, -1):
        idx = o % shape[d]
        o //= shape[d]
        p += idx * strides[d]
    return p


@cuda.jit(**_K)
def blocks(n_out, split, kshape, kstrides, rshape, rstrides, n_red, a, offset, out, init):
    sm = cuda.shared.array(_TPB, dtype=_c)
    tid = cuda.threadIdx.x
    b = cuda.blockIdx.x
    while b < n_out * split:
        base = offset + _offset(b // split, kshape, kstrides)
        acc = init
        i = (b % split) * _TPB + tid
        while i < n_red:
            acc = _combine(acc, _c(a[base + _offset(i, rshape, rstrides)]))
            i += split * _TPB
        sm[tid] = acc
        cuda.syncthreads()
        s = _TPB // 2
        while s >= _LAST:
            if tid < s:
                sm[tid] = _combine(sm[tid], sm[tid + s])
            cuda.syncthreads()
            s //= 2
{finish}
        cuda.syncthreads()
        b += cuda.gridDim.x


@cuda.jit(**_K)
def threads(n_out, kshape, kstrides, rshape, rstrides, n_red, a, offset, out, init):
    o = cuda.grid(1)
    while o < n_out:
        base = offset + _offset(o, kshape, kstrides)
        acc = init
        for i in range(n_red):
            acc = _combine(acc, _c(a[base + _offset(i, rshape, rstrides)]))
        out[o] = acc
        o += cuda.gridsize(1)
"""

# The shared-memory tree runs down to one partial, or down to one warp's 32 partials, which
# warp 0 then combines in registers with shuffles (no shared memory, no block barriers).
_TREE_FINISH = """\
        if tid == 0:
            out[b] = sm[0]"""
_SHUFFLE_FINISH = """\
        if tid < 32:
            v = sm[tid]
            lane = 16
            while lane > 0:
                v = _combine(v, cuda.shfl_down_sync(0xffffffff, v, lane))
                lane //= 2
            if tid == 0:
                out[b] = v"""

# shfl_down_sync moves 32- and 64-bit ints and floats only.
_SHUFFLED = frozenset(np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64))

# Below this many reduced elements per output, one thread per output beats a block per output.
_SHORT = 32

_mods: dict = {}


def kernels(op, acc_np):
    """The generated module of ``op``'s reduction kernels for one accumulator dtype."""
    tpb = runtime.geometry()[0]
    key = (op.name, acc_np, tpb)
    mod = _mods.get(key)
    if mod is None:
        # The simulator has no warp shuffles (and its blocks are narrower than a warp).
        shuffle = acc_np in _SHUFFLED and tpb >= 64 and not runtime.simulated()
        src = _SOURCE.format(name=op.name, acc=acc_np.name, tpb=tpb, last=32 if shuffle else 1,
                             finish=_SHUFFLE_FINISH if shuffle else _TREE_FINISH)
        mod = _mods[key] = codegen.load_module(f"cuda_red_{op.name}_{acc_np.name}", src,
                                               depends_on=(op.source_file,))
    return mod


def _arr(values, fill):
    return np.array(values or (fill,), dtype=np.int64)


def run(op, acc_np, buf, offset, shape, strides, reduce_dims, init, out):
    """Reduce ``reduce_dims`` of a strided device operand into the contiguous device array
    ``out`` (one element per kept position, cast on store)."""
    kshape, kstrides, rshape, rstrides = split_reduction(shape, strides, set(reduce_dims))
    n_out = int(np.prod(kshape, dtype=np.int64)) if kshape else 1
    n_red = int(np.prod(rshape, dtype=np.int64)) if rshape else 1
    acc_np = np.dtype(acc_np)
    init = acc_np.type(init)
    mod = kernels(op, acc_np)
    tpb, _, most = runtime.geometry()
    ks, kst = _arr(kshape, 1), _arr(kstrides, 0)
    rs, rst = _arr(rshape, 1), _arr(rstrides, 0)
    if n_red <= _SHORT:
        mod.threads[runtime.blocks_for(n_out), tpb](n_out, ks, kst, rs, rst, n_red, buf, offset, out, init)
        return
    split = max(1, min((n_red + 4 * tpb - 1) // (4 * tpb), most // n_out))
    if split == 1:
        mod.blocks[min(n_out, most), tpb](n_out, 1, ks, kst, rs, rst, n_red, buf, offset, out, init)
        return
    cuda = runtime.module()
    partial = cuda.device_array(n_out * split, dtype=acc_np)
    mod.blocks[min(n_out * split, most), tpb](n_out, split, ks, kst, rs, rst, n_red, buf, offset,
                                              partial, init)
    # The partials are an (n_out, split) contiguous block.
    per = np.array([split], dtype=np.int64)
    mod.blocks[min(n_out, most), tpb](n_out, 1, np.array([n_out], dtype=np.int64), per, per,
                                      np.array([1], dtype=np.int64), split, partial, 0, out, init)
