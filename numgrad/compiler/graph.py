"""The traced program: values, the elementwise nodes between them, and the tracer that records
them while the function runs eagerly once.

A trace is the function's first call for a signature, run for real: every elementwise op goes
through the dispatcher (``ops/registry.py``), which hands it to the active tracer; the tracer
runs it eagerly and appends a node. Anything the compiler cannot replay ends the trace (a graph
break): a tensor made by an op outside the elementwise family, a write in place, reading a
tensor's data into Python, a change of grad mode. The call itself still finishes eagerly, so
its results are always the eager ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import dtypes
from ..autograd import grad_mode
from ..ops import registry
from ..tensor import tracing

# Compute dtypes the fused kernels handle bit for bit as eager kernels do (bool: the masks of
# comparisons and logical ops); integer ops keep their eager checks (division by zero,
# overflow) and the 16-bit floats their widened eager path.
FUSABLE = (dtypes.float32, dtypes.float64, dtypes.bool)


class GraphBreak(RuntimeError):
    """Raised by a ``fullgraph=True`` compile where the function leaves what can be traced."""


@dataclass(frozen=True)
class Const:
    """A Python number an op read: baked into the kernel."""
    value: object


@dataclass
class Node:
    op: object                 # an elementwise Op, or None for a cast to ``dtype`` of value ``args[0]``
    args: tuple                # value indices and Consts
    compute: object            # the dtype the op computes in
    out: int                   # the value it makes


@dataclass
class Graph:
    dtypes: list = field(default_factory=list)      # per value
    shapes: list = field(default_factory=list)      # per value
    nodes: list = field(default_factory=list)
    leaves: list = field(default_factory=list)      # (value, source): ("arg", i), ("capture", i), ("cot", i)
    producer: dict = field(default_factory=dict)    # value -> its node

    def new_value(self, dtype, shape) -> int:
        self.dtypes.append(dtype)
        self.shapes.append(tuple(shape))
        return len(self.dtypes) - 1

    def add_leaf(self, dtype, shape, source) -> int:
        v = self.new_value(dtype, shape)
        self.leaves.append((v, source))
        return v

    def add_node(self, op, args, compute, dtype, shape) -> int:
        v = self.new_value(dtype, shape)
        self.producer[v] = len(self.nodes)
        self.nodes.append(Node(op, tuple(args), compute, v))
        return v

    def cone(self, outputs) -> list:
        """The nodes ``outputs`` depend on, in execution order."""
        need, todo = set(), list(outputs)
        while todo:
            v = todo.pop()
            k = self.producer.get(v)
            if k is None or k in need:
                continue
            need.add(k)
            todo.extend(a for a in self.nodes[k].args if a.__class__ is int)
        return [self.nodes[k] for k in sorted(need)]


class Tracer:
    """Records the elementwise ops of one eager run into ``graph``.

    ``known`` maps each tensor the trace has seen (by identity) to its value; the tensors are
    kept alive in ``tensors`` so that identities stay unique. ``captures`` holds the tensors the
    function may read without taking them as arguments (its module's parameters and buffers,
    closure and global tensors), by identity, with the index of their source.
    """

    def __init__(self, graph: Graph, captures: dict, fullgraph: bool):
        self.graph = graph
        self.captures = captures
        self.fullgraph = fullgraph
        self.known: dict = {}
        self.tensors: list = []
        self.versions: list = []
        self.broken = None
        self.grad_enabled = grad_mode._state.enabled

    def add_leaf(self, t, source) -> int:
        v = self.graph.add_leaf(t.dtype, t._shape, source)
        self._know(t, v)
        return v

    def _know(self, t, v):
        # Values are numbered in the order they are made, each known as soon as it is.
        self.known[id(t)] = v
        self.tensors.append(t)
        self.versions.append(t._storage._counter[0])

    def written(self) -> bool:
        """Whether a tensor the trace read was written in place after it was read (by an op the
        tracer does not see): a replay would read other values."""
        return any(t._storage._counter[0] != ver for t, ver in zip(self.tensors, self.versions))

    def __enter__(self):
        tracing[0] = self
        return self

    def __exit__(self, *exc):
        tracing[0] = None

    def stop(self, reason: str):
        """End the trace: the rest of the call runs eagerly and the signature stays eager."""
        if self.broken is None:
            self.broken = reason
        tracing[0] = None
        if self.fullgraph:
            raise GraphBreak(f"numgrad.compile(fullgraph=True): {reason}")

    def host_read(self, what: str):
        self.stop(f"{what}() reads a tensor's data into Python (data-dependent control flow)")

    def ref(self, x):
        """The graph operand for ``x``: a Const, a known value, or a capture made a leaf; None
        for a tensor the trace cannot account for."""
        if x.__class__ in (bool, int, float):
            return Const(x)
        v = self.known.get(id(x))
        if v is not None:
            return v
        source = self.captures.get(id(x))
        if source is None:
            return None
        return self.add_leaf(x, ("capture", source))

    def _untraced(self, fn, *args):
        """``fn(*args)`` run eagerly, its ops unrecorded."""
        tracing[0] = None
        try:
            return fn(*args)
        finally:
            if self.broken is None:
                tracing[0] = self

    def cast(self, t, dtype):
        """``t.to(dtype)``, recorded as a cast node."""
        out = self._untraced(t.to, dtype)
        self._know(out, self.graph.add_node(None, (self.known[id(t)],), dtype, dtype, t._shape))
        return out

    def elementwise(self, op, inputs, out, inplace):
        """The dispatcher's call while tracing: run eagerly, then record."""
        result = self._untraced(registry.run_elementwise, op, inputs, out, inplace)
        if self.broken is not None:
            return result
        if out is not None:
            self.stop(f"{op.name}: a write into an existing tensor (in place or out=)")
        elif grad_mode._state.enabled != self.grad_enabled:
            self.stop(f"{op.name}: grad mode changed inside the function")
        elif result._storage.device.type != "cpu":
            self.stop(f"{op.name}: fused kernels run on the CPU only")
        else:
            refs = [self.ref(x) for x in inputs]
            if any(r.__class__ is int and self.graph.dtypes[r] in dtypes.NARROW_FLOATING for r in refs):
                self.stop(f"{op.name}: float16 and bfloat16 operands are widened by the eager kernels")
                return result
            if any(r is None for r in refs):
                self.stop(f"{op.name}: an operand was made by an op the compiler does not trace "
                          "(a factory, view, reduction, matrix product or other non-elementwise op)")
                return result
            compute = registry.compute_dtype(op, dtypes.result_type(*inputs))
            if compute not in FUSABLE:
                self.stop(f"{op.name}: computes in {compute}; fused kernels compute in float32, float64 or bool")
                return result
            self._know(result, self.graph.add_node(op, refs, compute, result.dtype, result._shape))
        return result
