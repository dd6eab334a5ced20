"""The op record: one per op, holding everything the library knows of it, and the helpers
that declare records.

An op is declared once: its math (a scalar function for elementwise ops), a VJP rule and a
JVP rule per input, and its dtype policy. Kernels are generated from the math, the autograd
tape replays the VJP rules, forward mode applies the JVP rules, and the op table in
``numgrad.testing`` checks all three against references. This module sits below every other
layer (it imports nothing from numgrad), so the tape and the backends read records too.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional


OPS: dict = {}


def get_op(name: str) -> "Op":
    return OPS[name]


@dataclass(eq=False)
class Op:
    """One differentiable primitive.

    ``vjp[i](g, ans, *inputs, **params)`` returns the cotangent of input ``i``; ``jvp[i](t,
    ans, *inputs, **params)`` the tangent of the result contributed by input ``i``'s tangent
    ``t``. A ``None`` rule marks an input through which no derivative flows.

    An op whose cotangents come from one computation declares a joint rule instead,
    ``vjp_all(g, ans, *inputs, needs=..., **params)``, returning one cotangent (or None) per
    input; ``needs[i]`` says whether input ``i``'s cotangent is wanted.
    """

    name: str
    nin: int
    math: Optional[Callable] = None
    vjp: tuple = ()
    jvp: tuple = ()
    vjp_all: Optional[Callable] = None
    # vectorized forward mode: per input, the JVP rule for tangents with a leading batch dim
    batched_jvp: tuple = ()
    result: str = "promote"            # dtype policy: promote | float | floating | bool | bool_long | integral | same
    backward_name: str = ""
    # The profiler's name for a call: PyTorch's, "aten::<name>" unless given.
    event: str = ""
    # PyTorch names a node per overload (SumBackward0 for a full sum, SumBackward1 over dims):
    # variant -> name; elementwise variants are the operand kinds, 't' tensor, 's' scalar ("st").
    variants: dict = field(default_factory=dict)
    kind: str = "elementwise"
    differentiable: bool = True
    bool_ok: bool = True               # may bool tensors be computed in their own dtype?
    # Kernels inline ``math`` in Numba's IR: LLVM leaves a body past its inlining threshold a
    # call, which keeps the kernel's loop from vectorizing.
    inline_math: bool = False
    combine: Optional[Callable] = None    # reductions: acc = combine(acc, x)
    # kernel ops (see ops/kernel_ops.py): argument checks -> Call, and the kernel per device type
    prepare: Optional[Callable] = None
    kernels: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def __repr__(self):
        return f"<op {self.name}>"


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def register(op: Op) -> Op:
    if op.name in OPS:
        raise ValueError(f"op {op.name} declared twice")
    if op.vjp_all is not None:
        op.vjp = tuple(_one_of(op.vjp_all, i, op.nin) for i in range(op.nin))
    if not op.backward_name:
        op.backward_name = _camel(op.name) + "Backward0"
    if not op.event:
        op.event = "aten::" + op.name
    OPS[op.name] = op
    return op


def _one_of(vjp_all, i: int, nin: int):
    """Input ``i``'s rule taken from a joint rule, for callers that ask for one cotangent."""
    needs = tuple(k == i for k in range(nin))
    return lambda g, *args, **params: vjp_all(g, *args, needs=needs, **params)[i]


def _from_local_derivatives(d):
    """VJP and JVP rules from local derivatives ``d_i(ans, *inputs)``: g * d and t * d."""
    vjp = tuple(None if di is None else _tagged(lambda g, ans, *xs, _d=di: g * _d(ans, *xs), di) for di in d)
    jvp = tuple(None if di is None else (lambda t, ans, *xs, _d=di: t * _d(ans, *xs)) for di in d)
    return vjp, jvp


def _tagged(rule, d):
    # The tape saves for this rule exactly what ``d`` reads (see autograd.saving.saved_args).
    rule._derivative = d
    return rule


def elementwise(name: str, math: Callable, *, nin: int = 1, d=None, vjp=None, jvp=None,
                result: str = "promote", differentiable: bool = True, bool_ok: bool = True,
                backward_name: str = "", variants=None, event: str = "", inline_math: bool = False) -> Op:
    """Declare an elementwise op from its scalar ``math``.

    Give either ``d`` (the local derivative per input, from which both rules follow) or explicit
    ``vjp``/``jvp`` tuples. ``result`` says how the compute dtype follows from the inputs:
    ``promote`` (PyTorch's result_type), ``float`` (integers promote to the default float),
    ``floating`` (floating inputs only),
    ``bool`` (compute promoted, return bool), ``bool_long`` (promote, but bool computes in int64,
    as ``pow(x, 2)`` does) or ``integral`` (bool and integer dtypes only). ``inline_math``
    inlines a long vectorizable body into the kernels' loops (see :class:`Op`).
    """
    if d is not None:
        if not isinstance(d, tuple):
            d = (d,)
        vjp, jvp = _from_local_derivatives(d)
    if not differentiable:
        vjp = jvp = (None,) * nin
    return register(Op(name=name, nin=nin, math=math, vjp=tuple(vjp or (None,) * nin),
                       jvp=tuple(jvp or (None,) * nin), result=result,
                       differentiable=differentiable and any(r is not None for r in (vjp or ())),
                       bool_ok=bool_ok, backward_name=backward_name, variants=variants or {}, event=event,
                       inline_math=inline_math))


def not_implemented(name: str, nin: int) -> dict:
    """Rules of an op PyTorch records but cannot differentiate (pass them to a declaration as
    ``**not_implemented(...)``): its node, named NotImplemented, raises once the backward pass
    reaches it, and forward mode refuses at once."""
    def vjp(*args, **params):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    def jvp(*args, **params):
        raise NotImplementedError(f"Trying to use forward AD with aten::{name} that does not support it.")
    return {"vjp": (vjp,) * nin, "jvp": (jvp,) * nin, "backward_name": "NotImplemented"}


def primitive(name: str, nin: int, *, vjp=(), jvp=(), batched_jvp=(), vjp_all=None, kind: str = "composite",
              differentiable: bool = True, backward_name: str = "", variants=None) -> Op:
    """Declare a non-elementwise op (a reduction, a view, a data movement): rules only; the
    forward lives in the function that calls :func:`record`. ``vjp_all`` is a joint rule, given
    instead of ``vjp`` (see :class:`Op`)."""
    return register(Op(name=name, nin=nin, vjp=tuple(vjp), jvp=tuple(jvp), batched_jvp=tuple(batched_jvp),
                       vjp_all=vjp_all,
                       kind=kind, differentiable=differentiable,
                       backward_name=backward_name, variants=variants or {}))


def reduction(name: str, combine: Callable, *, vjp=(), jvp=(), batched_jvp=(), reassoc: bool = False,
              ieee: str = "", differentiable: bool = True, backward_name: str = "", variants=None) -> Op:
    """Declare a reduction from its ``combine(acc, x)`` body; ``reassoc`` lets the compiler
    reorder the accumulation (sums) for vectorization; ``ieee`` names the IEEE 754-2019
    operation the body computes on floats ("maximum", "minimum"), which a backend may run as
    an instruction instead."""
    return register(Op(name=name, nin=1, combine=combine, vjp=tuple(vjp), jvp=tuple(jvp),
                       batched_jvp=tuple(batched_jvp), kind="reduction", differentiable=differentiable,
                       backward_name=backward_name, variants=variants or {},
                       extra={"reassoc": reassoc, "ieee": ieee}))
