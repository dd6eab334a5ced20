"""``numgrad.compile``: a function traced once per signature and replayed from fused kernels.

A signature is what the trace depended on: per argument its tensor dtype, shape, strides,
device and requires_grad, or its Python value; grad mode and the default dtype; and per
tensor the function read without taking it as an argument (a module's parameters, a closure's
or a global's tensors), the same object with the same layout. A call with a known signature
runs the compiled program; an unknown one traces again, up to ``cache_size_limit`` signatures
per function; a signature whose trace broke runs eagerly from then on.

What the program does not repeat: the function's Python. Side effects on Python state (a
counter, a print of something other than a tensor) happen on the tracing call only;
reading a tensor's data into Python ends the trace instead.
"""
from __future__ import annotations

import types
import warnings

from .. import dtypes
from ..autograd import forward_ad, grad_mode
from ..autograd import profiler
from ..batched.tensor import running as vmap_running
from ..batched.pytree import LEAF, tree_flatten, tree_unflatten
from ..devices import CPU
from ..tensor import Tensor, tracing
from .graph import Graph, GraphBreak, Tracer
from .program import Program

cache_size_limit = 8


class Entry:
    """One signature's outcome: a program, or the reason it runs eagerly."""

    def __init__(self, program=None, reason=None, captures=(), capture_guards=(), out_spec=None, out_refs=(),
                 value_guards=()):
        self.program = program
        self.reason = reason
        self.captures = captures              # getters of the captured tensors, in leaf order
        self.capture_guards = capture_guards  # (object, layout) per capture
        self.out_spec = out_spec
        # per output leaf: ("out", index among the program's outputs), ("arg", index among the
        # flattened arguments), ("capture", index) or ("const", object)
        self.out_refs = out_refs
        self.value_guards = value_guards      # (getter, value) of the other objects the function read

    def build(self, outs, leaves):
        """The function's result from a replay's outputs and the call's flattened arguments."""
        refs = self.out_refs
        if self.out_spec is LEAF and refs[0][0] == "out":
            return outs[refs[0][1]]
        out = []
        for kind, r in refs:
            out.append(outs[r] if kind == "out" else leaves[r] if kind == "arg" else
                       self.captures[r]() if kind == "capture" else r)
        return tree_unflatten(out, self.out_spec)

    def matches(self) -> bool:
        if not _unchanged(self.value_guards):
            return False
        for get, (obj, layout) in zip(self.captures, self.capture_guards):
            t = get()
            if t is not obj or _layout(t) != layout:
                return False
        return True


def _layout(t):
    return (t.dtype, t._shape, t._strides, t._storage.device, t._requires_grad)


def _signature(leaves) -> tuple:
    key = []
    for x in leaves:
        c = x.__class__
        if c is Tensor or isinstance(x, Tensor):
            key.append(_layout(x))
        elif c is float or c is int or c is bool or c is str or x is None:
            key.append((c, x))
        else:
            hash(x)  # an unhashable argument: TypeError, and the call runs eagerly
            key.append((c, x))
    return tuple(key)


