"""Batched matrix products for CUDA: a register-blocked tiled kernel for every numeric dtype.

A block of ``_TY x _TX`` threads computes one ``_BM x _BN`` tile of one product. Each thread owns
an ``_RM x _RN`` micro-tile of accumulators held in registers; its rows and columns are spread
``_TY`` and ``_TX`` apart, so that a warp's reads of shared memory are broadcasts or consecutive
words (no bank conflicts) and its stores to ``out`` are coalesced. Per step of ``_BK`` along K the
block stages a tile of A (transposed, K-major) and of B in shared memory; the next step's tiles
are fetched into registers while the current one is multiplied, and two shared buffers leave one
barrier per step. Each value read from shared memory feeds ``_RN`` or ``_RM`` multiply-adds.

Operands keep their own strides (transposed views need no copy): each operand's tile is read
along whichever of its two axes has unit stride, so global loads stay coalesced. float16
accumulates in float32. Batch offsets are computed in the kernel from the batch index and a
cached device array of batch sizes and strides, so a product copies nothing from the host.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from . import runtime

_SOURCE = """\
import numpy as np
from numba import cuda
_c = np.{acc}
_TY, _TX, _RM, _RN, _BK = {geometry}
_BM = _TY * _RM
_BN = _TX * _RN
_NT = _TY * _TX
_NACC = _RM * _RN
# Elements of the A and B tiles that each thread fetches per step.
_LA = _BM * _BK // _NT
_LB = _BK * _BN // _NT
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)


