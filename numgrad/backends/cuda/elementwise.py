"""Strided elementwise kernels for CUDA, generated from an op's scalar function.

One module is generated per (op, compute dtype, operand pattern): each operand is an array
('a') or a scalar passed by value ('s'). Every kernel is a grid-stride loop, so one launch
geometry serves any size; ``contig`` is the fast path for unit-stride operands, ``flat`` walks
one coalesced strided dim, and ``nd`` unravels each index over int64 shape/stride arrays, so
ndim never triggers a compile.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import plan
from . import runtime

_HEADER = """\
import numpy as np
from numba import cuda
from numgrad.ops.records import get_op
_c = np.{compute}
if cuda.config.ENABLE_CUDASIM:
    # The simulator runs device functions as Python, where math on NumPy scalars raises
    # instead of giving inf/nan; the CPU-compiled body has the device's arithmetic.
    from numgrad.backends.cpu.elementwise import kernels as _cpu_kernels
    _f = _cpu_kernels(get_op({name!r}), np.dtype(_c), {arity})._f
else:
    _f = cuda.jit(device=True)(get_op({name!r}).math)
_K = {{}} if cuda.config.ENABLE_CUDASIM else dict(cache=True)
"""

_BODY = """

@cuda.jit(**_K)
def contig(n, out, oo, {fargs1}):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    # Each thread loads four elements before storing any, so that more memory requests are in
    # flight than one per resident thread: that, not arithmetic, bounds a streaming kernel.
    while i + 3 * step < n:
{unrolled}
        i += 4 * step
    while i < n:
        out[oo + i] = _f({creads})
        i += step


@cuda.jit(**_K)
def flat(n, out, oo, os, {fargs}):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        out[oo + i * os] = _f({freads})
        i += step


@cuda.jit(**_K)
def nd(n, out, oo, shape, strides, {fargs1}):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    ndim = shape.shape[0]
    while i < n:
        rem = i
        po = oo
{init}
        for d in range(ndim - 1, -1, -1):
            idx = rem % shape[d]
            rem //= shape[d]
            po += idx * strides[0, d]
{advance}
        out[po] = _f({nreads})
        i += step
"""


def _source(name: str, compute: str, pattern: str) -> str:
    arrays = [k for k, m in enumerate(pattern) if m == "a"]
    fargs1 = ", ".join(f"a{k}, o{k}" if m == "a" else f"a{k}" for k, m in enumerate(pattern))
    fargs = ", ".join(f"a{k}, o{k}, s{k}" if m == "a" else f"a{k}" for k, m in enumerate(pattern))
    creads = ", ".join(f"_c(a{k}[o{k} + i])" if m == "a" else f"a{k}" for k, m in enumerate(pattern))
    loads = [f"        x{k}_{u} = _c(a{k}[o{k} + i + {u} * step])" for u in range(4) for k in arrays]
    stores = [f"        out[oo + i + {u} * step] = _f("
              + ", ".join(f"x{k}_{u}" if m == "a" else f"a{k}" for k, m in enumerate(pattern)) + ")"
              for u in range(4)]
    freads = ", ".join(f"_c(a{k}[o{k} + i * s{k}])" if m == "a" else f"a{k}" for k, m in enumerate(pattern))
    nreads = ", ".join(f"_c(a{k}[p{k}])" if m == "a" else f"a{k}" for k, m in enumerate(pattern))
    init = "\n".join(f"        p{k} = o{k}" for k in arrays) or "        pass"
    advance = "\n".join(f"            p{k} += idx * strides[{j + 1}, d]" for j, k in enumerate(arrays)) \
        or "            pass"
    return _HEADER.format(name=name, compute=compute, arity=len(pattern)) + _BODY.format(
        fargs1=fargs1, fargs=fargs, unrolled="\n".join(loads + stores), creads=creads, freads=freads,
        nreads=nreads, init=init, advance=advance)


_kernels: dict = {}


def kernels(op, compute_np: np.dtype, pattern: str):
    """The generated module of ``op``'s kernels for one compute dtype and operand pattern."""
    key = (op.name, compute_np, pattern)
    mod = _kernels.get(key)
    if mod is None:
        mod = _kernels[key] = codegen.load_module(
            f"cuda_ew_{op.name}_{compute_np.name}_{pattern}", _source(op.name, compute_np.name, pattern),
            depends_on=codegen.source_files(op.math))
    return mod


def launcher(op, compute_np, shape, out_strides, operand_strides):
    """``launch(out_buf, out_offset, operands)`` running ``op`` over ``shape`` into a device
    array laid out with ``out_strides``. ``operand_strides`` gives each array operand's broadcast
    strides and None for each scalar; ``operands`` then holds, in the same order, (device array,
    offset) pairs and scalars already converted to the compute dtype."""
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return lambda out_buf, out_offset, operands: None
    pattern = "".join("s" if st is None else "a" for st in operand_strides)
    mod = kernels(op, np.dtype(compute_np), pattern)
    lshape, lstrides = plan(shape, [out_strides] + [st for st in operand_strides if st is not None])
    blocks, threads = runtime.blocks_for(n), runtime.geometry()[0]
    # Every kernel takes (n, out, out offset), then its own layout arguments, then each array
    # operand's (array, offset) followed by its layout arguments, or each scalar.
    st = [s[0] if s else 0 for s in lstrides]
    if len(lshape) > 1:
        kernel = mod.nd
        layout = (runtime.int64s(tuple(lshape)), runtime.int64s(tuple(map(tuple, lstrides))))
    elif all(s == 1 for s in st) or n == 1:
        kernel, layout = mod.contig, ()
    else:
        kernel, layout = mod.flat, (st[0],)
    array_strides = iter(st[1:])
    extras = [None if m == "s" else (next(array_strides),) if kernel is mod.flat else ()
              for m in pattern]

    def launch(out_buf, out_offset, operands):
        args = [n, out_buf, out_offset, *layout]
        for o, extra in zip(operands, extras):
            args += (o,) if extra is None else o + extra
        runtime.launch(kernel, blocks, threads, *args)
    return launch