class CompiledFunction:
    """``fn`` traced once per signature into fused kernels (see :func:`numgrad.compile`)."""

    def __init__(self, fn, *, fullgraph: bool = False, modules=()):
        self._fn = fn
        self._fullgraph = fullgraph
        self._modules = list(modules)
        self._entries: dict = {}
        self._count = 0
        self._warned = False
        self.last_break = None
        inner = getattr(fn, "__wrapped__", fn)
        self.__doc__ = getattr(inner, "__doc__", None)
        self.__name__ = getattr(inner, "__name__", type(fn).__name__)
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        if tracing[0] is not None or forward_ad._dual_levels[0] or vmap_running.levels:
            # Inside another trace the ops join it; forward mode and vmap see eager ops.
            return self._fn(*args, **kwargs)
        if profiler.enabled:
            return profiler.timed(f"CompiledFunction[{self.__name__}]", self._call, args, kwargs)
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        key = self._flat_key(args) if not kwargs else None
        if key is not None:
            leaves, spec = args, None
        else:
            leaves, spec = tree_flatten((args, kwargs))
            try:
                key = (grad_mode._state.enabled, dtypes._default_dtype, spec, _signature(leaves))
            except TypeError:
                return self._fn(*args, **kwargs)
        if self._modules:
            key += tuple([m.training for m in self._modules])
        for entry in self._entries.get(key, ()):
            if entry.matches():
                if entry.program is not None:
                    result = entry.program.run(leaves, entry.captures)
                    if result is not None:
                        return entry.build(result, leaves)
                return self._fn(*args, **kwargs)
        if self._count >= cache_size_limit:
            if not self._warned:
                self._warned = True
                warnings.warn(f"numgrad.compile: {self.__name__} has been traced for {cache_size_limit} signatures "
                              "(numgrad.compiler.cache_size_limit); new signatures run eagerly.", UserWarning,
                              stacklevel=2)
            return self._fn(*args, **kwargs)
        self._count += 1
        result, entry = trace(self._fn, args, kwargs, leaves, self._fullgraph)
        self.last_break = entry.reason
        self._entries.setdefault(key, []).append(entry)
        return result

    @staticmethod
    def _flat_key(args):
        """The signature of positional tensors and numbers, without flattening (the fast path);
        None for anything else."""
        key = [grad_mode._state.enabled, dtypes._default_dtype]
        for x in args:
            c = x.__class__
            if c is Tensor:
                device = x._storage.device
                # The CPU left out of the key: hashing a device runs Python code.
                key.append((x.dtype, x._shape, x._strides, x._requires_grad) if device is CPU else
                           (x.dtype, x._shape, x._strides, x._requires_grad, device))
            elif c is float or c is int or c is bool:
                key.append((c, x))
            else:
                return None
        return tuple(key)

    def __get__(self, obj, objtype=None):
        # As a decorator on a method: bind like the function it wraps.
        return self if obj is None else types.MethodType(self, obj)


_PLAIN = (bool, int, float, complex, str, bytes, type(None))


