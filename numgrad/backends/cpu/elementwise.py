"""Strided elementwise kernels for the CPU, generated from an op's scalar function.

One module is generated per (op, compute dtype, arity); Numba then compiles each kernel once
per operand dtype signature, never per shape or ndim.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...memo import Memo
from .. import codegen
from ...dtypes import scalar_as
from ..iteration import plan
from .parallel import use_parallel

# Below this many elements a parallel loop costs more in thread wake-ups than it saves.
PARALLEL_THRESHOLD = 1 << 19
# Work split for the parallel kernels: a few chunks per thread balance uneven cores.
CHUNKS = 8

_HEADER = """\
import numpy as np
from numba import njit, prange, uint64
from numgrad.backends.cpu.parallel import parallel_njit
from numgrad.ops.records import get_op
_f = {scalar}
_c = np.{compute}
_K = dict(cache=True, error_model="numpy", nogil=True)
"""

# ``flat`` walks one coalesced dim. Contiguous and scalar (stride-0) operands get branches of
# their own, over slices, so LLVM sees unit-stride loads with provably non-negative indices and
# vectorizes them; the generic branch indexes with unsigned ints for the same reason (a signed
# index makes Numba emit a negative-index wraparound that blocks vectorization).
_FLAT = """

@njit(**_K)
def flat(n, out, oo, os, {args}):
{branches}
    else:
        for i in range(n):
            out[uint64(oo + i * os)] = _f({strided})


@parallel_njit(**_K)
def flat_par(n, out, oo, os, {args}, chunks):
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo = min(n, c * size)
        flat(min(n, lo + size) - lo, out, oo + lo * os, os, {chunk_args})


@njit(**_K)
def nd_rows(r0, r1, shape, strides, offsets, out, {arrays}):
    # Rows are all dims but the innermost; each row is one ``flat`` call.
    ndim = shape.shape[0]
    inner = shape[ndim - 1]
    for r in range(r0, r1):
        po = offsets[0]
{init_ptrs}
        rem = r
        for d in range(ndim - 2, -1, -1):
            idx = rem % shape[d]
            rem //= shape[d]
            po += idx * strides[0, d]
{advance_ptrs}
        flat(inner, out, po, strides[0, ndim - 1], {row_args})


@njit(**_K)
def nd(shape, strides, offsets, out, {arrays}):
    # int64 from the start: a literal 0 or 1 reaching nd_rows would compile it once more.
    rows = np.int64(1)
    for d in range(shape.shape[0] - 1):
        rows *= shape[d]
    nd_rows(np.int64(0), rows, shape, strides, offsets, out, {arrays})


@parallel_njit(**_K)
def nd_par(shape, strides, offsets, out, {arrays}, chunks):
    rows = np.int64(1)
    for d in range(shape.shape[0] - 1):
        rows *= shape[d]
    size = (rows + chunks - 1) // chunks
    for c in prange(chunks):
        lo = min(rows, c * size)
        nd_rows(lo, min(rows, lo + size), shape, strides, offsets, out, {arrays})
"""


# ``flat_inplace`` is ``flat`` with operand 0 read from ``out`` itself, for ``x.add_(y)``: LLVM
# guards its vector loop with a run-time overlap check that two equal arrays fail, falling back
# to scalar code, while one array read and written at the same index vectorizes.
_FLAT_INPLACE = """

@njit(**_K)
def flat_inplace(n, out, oo, os{rest_args}):
{branches}
    else:
        for i in range(n):
            j = uint64(oo + i * os)
            out[j] = _f(_c(out[j]){strided_rest})


@parallel_njit(**_K)
def flat_inplace_par(n, out, oo, os{rest_args}, chunks):
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo = min(n, c * size)
        flat_inplace(min(n, lo + size) - lo, out, oo + lo * os, os{chunk_rest})
