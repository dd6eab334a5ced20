"""Attention: scaled_dot_product_attention (a fused kernel or its composite) and the multi-head
attention forward behind nn.MultiheadAttention."""
from __future__ import annotations

import math

from ... import dtypes
from ...autograd import tape
from ...creation import ones, zeros
from ...ops.movement import cat as _cat
from ...ops.attention import fused_attention, fused_attention_supported
from ...ops.nn import softmax as _softmax
from ...dtypes import torch_type_name
from ...shapes import broadcast_shapes, prod
from .common import dropout as _dropout, linear
from .padding import pad
from ...autograd.profiler import op_event

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal):
    if not query.dtype is key.dtype is value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{dtypes.C_NAMES[query.dtype]} key.dtype: {dtypes.C_NAMES[key.dtype]} and value.dtype: "
            f"{dtypes.C_NAMES[value.dtype]} instead.")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {torch_type_name(query.dtype)}")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must have at least 2 dimensions")
    if attn_mask is not None:
        if attn_mask.dtype is not dtypes.bool and attn_mask.dtype is not query.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{dtypes.C_NAMES[attn_mask.dtype]} and  query.dtype: {dtypes.C_NAMES[query.dtype]} instead.")
        if attn_mask.ndim < 2:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _repeat_kv(query, key, value):
    """Grouped-query attention: each of key's and value's heads (dim -3) serves a group of query heads."""
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in query")
    return key.repeat_interleave(hq // hk, -3), value.repeat_interleave(hq // hv, -3)


def _additive(mask, dtype):
    """A float mask to add to the scores: a bool ``mask`` (True = take part) gives 0 and -inf."""
    if mask.dtype is not dtypes.bool:
        return mask
    return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask.logical_not(), -math.inf)


def _composite(query, key, value, attn_mask, dropout_p, is_causal, scale):
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        attn_mask = ones(L, S, dtype=dtypes.bool, device=query.device).tril()
    scores = query.matmul(key.transpose(-2, -1)) * scale
    dead = None
    if attn_mask is not None:
        if attn_mask.dtype is dtypes.bool:
            dead = attn_mask.logical_not().all(-1, keepdim=True)
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
            dead = (scores == -math.inf).all(-1, keepdim=True)
        if not bool(dead.any()):
            dead = None
    if dead is not None:
        # A fully masked row attends to nothing: output and gradient 0 (softmax alone gives NaN).
        scores = scores.masked_fill(dead, 0.0)
    weights = _softmax(scores, -1)
    if dead is not None:
        weights = weights.masked_fill(dead, 0.0)
    if dropout_p > 0.0:
        weights = _dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _mask_blocks(mask, batch, L, S):
    """``mask`` broadcast to ``batch + (L, S)``, as (M1, M2, Lm, Sm): M2 over the last batch dim,
    M1 over the others together, each 1 or full, and Lm, Sm 1 or full."""
    full = tuple(batch) + (L, S)
    if broadcast_shapes(mask.shape, full) != full:
        raise RuntimeError(f"The size of attn_mask {list(mask.shape)} is not broadcastable to {list(full)}")
    mask = mask.reshape((1,) * (len(full) - mask.ndim) + tuple(mask.shape))
    lead, last = tuple(batch[:-1]), (batch[-1] if batch else 1)
    mlead = tuple(mask.shape[:len(lead)])
    if any(m != 1 for m in mlead) and mlead != lead:
        mask = mask.expand(lead + tuple(mask.shape[len(lead):]))
        mlead = lead
    m2 = mask.shape[-3] if batch else 1
    return mask.reshape(prod(mlead), m2, mask.shape[-2], mask.shape[-1]), last


def _fused(query, key, value, attn_mask, is_causal, scale):
    batch = broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    L, S = query.shape[-2], key.shape[-2]
    q, k, v = (x if tuple(x.shape[:-2]) == batch else x.expand(batch + tuple(x.shape[-2:]))
               for x in (query, key, value))
    mask, heads = None, (batch[-1] if batch else 1)
    if attn_mask is not None:
        mask, heads = _mask_blocks(_additive(attn_mask, query.dtype), batch, L, S)
    return fused_attention(q, k, v, mask, scale, is_causal, heads)