class _Reads:
    """What ``fn`` can read besides its arguments, each with a getter that fetches the current
    object from the same place: ``tensors`` (id -> getter: module parameters and buffers,
    closure cells, globals, defaults, attributes of a bound method's object), which a trace may
    capture, and ``guards`` ((getter, value) of every other object read: numbers and strings
    compare by value, the rest by identity), which a replay checks."""

    def __init__(self, fn):
        self.tensors: dict = {}
        self.guards: list = []
        f = fn
        if isinstance(fn, types.MethodType):
            owner = fn.__self__
            self.add(owner, lambda: owner)
            if not hasattr(owner, "_parameters"):
                for name, x in list(getattr(owner, "__dict__", {}).items()):
                    self.add(x, lambda owner=owner, name=name: getattr(owner, name), 1)
            f = fn.__func__
        self.scan(f)

    def add(self, obj, get, depth=0):
        if isinstance(obj, Tensor):
            self.tensors.setdefault(id(obj), get)
            return
        self.guards.append((get, obj))
        if hasattr(obj, "named_modules") and hasattr(obj, "_parameters"):
            for _, m in obj.named_modules(remove_duplicate=True):
                for table in (m._parameters, m._buffers):
                    for k, t in table.items():
                        if t is not None:
                            self.tensors.setdefault(id(t), lambda table=table, k=k: table.get(k))
                # Hyperparameters a forward reads (self.scale = 2.0) are baked into a trace.
                for k, x in list(vars(m).items()):
                    if isinstance(x, _PLAIN):
                        self.guards.append((lambda m=m, k=k: vars(m).get(k), x))
                self.scan(getattr(type(m), "forward", None))
        elif depth == 0 and isinstance(obj, (list, tuple)):
            for i, x in enumerate(obj):
                self.add(x, lambda get=get, i=i: get()[i], 1)
        elif depth == 0 and isinstance(obj, dict):
            for k, x in list(obj.items()):
                self.add(x, lambda get=get, k=k: get()[k], 1)

    def scan(self, f):
        """The closure cells, globals and defaults function ``f`` reads."""
        code = getattr(f, "__code__", None)
        if code is None:
            return
        for cell in f.__closure__ or ():
            try:
                self.add(cell.cell_contents, lambda cell=cell: cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        scope = f.__globals__
        codes = [code]
        while codes:
            c = codes.pop()
            for name in c.co_names:
                if name in scope:
                    self.add(scope[name], lambda name=name: scope.get(name))
            codes.extend(k for k in c.co_consts if hasattr(k, "co_code"))
        for d in f.__defaults__ or ():
            self.add(d, lambda d=d: d)


def _unchanged(guards) -> bool:
    for get, value in guards:
        now = get()
        if now is not value and (value.__class__ not in _PLAIN or now.__class__ is not value.__class__
                                 or now != value):
            return False
    return True


def trace(fn, args, kwargs, leaves, fullgraph: bool):
    """Run ``fn`` once, tracing it: (its eager result, the signature's Entry)."""
    reads = _Reads(fn)
    getters = reads.tensors
    capture_index = {k: i for i, k in enumerate(getters)}
    graph = Graph()
    tracer = Tracer(graph, capture_index, fullgraph)
    for i, x in enumerate(leaves):
        if isinstance(x, Tensor):
            if x.device.type != "cpu":
                tracer.broken = "fused kernels run on the CPU only"
            elif x._fw_tangent is not None:
                tracer.broken = "an argument carries a forward-mode tangent"
            elif id(x) not in tracer.known:
                tracer.add_leaf(x, ("arg", i))
    if tracer.broken is None:
        with tracer:
            result = fn(*args, **kwargs)
    else:
        result = fn(*args, **kwargs)
    reason = tracer.broken
    out_leaves, out_spec = tree_flatten(result)
    out_refs, outputs = [], []
    if reason is None:
        reason, out_refs, outputs = _outputs(tracer, out_leaves)
    if reason is None and tracer.written():
        reason = "the function writes in place into a tensor the trace reads"
    if reason is None:
        reason = _check_requires_grad(tracer, outputs)
    entry = Entry(reason=reason, value_guards=reads.guards)
    if reason is None:
        # Renumber the captures in use: a replay fetches only those.
        by_index = list(getters.values())
        used, captures = [], []
        for k, (v, src) in enumerate(graph.leaves):
            if src[0] == "capture":
                graph.leaves[k] = (v, ("capture", len(used)))
                used.append(v)
                captures.append(by_index[src[1]])
        guards = [(tracer.tensors[v], _layout(tracer.tensors[v])) for v in used]
        requires = {v: tracer.tensors[v]._requires_grad for v in outputs}
        program = Program(graph, tracer, outputs, [tracer.tensors[v]._strides for v in outputs], requires)
        sources = {v: src for v, src in graph.leaves}
        out_refs = [("out", outputs.index(r)) if k == "value" and r in outputs else
                    sources[r] if k == "value" else (k, r) for k, r in out_refs]
        entry = Entry(program, None, captures, guards, out_spec, out_refs, reads.guards)
        if program.backward_reason is not None and fullgraph:
            raise GraphBreak(f"numgrad.compile(fullgraph=True): backward: {program.backward_reason}")
    elif fullgraph:
        raise GraphBreak(f"numgrad.compile(fullgraph=True): {reason}")
    return result, entry


def _outputs(tracer, out_leaves):
    refs, outputs = [], []
    for x in out_leaves:
        if isinstance(x, Tensor):
            v = tracer.known.get(id(x))
            if v is None:
                return "the function returns a tensor made by an op the compiler does not trace", (), ()
            refs.append(("value", v))
            if v in tracer.graph.producer and v not in outputs:
                outputs.append(v)
        else:
            refs.append(("const", x))
    if not outputs:
        return "the function computes nothing the compiler traces", (), ()
    return None, refs, outputs


def _check_requires_grad(tracer, outputs):
    """Whether replaying gives every output the requires_grad eager gave it."""
    graph = tracer.graph
    rg = {v: tracer.tensors[v]._requires_grad for v, _ in graph.leaves}
    enabled = tracer.grad_enabled
    for node in graph.nodes:
        rg[node.out] = enabled and node.op.differentiable and any(
            rg.get(a, False) for a in node.args if a.__class__ is int)
    for v in outputs:
        if rg[v] != tracer.tensors[v]._requires_grad:
            return "an output's requires_grad differs from what its ops imply (requires_grad_ inside the function?)"
    return None