"""


def operand_loads(kinds, first: int = 0, offset: str = "o", cast: str = "") -> tuple:
    """Source for reading operands ``a{k}`` (k from ``first``) at offsets ``{offset}{k}`` in a flat
    loop over ``i < n``: the lines binding ``x{k}`` before the loop (a slice for kind 'u', unit
    stride; the one element for 's', a broadcast scalar) and each operand's read inside it,
    passed through ``cast``."""
    lines, reads = [], []
    for k, m in enumerate(kinds, first):
        if m == "u":
            lines.append(f"x{k} = a{k}[{offset}{k}:{offset}{k} + n]")
            reads.append(f"{cast}(x{k}[i])")
        else:
            lines.append(f"x{k} = {cast}(a{k}[{offset}{k}])")
            reads.append(f"x{k}")
    return lines, reads


def _branch(kinds, inplace: bool = False) -> str:
    """One fast branch: ``kinds[k]`` is 'u' (unit stride) or 's' (scalar) for operand k, or for
    operand k + 1 when ``inplace`` (operand 0 is then ``out`` itself)."""
    first = 1 if inplace else 0
    cond = " and ".join(["os == 1"] + [f"s{k} == {1 if m == 'u' else 0}"
                                       for k, m in enumerate(kinds, first)])
    loads, operand_reads = operand_loads(kinds, first, "o", "_c")
    lines = ["o = out[oo:oo + n]"] + loads
    reads = (["_c(o[i])"] if inplace else []) + operand_reads
    body = "".join(f"        {ln}\n" for ln in lines)
    return f"if {cond}:\n{body}        for i in range(n):\n            o[i] = _f({', '.join(reads)})"


def fast_kinds(arity: int) -> list:
    """The operand kinds ('u' unit stride, 's' scalar) that get a vectorized branch: all unit
    stride, one scalar among tensors (``x * 2``), or scalars trailing the tensors (``clamp(x,
    lo, hi)``, ``addcdiv(x, a, b, value=v)``). Other mixes, rare, take the strided loop; a
    branch each for all 2**arity mixes would double the compile time of a 4-operand op."""
    return [c for c in itertools.product("us", repeat=arity)
            if (c.count("s") == 1 or "".join(c).rstrip("s").count("s") == 0) and (arity <= 1 or "u" in c)]


def scalar_function(name: str, inline: bool) -> str:
    """Source compiling op ``name``'s scalar math for a kernel's loops, inlined in Numba's IR
    where the op declares ``inline_math``."""
    options = ', inline="always"' if inline else ""
    return f'njit(error_model="numpy"{options})(get_op({name!r}).math)'


def _source(name: str, compute: str, arity: int, inline: bool = False) -> str:
    ks = range(arity)
    branches = "\n    el".join(_branch(c) for c in fast_kinds(arity))
    rest = range(1, arity)
    inplace_branches = "\n    el".join(_branch(c, True) for c in fast_kinds(arity - 1))
    return _HEADER.format(name=name, compute=compute, scalar=scalar_function(name, inline)) + _FLAT.format(
        args=", ".join(f"a{k}, o{k}, s{k}" for k in ks),
        branches="    " + branches,
        strided=", ".join(f"_c(a{k}[uint64(o{k} + i * s{k})])" for k in ks),
        chunk_args=", ".join(f"a{k}, o{k} + lo * s{k}, s{k}" for k in ks),
        arrays=", ".join(f"a{k}" for k in ks),
        init_ptrs="\n".join(f"        p{k} = offsets[{k + 1}]" for k in ks),
        advance_ptrs="\n".join(f"            p{k} += idx * strides[{k + 1}, d]" for k in ks),
        row_args=", ".join(f"a{k}, p{k}, strides[{k + 1}, ndim - 1]" for k in ks)) + _FLAT_INPLACE.format(
        rest_args="".join(f", a{k}, o{k}, s{k}" for k in rest),
        branches="    " + inplace_branches,
        strided_rest="".join(f", _c(a{k}[uint64(o{k} + i * s{k})])" for k in rest),
        chunk_rest="".join(f", a{k}, o{k} + lo * s{k}, s{k}" for k in rest))


_kernels: dict = {}


def kernels(op, compute_np: np.dtype, arity: int):
    """The generated module of ``op``'s kernels for one compute dtype and arity (memoized)."""
    key = (op.name, compute_np, arity)
    mod = _kernels.get(key)
    if mod is None:
        mod = _kernels[key] = codegen.load_module(
            f"ew_{op.name}_{compute_np.name}_{arity}", _source(op.name, compute_np.name, arity, op.inline_math),
            depends_on=codegen.source_files(op.math))
    return mod