@op_event("aten::scaled_dot_product_attention", autocast="lower")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0, is_causal: bool = False,
                                 scale=None, enable_gqa: bool = False):
    """scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False) -> Tensor

    softmax(query @ key^T * scale + mask) @ value over the last two dims, batch dims broadcast.
    A bool ``attn_mask`` marks with True the pairs that take part; a float one is added to the
    scores. ``is_causal`` lets query i see keys 0..i. ``scale`` defaults to 1/sqrt(E).
    ``enable_gqa`` shares each key/value head among a group of query heads."""
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal)
    if query.dtype in dtypes.NARROW_FLOATING and query.device.type == "cpu":
        # As PyTorch's on the CPU: 16-bit floats attend in float32, rounded once at the end.
        wide = [None if x is None else x.float() if x.dtype is query.dtype else x
                for x in (query, key, value, attn_mask)]
        return _attend(*wide, dropout_p, is_causal, scale, enable_gqa).to(query.dtype)
    return _attend(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _attend(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    if enable_gqa and query.ndim >= 3:
        key, value = _repeat_kv(query, key, value)
    fused = (dropout_p == 0.0 and fused_attention_supported(query) and key.shape[-2] > 0
             and not (attn_mask is not None and attn_mask.requires_grad)
             and not tape.has_tangents((query, key, value, attn_mask)))
    if fused:
        return _fused(query, key, value, attn_mask, is_causal, scale)
    return _composite(query, key, value, attn_mask, dropout_p, is_causal, scale)


def _canonical_mask(mask, name: str, dtype):
    """``mask`` as a float mask to add (a bool mask's True marks what to leave out), or None."""
    if mask is None:
        return None
    if mask.dtype is dtypes.bool:
        return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, -math.inf)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (L, N, E) inputs, False for unbatched (L, E) ones; PyTorch's errors otherwise."""
    d = query.ndim
    if d not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {d}-D query tensor")
    batched = d == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != d or value.ndim != d:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {d}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != d - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {d - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                             f"but found {attn_mask.ndim}-D tensor instead")
    if not batched and attn_mask is not None and attn_mask.ndim == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}")
    return batched


def _project(query, key, value, w, b, separate):
    """The input projections: one packed (3E, E) weight, or ``separate`` (q, k, v) weights."""
    if separate is not None:
        bq, bk, bv = b.chunk(3) if b is not None else (None, None, None)
        wq, wk, wv = separate
        return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    E = query.shape[-1]
    if key is value and query is key:
        # Self-attention: one matmul for the three projections.
        q, k, v = linear(query, w, b).unflatten(-1, (3, E)).unbind(-2)
        return q, k, v
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = b.chunk(3) if b is not None else (None, None, None)
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len):
    """A 2-D (L, S) or 3-D (N * num_heads, L, S) mask as 3-D, its shape checked."""
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                               f"{(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
        raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                           f"{(bsz * num_heads, tgt_len, src_len)}.")
    return attn_mask


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True, is_causal=False) -> (Tensor, Optional[Tensor])

    Multi-head attention of (L, N, E) ``query`` over (S, N, E) ``key``/``value`` (or unbatched
    (L, E), (S, E)): returns the output and, if ``need_weights``, the attention weights
    (averaged over heads if ``average_attn_weights``)."""
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    self_attention = query is key and key is value
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                             f"{tuple(value.shape[:2])}")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                           "module method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # The causal hint replaces the mask (sdpa builds it).
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    if self_attention and separate is None:
        q, k, v = _project(query, query, query, in_proj_weight, in_proj_bias, None)
    else:
        q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, bsz, num_heads, tgt_len, src_len)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key." if static_k is not None
                                 else "bias cannot be added to static value.")
        k = _cat([k, bias_k.repeat(1, bsz, 1)])
        v = _cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_k is None
         else _static(static_k, "static_k", bsz, num_heads, head_dim))
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1) if static_v is None
         else _static(static_v, "static_v", bsz, num_heads, head_dim))
    if add_zero_attn:
        k = _cat([k, k.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        v = _cat([v, v.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        padding = (key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                   .reshape(bsz * num_heads, 1, src_len))
        attn_mask = padding if attn_mask is None else attn_mask + padding
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = (q * math.sqrt(1.0 / head_dim)).matmul(k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _softmax(scores, -1)
        if dropout_p > 0.0:
            weights = _dropout(weights, dropout_p, True)
        out = weights.matmul(v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1
                     else attn_mask.reshape(bsz, num_heads, -1, src_len))
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None


def _static(t, name, bsz, num_heads, head_dim):
    """A given (N * num_heads, S, head_dim) key or value, its shape checked."""
    if t.shape[0] != bsz * num_heads or t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads} and {name}.size(2) of {head_dim}, "
                             f"but got {t.shape[0]} and {t.shape[2]}")
    return t
