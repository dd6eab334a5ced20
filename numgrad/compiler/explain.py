"""``numgrad.compiler.explain``: what a function's trace becomes, without caching it."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..batched.pytree import tree_flatten
from .compiled import trace


@dataclass
class ExplainOutput:
    """The outcome of one trace: graphs (0 or 1), the break reasons, the ops of the graph and
    the fused kernels it compiles to (forward, then backward)."""
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list = field(default_factory=list)
    ops_per_graph: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    backward: str = ""

    def __str__(self):
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {sum(len(ops) for ops in self.ops_per_graph)}"]
        if self.break_reasons:
            lines.append("Break Reasons:")
            lines += [f"  {r}" for r in self.break_reasons]
        for ops in self.ops_per_graph:
            lines.append("Ops: " + ", ".join(ops))
        if self.kernels:
            lines.append("Fused kernels: " + "; ".join(self.kernels))
        if self.backward:
            lines.append(f"Backward: {self.backward}")
        return "\n".join(lines)


def explain(fn, *args, **kwargs) -> ExplainOutput:
    """explain(fn, *args, **kwargs) -> ExplainOutput

    Trace ``fn(*args, **kwargs)`` as :func:`numgrad.compile` would (the call runs once, eagerly)
    and report the graph, where the trace broke and why, and the fused kernels."""
    fn = getattr(fn, "__wrapped__", fn)
    leaves, _ = tree_flatten((args, kwargs))
    _, entry = trace(fn, args, kwargs, leaves, False)
    if entry.program is None:
        return ExplainOutput(0, 1, [entry.reason])
    p = entry.program
    fwd = p.graph.nodes[:p.forward_nodes]
    out = ExplainOutput(1, 0, [], [[n.op.name if n.op is not None else f"to({n.compute})" for n in fwd]])
    out.kernels = [f"{len(k.outputs)} output(s) over {list(k.shape)} from {len(k.leaves)} input(s)"
                   for k in p.kernels]
    if p.backward is not None:
        out.backward = "fused, one node (CompiledFunctionBackward)"
    elif p.backward_reason is not None:
        out.backward = f"eager ({p.backward_reason})"
    return out
