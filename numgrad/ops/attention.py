"""Fused scaled dot product attention: one kernel forward (online softmax over key blocks, keeping
each row's log-sum-exp) and one kernel backward that recomputes the scores block by block and
yields the gradients of q, k and v together: the op's joint VJP rule.

Kernels are in ``backends/cpu/attention.py``.
"""
from __future__ import annotations

from math import prod

from .. import dtypes
from ..autograd import tape
from ..backends.cpu import blas
from ..tensor import Tensor
from .records import not_implemented, primitive
from ..backends.cpu.attention import flash_attention, flash_attention_backward

__all__: list = []

_FORWARD = "_scaled_dot_product_flash_attention_for_cpu"


def _array(x):
    """The elements of tensor ``x`` as a C-contiguous array of its shape."""
    x = x.contiguous()
    return x._storage.data[x._offset:x._offset + x.numel()].reshape(x._shape)


def _rows(x, n: int):
    """The elements of tensor ``x`` (..., A, B) as a C-contiguous array (n, A, B)."""
    return _array(x).reshape((n,) + tuple(x._shape[-2:]))


def _flash_vjp(g, ans, query, key, value, *, needs, mask, lse, scale, causal, has_mask, heads):
    n = lse.shape[0]
    grads = tuple(Tensor._empty(x._shape, x.dtype, x.device) for x in (query, key, value))
    if n and lse.shape[1] and key.shape[-2]:
        flash_attention_backward(*[_rows(d, n) for d in grads], _rows(g, n), _rows(ans, n), _array(lse),
                                 _rows(query, n), _rows(key, n), _rows(value, n), _array(mask),
                                 scale, causal, has_mask, heads)
    else:
        for d in grads:
            d.zero_()
    if tape.should_record((g, ans, query, key, value)):
        # Recorded for create_graph: this node refuses a second differentiation, as PyTorch's does.
        tape.record(_flash_backward, (g, ans, query, key, value), grads[0], outputs=grads)
    return grads


_flash = primitive(_FORWARD, 3, vjp_all=_flash_vjp, kind="kernel",
                   backward_name="ScaledDotProductFlashAttentionForCpuBackward0")
_flash_backward = primitive(_FORWARD + "_backward", 5, kind="kernel", **not_implemented(_FORWARD + "_backward", 5))


def fused_attention_supported(query) -> bool:
    """True if the fused kernels can compute attention on ``query``'s dtype and device."""
    return query.dtype in (dtypes.float32, dtypes.float64) and query.device.type == "cpu" and blas.available()


def fused_attention(query, key, value, mask, scale: float, causal: bool, heads: int):
    """Attention of ``query`` (..., L, E) over ``key`` (..., S, E) and ``value`` (..., S, Ev), all of
    one batch shape, with an additive float ``mask`` (M1, M2, Lm, Sm) (None for none) broadcast
    over the pairs n = (n // heads, n % heads) of the flattened batch; ``causal`` masks key
    j > query i. Returns (..., L, Ev), with one node whose rule yields all three gradients."""
    batch = tuple(query.shape[:-2])
    n = prod(batch)
    L, Ev = query.shape[-2], value.shape[-1]
    has_mask = mask is not None
    mask = tape.plain(mask) if has_mask else query.new_zeros((1, 1, 1, 1))
    q, k, v = tape.plain(query), tape.plain(key), tape.plain(value)
    out = Tensor._empty(batch + (L, Ev), query.dtype, query.device)
    lse = Tensor._empty((n, L), query.dtype, query.device)
    if out.numel():
        flash_attention(_rows(out, n), lse._storage.data.reshape(n, L), _rows(q, n), _rows(k, n), _rows(v, n),
                        _array(mask), float(scale), bool(causal), has_mask, int(heads))
    params = {"mask": mask, "lse": lse, "scale": float(scale), "causal": bool(causal), "has_mask": has_mask,
              "heads": int(heads)}
    return tape.record_result(_flash, (query, key, value), out, params)
