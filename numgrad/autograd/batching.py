"""JVP rules for tangents that carry a leading batch dim of B directions.

Elementwise rules batch for free: each input's tangent is padded to the result's rank so the
batch dim broadcasts against the (unbatched) primals. Ops that move dims or reduce get a
batched rule here, keyed by op name; an op without one falls back to one call per direction.
"""
from __future__ import annotations


def _shift(dims):
    return tuple(d + 1 for d in dims)


def _reduce_mask(t, ans, x, dims, keepdim):
    from ..ops.reductions import _unreduce, sum
    mask = x == _unreduce(ans, x, dims, keepdim)
    return sum(t * mask, _shift(dims), keepdim) / sum(mask, dims, keepdim)


def _prod(t, ans, x, dims, keepdim, dtype):
    from ..creation import ones_like
    from ..ops.reductions import _prod_vjp, sum
    return sum(t * _prod_vjp(ones_like(ans), ans, x, dims, keepdim), _shift(dims), keepdim)


def _expand(t, ans, x, shape):
    lead = len(shape) - x.ndim
    if lead:
        t = t.reshape((t.shape[0],) + (1,) * lead + tuple(x.shape))
    return t.expand((t.shape[0],) + tuple(shape))


def _slice(t, ans, x, dim, start, length, step):
    from ..ops.views import _slice as slice_view
    return slice_view(t, dim + 1, start, length, step)


def _copy_into(t, ans, x, src):
    b = t.shape[0]
    t = t.reshape((b,) + (1,) * (x.ndim - src.ndim) + tuple(src.shape))
    return t.to(x.dtype).expand((b,) + tuple(x.shape))


# op name -> rule(t, ans, *inputs, **params) per input, for tangents with a leading batch dim
BATCHED_JVP = {
    "view": (lambda t, ans, x, shape: t.reshape((t.shape[0],) + tuple(shape)),),
    "expand": (_expand,),
    "permute": (lambda t, ans, x, dims: t.permute((0,) + _shift(dims)),),
    "transpose": (lambda t, ans, x, dim0, dim1: t.transpose(dim0 + 1, dim1 + 1),),
    "unsqueeze": (lambda t, ans, x, dim: t.unsqueeze(dim + 1),),
    "squeeze": (lambda t, ans, x, dims: t.reshape((t.shape[0],) + tuple(ans.shape)),),
    "select": (lambda t, ans, x, dim, index: t.select(dim + 1, index),),
    "slice": (_slice,),
    "diagonal": (lambda t, ans, x, offset, dim1, dim2: t.diagonal(offset, dim1 + 1, dim2 + 1),),
    "sum": (lambda t, ans, x, dims, keepdim, dtype: t.sum(_shift(dims), keepdim, dtype=dtype),),
    "prod": (_prod,),
    "amax": (lambda t, ans, x, dims, keepdim, dtype: _reduce_mask(t, ans, x, dims, keepdim),),
    "amin": (lambda t, ans, x, dims, keepdim, dtype: _reduce_mask(t, ans, x, dims, keepdim),),
    "clone": (lambda t, ans, x: t,),
    "to_device": (lambda t, ans, x, device: t.to(device),),
    "copy_": (None, _copy_into),
    # matmul broadcasts a leading batch dim of either factor, so the plain rules batch as they are
    "mm": (lambda t, ans, a, b: t.matmul(b), lambda t, ans, a, b: a.matmul(t)),
    "bmm": (lambda t, ans, a, b: t.matmul(b), lambda t, ans, a, b: a.matmul(t)),
    "dot": (lambda t, ans, a, b: t.matmul(b), lambda t, ans, a, b: t.matmul(a)),
}
# A reshape's alias and its view of a copy batch as the view does.
BATCHED_JVP["reshape_alias"] = BATCHED_JVP["unsafe_view"] = BATCHED_JVP["view"]


def register_batched_jvp(name: str, rules: tuple) -> None:
    """Give op ``name`` batched JVP rules (one per input; ``None`` where no tangent flows)."""
    BATCHED_JVP[name] = tuple(rules)


def batched_jvp(op, tangents, result, primals, params):
    """The result's batched tangent: the sum of each input's batched contribution."""
    from .forward_ad import _primal
    ans = _primal(result)
    rules = BATCHED_JVP.get(op.name)
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
    import numgrad
    if hasattr(numgrad, "stack"):
        return numgrad.stack(rows, 0)
    from ..creation import zeros
    dtype = rows[0].dtype
    for r in rows[1:]:
        dtype = numgrad.promote_types(dtype, r.dtype)
    out = zeros((len(rows),) + tuple(rows[0].shape), dtype=dtype, device=rows[0].device)
    for k, r in enumerate(rows):
        out[k] = r
    return out