_plans = Memo()


def _plan(shape, strides_list):
    """The coalesced loop of one geometry, memoized (small ops repeat geometries).

    One coalesced dim gives ``(None, output stride, operand strides)``, more give
    ``(shape array, strides array, None)`` for the n-d kernels.
    """
    key = (shape,) + strides_list
    p = _plans.get(key)
    if p is None:
        lshape, lstrides = plan(shape, strides_list)
        if len(lshape) <= 1:
            p = (None, lstrides[0][0] if lstrides[0] else 1, [st[0] if st else 0 for st in lstrides[1:]])
        else:
            p = (np.array(lshape, dtype=np.int64), np.array(lstrides, dtype=np.int64), None)
        _plans[key] = p
    return p


def run(op, compute_np, out_buf, out_offset, out_strides, shape, operands):
    """Run ``op`` over ``shape``: ``operands`` are (buffer, offset, broadcast strides) triples."""
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return
    mod = kernels(op, compute_np, len(operands))
    shape_a, strides, flat_strides = _plan(tuple(shape), (tuple(out_strides),) + tuple(o[2] for o in operands))
    par = use_parallel(n, PARALLEL_THRESHOLD)
    if shape_a is None:
        args = []
        for (buf, off, _), st in zip(operands, flat_strides):
            args += (buf, off, st)
        if operands and operands[0][0] is out_buf and operands[0][1] == out_offset \
                and flat_strides[0] == strides:
            del args[:3]
            if par:
                mod.flat_inplace_par(n, out_buf, out_offset, strides, *args, CHUNKS)
            else:
                mod.flat_inplace(n, out_buf, out_offset, strides, *args)
        elif par:
            mod.flat_par(n, out_buf, out_offset, strides, *args, CHUNKS)
        else:
            mod.flat(n, out_buf, out_offset, strides, *args)
        return
    offsets = np.array([out_offset] + [o[1] for o in operands], dtype=np.int64)
    bufs = [o[0] for o in operands]
    if par:
        mod.nd_par(shape_a, strides, offsets, out_buf, *bufs, CHUNKS)
    else:
        mod.nd(shape_a, strides, offsets, out_buf, *bufs)


# ---------------------------------------------------------------------------------------------
# launchers: the dispatcher's fast path

_scalars = Memo(1024)


def scalar_buffer(x, compute_np):
    """A Python scalar as the one-element array kernels read it from (memoized by value)."""
    key = (x.__class__, x, compute_np)
    buf = _scalars.get(key)
    if buf is None:
        buf = np.array([scalar_as(x, compute_np)])
        # -0.0 finds 0.0's entry and NaN finds none: keep both out of the table.
        if x == x and (x != 0 or x.__class__ is not float):
            _scalars[key] = buf
    return buf


def _nothing(out, oo, inputs):
    pass


