"""Reduction kernels for the CPU, generated from an op's ``combine(acc, x)`` body.

The plan splits the input's dims into kept dims (one per output element) and reduced dims,
each coalesced. ``rows`` reduces each output element over its own strided sub-block; a
contiguous innermost run is reduced in blocks of ``_B`` elements, groups of blocks, groups of
groups, then the whole, which vectorizes (reassociation is allowed for the accumulator of sums
only) and bounds the rounding error like pairwise summation. ``cols`` serves reductions whose
innermost memory dim is kept, sweeping whole rows of outputs at a time for cache locality.
``flat_par`` splits one long reduction across threads. Float sums take PyTorch's order
instead (:mod:`.cascade_sum`).
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import split_reduction
from . import cascade_sum, ieee
from .parallel import use_parallel

# One thread sums a million cached float32 in well under 100 us; below that, waking the other
# threads (a time slice each, on a busy machine) cannot pay for itself.
PARALLEL_THRESHOLD = 1 << 20
CHUNKS = 8

_SOURCE = """\
import numpy as np
from numba import njit, prange, uint64
from numgrad.backends.cpu import ieee
from numgrad.backends.cpu.parallel import parallel_njit
from numgrad.ops.records import get_op
_c = np.{acc}
_B = 1024
_B2 = 32 * _B
_B3 = 32 * _B2
_FM = {{"reassoc", "nsz", "contract"}} if {reassoc} else False
# The flags must be on the combine itself: they are per instruction, and its adds get inlined.
_combine = {combine}
_K = dict(cache=True, error_model="numpy", nogil=True)


@njit(fastmath=_FM, **_K)
def _run(a, p, n, s, init):
    # Indices are unsigned or slice-relative so Numba emits no wraparound check (which would
    # stop LLVM vectorizing the unit-stride loop).
    acc = init
    if s == 1:
        x = a[p:p + n]
        # Blocks of _B elements, groups of 32 blocks, groups of 32 groups, then the whole: each
        # partial result adds few terms in a row, so float sums round nearly as little as with
        # pairwise summation, while the innermost loop vectorizes.
        for h3 in range(0, n, _B3):
            s3 = init
            for h2 in range(h3, min(n, h3 + _B3), _B2):
                s2 = init
                for h1 in range(h2, min(n, h2 + _B2), _B):
                    b = init
                    y = x[h1:h1 + _B]
                    for i in range(y.shape[0]):
                        b = _combine(b, _c(y[i]))
                    s2 = _combine(s2, b)
                s3 = _combine(s3, s2)
            acc = _combine(acc, s3)
    else:
        for i in range(n):
            acc = _combine(acc, _c(a[uint64(p + i * s)]))
    return acc


@njit(**_K)
def _offset(o, shape, strides, nd, base):
    # Memory offset of the ``o``-th element (row-major) of a strided block's first ``nd`` dims.
    p = base
    rem = o
    for d in range(nd - 1, -1, -1):
        idx = rem % shape[d]
        rem //= shape[d]
        p += idx * strides[d]
    return p


@njit(**_K)
def _reduce_block(a, base, rshape, rstrides, init):
    nr = rshape.shape[0]
    if nr == 0:
        return _combine(init, _c(a[base]))
    inner = rshape[nr - 1]
    si = rstrides[nr - 1]
    outer = 1
    for d in range(nr - 1):
        outer *= rshape[d]
    acc = init
    for r in range(outer):
        acc = _combine(acc, _run(a, _offset(r, rshape, rstrides, nr - 1, base), inner, si, init))
    return acc


@njit(**_K)
def _rows(lo, hi, kshape, kstrides, rshape, rstrides, a, offset, out, init):
    # Outputs lo..hi-1 in order, stepping an odometer over the kept dims: a division per
    # output, or a call through the general block reduction, costs as much as a short row.
    nk = kshape.shape[0]
    idx = np.empty(nk, dtype=np.int64)
    p = offset
    rem = lo
    for d in range(nk - 1, -1, -1):
        idx[d] = rem % kshape[d]
        rem //= kshape[d]
        p += idx[d] * kstrides[d]
    single = rshape.shape[0] == 1
    n = rshape[0] if single else 0
    s = rstrides[0] if single else 0
    for o in range(lo, hi):
        if not single:
            out[o] = _reduce_block(a, p, rshape, rstrides, init)
        elif s == 1:
            # A literal unit stride lets LLVM drop the strided branch of the inlined ``_run``.
            out[o] = _run(a, p, n, 1, init)
        else:
            out[o] = _run(a, p, n, s, init)
        d = nk - 1
        while d >= 0:
            idx[d] += 1
            p += kstrides[d]
            if idx[d] < kshape[d]:
                break
            p -= kstrides[d] * kshape[d]
            idx[d] = 0
            d -= 1


