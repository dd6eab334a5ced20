"""Reduction kernels for CUDA, generated from an op's ``combine(acc, x)`` body.

The reduced dims are coalesced and walked as rows: the innermost reduced dim is a direct stride
loop, and the dims before it are unravelled only when a thread moves to another row, so the hot
loop has no integer division. Two kernels share that walk:

``blocks``: a block reduces one output element (or one of ``split`` slices of it). Neighbouring
threads read neighbouring reduced elements, then the block combines its partials by a
shared-memory tree down to one warp, whose 32 partials warp 0 combines with shuffles (on a GPU).
Used when the reduced elements are the closest in memory (rows, full reductions).

``threads``: a thread reduces one output element (or one of ``split`` slices of it), and
neighbouring threads take neighbouring outputs. Used when the kept dims are the closest in
memory (columns) and for short reductions.

When the outputs are too few to fill the GPU, a first pass writes ``split`` partials per
output and further passes reduce those.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import split_reduction
from . import runtime

_SOURCE = """\
import numpy as np
from numba import cuda
from numgrad.ops.records import get_op
_combine = cuda.jit(device=True)(get_op({name!r}).combine)
_c = np.{acc}
_TPB = {tpb}
_LAST = {last}
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(device=True)
def _at(o, shape, strides, ndim):
    # Memory offset of the o-th position (row-major) of the first ndim dims of a strided block.
    # The outermost dim needs no modulo: o is already below its size.
    p = 0
    for d in range(ndim - 1, 0, -1):
        q = o // shape[d]
        p += (o - q * shape[d]) * strides[d]
        o = q
    return p + o * strides[0]


@cuda.jit(device=True)
def _walk(acc, a, base, i, step, n_red, rshape, rstrides):
    # Combines the reduced elements i, i + step, ... (row-major positions below n_red) of the
    # block at base. Only the start is divided; moving on by step is a carry into the next rows.
    last = rshape.shape[0] - 1
    width = rshape[last]
    stride = rstrides[last]
    rows = n_red // width
    j = i // width
    k = i - j * width
    dj = step // width
    dk = step - dj * width
    dq = step * stride
    while j < rows:
        q = base + _at(j, rshape, rstrides, last) + k * stride
        # Four independent loads per iteration keep more memory requests in flight; they are
        # combined in walk order, so the result does not depend on the unrolling.
        while k + 3 * step < width:
            v0 = a[q]
            v1 = a[q + dq]
            v2 = a[q + 2 * dq]
            v3 = a[q + 3 * dq]
            acc = _combine(_combine(_combine(_combine(acc, _c(v0)), _c(v1)), _c(v2)), _c(v3))
            q += 4 * dq
            k += 4 * step
        while k < width:
            acc = _combine(acc, _c(a[q]))
            q += dq
            k += step
        k += dk - step
        j += dj
        if k >= width:
            k -= width
            j += 1
    return acc


@cuda.jit(**_K)
def blocks(n_out, split, kshape, kstrides, rshape, rstrides, n_red, a, offset, out, init):
    sm = cuda.shared.array(_TPB, dtype=_c)
    tid = cuda.threadIdx.x
    b = cuda.blockIdx.x
    while b < n_out * split:
        o = b // split
        base = offset + _at(o, kshape, kstrides, kshape.shape[0])
        sm[tid] = _walk(init, a, base, (b - o * split) * _TPB + tid, split * _TPB, n_red, rshape,
                        rstrides)
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
def threads(n_out, split, kshape, kstrides, rshape, rstrides, n_red, a, offset, out, init):
    # Item t is slice t // n_out of output t % n_out, so a split's partials land as a
    # (split, n_out) block and neighbouring threads still read neighbouring outputs.
    t = cuda.grid(1)
    while t < n_out * split:
        s = t // n_out
        o = t - s * n_out
        base = offset + _at(o, kshape, kstrides, kshape.shape[0])
        out[t] = _walk(init, a, base, s, split, n_red, rshape, rstrides)
        t += cuda.gridsize(1)
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
# Reduced elements each thread combines, at least, before an output is split into slices: fewer
# would spend more on launching and combining the partials than on reading the input.
_PER_BLOCK_THREAD = 32
_PER_THREAD = 16

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
                                               depends_on=codegen.source_files(op.combine))
    return mod


def _dims(values, fill):
    # Kernels read at least one dim; a missing one is a single position at stride 0.
    return runtime.int64s(tuple(int(v) for v in values) or (fill,))


def run(op, acc_np, buf, offset, shape, strides, reduce_dims, init, out):
    """Reduce ``reduce_dims`` of a strided device operand into the contiguous device array
    ``out`` (one element per kept position, cast on store)."""
    kshape, kstrides, rshape, rstrides = split_reduction(shape, strides, set(reduce_dims))
    n_out = int(np.prod(kshape, dtype=np.int64)) if kshape else 1
    n_red = int(np.prod(rshape, dtype=np.int64)) if rshape else 1
    acc_np = np.dtype(acc_np)
    # Neighbouring outputs closer in memory than neighbouring reduced elements: a thread per
    # output makes a warp's loads contiguous.
    columns = bool(kshape) and bool(rshape) and abs(kstrides[-1]) < abs(rstrides[-1])
    _reduce(kernels(op, acc_np), acc_np, n_out, kshape, kstrides, rshape, rstrides, n_red, buf,
            int(offset), out, acc_np.type(init), columns)


def _reduce(mod, acc_np, n_out, kshape, kstrides, rshape, rstrides, n_red, buf, offset, out, init,
            columns):
    tpb, most = runtime.geometry()
    args = (_dims(kshape, 1), _dims(kstrides, 0), _dims(rshape, 1), _dims(rstrides, 0), n_red, buf,
            offset)
    if n_red <= _SHORT or columns:
        split = 1
        if n_red > _SHORT:
            split = max(1, min(most * tpb // n_out, n_red // _PER_THREAD))
        target = out if split == 1 else runtime.module().device_array(split * n_out, dtype=acc_np)
        runtime.launch(mod.threads, runtime.blocks_for(n_out * split), tpb, n_out, split, *args, target, init)
        if split > 1:
            # Output o's partials are the column o of a (split, n_out) block; they fit in a few
            # blocks' worth of memory, so a block per output reads them even when strided.
            _reduce(mod, acc_np, n_out, (n_out,), (1,), (split,), (n_out,), split, target, 0, out,
                    init, False)
        return
    split = max(1, min(n_red // (tpb * _PER_BLOCK_THREAD), most // n_out))
    target = out if split == 1 else runtime.module().device_array(n_out * split, dtype=acc_np)
    runtime.launch(mod.blocks, min(n_out * split, most), tpb, n_out, split, *args, target, init)
    if split > 1:
        # Output o's partials are the row o of an (n_out, split) block.
        _reduce(mod, acc_np, n_out, (n_out,), (split,), (split,), (1,), split, target, 0, out, init,
                False)
