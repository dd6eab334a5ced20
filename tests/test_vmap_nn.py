"""numgrad.vmap against torch.func.vmap for nn: layers and losses under vmap, numgrad.func's
transforms inside and around vmap (per-sample gradients, Jacobians, ensembles), randomness
modes and the per-sample fallback."""
import threading
import warnings

import numpy as np
import pytest

import numgrad
from numgrad.batched import dispatch
from numgrad.testing import assert_close

torch = pytest.importorskip("torch")
# torch.func's transforms compile a function with torch.jit.script on first use
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-8, atol=1e-10)}
LIBS = (numgrad, torch)


def tensor(lib, a):
    return torch.from_numpy(np.array(a)) if lib is torch else numgrad.tensor(np.array(a))


def leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in leaves(t)]
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in leaves(tree[k])]
    return [tree]


def assert_same(got, want, dtype="float64", tol=None):
    """Same structure, shapes, dtypes and values (numgrad ``got``, torch ``want``)."""
    got, want = leaves(got), leaves(want)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert tuple(g.shape) == tuple(w.shape), f"leaf {i}: {tuple(g.shape)} != {tuple(w.shape)}"
        assert str(g.dtype).rpartition(".")[2] == str(w.dtype).rpartition(".")[2], f"leaf {i}: dtype"
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), err_msg=f"leaf {i}",
                                   **(tol or TOL[dtype]))


def draw(dtype, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def labels(high, *shape, seed=1):
    return np.random.default_rng(seed).integers(0, high, size=shape)


def compare(fn, arrays, dtype, in_dims=0, tol=None, **vmap_kwargs):
    """``vmap(fn(lib, F, ...))`` of numgrad against torch's on ``arrays``."""
    out = []
    for lib in LIBS:
        f = lambda *xs, lib=lib: fn(lib, lib.nn.functional, *xs)  # noqa: E731
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(lib.func.vmap(f, in_dims, **vmap_kwargs)(*[tensor(lib, a) for a in arrays]))
    assert_same(*out, dtype=dtype, tol=tol)


# ----------------------------------------------------------------------------- layers

@pytest.mark.parametrize("dtype", DTYPES)
def test_mlp_module_forward(dtype):
    (x,) = draw(dtype, (4, 2, 3))
    out = []
    for lib in LIBS:
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2)).to(getattr(lib, dtype))
        out.append(lib.vmap(model)(tensor(lib, x)))
    assert_same(*out, dtype=dtype)


MODULES = [
    ("conv_relu_pool_linear", lambda L: L.nn.Sequential(L.nn.Conv2d(2, 3, 3, padding=1), L.nn.ReLU(), L.nn.MaxPool2d(2),
                                                        L.nn.Flatten(0), L.nn.Linear(12, 2)), (3, 2, 4, 4), []),
    ("conv_transpose2d", lambda L: L.nn.ConvTranspose2d(2, 3, 3, stride=2), (3, 2, 3, 3), []),
    ("group_norm", lambda L: L.nn.GroupNorm(2, 4), (3, 1, 4, 3), []),
    ("batch_norm_eval", lambda L: L.nn.BatchNorm1d(4).eval(), (3, 2, 4), []),
    ("transformer_encoder_layer", lambda L: L.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
     (3, 1, 4, 8), []),
    ("rnn_cell", lambda L: L.nn.RNNCell(3, 4), (3, 3), []),
    ("gru_cell", lambda L: L.nn.GRUCell(3, 4), (3, 3), []),
]


@pytest.mark.parametrize("name,make,shape", [pytest.param(*m[:3], id=m[0], marks=m[3]) for m in MODULES])
def test_modules(name, make, shape):
    (x,) = draw("float64", shape)
    out = []
    for lib in LIBS:
        lib.manual_seed(0)
        out.append(lib.vmap(make(lib).double())(tensor(lib, x)))
    assert_same(*out, tol=dict(rtol=1e-7, atol=1e-9))