@njit(**_K)
def rows(kshape, kstrides, rshape, rstrides, a, offset, out, init):
    _rows(0, out.shape[0], kshape, kstrides, rshape, rstrides, a, offset, out, init)


@parallel_njit(**_K)
def rows_par(kshape, kstrides, rshape, rstrides, a, offset, out, init, chunks):
    n = out.shape[0]
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo = min(n, c * size)
        _rows(lo, min(n, lo + size), kshape, kstrides, rshape, rstrides, a, offset, out, init)


@njit(**_K)
def flat_div(a, offset, n, stride, init, out, d):
    out[0] = _run(a, offset, n, stride, init) / d


@njit(**_K)
def divide(out, d):
    for i in range(out.shape[0]):
        out[i] = out[i] / d


@parallel_njit(**_K)
def flat_par(a, offset, n, stride, init, chunks):
    partial = np.empty(chunks, dtype=_c)
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo = min(n, c * size)
        partial[c] = _run(a, offset + lo * stride, min(n, lo + size) - lo, stride, init)
    acc = init
    for c in range(chunks):
        acc = _combine(acc, partial[c])
    return acc


@njit(fastmath=_FM, **_K)
def _cols(r0, r1, kshape, kstrides, rshape, rstrides, a, offset, out):
    # Reduced rows r0..r1 into every output: the innermost kept dim is the innermost in memory,
    # so each row is swept whole.
    nk = kshape.shape[0]
    inner = kshape[nk - 1]
    sk = kstrides[nk - 1]
    for ko in range(out.shape[0] // inner):
        kb = _offset(ko, kshape, kstrides, nk - 1, offset)
        o = out[ko * inner:(ko + 1) * inner]
        for r in range(r0, r1):
            p = _offset(r, rshape, rstrides, rshape.shape[0], kb)
            if sk == 1:
                x = a[p:p + inner]
                for j in range(inner):
                    o[j] = _combine(o[j], _c(x[j]))
            else:
                for j in range(inner):
                    o[j] = _combine(o[j], _c(a[uint64(p + j * sk)]))


@njit(**_K)
def _rows_of(rshape):
    rn = 1
    for d in range(rshape.shape[0]):
        rn *= rshape[d]
    return rn


@njit(**_K)
def cols(kshape, kstrides, rshape, rstrides, a, offset, out, init):
    out[:] = init
    _cols(0, _rows_of(rshape), kshape, kstrides, rshape, rstrides, a, offset, out)


@parallel_njit(**_K)
def cols_par(kshape, kstrides, rshape, rstrides, a, offset, out, init, chunks):
    # Each thread sweeps its own run of whole rows into its own partial outputs (split by
    # columns instead, threads would share cache lines and read a sliver of every page), then
    # the partials are combined in order.
    rn = _rows_of(rshape)
    partial = np.empty((chunks, out.shape[0]), dtype=_c)
    size = (rn + chunks - 1) // chunks
    for c in prange(chunks):
        partial[c, :] = init
        lo = min(rn, c * size)
        _cols(lo, min(rn, lo + size), kshape, kstrides, rshape, rstrides, a, offset, partial[c])
    out[:] = partial[0]
    for c in range(1, chunks):
        for j in range(out.shape[0]):
            out[j] = _combine(out[j], partial[c, j])
"""

_mods: dict = {}


def kernels(op, acc_np):
    """The generated module of ``op``'s reduction kernels for one accumulator dtype."""
    key = (op.name, acc_np)
    mod = _mods.get(key)
    if mod is None:
        combine = f'njit(fastmath=_FM, error_model="numpy")(get_op({op.name!r}).combine)'
        depends_on = codegen.source_files(op.combine)
        if op.extra.get("ieee"):
            # On floats the instruction vectorizes where the body's compare-and-select does not.
            combine = "ieee." + op.extra["ieee"]
            depends_on += (ieee.__file__,)
        src = _SOURCE.format(name=op.name, acc=acc_np.name, reassoc=bool(op.extra.get("reassoc")),
                             combine=combine)
        mod = _mods[key] = codegen.load_module(f"red_{op.name}_{acc_np.name}", src, depends_on=depends_on)
    return mod


def run(op, acc_np, buf, offset, shape, strides, reduce_dims, init):
    """Reduce ``reduce_dims`` of a strided operand; returns a contiguous array of the kept dims."""
    reduce = plan(op, acc_np, shape, strides, reduce_dims, init, source=buf.dtype)
    if reduce is not None:
        return reduce(buf, offset)
    # Nothing to produce, or nothing to reduce: every output is the initial value.
    n_out = 1
    for d, s in enumerate(shape):
        if d not in reduce_dims:
            n_out *= s
    acc_np = np.dtype(acc_np)
    return np.full(n_out, acc_np.type(init), dtype=acc_np)


def plan(op, acc_np, shape, strides, reduce_dims, init, divisor=None, source=None):
    """``run`` resolved once for one geometry: ``f(buf, offset) -> out``; None when there is
    nothing to reduce or nothing to produce (the general path handles those). With a
    ``divisor`` each result is divided by it in the accumulator's type (a mean). ``source`` is
    the operand's dtype: float32 and float64 sums round as PyTorch's, serially."""
    if op.name in ("sum", "nansum") and source is not None:
        ordered = cascade_sum.plan(source, acc_np, shape, strides, reduce_dims, divisor, op.name == "nansum")
        if ordered is not None:
            return ordered
    kshape, kstrides, rshape, rstrides = split_reduction(shape, strides, set(reduce_dims))
    n_out = 1
    for s in kshape:
        n_out *= s
    n_red = 1
    for s in rshape:
        n_red *= s
    if n_out == 0 or n_red == 0:
        return None
    acc_np = np.dtype(acc_np)
    init = acc_np.type(init)
    mod = kernels(op, acc_np)
    empty = np.empty
    d = None if divisor is None else acc_np.type(divisor)
    if n_out == 1 and len(rshape) == 1:
        n, stride, serial, par = n_red, rstrides[0], mod._run, mod.flat_par
        if d is not None and n < PARALLEL_THRESHOLD:
            flat_div = mod.flat_div

            def flat_mean(buf, offset):
                out = empty(1, acc_np)
                flat_div(buf, offset, n, stride, init, out, d)
                return out
            return flat_mean

        def flat(buf, offset):
            out = empty(1, acc_np)
            if use_parallel(n, PARALLEL_THRESHOLD):
                out[0] = par(buf, offset, n, stride, init, CHUNKS)
            else:
                out[0] = serial(buf, offset, n, stride, init)
            return out
        return flat if d is None else _divided(flat, mod.divide, d)
    ks = np.array(kshape, dtype=np.int64)
    kst = np.array(kstrides, dtype=np.int64)
    rs = np.array(rshape, dtype=np.int64)
    rst = np.array(rstrides, dtype=np.int64)
    if kshape and rshape and kshape[-1] > 1 and abs(kstrides[-1]) < abs(rstrides[-1]):
        # The parallel form keeps a partial output per chunk: only where each chunk has at least
        # 8 rows, so the partials take at most an eighth of the input's memory.
        serial, par = mod.cols, (mod.cols_par if n_red >= 8 * CHUNKS else None)
    else:
        serial, par = mod.rows, (mod.rows_par if n_out > 1 else None)
    work = n_out * n_red

    def blocks(buf, offset):
        out = empty(n_out, acc_np)
        if par is not None and use_parallel(work, PARALLEL_THRESHOLD):
            par(ks, kst, rs, rst, buf, offset, out, init, CHUNKS)
        else:
            serial(ks, kst, rs, rst, buf, offset, out, init)
        return out
    return blocks if d is None else _divided(blocks, mod.divide, d)


def _divided(reduce, divide, d):
    def run(buf, offset):
        out = reduce(buf, offset)
        divide(out, d)
        return out
    return run
