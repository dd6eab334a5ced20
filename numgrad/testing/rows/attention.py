"""The table's rows for the attention functions of numgrad.nn.functional."""
import math

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg


def _np_sdpa(q, k, v, attn_mask=None, is_causal=False, scale=None):
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    L, S = scores.shape[-2:]
    if is_causal:
        attn_mask = np.tril(np.ones((L, S), bool))
    if attn_mask is not None:
        scores = np.where(attn_mask, scores, -np.inf) if attn_mask.dtype == np.bool_ else scores + attn_mask
    top = scores.max(-1, keepdims=True)
    dead = np.isneginf(top)
    e = np.exp(scores - np.where(dead, 0.0, top))
    weights = np.where(dead, 0.0, e / np.where(dead, 1.0, e.sum(-1, keepdims=True)))
    return weights @ v


def _sample_sdpa(dtype, rng):
    def arr(*shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arr(2, 3, 4), arr(2, 5, 4), arr(2, 5, 3)))
    yield SampleInput((arr(2, 2, 4, 3), arr(2, 2, 4, 3), arr(2, 2, 4, 2)), {"is_causal": True})
    yield SampleInput((arr(2, 3, 4), arr(2, 5, 4), arr(2, 5, 3), rng.random((3, 5)) > 0.3))
    yield SampleInput((arr(2, 1, 3, 4), arr(2, 5, 4), arr(2, 5, 3), arr(2, 1, 3, 5)), {"scale": 0.5},
                      broadcasts=True)
    yield SampleInput((arr(0, 3, 4), arr(0, 5, 4), arr(0, 5, 3)))


def _np_mha(query, key, value, embed_dim, num_heads, w, b, bias_k, bias_v, add_zero_attn, dropout_p, w_out, b_out,
            need_weights=True):
    L, N, E = query.shape
    d = E // num_heads

    def heads(x, wi, bi):
        x = x @ wi.T + bi
        return x.reshape(x.shape[0], N * num_heads, d).transpose(1, 0, 2)
    (wq, wk, wv), (bq, bk, bv) = np.split(w, 3), np.split(b, 3)
    out = _np_sdpa(heads(query, wq, bq), heads(key, wk, bk), heads(value, wv, bv))
    return out.transpose(1, 0, 2).reshape(L, N, E) @ w_out.T + b_out


def _multi_head_attention_output(*args, **kwargs):
    """multi_head_attention_forward's output alone (its weights are checked in tests/test_attention.py)."""
    return numgrad.nn.functional.multi_head_attention_forward(*args, **kwargs)[0]


def _sample_mha(dtype, rng):
    def arr(*shape):
        return _arg(shape, dtype, rng, (None, None))
    E, H = 4, 2
    for L, S, kwargs in ((3, 5, {}), (2, 2, {"need_weights": False})):
        yield SampleInput((arr(L, 2, E), arr(S, 2, E), arr(S, 2, E), E, H, arr(3 * E, E), arr(3 * E), None, None,
                           False, 0.0, arr(E, E), arr(E)), kwargs)


_F = numgrad.nn.functional
ROWS = [
    OpInfo("scaled_dot_product_attention", _F.scaled_dot_product_attention, _np_sdpa, _sample_sdpa, FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, supports_gradgrad=False, torch_name=None,
           kind="reduction", tolerances={"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("multi_head_attention_forward", _multi_head_attention_output, _np_mha, _sample_mha, FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, supports_gradgrad=False, torch_name=None,
           kind="reduction", tolerances={"float16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
]
