"""A traced graph made runnable: its forward kernels, and its backward as one autograd node.

The backward is traced at compile time by running the graph's VJP rules (numgrad ops, so the
same tracer records them) in the order the autograd engine would, on the values the trace
produced. The backward kernels recompute the forward values they read from the graph's inputs
instead of saving them: only the inputs are saved for backward.
"""
from __future__ import annotations

from ..autograd import grad_mode, tape
from ..autograd.grad_mode import no_grad
from ..creation import ones
from ..ops import registry
from ..ops.reductions import sum_to
from ..ops.records import Op
from ..shapes import contiguous_strides
from .graph import Const
from .kernels import Kernel


class BackwardUntraceable(Exception):
    """The VJP rules leave the elementwise family: calls that need gradients run eagerly."""


def _groups(graph, values, strides) -> list:
    """``values`` split into kernels by shape: (values, their strides) per shape."""
    by_shape: dict = {}
    for v, st in zip(values, strides):
        vs, ss = by_shape.setdefault(graph.shapes[v], ([], []))
        if v not in vs:
            vs.append(v)
            ss.append(st)
    return list(by_shape.values())


def _leaves_of(graph, values) -> list:
    used = set()
    for node in graph.cone(values):
        used.update(a for a in node.args if a.__class__ is int)
    used.update(values)
    return [v for v, _ in graph.leaves if v in used]


class Program:
    """One compiled signature: its forward kernels, grouped by output shape, and its backward."""

    def __init__(self, graph, tracer, outputs, out_strides, requires_grad):
        self.graph = graph
        self.outputs = outputs                      # output values that are not leaves
        self.forward_nodes = len(graph.nodes)
        self.leaf_values = [v for v, src in graph.leaves if src[0] != "cot"]
        self.arg_leaves = [(v, src[1]) for v, src in graph.leaves if src[0] == "arg"]
        self.capture_leaves = [v for v, src in graph.leaves if src[0] == "capture"]
        leaf_strides = {v: tracer.tensors[v]._strides for v in self.leaf_values}
        self.kernels = []
        for vs, ss in _groups(graph, outputs, out_strides):
            leaves = _leaves_of(graph, vs)
            k = Kernel(graph, vs, ss, leaves, [leaf_strides[v] for v in leaves])
            self.kernels.append(k)
        self.requires_grad = requires_grad          # per output value
        self.differentiable = any(requires_grad.values())
        # One kernel computing every output from the arguments in order: a replay hands it the
        # arguments as they come (``direct`` is then their number).
        k = self.kernels[0] if len(self.kernels) == 1 else None
        self.direct = k is not None and k.outputs == outputs and not self.capture_leaves and \
            k.leaves == [v for v, _ in self.arg_leaves] and \
            [i for _, i in self.arg_leaves] == list(range(len(k.leaves))) and len(k.leaves)
        self.backward = None
        self.backward_reason = None
        if self.differentiable:
            try:
                self.backward = Backward(graph, tracer, self)
            except BackwardUntraceable as e:
                self.backward_reason = str(e)
                return
            backward = self.backward

            def vjp_all(g, ans, *inputs, needs):
                return backward.vjp(g, inputs, needs)
            self.op = Op(name="compiled", nin=len(self.leaf_values), vjp_all=vjp_all,
                         kind="compiled", backward_name="CompiledFunctionBackward")

    def run(self, leaves, captures):
        """The output tensors of one replay (in ``outputs`` order), from the function's
        flattened arguments and the capture getters; None where the call needs gradients that
        only the eager ops can give."""
        record = self.differentiable and grad_mode._state.enabled
        if self.direct and not record and len(leaves) == self.direct:
            return self.kernels[0](leaves)
        values = [None] * len(self.graph.dtypes)
        for v, i in self.arg_leaves:
            values[v] = leaves[i]
        for v, get in zip(self.capture_leaves, captures):
            values[v] = get()
        if record:
            inputs = [values[v] for v in self.leaf_values]
            record = tape.should_record(inputs)
            if record and self.backward is None:
                return None
        for k in self.kernels:
            for v, t in zip(k.outputs, k([values[x] for x in k.leaves])):
                values[v] = t
        outs = [values[v] for v in self.outputs]
        if record:
            grads = [t for v, t in zip(self.outputs, outs) if self.requires_grad[v]]
            tape.record(self.op, inputs, grads[0], outputs=grads)
        return outs


