"""Index kernels for CUDA: gather, scatter (assign, add, multiply) and index range checks, with
the CPU index backend's entry points (``run_gather``, ``run_scatter``, ``first_out_of_range``).

Loops are planned as on the CPU (same coalesced dims, same order) and passed as int64 arrays.
Indices reaching ``gather``/``scatter`` were validated by ``first_out_of_range`` before launch.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import plan
from . import runtime

_SOURCE = """\
from numba import cuda
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache={cache})


@cuda.jit(device=True)
def _pos(i, shape, strides, k):
    # Offset of operand k at the i-th (row-major) position of the loop nest.
    p = 0
    for d in range(shape.shape[0] - 1, -1, -1):
        p += (i % shape[d]) * strides[k, d]
        i //= shape[d]
    return p


@cuda.jit(**_K)
def gather(n, shape, strides, o_out, o_idx, o_src, out, idx, src, dstride):
    '''out[p_out] = src[p_src + idx[p_idx] * dstride], one element per thread.'''
    i = cuda.grid(1)
    while i < n:
        pi = o_idx + _pos(i, shape, strides, 1)
        out[o_out + _pos(i, shape, strides, 0)] = \\
            src[o_src + _pos(i, shape, strides, 2) + idx[pi] * dstride]
        i += cuda.gridsize(1)


@cuda.jit(**_K)
def scatter(n_par, pshape, pstrides, n_ser, sshape, sstrides, o_out, o_idx, o_src, out, idx, src, dstride,
            mode):
    '''out[p_out + idx[p_idx] * dstride] (=, +=, *=, max=, min=) src[p_src] for mode 0 to 4; max
    and min propagate NaN.

    Each thread owns the positions of the parallel dims (where the output stride is nonzero, so
    no other thread can write its elements) and walks the serial dims in loop order: repeated
    indices resolve as on the CPU (the last write wins), without atomics.'''
    i = cuda.grid(1)
    while i < n_par:
        bo = o_out + _pos(i, pshape, pstrides, 0)
        bi = o_idx + _pos(i, pshape, pstrides, 1)
        bs = o_src + _pos(i, pshape, pstrides, 2)
        for j in range(n_ser):
            p = bo + _pos(j, sshape, sstrides, 0) + idx[bi + _pos(j, sshape, sstrides, 1)] * dstride
            v = src[bs + _pos(j, sshape, sstrides, 2)]
            if mode == 0:
                out[p] = v
            elif mode == 1:
                out[p] = out[p] + v
            elif mode == 2:
                out[p] = out[p] * v
            elif mode == 3:
                if v > out[p] or v != v:
                    out[p] = v
            elif v < out[p] or v != v:
                out[p] = v
        i += cuda.gridsize(1)


@cuda.jit(**_K)
def scatter_add_atomic(n, shape, strides, o_out, o_idx, o_src, out, idx, src, dstride):
    '''out[p_out + idx[p_idx] * dstride] += src[p_src], one element per thread, atomically.'''
    i = cuda.grid(1)
    while i < n:
        p = o_out + _pos(i, shape, strides, 0) + idx[o_idx + _pos(i, shape, strides, 1)] * dstride
        cuda.atomic.add(out, p, src[o_src + _pos(i, shape, strides, 2)])
        i += cuda.gridsize(1)


@cuda.jit(**_K)
def first_out_of_range(n, shape, strides, offset, idx, lo, hi, first):
    '''first[0] = the smallest loop position whose index lies outside [lo, hi) (left as n if none).'''
    i = cuda.grid(1)
    while i < n:
        v = idx[offset + _pos(i, shape, strides, 0)]
        if v < lo or v >= hi:
            cuda.atomic.min(first, 0, i)
        i += cuda.gridsize(1)