CONV_POOL = [
    ("conv2d_chw", lambda T, F, x, w, b: F.conv2d(x, w, b, padding=1), [(3, 2, 5, 5), (4, 2, 3, 3), (4,)],
     (0, None, None)),
    ("conv2d_nchw", lambda T, F, x, w, b: F.conv2d(x, w, b, stride=2), [(3, 2, 2, 5, 5), (4, 2, 3, 3), (4,)],
     (0, None, None)),
    ("conv2d_batched_weight", lambda T, F, x, w, b: F.conv2d(x, w, b), [(2, 2, 5, 5), (3, 4, 2, 3, 3), (3, 4)],
     (None, 0, 0)),
    ("conv2d_both_batched_groups", lambda T, F, x, w: F.conv2d(x, w, groups=2), [(3, 4, 5, 5), (3, 4, 2, 3, 3)],
     (0, 0)),
    ("conv1d", lambda T, F, x, w: F.conv1d(x, w), [(3, 2, 7), (4, 2, 3)], (0, None)),
    ("max_pool2d", lambda T, F, x: (F.max_pool2d(x, 2), F.max_pool2d(x, 2, stride=1, return_indices=True)),
     [(3, 2, 4, 4)], 0),
    ("max_pool2d_nchw", lambda T, F, x: F.max_pool2d(x, 2), [(3, 2, 2, 4, 4)], 0),
    ("avg_pool2d", lambda T, F, x: (F.avg_pool2d(x, 2), F.avg_pool2d(x, 3, stride=1, padding=1)),
     [(3, 2, 4, 4)], 0),
    ("adaptive_avg_pool2d", lambda T, F, x: (F.adaptive_avg_pool2d(x, (2, 1)), F.adaptive_avg_pool2d(x, 1)),
     [(3, 2, 2, 4, 4)], 0),
    ("layer_norm", lambda T, F, x, w, b: (F.layer_norm(x, (4,), w, b), F.layer_norm(x, (2, 4))),
     [(3, 2, 4), (4,), (4,)], (0, None, None)),
    ("layer_norm_batched_weight", lambda T, F, x, w: F.layer_norm(x, (4,), w), [(3, 2, 4), (3, 4)], (0, 0)),
    ("pad_constant", lambda T, F, x: (F.pad(x, (1, 2)), F.pad(x, (1, 0, 2, 1), value=3.0)), [(3, 2, 4)], 0),
    ("sdpa", lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v), [(3, 2, 4, 8), (3, 2, 5, 8),
                                                                            (3, 2, 5, 8)], 0),
    ("sdpa_causal", lambda T, F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
     [(3, 4, 8), (3, 4, 8), (3, 4, 8)], 0),
    ("sdpa_unbatched_kv_mask", lambda T, F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
     [(3, 4, 8), (4, 8), (4, 8), (4, 4)], (0, None, None, None)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,fn,shapes,in_dims", [pytest.param(*c, id=c[0]) for c in CONV_POOL])
def test_conv_pool_norm_attention(name, fn, shapes, in_dims, dtype):
    compare(fn, draw(dtype, *shapes), dtype, in_dims)


@pytest.mark.parametrize("dtype", DTYPES)
def test_embedding(dtype):
    (w,) = draw(dtype, (5, 2))
    compare(lambda T, F, i, w: F.embedding(i, w), [labels(5, 3, 4), w], dtype, (0, None))
    (wb,) = draw(dtype, (3, 5, 2))
    compare(lambda T, F, i, w: F.embedding(i, w), [labels(5, 4), wb], dtype, (None, 0))


# ----------------------------------------------------------------------------- losses

@pytest.mark.parametrize("dtype", DTYPES)
def test_regression_losses(dtype):
    a, b = draw(dtype, (3, 4), (3, 4))
    p = np.random.default_rng(2).random((3, 4)).astype(dtype)
    compare(lambda T, F, a, b: (F.mse_loss(a, b), F.mse_loss(a, b, reduction="none"),
                                F.mse_loss(a, b, reduction="sum"), F.l1_loss(a, b), F.l1_loss(a, b[0])),
            [a, b], dtype)
    compare(lambda T, F, a, p: (F.binary_cross_entropy_with_logits(a, p),
                                F.binary_cross_entropy_with_logits(a, p, reduction="none"),
                                F.binary_cross_entropy_with_logits(a, p, pos_weight=p[0]),
                                F.binary_cross_entropy(a.sigmoid(), p)), [a, p], dtype)
    compare(lambda T, F, a, p: (F.kl_div(a.log_softmax(-1), p, reduction="batchmean"),
                                F.kl_div(a, p.log(), reduction="batchmean", log_target=True)),
            [a.reshape(3, 2, 2), p.reshape(3, 2, 2)], dtype)


CLASSIFICATION = [
    ("plain", dict(), False),
    ("weight", dict(weight=True), False),
    ("ignore_index", dict(ignore_index=1), False),
    ("label_smoothing", dict(label_smoothing=0.1), False),
    ("probability_targets", dict(), True),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("name,options,probs", [pytest.param(*c, id=c[0]) for c in CLASSIFICATION])
def test_cross_entropy_nll(name, options, probs, reduction, dtype):
    logits, target_logits = draw(dtype, (3, 5, 4), (3, 5, 4))
    weight = np.random.default_rng(3).random(4).astype(dtype)
    target = target_logits if probs else labels(4, 3, 5)

    def losses(T, F, x, t, w):
        kw = dict(options, reduction=reduction, weight=w if options.get("weight") else None)
        t = t.softmax(-1) if probs else t
        out = [F.cross_entropy(x, t, **kw)]
        if not probs and "label_smoothing" not in kw:
            out.append(F.nll_loss(x.log_softmax(-1), t, **kw))
        return out
    compare(losses, [logits, target, weight], dtype, (0, 0, None))


def test_cross_entropy_weight_label_smoothing_mean_equals_torch_loop():
    # torch's vmap refuses this combination (its kernel selects by mask); each sample's loss still defines it
    x, w = draw("float64", (3, 5, 4), (4,))
    w, t = np.abs(w) + 0.1, labels(4, 3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = numgrad.vmap(lambda x, t: numgrad.nn.functional.cross_entropy(
            x, t, weight=numgrad.tensor(w), label_smoothing=0.2))(numgrad.tensor(x), numgrad.tensor(t))
    want = torch.stack([torch.nn.functional.cross_entropy(torch.tensor(x[i]), torch.tensor(t[i]),
                                                          weight=torch.tensor(w), label_smoothing=0.2)
                        for i in range(3)])
    assert_same(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cross_entropy_sample_shapes(dtype):
    x1, x2, x3 = draw(dtype, (3, 4), (3, 5, 4), (3, 2, 4, 3, 3))
    compare(lambda T, F, x, t: F.cross_entropy(x, t), [x1, labels(4, 3)], dtype)
    compare(lambda T, F, x, t: F.cross_entropy(x, t), [x2, labels(4, 5)], dtype, (0, None))
    compare(lambda T, F, x, t: F.cross_entropy(x, t), [x3, labels(4, 3, 2, 3, 3)], dtype)


# ----------------------------------------------------------------------------- transforms

def mlp_params(lib, dtype):
    w1, b1, w2, b2 = draw(dtype, (5, 3), (5,), (2, 5), (2,), seed=4)
    return {"w1": tensor(lib, w1), "b1": tensor(lib, b1), "w2": tensor(lib, w2), "b2": tensor(lib, b2)}


def mlp_loss(lib):
    F = lib.nn.functional

    def loss(p, x, y):
        h = F.relu(F.linear(x, p["w1"], p["b1"]))
        return F.cross_entropy(F.linear(h, p["w2"], p["b2"]).unsqueeze(0), y.unsqueeze(0))
    return loss


@pytest.mark.parametrize("dtype", DTYPES)
def test_per_sample_grads_functional_mlp(dtype):
    (x,), y = draw(dtype, (4, 3)), labels(2, 4)
    out = [lib.func.vmap(lib.func.grad(mlp_loss(lib)), in_dims=(None, 0, 0))(
        mlp_params(lib, dtype), tensor(lib, x), tensor(lib, y)) for lib in LIBS]
    assert_same(*out, dtype=dtype)
    loop = [numgrad.func.grad(mlp_loss(numgrad))(mlp_params(numgrad, dtype), numgrad.tensor(x[i]),
                                                 numgrad.tensor(y[i])) for i in range(4)]
    for k in out[0]:
        assert_same(out[0][k], numgrad.stack([g[k] for g in loop]), dtype)


def _module(lib, dtype):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.Tanh(), lib.nn.Linear(5, 2)).to(getattr(lib, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_per_sample_grads_functional_call(dtype):
    (x,), y = draw(dtype, (4, 3)), labels(2, 4)
    out = []
    for lib in LIBS:
        model = _module(lib, dtype)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            logits = lib.func.functional_call(model, p, (xi.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(logits, yi.unsqueeze(0))
        out.append(lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, tensor(lib, x), tensor(lib, y)))
        if lib is numgrad:
            loop = [numgrad.func.grad(loss)(params, numgrad.tensor(x[i:i + 1]).squeeze(0), numgrad.tensor(y[i]))
                    for i in range(4)]
            for k in out[0]:
                assert_same(out[0][k], numgrad.stack([g[k] for g in loop]), dtype)
    assert_same(*out, dtype=dtype)


def _f(x):
    return x.sin() * x.sum()


TRANSFORMS = [
    ("jacrev", lambda L: L.func.vmap(L.func.jacrev(_f)), [(4, 3)]),
    ("jacfwd", lambda L: L.func.vmap(L.func.jacfwd(_f)), [(4, 3)]),
    ("jacrev_argnums", lambda L: L.func.vmap(L.func.jacrev(lambda x, y: x * y.sum(), argnums=(0, 1))),
     [(4, 3), (4, 2)]),
    ("hessian", lambda L: L.func.vmap(L.func.hessian(lambda x: (x.sin() * x.sum()).sum())), [(4, 3)]),
    ("vjp", lambda L: L.func.vmap(lambda x, v: (lambda o, fn: (o, fn(v)))(*L.func.vjp(_f, x))), [(4, 3), (4, 3)]),
    ("jvp", lambda L: L.func.vmap(lambda x, t: L.func.jvp(_f, (x,), (t,))), [(4, 3), (4, 3)]),
    ("jvp_unbatched_tangent", lambda L: L.func.vmap(lambda x, t: L.func.jvp(_f, (x,), (t,)), in_dims=(0, None)),
     [(4, 3), (3,)]),
    ("grad_and_value_has_aux", lambda L: L.func.vmap(L.func.grad_and_value(
        lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)), [(4, 3)]),
    ("grad_of_grad", lambda L: L.func.vmap(L.func.grad(L.func.grad(lambda x: (x ** 3).sum()))), [(4,)]),
    ("grad_of_vmap", lambda L: L.func.grad(lambda w, x: L.vmap(lambda xi: (xi @ w).tanh().sum())(x).sum()),
     [(3, 2), (4, 3)]),
    ("jacrev_of_vmap", lambda L: L.func.jacrev(L.vmap(_f)), [(4, 3)]),
    ("vmap_grad_vmap", lambda L: L.vmap(L.func.grad(
        lambda w, x: L.vmap(lambda xi: (xi * w).sum().tanh())(x).sum()), in_dims=(0, None)), [(4, 3), (5, 3)]),
    ("grad_argnums_params_and_input", lambda L: L.vmap(L.func.grad(lambda w, x: (x @ w).tanh().sum(), argnums=(0, 1)),
                                                       in_dims=(None, 0)), [(3, 2), (4, 3)]),
    ("grad_of_batched_params", lambda L: L.vmap(L.func.grad(lambda w, x: (x @ w).tanh().sum()), in_dims=(0, None)),
     [(4, 3, 2), (5, 3)]),
    ("per_sample_conv_grads", lambda L: L.vmap(L.func.grad(
        lambda k, x: L.nn.functional.conv2d(x[None], k).square().sum()), in_dims=(None, 0)),
     [(2, 1, 2, 2), (3, 1, 4, 4)]),
    ("jacrev_of_jacfwd", lambda L: L.vmap(L.func.jacrev(L.func.jacfwd(_f))), [(2, 3)]),
    ("vmap_vmap_grad", lambda L: L.vmap(L.vmap(L.func.grad(lambda x: (x ** 3).sum()))), [(2, 3, 4)]),
    ("grad_of_vmap_grad", lambda L: L.func.grad(lambda x: L.vmap(L.func.grad(lambda v: (v.sin() ** 2).sum()))(x).sum()),
     [(3, 4)]),
    ("nested_vmap", lambda L: L.vmap(L.vmap(lambda a, b: a * b.sum() + a.sin())), [(2, 3, 4), (2, 3, 5)]),
    ("nested_vmap_in_dims", lambda L: L.vmap(L.vmap(lambda a, b: a @ b, in_dims=(0, None)), in_dims=(None, 0)),
     [(3, 4), (2, 4, 5)]),
    ("nested_vmap_softmax_in_dim_1", lambda L: L.vmap(L.vmap(lambda a: a.softmax(0)), in_dims=1), [(3, 2, 4)]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,make,shapes", [pytest.param(*c, id=c[0]) for c in TRANSFORMS])
def test_transforms(name, make, shapes, dtype):
    arrays = draw(dtype, *shapes)
    out = [make(lib)(*[tensor(lib, a) for a in arrays]) for lib in LIBS]
    assert_same(*out, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_backward_through_vmap(dtype):
    w, x = draw(dtype, (3, 2), (4, 3))
    grads = []
    for lib in LIBS:
        wt = tensor(lib, w).requires_grad_()
        lib.vmap(lambda xi: (xi @ wt).tanh().sum())(tensor(lib, x)).sum().backward()
        grads.append(wt.grad)
    assert_same(*grads, dtype=dtype)


def test_vmap_over_vjp_fn():
    x, v = draw("float64", (4, 3), (6, 4, 3))
    out = []
    for lib in LIBS:
        _, vjp_fn = lib.func.vjp(_f, tensor(lib, x))
        out.append(lib.vmap(vjp_fn)(tensor(lib, v)))
    assert_same(*out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_model_ensembling(dtype):
    (x,) = draw(dtype, (5, 3))
    out = []
    for lib in LIBS:
        lib.manual_seed(0)
        models = [lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).to(getattr(lib, dtype))
                  for _ in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        base = models[0]

        def call(p, b, xs):
            return lib.func.functional_call(base, (p, b), (xs,))
        out.append(lib.vmap(call, in_dims=(0, 0, None))(params, buffers, tensor(lib, x)))
        if lib is numgrad:
            assert_same(out[0], numgrad.stack([m(numgrad.tensor(x)) for m in models]), dtype)
    assert_same(*out, dtype=dtype)


# ----------------------------------------------------------------------------- randomness

RANDOM_OPS = [
    ("rand", lambda L: lambda x: x * L.rand(x.shape[-1])),
    ("randn_like", lambda L: lambda x: L.randn_like(x)),
    ("dropout", lambda L: lambda x: L.nn.functional.dropout(x, 0.5)),
]


@pytest.mark.parametrize("name,make", [pytest.param(*c, id=c[0]) for c in RANDOM_OPS])
def test_randomness_error(name, make):
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=r"^vmap: called random operation while in randomness error mode"):
            lib.vmap(make(lib))(lib.ones(4, 6))


MODE_OPS = RANDOM_OPS + [
    ("nn_Dropout", lambda L: L.nn.Dropout(0.3)),
    ("dropout_unbatched_input", lambda L: lambda x: L.nn.functional.dropout(L.ones(x.shape[-1]), 0.5) + x),
    ("normal_", lambda L: lambda x: x.clone().normal_()),
]

def _draw_under_vmap(lib, make, mode):
    lib.manual_seed(0)
    return lib.vmap(make(lib), randomness=mode)(lib.ones(4, 40))


@pytest.mark.parametrize("name,make,mode", [
    pytest.param(name, make, mode, id=f"{name}-{mode}")
    for name, make in MODE_OPS for mode in ("different", "same")])
def test_randomness_modes(name, make, mode):
    for lib in LIBS:
        out = _draw_under_vmap(lib, make, mode)
        equal = [bool((out[i] == out[0]).all()) for i in range(1, 4)]
        assert all(equal) if mode == "same" else not any(equal)


@pytest.mark.parametrize("name,make,mode", [
    pytest.param(name, make, mode, id=f"{name}-{mode}")
    for name, make in MODE_OPS for mode in ("different", "same")])
def test_randomness_numbers_as_torch(name, make, mode):
    assert_same(*[_draw_under_vmap(lib, make, mode) for lib in LIBS], dtype="float32")


def test_randomness_different_normal_numbers_as_torch():
    make = dict(MODE_OPS)["randn_like"]
    assert_same(*[_draw_under_vmap(lib, make, "different") for lib in LIBS], dtype="float32")


def test_randomness_same_for_nested_and_eval_dropout():
    x = np.ones((4, 2, 10), np.float32)
    for lib in LIBS:
        lib.manual_seed(0)
        drop = lib.vmap(lib.vmap(lambda v: lib.nn.functional.dropout(v, 0.5), randomness="different"),
                        randomness="different")(tensor(lib, x)).reshape(8, 10)
        assert not any(bool((drop[i] == drop[0]).all()) for i in range(1, 8))
        # dropout in eval mode draws nothing: allowed under randomness='error'
        assert bool((lib.vmap(lib.nn.Dropout(0.5).eval())(tensor(lib, x)) == 1).all())


def test_randomness_invalid_string():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=r"^Only allowed values for randomness are 'error', 'different', "
                                               r"or 'same'. Got sometimes"):
            lib.vmap(lambda x: x, randomness="sometimes")(lib.ones(2))


# ----------------------------------------------------------------------------- fallback

@pytest.mark.parametrize("dtype", DTYPES)
def test_per_sample_fallback_warns_once_and_matches_torch(dtype):
    (a,) = draw(dtype, (3, 4))
    saved = set(dispatch.fallback_keys)
    dispatch.fallback_keys.discard("torch.vander")
    try:
        with pytest.warns(UserWarning, match="vander"):
            got = numgrad.vmap(numgrad.vander)(numgrad.tensor(a))
        assert "torch.vander" in dispatch.fallback_keys
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # once per function
            numgrad.vmap(numgrad.vander)(numgrad.tensor(a))
    finally:
        dispatch.fallback_keys.clear()
        dispatch.fallback_keys.update(saved)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.func.vmap(torch.vander)(torch.from_numpy(a))
    assert_same(got, want, dtype)


# ----------------------------------------------------------------------------- gradients through vmap

def _layer(lib, x, w, k):
    F = lib.nn.functional
    h = F.conv2d(x.unsqueeze(0), k, padding=1).flatten(1) @ w
    return F.log_softmax(h, -1).squeeze(0).max() + F.layer_norm(h, (3,)).sum()


@pytest.mark.parametrize("dtype", DTYPES)
def test_backward_through_vmap_of_layers(dtype):
    x, w, k = draw(dtype, (4, 1, 3, 3), (18, 3), (2, 1, 3, 3))
    grads = []
    for lib in LIBS:
        params = [tensor(lib, a).requires_grad_() for a in (x, w, k)]
        lib.vmap(lambda xi, w, k: _layer(lib, xi, w, k), in_dims=(0, None, None))(*params).sum().backward()
        grads.append([p.grad for p in params])
    assert_same(*grads, dtype=dtype)


def test_gradcheck_through_vmap():
    x, w = draw("float64", (3, 4), (4, 2))
    args = tuple(numgrad.tensor(a).requires_grad_() for a in (x, w))
    assert numgrad.autograd.gradcheck(
        lambda x, w: numgrad.vmap(lambda xi: (xi @ w).softmax(-1) * xi.sum())(x), args)
    assert numgrad.autograd.gradgradcheck(
        lambda x, w: numgrad.vmap(lambda xi: (xi @ w).tanh())(x), args)


@pytest.mark.parametrize("layer", ["RNN", "LSTM", "GRU"])
def test_recurrent_layers_run_once_per_sample(layer):
    numgrad.manual_seed(0)
    module = getattr(numgrad.nn, layer)(3, 4, batch_first=True)
    x = numgrad.randn(5, 2, 6, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = numgrad.vmap(module)(x)
    loop = [module(x[i]) for i in range(5)]
    assert_close(out[0], numgrad.stack([r[0] for r in loop]))


def test_a_vmap_in_one_thread_leaves_other_threads_alone():
    started, release = threading.Event(), threading.Event()

    def sample_fn(x):
        started.set()
        release.wait(10)
        return x * 2
    worker = threading.Thread(target=lambda: numgrad.vmap(sample_fn)(numgrad.ones(3, 2)))
    worker.start()
    started.wait(10)
    try:
        assert numgrad.rand(2).shape == (2,)  # the other thread's randomness='error' is not ours
        assert numgrad.func.grad(lambda v: (v * v).sum())(numgrad.ones(2)).tolist() == [2.0, 2.0]
    finally:
        release.set()
        worker.join()


_ROW_LOSS_INPUTS = {
    "cosine_embedding_loss": lambda rng, s: (rng.standard_normal(s), rng.standard_normal(s),
                                             np.sign(rng.standard_normal(s[:-1]))),
    "triplet_margin_loss": lambda rng, s: (rng.standard_normal(s), rng.standard_normal(s), rng.standard_normal(s)),
    "multi_margin_loss": lambda rng, s: (rng.standard_normal(s), rng.integers(0, s[-1], s[:-1])),
    "multilabel_margin_loss": lambda rng, s: (rng.standard_normal(s),
                                              np.where(rng.random(s) < 0.4, rng.integers(0, s[-1], s), -1)),
    "multilabel_soft_margin_loss": lambda rng, s: (rng.standard_normal(s), (rng.random(s) < 0.5) * 1.0),
    "gaussian_nll_loss": lambda rng, s: (rng.standard_normal(s), rng.standard_normal(s), rng.random(s) + 0.1),
}


@pytest.mark.parametrize("name", sorted(_ROW_LOSS_INPUTS))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(3, 4, 5), (3, 5)], ids=["rows", "one_row"])
def test_row_losses_equal_per_sample_losses(name, reduction, shape):
    # torch.func refuses some of these (gaussian_nll_loss tests its variance in Python): the
    # reference is torch's loss of each sample.
    arrays = _ROW_LOSS_INPUTS[name](np.random.default_rng(0), shape)
    got = numgrad.vmap(lambda *xs: getattr(numgrad.nn.functional, name)(*xs, reduction=reduction))(
        *[numgrad.tensor(a) for a in arrays])
    loss = getattr(torch.nn.functional, name)
    want = torch.stack([loss(*[torch.tensor(a[i]) for a in arrays], reduction=reduction) for i in range(shape[0])])
    assert_same(got, want, "float64")
