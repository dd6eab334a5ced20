"""Forward-mode AD: dual tensors whose tangents flow through every op's JVP rule."""
from __future__ import annotations

from . import tape


def propagate(op, inputs, result, params=None):
    """Give ``result`` the tangent ``sum_i jvp_i(t_i, result, *inputs)``."""
    params = params or {}
    total = None
    primal_inputs = tuple(_primal(x) for x in inputs)
    for rule, x in zip(op.jvp, inputs):
        t = getattr(x, "_fw_tangent", None)
        if t is None or rule is None:
            continue
        contrib = rule(t, _primal(result), *primal_inputs, **params)
        total = contrib if total is None else total + contrib
    if total is not None:
        if total._shape != result._shape:
            total = total.expand(result._shape)
        result._fw_tangent = total


def _primal(x):
    if hasattr(x, "_fw_tangent") and x._fw_tangent is not None:
        p = x._view(x._shape, x._strides)
        p.requires_grad = x.requires_grad
        p.grad_fn = x.grad_fn
        p._output_nr = x._output_nr
        return p
    return x