class Backward:
    """The graph's VJP, traced: for each input that needs a gradient, the values whose sum
    (after summing each down to the input's shape, as the engine does) is its gradient."""

    def __init__(self, graph, tracer, program):
        self.graph = graph
        self.program = program
        fwd_nodes = list(graph.nodes)
        self.cot_values = []
        grads = {}
        self.leaf_strides = {v: tracer.tensors[v]._strides for v in program.leaf_values}
        tracer.grad_enabled = False
        tracer.fullgraph = False
        with no_grad():
            for v in program.outputs:
                if program.requires_grad[v]:
                    g = ones(graph.shapes[v], dtype=graph.dtypes[v])
                    cv = tracer.add_leaf(g, ("cot", len(self.cot_values)))
                    self.cot_values.append(cv)
                    grads[v] = g
            contribs = {v: [] for v in program.leaf_values if tracer.tensors[v]._requires_grad}
            with tracer:
                for node in reversed(fwd_nodes):
                    g = grads.pop(node.out, None)
                    if g is None:
                        continue
                    args = [a.value if a.__class__ is Const else tracer.tensors[a] for a in node.args]
                    ans = tracer.tensors[node.out]
                    for i, a in enumerate(node.args):
                        if a.__class__ is Const or not tracer.tensors[a]._requires_grad:
                            continue
                        rule = node.op.vjp[i]
                        if rule is None:
                            continue
                        c = rule(g, ans, *args)
                        if tracer.broken is not None:
                            raise BackwardUntraceable(tracer.broken)
                        if c is None:
                            continue
                        c = self._cast(tracer, c, args[i].dtype)
                        if a in contribs:
                            contribs[a].append(c)
                        elif c._shape != args[i]._shape:
                            raise BackwardUntraceable("a broadcast intermediate's gradient needs a reduction")
                        else:
                            prev = grads.get(a)
                            grads[a] = c if prev is None else prev + c
                # An input whose contributions all have its shape sums them in the kernel.
                for v, cs in contribs.items():
                    if cs and all(c._shape == graph.shapes[v] for c in cs):
                        acc = cs[0]
                        for c in cs[1:]:
                            acc = acc + c
                        contribs[v] = [acc]
                if tracer.broken is not None:
                    raise BackwardUntraceable(tracer.broken)
        self.contribs = {v: [tracer.known[id(c)] for c in cs] for v, cs in contribs.items()}
        self.values = [c for cs in self.contribs.values() for c in cs]
        self.strides = [tracer.tensors[c]._strides if tracer.tensors[c].is_contiguous() else
                        contiguous_strides(graph.shapes[c]) for c in self.values]
        self.kernels: dict = {}

    @staticmethod
    def _cast(tracer, c, dtype):
        """Contribution ``c`` in the input's dtype, as the engine casts it."""
        if c.__class__ in (bool, int, float):
            raise BackwardUntraceable("a VJP rule returned a Python number")
        if id(c) not in tracer.known:
            raise BackwardUntraceable("a VJP rule used an op the compiler does not trace")
        return c if c.dtype is dtype else tracer.cast(c, dtype)

    def _kernels_for(self, cot_tensors):
        key = tuple((t._strides, t.dtype) for t in cot_tensors)
        ks = self.kernels.get(key)
        if ks is None:
            strides = dict(self.leaf_strides)
            strides.update({v: t._strides for v, t in zip(self.cot_values, cot_tensors)})
            ks = []
            for vs, ss in _groups(self.graph, self.values, self.strides):
                leaves = _leaves_of(self.graph, vs)
                ks.append(Kernel(self.graph, vs, ss, leaves, [strides[v] for v in leaves]))
            self.kernels[key] = ks
        return ks

    def vjp(self, g, inputs, needs) -> list:
        """The node's joint rule: each input's cotangent (None where not ``needs``)."""
        cots = list(g) if g.__class__ is tuple else [g]
        values = dict(zip(self.program.leaf_values, inputs))
        values.update(zip(self.cot_values, cots))
        if grad_mode._state.enabled or any(t.dtype is not self.graph.dtypes[v]
                                           for t, v in zip(cots, self.cot_values)):
            self._interpret(values)
        else:
            for k in self._kernels_for(cots):
                for v, t in zip(k.outputs, k([values[x] for x in k.leaves])):
                    values[v] = t
        out = []
        for v, x, wanted in zip(self.program.leaf_values, inputs, needs):
            cs = self.contribs.get(v)
            if not wanted or not cs:
                out.append(None)
                continue
            acc = None
            for c in cs:
                t = values[c]
                if t._shape != x._shape:
                    t = sum_to(t, x._shape)
                acc = t if acc is None else acc + t
            out.append(acc)
        return out

    def _interpret(self, values):
        """The backward graph run op by op (differentiable, for ``create_graph=True``)."""
        for node in self.graph.cone(self.values):
            if node.out in values:
                continue
            args = [a.value if a.__class__ is Const else values[a] for a in node.args]
            values[node.out] = args[0].to(node.compute) if node.op is None else \
                registry.run_elementwise(node.op, tuple(args))

