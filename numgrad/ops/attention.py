"""Fused scaled dot product attention: one kernel forward (online softmax over key blocks, keeping
each row's log-sum-exp) and one kernel backward that recomputes the scores block by block.

q, k and v enter the kernel packed row by row into one tensor (N, L*E + S*E + S*Ev), so that one
rule returns all three gradients from one backward kernel; the result packs the output with the
log-sum-exp (N, L*Ev + L), whose part of the cotangent is ignored: it is only read by the backward.
Kernels are in ``backends/cpu/attention.py``; CUDA tensors run them on host copies.
"""
from __future__ import annotations

from .. import dtypes
from ..backends.cpu import blas
from .kernel_ops import HOST, Call, apply, kernel_op
from .movement import cat
from .registry import not_implemented

__all__: list = []


def _prepare_forward(qkv, mask, L, S, E, Ev, scale, causal, has_mask, heads):
    params = {"L": L, "S": S, "E": E, "Ev": Ev, "scale": scale, "causal": causal, "has_mask": has_mask,
              "heads": heads}
    return Call((qkv.shape[0], L * Ev + L), qkv.dtype, params)


def _prepare_backward(grad, ans, qkv, mask, **params):
    return Call(tuple(qkv.shape), qkv.dtype, params)


def _flash_vjp(g, ans, qkv, mask, **params):
    return apply(_flash_backward, (g, ans, qkv, mask), params)


_flash = kernel_op(
    "_scaled_dot_product_flash_attention_for_cpu", 2, prepare=_prepare_forward,
    backward_name="ScaledDotProductFlashAttentionForCpuBackward0",
    kernels={"cpu": "cpu.attention.flash_attention", "cuda": HOST},
    vjp=(_flash_vjp, None))
_flash_backward = kernel_op(
    "_scaled_dot_product_flash_attention_for_cpu_backward", 4, prepare=_prepare_backward,
    kernels={"cpu": "cpu.attention.flash_attention_backward", "cuda": HOST},
    **not_implemented("_scaled_dot_product_flash_attention_for_cpu_backward", 4))


def fused_attention_supported(query) -> bool:
    """True if the fused kernels can compute attention on ``query``'s dtype and device."""
    return query.dtype in (dtypes.float32, dtypes.float64) and query.device.type == "cpu" and blas.available()


def fused_attention(query, key, value, mask, scale: float, causal: bool, heads: int):
    """Attention of ``query`` (N, L, E) over ``key`` (N, S, E) and ``value`` (N, S, Ev), with an
    additive float ``mask`` (M1, M2, Lm, Sm) (None for none) broadcast over the pairs
    n = (n // heads, n % heads); ``causal`` masks key j > query i. Returns (N, L, Ev)."""
    N, L, E = query.shape
    S, Ev = key.shape[1], value.shape[2]
    qkv = cat([query.reshape(N, L * E), key.reshape(N, S * E), value.reshape(N, S * Ev)], 1)
    has_mask = mask is not None
    if not has_mask:
        mask = query.new_zeros((1, 1, 1, 1))
    params = {"L": L, "S": S, "E": E, "Ev": Ev, "scale": float(scale), "causal": bool(causal),
              "has_mask": has_mask, "heads": int(heads)}
    packed = apply(_flash, (qkv, mask), params)
    return packed[:, :L * Ev].reshape(N, L, Ev)
