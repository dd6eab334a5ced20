"""JVP rules for tangents that carry a leading batch dim of B directions.

Elementwise rules batch for free: each input's tangent is padded to the result's rank so the
batch dim broadcasts against the (unbatched) primals. Ops that move dims or reduce declare a
batched rule in their record (``batched_jvp``); any other op falls back to one call per direction.
"""
from __future__ import annotations


def batched_jvp(op, tangents, result, primals, params):
    """The result's batched tangent: the sum of each input's batched contribution."""
    from .forward_ad import _primal
    ans = _primal(result)
    rules = op.batched_jvp or None
    elementwise = op.kind == "elementwise" and rules is None
    total = None
    for i, t in enumerate(tangents):
        if t is None or op.jvp[i] is None:
            continue
        if elementwise:
            pad = result.ndim - (t.ndim - 1)
            if pad:
                t = t.reshape((t.shape[0],) + (1,) * pad + tuple(t.shape[1:]))
            contrib = op.jvp[i](t, ans, *primals, **params)
        elif rules is not None:
            contrib = rules[i](t, ans, *primals, **params) if rules[i] is not None else None
        else:
            contrib = _per_direction(op.jvp[i], t, ans, primals, params)
        if contrib is None:
            continue
        total = contrib if total is None else total + contrib
    return total


def _per_direction(rule, t, ans, primals, params):
    """Fallback for ops without a batched rule: apply the plain rule to each direction."""
    return stack_rows([rule(t[b], ans, *primals, **params) for b in range(t.shape[0])])


def stack_rows(rows):
    """``rows`` stacked along a new leading dim, differentiably (in both modes)."""
    from ..ops.movement import stack
    return stack(rows, 0)
