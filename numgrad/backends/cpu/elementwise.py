"""Strided elementwise kernels for the CPU, generated from an op's scalar function.

One module is generated per (op, compute dtype, arity). It holds four kernels that share the
scalar body: ``flat`` walks one coalesced dim (with a unit-stride branch LLVM can vectorize),
``nd`` walks any number of dims given as arrays (so ndim never triggers a compile), and their
``prange`` twins for large inputs. Operands are read in their own dtype and converted to the
compute dtype inside the loop, so mixed-dtype ops need no temporary copies.
"""
from __future__ import annotations

import numpy as np

from .. import codegen
from ..iteration import plan

PARALLEL_THRESHOLD = 1 << 17

_HEADER = """\
import numpy as np
from numba import njit, prange
from numgrad.ops.registry import get_op
_f = njit(get_op({name!r}).math)
_c = np.{compute}
"""

_FLAT = """
@njit(cache=True, error_model="numpy", nogil=True{par})
def {fname}(n, out, oo, os, {args}):
    if os == 1 and {unit}:
        for i in {rng}(n):
            out[oo + i] = _f({unit_reads})
    else:
        for i in {rng}(n):
            out[oo + i * os] = _f({reads})
"""

_ND = """
@njit(cache=True, error_model="numpy", nogil=True{par})
def {fname}(shape, strides, offsets, out, {arrays}):
    ndim = shape.shape[0]
    inner = shape[ndim - 1]
    rows = 1
    for d in range(ndim - 1):
        rows *= shape[d]
    so = strides[0, ndim - 1]
{inner_strides}
    for r in {rng}(rows):
        po = offsets[0]
{init_ptrs}
        rem = r
        for d in range(ndim - 2, -1, -1):
            idx = rem % shape[d]
            rem //= shape[d]
            po += idx * strides[0, d]
{advance_ptrs}
        for j in range(inner):
            out[po + j * so] = _f({reads})
"""


def _source(name: str, compute: str, arity: int) -> str:
    ks = range(arity)
    flat_args = ", ".join(f"a{k}, o{k}, s{k}" for k in ks)
    unit = " and ".join(f"s{k} == 1" for k in ks)
    unit_reads = ", ".join(f"_c(a{k}[o{k} + i])" for k in ks)
    flat_reads = ", ".join(f"_c(a{k}[o{k} + i * s{k}])" for k in ks)
    nd_reads = ", ".join(f"_c(a{k}[p{k} + j * s{k}])" for k in ks)
    src = _HEADER.format(name=name, compute=compute)
    for par, suffix, rng in (("", "", "range"), (", parallel=True", "_par", "prange")):
        src += _FLAT.format(fname="flat" + suffix, par=par, args=flat_args, unit=unit, rng=rng,
                            unit_reads=unit_reads, reads=flat_reads)
        src += _ND.format(
            fname="nd" + suffix, par=par, rng=rng, arrays=", ".join(f"a{k}" for k in ks),
            inner_strides="\n".join(f"    s{k} = strides[{k + 1}, ndim - 1]" for k in ks),
            init_ptrs="\n".join(f"        p{k} = offsets[{k + 1}]" for k in ks),
            advance_ptrs="\n".join(f"            p{k} += idx * strides[{k + 1}, d]" for k in ks),
            reads=nd_reads)
    return src


_kernels: dict = {}


def kernels(op, compute_np: np.dtype, arity: int):
    key = (op.name, compute_np, arity)
    mod = _kernels.get(key)
    if mod is None:
        mod = _kernels[key] = codegen.load_module(
            f"ew_{op.name}_{compute_np.name}_{arity}", _source(op.name, compute_np.name, arity),
            depends_on=(op.source_file,))
    return mod


def run(op, compute_np, out_buf, out_offset, out_strides, shape, operands):
    """Run ``op`` over ``shape``: ``operands`` are (buffer, offset, broadcast strides) triples."""
    n = 1
    for s in shape:
        n *= s
    if n == 0:
        return
    mod = kernels(op, compute_np, len(operands))
    lshape, lstrides = plan(shape, [out_strides] + [o[2] for o in operands])
    par = n >= PARALLEL_THRESHOLD
    if len(lshape) <= 1:
        args = []
        for (buf, off, _), st in zip(operands, lstrides[1:]):
            args += (buf, off, st[0] if st else 0)
        ostride = lstrides[0][0] if lstrides[0] else 1
        (mod.flat_par if par else mod.flat)(n, out_buf, out_offset, ostride, *args)
    else:
        strides = np.array(lstrides, dtype=np.int64)
        offsets = np.array([out_offset] + [o[1] for o in operands], dtype=np.int64)
        (mod.nd_par if par else mod.nd)(np.array(lshape, dtype=np.int64), strides, offsets, out_buf,
                                        *[o[0] for o in operands])
