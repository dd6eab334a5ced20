"""Batched matrix products for CUDA: a tiled shared-memory kernel for every numeric dtype.

Each block computes one ``_T x _T`` tile of one product: per step along K, its threads load a
tile of A and a tile of B into shared memory, synchronise, and accumulate the tile product, so
each element of A and B is read from global memory ``_T`` times fewer. Operands keep their own
strides (transposed views need no copy); float16 accumulates in float32.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from . import runtime

_SOURCE = """\
import numpy as np
from numba import cuda
_c = np.{acc}
_T = {tile}
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(**_K)
def bmm(m, n, k, a, ao, sam, sak, b, bo, sbk, sbn, out, nbatch):
    sa = cuda.shared.array((_T, _T), dtype=_c)
    sb = cuda.shared.array((_T, _T), dtype=_c)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * _T + ty
    col = cuda.blockIdx.x * _T + tx
    z = cuda.blockIdx.z
    while z < nbatch:
        pa = ao[z]
        pb = bo[z]
        acc = _c(0)
        for k0 in range(0, k, _T):
            ka = k0 + tx
            kb = k0 + ty
            if row < m and ka < k:
                sa[ty, tx] = _c(a[pa + row * sam + ka * sak])
            else:
                sa[ty, tx] = _c(0)
            if kb < k and col < n:
                sb[ty, tx] = _c(b[pb + kb * sbk + col * sbn])
            else:
                sb[ty, tx] = _c(0)
            cuda.syncthreads()
            for kk in range(_T):
                acc += sa[ty, kk] * sb[kk, tx]
            cuda.syncthreads()
        if row < m and col < n:
            out[(z * m + row) * n + col] = acc
        z += cuda.gridDim.z
"""

_mods: dict = {}
# CUDA caps gridDim.z; the kernel loops over any further batches.
_MAX_Z = 65535


def kernels(acc_np):
    tile = runtime.geometry()[1]
    key = (acc_np, tile)
    mod = _mods.get(key)
    if mod is None:
        mod = _mods[key] = codegen.load_module(f"cuda_mm_{acc_np.name}",
                                               _SOURCE.format(acc=acc_np.name, tile=tile))
    return mod


def _batch_offsets(t, batch):
    """Offsets of ``t``'s matrices for each index of the broadcast ``batch`` (row-major)."""
    own = t._shape[:-2]
    strides = (0,) * (len(batch) - len(own)) + tuple(
        0 if n == 1 else s for n, s in zip(own, t._strides[:-2]))
    off = np.full((), t._offset, dtype=np.int64)
    for size, st in zip(batch, strides):
        off = off[..., None] + np.arange(size, dtype=np.int64) * st
    return np.ascontiguousarray(off.reshape(-1))


def bmm(a, b, out):
    """Writes ``a @ b`` into the fresh contiguous CUDA tensor ``out`` of shape (*batch, M, N).

    ``a`` is (…, M, K) and ``b`` is (…, K, N); their batch dims broadcast to ``batch``."""
    batch = tuple(out._shape[:-2])
    if out.numel() == 0:
        return
    m, n = out._shape[-2], out._shape[-1]
    k = a._shape[-1]
    if k == 0:
        out._fill_raw(0)
        return
    acc = np.dtype(np.float32) if a.dtype.name == "float16" else np.dtype(a.dtype.numpy)
    ao, bo = _batch_offsets(a, batch), _batch_offsets(b, batch)
    nbatch = ao.shape[0]
    tile = runtime.geometry()[1]
    grid = ((n + tile - 1) // tile, (m + tile - 1) // tile, min(nbatch, _MAX_Z))
    kernels(acc).bmm[grid, (tile, tile)](
        m, n, k, a._storage.data, ao, a._strides[-2], a._strides[-1], b._storage.data, bo,
        b._strides[-2], b._strides[-1], out._storage.data[out._offset:out._offset + out.numel()], nbatch)
