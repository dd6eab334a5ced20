"""scaled_dot_product_attention (fused kernel and composite), multi_head_attention_forward and
nn.MultiheadAttention against PyTorch: values, gradients, masks, errors, parameters."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F
from numgrad.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

DTYPES = {"float32": (np.float32, 2e-5), "float64": (np.float64, 1e-10)}


def _pair(shape, dtype, rng, requires_grad=True):
    a = rng.standard_normal(shape).astype(dtype)
    return (numgrad.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _close(ours, theirs, tol):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


def _run_sdpa(shapes, dtype, mask=None, grads=True, **kwargs):
    """Runs both libraries on the same random q, k, v (and mask); compares output and grads."""
    np_dtype, tol = DTYPES[dtype]
    rng = np.random.default_rng(0)
    (q, tq), (k, tk), (v, tv) = (_pair(s, np_dtype, rng) for s in shapes)
    m = tm = None
    if mask is not None:
        m, tm = numgrad.tensor(mask), torch.tensor(mask)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=m, **kwargs)
    tout = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kwargs)
    _close(out, tout, tol)
    if grads:
        g = rng.standard_normal(tout.shape).astype(np_dtype)
        out.backward(numgrad.tensor(g))
        tout.backward(torch.tensor(g))
        for a, b in ((q, tq), (k, tk), (v, tv)):
            _close(a.grad, b.grad, tol * 10)
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_values_and_grads(dtype, causal):
    _run_sdpa([(2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6)], dtype, is_causal=causal)


@pytest.mark.parametrize("L,S", [(9, 4), (4, 9)])
def test_sdpa_causal_is_top_left_aligned(L, S):
    _run_sdpa([(1, 2, L, 3), (1, 2, S, 3), (1, 2, S, 3)], "float64", is_causal=True)


@pytest.mark.parametrize("mask_shape", [(5, 7), (2, 1, 5, 7), (1, 3, 1, 7), (3, 5, 1), (1, 7)])
def test_sdpa_bool_mask_broadcasts(mask_shape):
    mask = np.random.default_rng(1).random(mask_shape) > 0.3
    _run_sdpa([(2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 4)], "float64", mask=mask)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sdpa_float_mask(dtype):
    np_dtype = DTYPES[dtype][0]
    mask = np.random.default_rng(2).standard_normal((2, 1, 5, 7)).astype(np_dtype)
    mask[0, 0, 1, 3] = -np.inf
    _run_sdpa([(2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 4)], dtype, mask=mask, scale=0.7)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_fully_masked_rows_give_zeros(kind):
    mask = np.ones((5, 7), bool)
    mask[2] = False
    if kind == "float":
        mask = np.where(mask, 0.0, -np.inf)
    out = _run_sdpa([(2, 5, 4), (2, 7, 4), (2, 7, 4)], "float64", mask=mask)
    assert (out[:, 2].detach().numpy() == 0).all()


def test_sdpa_float_mask_gradient():
    rng = np.random.default_rng(3)
    (q, tq), (k, tk), (v, tv), (m, tm) = (_pair(s, np.float64, rng) for s in [(2, 4, 3), (2, 5, 3), (2, 5, 2), (4, 5)])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    tout = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm)
    (out * out).sum().backward()
    (tout * tout).sum().backward()
    for a, b in ((out, tout), (m.grad, tm.grad), (q.grad, tq.grad)):
        _close(a, b, 1e-10)


def test_sdpa_batch_broadcast_and_2d():
    _run_sdpa([(2, 3, 5, 4), (1, 7, 4), (3, 7, 2)], "float64")
    _run_sdpa([(5, 4), (7, 4), (7, 2)], "float64")


def test_sdpa_gqa():
    _run_sdpa([(2, 6, 5, 4), (2, 2, 7, 4), (2, 2, 7, 4)], "float64", enable_gqa=True)
    _run_sdpa([(2, 6, 5, 4), (2, 3, 7, 4), (2, 3, 7, 4)], "float32", enable_gqa=True, is_causal=True)


def test_sdpa_non_contiguous():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 5, 3, 4))
    q, tq = numgrad.tensor(a).transpose(1, 2), torch.tensor(a).transpose(1, 2)
    k, tk = numgrad.tensor(a[:, :, :, ::-1].copy()).transpose(1, 2), torch.tensor(a[:, :, :, ::-1].copy()).transpose(1, 2)
    _close(F.scaled_dot_product_attention(q, k, k[..., :3]), TF.scaled_dot_product_attention(tq, tk, tk[..., :3]),
           1e-10)


def test_sdpa_empty_batch():
    out = _run_sdpa([(0, 2, 5, 4), (0, 2, 7, 4), (0, 2, 7, 3)], "float32")
    assert tuple(out.shape) == (0, 2, 5, 3)


def test_sdpa_node_name():
    q = numgrad.randn(1, 2, 3, 4, requires_grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    assert "ScaledDotProductFlashAttentionForCpuBackward0" in {out.grad_fn.name()} | {
        fn.name() for fn, _ in _walk(out.grad_fn)}


def _walk(fn, depth=3):
    found = []
    for nxt, i in getattr(fn, "next_functions", ()):
        if nxt is not None:
            found.append((nxt, i))
            if depth:
                found += _walk(nxt, depth - 1)
    return found


def test_sdpa_dropout_statistics():
    numgrad.manual_seed(0)
    q = numgrad.zeros(1, 1, 64, 4)
    v = numgrad.ones(1, 1, 64, 4)
    out = F.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    # Every weight is 1/64: kept ones scale to 2/64, so rows average about 1 with spread.
    assert abs(float(out.mean()) - 1.0) < 0.2 and float(out.std()) > 0.05


def test_sdpa_gradcheck_fused():
    rng = np.random.default_rng(5)
    q, k, v = (numgrad.tensor(rng.standard_normal(s), requires_grad=True) for s in [(2, 3, 2), (2, 4, 2), (2, 4, 3)])
    mask = numgrad.tensor(rng.random((3, 4)) > 0.2)
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c), (q, k, v))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask), (q, k, v))
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), (q, k, v))


def test_sdpa_long_sequence_fused_matches_composite():
    from numgrad.nn.functional.attention import _composite
    rng = np.random.default_rng(6)
    q, k, v = (numgrad.tensor(rng.standard_normal((1, 1024, 64)).astype(np.float32), requires_grad=True)
               for _ in range(3))
    g = numgrad.tensor(rng.standard_normal((1, 1024, 64)).astype(np.float32))
    fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    grads = numgrad.autograd.grad(fused, (q, k, v), g)
    plain = _composite(q, k, v, None, 0.0, True, 1.0 / 8)
    plain_grads = numgrad.autograd.grad(plain, (q, k, v), g)
    _close(fused, plain, 1e-5)
    for a, b in zip(grads, plain_grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4)


def test_sdpa_errors():
    q = numgrad.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=numgrad.ones(3, 3, dtype=numgrad.int64))
    with pytest.raises(RuntimeError, match="is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=numgrad.ones(3, 3, dtype=numgrad.bool), is_causal=True)


# ---------------------------------------------------------------------------- MultiheadAttention
def _mha_pair(seed=0, dtype="float32", **kwargs):
    numgrad.manual_seed(seed)
    torch.manual_seed(seed)
    return (numgrad.nn.MultiheadAttention(**kwargs, dtype=getattr(numgrad, dtype)),
            torch.nn.MultiheadAttention(**kwargs, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("kwargs", [
    dict(embed_dim=8, num_heads=2),
    dict(embed_dim=8, num_heads=2, bias=False),
    dict(embed_dim=8, num_heads=4, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True),
])
def test_mha_parameters_and_init(kwargs):
    m, t = _mha_pair(**kwargs)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert list(m.state_dict()) == list(t.state_dict())
    for (n, p), (_, tp) in zip(m.named_parameters(), t.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy(), err_msg=n)


def _mha_check(m, t, inputs, tol, **kwargs):
    ours = m(*[numgrad.tensor(a, requires_grad=True) for a in inputs], **_masks(kwargs, numgrad))
    theirs = t(*[torch.tensor(a, requires_grad=True) for a in inputs], **_masks(kwargs, torch))
    _close(ours[0], theirs[0], tol)
    if theirs[1] is None:
        assert ours[1] is None
    else:
        _close(ours[1], theirs[1], tol)
    ours[0].square().sum().backward()
    theirs[0].square().sum().backward()
    for (n, p), (_, tp) in zip(m.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=tol * 10, atol=tol * 10, err_msg=n)


def _masks(kwargs, lib):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_self_attention(dtype, need_weights, average):
    np_dtype, tol = DTYPES[dtype]
    m, t = _mha_pair(embed_dim=8, num_heads=2, dtype=dtype)
    x = np.random.default_rng(0).standard_normal((5, 3, 8)).astype(np_dtype)
    kpm = np.zeros((3, 5), bool)
    kpm[1, 2:] = True
    attn = np.triu(np.ones((5, 5), bool), 1)
    _mha_check(m, t, (x, x, x), tol * 5, need_weights=need_weights, average_attn_weights=average,
               key_padding_mask=kpm, attn_mask=attn)


def test_mha_kdim_vdim_bias_kv_zero_attn_batch_first():
    m, t = _mha_pair(embed_dim=8, num_heads=2, kdim=6, vdim=5, add_bias_kv=True, add_zero_attn=True,
                     batch_first=True, dtype="float64")
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((3, 4, 8)), rng.standard_normal((3, 6, 6)), rng.standard_normal((3, 6, 5))
    kpm = np.zeros((3, 6), bool)
    kpm[0, :2] = True
    mask = rng.standard_normal((3 * 2, 4, 6))
    _mha_check(m, t, (q, k, v), 1e-9, key_padding_mask=kpm, attn_mask=mask)
    _mha_check(m, t, (q, k, v), 1e-9, need_weights=False, key_padding_mask=kpm.astype(np.float64) * -1e9)


def test_mha_unbatched_and_causal():
    m, t = _mha_pair(embed_dim=8, num_heads=2, dtype="float64")
    x = np.random.default_rng(2).standard_normal((5, 8))
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    _mha_check(m, t, (x, x, x), 1e-9, attn_mask=causal, need_weights=False, is_causal=True)
    _mha_check(m, t, (x, x, x), 1e-9, attn_mask=causal)


def test_mha_dropout_eval_is_deterministic():
    m = numgrad.nn.MultiheadAttention(8, 2, dropout=0.5).eval()
    x = numgrad.randn(4, 2, 8)
    np.testing.assert_array_equal(m(x, x, x)[0].detach().numpy(), m(x, x, x)[0].detach().numpy())


def test_mha_loads_torch_state_dict():
    _, t = _mha_pair(embed_dim=8, num_heads=2, add_bias_kv=True)
    m = numgrad.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    m.load_state_dict({k: numgrad.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.random.default_rng(3).standard_normal((4, 2, 8)).astype(np.float32)
    _close(m(*(numgrad.tensor(x),) * 3)[0], t(*(torch.tensor(x),) * 3)[0], 1e-5)


def test_mha_errors():
    with pytest.raises(AssertionError, match="divisible"):
        numgrad.nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="greater than 0"):
        numgrad.nn.MultiheadAttention(0, 2)
    m = numgrad.nn.MultiheadAttention(8, 2)
    x = numgrad.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        m(x, x, x, attn_mask=numgrad.zeros(3, 4))
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="only bool and floating"):
        m(x, x, x, attn_mask=numgrad.zeros(4, 4, dtype=numgrad.int64))