def launcher(op, compute_np, shape, out_strides, operand_strides, inplace: bool = False):
    """``launch(out_buf, out_offset, inputs)``: ``op`` over one call geometry.

    ``operand_strides[k]`` holds input k's broadcast strides, or None where input k is a Python
    scalar. Everything that follows from the geometry is settled here, once, so that a call
    only gathers buffers and offsets; the common small cases get a launcher of their own. With
    ``inplace``, input 0 is the output itself (same memory, same strides), or the result is None
    where the geometry does not allow it.
    """
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return _nothing
    arity = len(operand_strides)
    mod = kernels(op, compute_np, arity)
    zeros = (0,) * len(shape)
    shape_a, loop_strides, flat = _plan(shape, (out_strides,) + tuple(zeros if st is None else st
                                                                        for st in operand_strides))
    kinds = "".join("s" if st is None else "t" for st in operand_strides)
    # Settled once: most calls are too small to ever go parallel.
    big = n >= PARALLEL_THRESHOLD
    if inplace:
        if shape_a is not None or kinds[0] != "t" or flat[0] != loop_strides:
            return None
        kern, kern_par = mod.flat_inplace, mod.flat_inplace_par
        kinds, flat, skip = kinds[1:], flat[1:], 1
    elif shape_a is None:
        kern, kern_par = mod.flat, mod.flat_par
        skip = 0
    else:
        return _nd_launcher(mod, n, shape_a, loop_strides, kinds, compute_np)
    ostride = loop_strides
    if kinds == "":
        def launch(out, oo, inputs):
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, CHUNKS)
            kern(n, out, oo, ostride)
        return launch
    if kinds == "t":
        s0, = flat

        def launch(out, oo, inputs):
            x = inputs[skip]
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, x._storage.data, x._offset, s0, CHUNKS)
            kern(n, out, oo, ostride, x._storage.data, x._offset, s0)
        return launch
    if kinds == "s":
        def launch(out, oo, inputs):
            x = scalar_buffer(inputs[skip], compute_np)
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, x, 0, 0, CHUNKS)
            kern(n, out, oo, ostride, x, 0, 0)
        return launch
    if kinds == "tt" and not skip:
        s0, s1 = flat

        def launch(out, oo, inputs):
            x, y = inputs
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, x._storage.data, x._offset, s0,
                                y._storage.data, y._offset, s1, CHUNKS)
            kern(n, out, oo, ostride, x._storage.data, x._offset, s0, y._storage.data, y._offset, s1)
        return launch
    if kinds == "ts" and not skip:
        s0 = flat[0]

        def launch(out, oo, inputs):
            x, y = inputs
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, x._storage.data, x._offset, s0,
                                scalar_buffer(y, compute_np), 0, 0, CHUNKS)
            kern(n, out, oo, ostride, x._storage.data, x._offset, s0, scalar_buffer(y, compute_np), 0, 0)
        return launch
    if kinds == "st" and not skip:
        s1 = flat[1]

        def launch(out, oo, inputs):
            x, y = inputs
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(n, out, oo, ostride, scalar_buffer(x, compute_np), 0, 0,
                                y._storage.data, y._offset, s1, CHUNKS)
            kern(n, out, oo, ostride, scalar_buffer(x, compute_np), 0, 0, y._storage.data, y._offset, s1)
        return launch

    def launch(out, oo, inputs):
        args = [n, out, oo, ostride]
        for x, k, st in zip(inputs[skip:], kinds, flat):
            if k == "s":
                args += (scalar_buffer(x, compute_np), 0, 0)
            else:
                args += (x._storage.data, x._offset, st)
        if big and use_parallel(n, PARALLEL_THRESHOLD):
            return kern_par(*args, CHUNKS)
        kern(*args)
    return launch


_offsets = Memo(1024)


def _offsets_array(offs: tuple) -> np.ndarray:
    """The operands' offsets as the int64 array n-d kernels read (memoized: they never write it)."""
    arr = _offsets.get(offs)
    if arr is None:
        arr = _offsets[offs] = np.array(offs, dtype=np.int64)
    return arr


def _nd_launcher(mod, n, shape_a, loop_strides, kinds, compute_np):
    kern, kern_par = mod.nd, mod.nd_par
    big = n >= PARALLEL_THRESHOLD
    if kinds == "tt":
        # Two tensors (a broadcast bias add, say): the common n-d call, without the loop below.
        def launch(out, oo, inputs):
            x, y = inputs
            offsets = _offsets_array((oo, x._offset, y._offset))
            if big and use_parallel(n, PARALLEL_THRESHOLD):
                return kern_par(shape_a, loop_strides, offsets, out, x._storage.data, y._storage.data, CHUNKS)
            kern(shape_a, loop_strides, offsets, out, x._storage.data, y._storage.data)
        return launch

    def launch(out, oo, inputs):
        bufs = []
        offs = [oo]
        for x, k in zip(inputs, kinds):
            if k == "s":
                bufs.append(scalar_buffer(x, compute_np))
                offs.append(0)
            else:
                bufs.append(x._storage.data)
                offs.append(x._offset)
        offsets = _offsets_array(tuple(offs))
        if big and use_parallel(n, PARALLEL_THRESHOLD):
            return kern_par(shape_a, loop_strides, offsets, out, *bufs, CHUNKS)
        kern(shape_a, loop_strides, offsets, out, *bufs)
    return launch