"""

# cuda.atomic.add's types; others scatter-add through the serial-dims kernel.
_ATOMIC_ADD = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.uint32,
                                              np.uint64))

_mods: dict = {}


def _kernels(cache=True):
    # float16 arithmetic links CUDA's half-precision library, which Numba cannot cache to disk:
    # those kernels compile once per process instead.
    mod = _mods.get(cache)
    if mod is None:
        runtime.module()  # sets the simulator flag before the generated module imports numba.cuda
        name = "cuda_index" if cache else "cuda_index_uncached"
        mod = _mods[cache] = codegen.load_module(name, _SOURCE.format(cache=cache))
    return mod


def _plan(shape, strides_list):
    lshape, lstrides = plan(tuple(shape), [tuple(s) for s in strides_list])
    if not lshape:
        return (1,), [(0,) for _ in strides_list]
    return lshape, lstrides


def _arrays(shape, strides):
    return runtime.int64s(tuple(shape)), runtime.int64s(tuple(tuple(s) for s in strides))


def _launch(n):
    return runtime.blocks_for(n), runtime.geometry()[0]


def run_gather(out, out_strides, idx, idx_strides, src, src_strides, dstride):
    """Fill tensor ``out`` (its own layout given as ``out_strides``) from ``src`` through ``idx``;
    the stride tuples are over ``out``'s shape (0 where an operand is broadcast)."""
    n = int(np.prod(out._shape, dtype=np.int64))
    if n == 0:
        return
    shape, strides = _plan(out._shape, [out_strides, idx_strides, src_strides])
    shp, st = _arrays(shape, strides)
    offsets = out._offset, idx._offset, src._offset
    runtime.launch(_kernels().gather, *_launch(n), n, shp, st, *offsets, out._storage.data,
                   idx._storage.data, src._storage.data, dstride)


def run_scatter(out, shape, out_strides, idx, idx_strides, src, src_strides, dstride, mode):
    """Write ``src`` into tensor ``out`` through ``idx`` over the loop nest ``shape``; mode 0
    assigns, 1 adds, 2 multiplies, 3 and 4 keep the max and min (``src`` has ``out``'s dtype)."""
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return
    lshape, lstrides = _plan(shape, [out_strides, idx_strides, src_strides])
    offsets = out._offset, idx._offset, src._offset
    obuf, ibuf, sbuf = out._storage.data, idx._storage.data, src._storage.data
    mod = _kernels(cache=np.dtype(obuf.dtype) != np.float16)
    # Dims along which the output does not move are where threads could collide.
    serial = [d for d in range(len(lshape)) if lstrides[0][d] == 0]
    parallel = [d for d in range(len(lshape)) if lstrides[0][d] != 0]
    if mode == 1 and serial and np.dtype(obuf.dtype) in _ATOMIC_ADD:
        shp, st = _arrays(lshape, lstrides)
        runtime.launch(mod.scatter_add_atomic, *_launch(n), n, shp, st, *offsets, obuf, ibuf, sbuf, dstride)
        return

    def part(dims):
        if not dims:
            return 1, *_arrays((1,), [(0,)] * 3)
        return (int(np.prod([lshape[d] for d in dims], dtype=np.int64)),
                *_arrays([lshape[d] for d in dims], [[s[d] for d in dims] for s in lstrides]))

    n_par, pshape, pstrides = part(parallel)
    n_ser, sshape, sstrides = part(serial)
    runtime.launch(mod.scatter, *_launch(n_par), n_par, pshape, pstrides, n_ser, sshape, sstrides, *offsets,
                   obuf, ibuf, sbuf, dstride, mode)


def first_out_of_range(idx, lo, hi):
    """The first element of integer tensor ``idx`` outside [lo, hi), or None (checked on the
    device; only the answer comes back)."""
    n = idx.numel()
    if n == 0:
        return None
    shape, strides = _plan(idx._shape, [idx._strides])
    shp, st = _arrays(shape, strides)
    cuda = runtime.module()
    first = cuda.to_device(np.array([n], dtype=np.int64))
    runtime.launch(_kernels().first_out_of_range, *_launch(n), n, shp, st, idx._offset, idx._storage.data,
                   lo, hi, first)
    k = int(first.copy_to_host()[0])
    if k == n:
        return None
    p = idx._offset
    for size, stride in zip(reversed(shape), reversed(strides[0])):
        p += (k % size) * stride
        k //= size
    from . import to_host
    return int(to_host(idx._storage.data, p, 1)[0])
