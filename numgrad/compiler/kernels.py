"""Fused CPU kernels generated from a traced graph.

A kernel computes some of the graph's values over one shape: a scalar ``body`` holds the ops of
their cone in trace order, each op's math (its record's scalar function, as the eager kernels
call it) between the casts the eager kernels make (operands to the compute dtype, the result to
the stored dtype), so the fused result equals eager numgrad's bit for bit. The loops around it
are those of the eager kernels: a flat one for operands that are contiguous or broadcast single
elements, a row-wise n-d one otherwise, each with a ``prange`` form for large inputs.

The source depends only on the graph and on which flat operands are broadcast, never on sizes
or strides, so a kernel compiles once per graph and dtype signature and is cached on disk.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from .. import shapes
from ..backends import codegen
from ..backends.cpu.elementwise import operand_loads, scalar_function
from ..backends.cpu.parallel import use_parallel
from ..backends.iteration import plan
from ..dtypes import scalar_as
from ..ops.records import OPS
from ..storage import Storage
from ..tensor import Tensor
from ..devices import CPU
from .graph import Const

PARALLEL_THRESHOLD = 1 << 19
CHUNKS = 8

_HEADER = """\
import numpy as np
from numba import njit, prange
from numgrad.backends.cpu.parallel import parallel_njit
from numgrad.ops.records import get_op
_K = dict(cache=True, error_model="numpy", nogil=True)
"""


def _cast(dtype, expr: str) -> str:
    if dtype.numpy == np.bool_:
        return f"({expr} != 0)"
    return f"np.{dtype.numpy.name}({expr})"


def _const(value, dtype) -> str:
    c = scalar_as(value, dtype.numpy) if dtype.numpy != np.bool_ else np.bool_(value)
    if dtype.is_floating_point:
        return f"np.{dtype.numpy.name}(float.fromhex({float(c).hex()!r}))"
    if dtype.numpy == np.bool_:
        return repr(bool(c))
    return f"np.{dtype.numpy.name}({int(c)})"


def _body(graph, outputs, leaves) -> tuple:
    """The scalar body's source (after its constants and op bindings) and the op names it calls."""
    names, consts, body = {}, {}, []
    for node in graph.cone(outputs):
        args = []
        for a in node.args:
            if a.__class__ is Const:
                literal = _const(a.value, node.compute)
                args.append(consts.setdefault(literal, f"_k{len(consts)}"))
            else:
                args.append(_cast(node.compute, f"v{a}"))
        if node.op is None:
            expr = args[0]
        else:
            expr = f"{names.setdefault(node.op.name, f'_f{len(names)}')}({', '.join(args)})"
        body.append(f"    v{node.out} = {_cast(graph.dtypes[node.out], expr)}")
    ret = ", ".join(f"v{v}" for v in outputs) + ("," if len(outputs) == 1 else "")
    src = ([f"{k} = {literal}" for literal, k in consts.items()]
           + [f"{f} = {scalar_function(n, OPS[n].inline_math)}" for n, f in names.items()]
           + ["", "", "@njit(error_model='numpy')", f"def body({', '.join(f'v{v}' for v in leaves)}):"]
           + body + [f"    return {ret}"])
    return "\n".join(src) + "\n", list(names)


def _flat(nout: int, kinds: str) -> str:
    outs = [f"o{j}" for j in range(nout)]
    ins = [f"a{k}, p{k}" for k in range(len(kinds))]
    head = ["", "", "@njit(**_K)", f"def flat(n, {', '.join(outs + ins)}):"]
    loads, reads = operand_loads(kinds, 0, "p")
    head += [f"    {ln}" for ln in loads]
    head += ["    for i in range(n):", f"        r = body({', '.join(reads)})"]
    head += [f"        o{j}[i] = r[{j}]" for j in range(nout)]
    par_ins = [f"a{k}, p{k}" + (" + lo" if kind == "u" else "") for k, kind in enumerate(kinds)]
    head += ["", "", "@parallel_njit(**_K)", f"def flat_par(n, {', '.join(outs + ins)}, chunks):",
             "    size = (n + chunks - 1) // chunks",
             "    for c in prange(chunks):",
             "        lo = min(n, c * size)",
             "        hi = min(n, lo + size)",
             f"        flat(hi - lo, {', '.join([o + '[lo:hi]' for o in outs] + par_ins)})"]
    # The launch from Python, spelled out: no argument list is built per call.
    ts = [f"t{k}" for k in range(len(kinds))]
    data = ", ".join(f"t{k}._storage.data, t{k}._offset" for k in range(len(kinds)))
    head += ["", "", f"def launch(n, parallel, {', '.join(outs + ts)}):",
             "    if parallel:",
             f"        flat_par(n, {', '.join(outs)}, {data}, {CHUNKS})",
             "    else:",
             f"        flat(n, {', '.join(outs)}, {data})"]
    return "\n".join(head) + "\n"


