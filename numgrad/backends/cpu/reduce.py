"""Reduction kernels for the CPU, generated from an op's ``combine(acc, x)`` body.

The plan splits the input's dims into kept dims (one per output element) and reduced dims,
each coalesced. ``rows`` reduces each output element over its own strided sub-block; when the
reduced block is a long contiguous run it vectorizes (reassociation is allowed for the
accumulator only). ``cols`` serves reductions whose innermost memory dim is kept, sweeping
whole rows of outputs at a time for cache locality. ``flat_par`` splits one long reduction
across threads.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import split_reduction

PARALLEL_THRESHOLD = 1 << 17

_SOURCE = """\
import numpy as np
from numba import njit, prange
from numgrad.ops.registry import get_op
_combine = njit(get_op({name!r}).combine)
_c = np.{acc}
_FM = {{"reassoc", "nsz", "contract"}} if {reassoc} else False


@njit(cache=True, error_model="numpy", nogil=True, fastmath=_FM)
def _reduce_block(a, base, rshape, rstrides, init):
    nr = rshape.shape[0]
    acc = init
    if nr == 0:
        return acc
    inner = rshape[nr - 1]
    si = rstrides[nr - 1]
    outer = 1
    for d in range(nr - 1):
        outer *= rshape[d]
    for r in range(outer):
        p = base
        rem = r
        for d in range(nr - 2, -1, -1):
            idx = rem % rshape[d]
            rem //= rshape[d]
            p += idx * rstrides[d]
        if si == 1:
            for j in range(inner):
                acc = _combine(acc, _c(a[p + j]))
        else:
            for j in range(inner):
                acc = _combine(acc, _c(a[p + j * si]))
    return acc


@njit(cache=True, error_model="numpy", nogil=True)
def _base(o, kshape, kstrides, offset):
    p = offset
    rem = o
    for d in range(kshape.shape[0] - 1, -1, -1):
        idx = rem % kshape[d]
        rem //= kshape[d]
        p += idx * kstrides[d]
    return p


@njit(cache=True, error_model="numpy", nogil=True)
def rows(kshape, kstrides, rshape, rstrides, a, offset, out, init):
    for o in range(out.shape[0]):
        out[o] = _reduce_block(a, _base(o, kshape, kstrides, offset), rshape, rstrides, init)


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def rows_par(kshape, kstrides, rshape, rstrides, a, offset, out, init):
    for o in prange(out.shape[0]):
        out[o] = _reduce_block(a, _base(o, kshape, kstrides, offset), rshape, rstrides, init)


@njit(cache=True, error_model="numpy", nogil=True, parallel=True)
def flat_par(a, offset, n, stride, init, chunks):
    partial = np.empty(chunks, dtype=_c)
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo = c * size
        hi = min(n, lo + size)
        shape = np.empty(1, dtype=np.int64)
        shape[0] = max(hi - lo, 0)
        st = np.empty(1, dtype=np.int64)
        st[0] = stride
        partial[c] = _reduce_block(a, offset + lo * stride, shape, st, init)
    acc = init
    for c in range(chunks):
        acc = _combine(acc, partial[c])
    return acc


@njit(cache=True, error_model="numpy", nogil=True, fastmath=_FM)
def cols(kshape, kstrides, rshape, rstrides, a, offset, out, init):
    # Innermost kept dim is contiguous: accumulate whole output rows at once.
    nk = kshape.shape[0]
    inner = kshape[nk - 1]
    sk = kstrides[nk - 1]
    out[:] = init
    kouter = out.shape[0] // inner
    nr = rshape.shape[0]
    rn = 1
    for d in range(nr):
        rn *= rshape[d]
    for ko in range(kouter):
        kb = _base(ko * inner, kshape, kstrides, offset)
        ob = ko * inner
        for r in range(rn):
            p = kb
            rem = r
            for d in range(nr - 1, -1, -1):
                idx = rem % rshape[d]
                rem //= rshape[d]
                p += idx * rstrides[d]
            for j in range(inner):
                out[ob + j] = _combine(out[ob + j], _c(a[p + j * sk]))
"""

_mods: dict = {}


def kernels(op, acc_np):
    key = (op.name, acc_np)
    mod = _mods.get(key)
    if mod is None:
        src = _SOURCE.format(name=op.name, acc=acc_np.name, reassoc=bool(op.extra.get("reassoc")))
        mod = _mods[key] = codegen.load_module(f"red_{op.name}_{acc_np.name}", src,
                                               depends_on=(op.source_file,))
    return mod


def run(op, acc_np, buf, offset, shape, strides, reduce_dims, init):
    """Reduce ``reduce_dims`` of a strided operand; returns a contiguous array of the kept dims."""
    kshape, kstrides, rshape, rstrides = split_reduction(shape, strides, set(reduce_dims))
    n_out = 1
    for s in kshape:
        n_out *= s
    n_red = 1
    for s in rshape:
        n_red *= s
    out = np.empty(n_out, dtype=acc_np)
    if n_out == 0:
        return out
    init = acc_np.type(init)
    mod = kernels(op, acc_np)
    if n_out == 1 and n_red >= PARALLEL_THRESHOLD and len(rshape) == 1:
        out[0] = mod.flat_par(buf, offset, n_red, rstrides[0], init, 8)
        return out
    ks = np.array(kshape, dtype=np.int64)
    kst = np.array(kstrides, dtype=np.int64)
    rs = np.array(rshape, dtype=np.int64)
    rst = np.array(rstrides, dtype=np.int64)
    if kshape and rshape and abs(kstrides[-1]) < abs(rstrides[-1]) and kshape[-1] > 1 \
            and op.extra.get("cols", True):
        mod.cols(ks, kst, rs, rst, buf, offset, out, init)
    elif n_out * n_red >= PARALLEL_THRESHOLD and n_out > 1:
        mod.rows_par(ks, kst, rs, rst, buf, offset, out, init)
    else:
        mod.rows(ks, kst, rs, rst, buf, offset, out, init)
    return out