@cuda.jit(**_K)
def bmm(m, n, k, a, a0, sam, sak, akf, b, b0, sbk, sbn, bnf, out, nbatch, batch):
    sa = cuda.shared.array((2, _BK, _BM), dtype=_c)
    sb = cuda.shared.array((2, _BK, _BN), dtype=_c)
    acc = cuda.local.array(_NACC, dtype=_c)
    fa = cuda.local.array(_RM, dtype=_c)
    fb = cuda.local.array(_RN, dtype=_c)
    ra = cuda.local.array(_LA, dtype=_c)
    rb = cuda.local.array(_LB, dtype=_c)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tid = ty * _TX + tx
    tiles_n = (n + _BN - 1) // _BN
    m0 = (cuda.blockIdx.x // tiles_n) * _BM
    n0 = (cuda.blockIdx.x % tiles_n) * _BN
    steps = (k + _BK - 1) // _BK
    nd = batch.shape[1]
    z = cuda.blockIdx.z
    while z < nbatch:
        pa = a0
        pb = b0
        rest = z
        for d in range(nd - 1, -1, -1):
            i = rest % batch[0, d]
            rest //= batch[0, d]
            pa += i * batch[1, d]
            pb += i * batch[2, d]
        for i in range(_NACC):
            acc[i] = _c(0)
        # Step 0's tiles go straight to shared buffer 0; later steps are fetched one step ahead.
        for s in range(steps + 1):
            if s < steps:
                k0 = s * _BK
                for l in range(_LA):
                    e = tid + l * _NT
                    if akf:
                        r = e // _BK
                        kk = e % _BK
                    else:
                        r = e % _BM
                        kk = e // _BM
                    if m0 + r < m and k0 + kk < k:
                        ra[l] = _c(a[pa + (m0 + r) * sam + (k0 + kk) * sak])
                    else:
                        ra[l] = _c(0)
                for l in range(_LB):
                    e = tid + l * _NT
                    if bnf:
                        kk = e // _BN
                        cc = e % _BN
                    else:
                        kk = e % _BK
                        cc = e // _BK
                    if k0 + kk < k and n0 + cc < n:
                        rb[l] = _c(b[pb + (k0 + kk) * sbk + (n0 + cc) * sbn])
                    else:
                        rb[l] = _c(0)
            if s > 0:
                cur = (s - 1) % 2
{step}            if s < steps:
                # The buffer written here was last read before the previous step's barrier.
                nxt = s % 2
                for l in range(_LA):
                    e = tid + l * _NT
                    if akf:
                        sa[nxt, e % _BK, e // _BK] = ra[l]
                    else:
                        sa[nxt, e // _BM, e % _BM] = ra[l]
                for l in range(_LB):
                    e = tid + l * _NT
                    if bnf:
                        sb[nxt, e // _BN, e % _BN] = rb[l]
                    else:
                        sb[nxt, e % _BK, e // _BK] = rb[l]
            cuda.syncthreads()
        base = z * m
        for i in range(_RM):
            row = m0 + ty + i * _TY
            if row < m:
                for j in range(_RN):
                    col = n0 + tx + j * _TX
                    if col < n:
                        out[(base + row) * n + col] = acc[i * _RN + j]
        z += cuda.gridDim.z
"""

_mods: dict = {}
# CUDA caps gridDim.z; the kernel loops over any further batches.
_MAX_Z = 65535


def geometry(acc_np) -> tuple:
    """(thread rows, thread columns, micro-tile rows, micro-tile columns, K step) of a block.

    On a GPU 256 threads compute a 128 x 128 tile (64 x 64 for 8-byte accumulators, which take
    two registers each: 8 x 8 of them would leave no room for the rest); the simulator runs each
    thread as a Python thread, so it gets a tiny, deliberately non-square block on the same code
    path."""
    if runtime.simulated():
        return (4, 2, 2, 3, 4)
    if acc_np.itemsize > 4:
        return (16, 16, 4, 4, 8)
    return (16, 16, 8, 8, 8)


# One K index of a step's tile product: the loop over the step is written out in the source
# because the compiler leaves a loop of this size rolled, and its counter and branch would
# then cost as much as the multiply-adds.
_STEP = """\
                for i in range(_RM):
                    fa[i] = sa[cur, {kk}, ty + i * _TY]
                for j in range(_RN):
                    fb[j] = sb[cur, {kk}, tx + j * _TX]
                for i in range(_RM):
                    for j in range(_RN):
                        acc[i * _RN + j] += fa[i] * fb[j]
"""


def kernels(acc_np):
    geo = geometry(acc_np)
    key = (acc_np, geo)
    mod = _mods.get(key)
    if mod is None:
        step = "".join(_STEP.format(kk=kk) for kk in range(geo[4]))
        mod = _mods[key] = codegen.load_module(
            f"cuda_mm_{acc_np.name}", _SOURCE.format(acc=acc_np.name, geometry=geo, step=step))
    return mod


def _batch_layout(a, b, batch):
    """(sizes, A's strides, B's strides) over the broadcast ``batch``, broadcast dims at stride 0,
    as a cached device array; an unbatched product is one batch of size 1."""
    if not batch:
        return runtime.int64s(((1,), (0,), (0,)))

    def strides(t):
        own = t._shape[:-2]
        return (0,) * (len(batch) - len(own)) + tuple(
            0 if size == 1 else st for size, st in zip(own, t._strides[:-2]))

    return runtime.int64s((batch, strides(a), strides(b)))


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
    ty, tx, rm, rn, _ = geometry(acc)
    nbatch = out.numel() // (m * n)
    sam, sak = a._strides[-2:]
    sbk, sbn = b._strides[-2:]
    # Read each tile along the operand's unit-stride axis: K for A and N for B unless the
    # other axis is the contiguous one (a transposed view).
    akf = int(not (sam == 1 and sak != 1))
    bnf = int(not (sbk == 1 and sbn != 1))
    grid = (((m + ty * rm - 1) // (ty * rm)) * ((n + tx * rn - 1) // (tx * rn)), 1, min(nbatch, _MAX_Z))
    out_buf = out._storage.data
    if out._offset:  # slicing a device array costs tens of microseconds: only when needed
        out_buf = out_buf[out._offset:out._offset + out.numel()]
    runtime.launch(kernels(acc).bmm, grid, (tx, ty), m, n, k, a._storage.data, a._offset, sam, sak, akf,
                   b._storage.data, b._offset, sbk, sbn, bnf, out_buf, nbatch, _batch_layout(a, b, batch))