def _nd(nout: int, nin: int) -> str:
    ops = [f"o{j}" for j in range(nout)] + [f"a{k}" for k in range(nin)]
    lines = ["", "", "@njit(**_K)", f"def nd_rows(r0, r1, shape, strides, offsets, {', '.join(ops)}):",
             "    ndim = shape.shape[0]",
             "    inner = shape[ndim - 1]",
             "    for r in range(r0, r1):"]
    lines += [f"        q{j} = offsets[{j}]" for j in range(len(ops))]
    lines += ["        rem = r",
              "        for d in range(ndim - 2, -1, -1):",
              "            idx = rem % shape[d]",
              "            rem //= shape[d]"]
    lines += [f"            q{j} += idx * strides[{j}, d]" for j in range(len(ops))]
    lines += ["        for i in range(inner):"]
    reads = [f"a{k}[q{nout + k} + i * strides[{nout + k}, ndim - 1]]" for k in range(nin)]
    lines += [f"            r = body({', '.join(reads)})"]
    lines += [f"            o{j}[q{j} + i * strides[{j}, ndim - 1]] = r[{j}]" for j in range(nout)]
    lines += ["", "", "@parallel_njit(**_K)", f"def nd_par(rows, shape, strides, offsets, {', '.join(ops)}, chunks):",
              "    size = (rows + chunks - 1) // chunks",
              "    for c in prange(chunks):",
              "        lo = min(rows, c * size)",
              f"        nd_rows(lo, min(rows, lo + size), shape, strides, offsets, {', '.join(ops)})"]
    return "\n".join(lines) + "\n"


def _module(graph, outputs, leaves, loop: str):
    body, ops = _body(graph, outputs, leaves)
    depends = tuple(sorted({f for n in ops for f in codegen.source_files(OPS[n].math)}))
    mod = codegen.load_module("fused", _HEADER + body + loop, depends_on=depends)
    if os.environ.get("NUMGRAD_COMPILE_DEBUG") == "1":
        print(f"numgrad.compile: fused kernel {mod.__file__}", file=sys.stderr)
    return mod


class Kernel:
    """One fused kernel of a compiled graph: ``outputs`` (values of one shape) computed from
    ``leaves``, for one layout of the leaves and outputs (fixed by the guards)."""

    def __init__(self, graph, outputs, out_strides, leaves, leaf_strides):
        self.outputs = outputs
        self.leaves = leaves
        self.shape = shape = graph.shapes[outputs[0]]
        self.out_dtypes = [graph.dtypes[v].numpy for v in outputs]
        self.out_strides = out_strides
        self.n = n = shapes.prod(shape)
        self.dtypes = [graph.dtypes[v] for v in outputs]
        if n == 0:
            self.launch = None
            return
        bstrides = [shapes.broadcast_strides(graph.shapes[v], st, shape) for v, st in zip(leaves, leaf_strides)]
        lshape, lstrides = plan(shape, list(out_strides) + bstrides)
        nout = len(outputs)
        if len(lshape) <= 1 and all((st[0] if st else 1) == 1 for st in lstrides[:nout]) and \
                all(not st or st[0] in (0, 1) for st in lstrides[nout:]):
            kinds = "".join("u" if st and st[0] == 1 else "s" for st in lstrides[nout:])
            mod = _module(graph, outputs, leaves, _flat(nout, kinds))
            self.launch = self._flat_launcher(mod)
        else:
            mod = _module(graph, outputs, leaves, _nd(nout, len(leaves)))
            self.launch = self._nd_launcher(mod, np.array(lshape, dtype=np.int64),
                                            np.array(lstrides, dtype=np.int64))

    def _flat_launcher(self, mod):
        n, kern = self.n, mod.launch
        big = n >= PARALLEL_THRESHOLD

        def launch(bufs, tensors):
            kern(n, big and use_parallel(n, PARALLEL_THRESHOLD), *bufs, *tensors)
        return launch

    def _nd_launcher(self, mod, shape_a, strides_a):
        rows = self.n // int(shape_a[-1])
        nout = len(self.outputs)
        kern, kern_par = mod.nd_rows, mod.nd_par
        big = self.n >= PARALLEL_THRESHOLD

        def launch(bufs, tensors):
            offsets = np.array([0] * nout + [t._offset for t in tensors], dtype=np.int64)
            data = [t._storage.data for t in tensors]
            if big and use_parallel(self.n, PARALLEL_THRESHOLD):
                kern_par(rows, shape_a, strides_a, offsets, *bufs, *data, CHUNKS)
            else:
                kern(0, rows, shape_a, strides_a, offsets, *bufs, *data)
        return launch

    def __call__(self, tensors) -> list:
        """The output tensors, computed from the leaf tensors (in ``leaves`` order)."""
        n, launch, make = self.n, self.launch, Tensor._make
        if len(self.out_dtypes) == 1:
            buf = np.empty(n, self.out_dtypes[0])
            if launch is not None:
                launch((buf,), tensors)
            return (make(Storage(buf, CPU), self.shape, self.out_strides[0], 0, self.dtypes[0]),)
        bufs = [np.empty(n, d) for d in self.out_dtypes]
        if launch is not None:
            launch(bufs, tensors)
        return [make(Storage(b, CPU), self.shape, st, 0, d)
                for b, st, d in zip(bufs, self.out_strides, self.dtypes)]
