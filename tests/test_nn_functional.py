"""numgrad.nn.functional: values and gradients against PyTorch, plus numerical stability."""
import math
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # torch is optional: the comparisons skip, the stability checks still run
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

_T = np.array([1, 0, 3, 2, 1])
_W = np.array([0.5, 1.0, 2.0, 1.5])


def _ce(red, ls, weighted, ignore):
    def run(lib, x):
        mod = F if lib is ng else TF
        t = lib.tensor(_T)
        w = lib.tensor(_W) if weighted else None
        return mod.cross_entropy(x, t, w, ignore_index=ignore, reduction=red, label_smoothing=ls)
    return run


def _same(fn_name, *args, **kwargs):
    def run(lib, *xs):
        mod = F if lib is ng else TF
        return getattr(mod, fn_name)(*xs, *args, **kwargs)
    return run


# (id, function of (library, *inputs), input shapes)
CASES = [
    ("conv2d", _same("conv2d", None, 1, 1), [(2, 3, 6, 5), (4, 3, 3, 3)]),
    ("conv2d_bias_stride_dilation", lambda lib, x, w, b: (F if lib is ng else TF).conv2d(x, w, b, 2, 2, 2),
     [(2, 3, 9, 8), (4, 3, 3, 2), (4,)]),
    ("conv2d_groups", _same("conv2d", None, 1, 0, 1, 2), [(2, 4, 5, 5), (6, 2, 3, 3)]),
    ("conv2d_same", _same("conv2d", padding="same"), [(1, 2, 5, 6), (3, 2, 3, 3)]),
    ("conv1d", _same("conv1d", None, 2, 1), [(2, 3, 10), (4, 3, 3)]),
    ("max_pool2d", _same("max_pool2d", 3, 2, 1), [(2, 3, 7, 6)]),
    ("max_pool2d_ceil", _same("max_pool2d", 2, 2, 0, 1, True), [(2, 3, 7, 5)]),
    ("max_pool1d", _same("max_pool1d", 3, 2), [(2, 3, 9)]),
    ("avg_pool2d", _same("avg_pool2d", 3, 2, 1), [(2, 3, 7, 6)]),
    ("avg_pool2d_exclude_pad", _same("avg_pool2d", 3, 2, 1, True, False), [(2, 3, 7, 6)]),
    ("avg_pool1d", _same("avg_pool1d", 2), [(2, 3, 9)]),
    ("unfold", _same("unfold", 2, 1, 1, 2), [(2, 3, 5, 5)]),
    ("fold", _same("fold", (4, 5), 2), [(2, 12, 12)]),
    ("layer_norm", lambda lib, x, w, b: (F if lib is ng else TF).layer_norm(x, (4,), w, b), [(3, 5, 4), (4,), (4,)]),
    ("log_softmax", _same("log_softmax", 1), [(3, 5, 4)]),
    ("softmax", _same("softmax", -1), [(3, 5, 4)]),
    ("gelu", _same("gelu"), [(3, 5)]),
    ("gelu_tanh", _same("gelu", approximate="tanh"), [(3, 5)]),
    ("softplus", lambda lib, x: (F if lib is ng else TF).softplus(x * 30, 2, 20), [(3, 5)]),
    ("leaky_relu", _same("leaky_relu", 0.2), [(3, 5)]),
    ("elu", _same("elu"), [(3, 5)]),
    ("silu", _same("silu"), [(3, 5)]),
    ("logsigmoid", _same("logsigmoid"), [(3, 5)]),
    ("elu_alpha", _same("elu", 0.7), [(3, 5)]),
    ("hardtanh", _same("hardtanh", -0.5, 1.2), [(3, 5)]),
    ("relu6", lambda lib, x: (F if lib is ng else TF).relu6(x * 5), [(3, 5)]),
    ("pad_constant", _same("pad", (1, 2, -1, 1), value=3.0), [(2, 3, 4)]),
    ("pad_reflect", _same("pad", (2, 1), "reflect"), [(2, 3, 4)]),
    ("pad_replicate", _same("pad", (2, 1, 1, 1), "replicate"), [(2, 3, 4)]),
    ("pad_circular", _same("pad", (2, 1), "circular"), [(2, 3, 4)]),
    ("linear", _same("linear"), [(3, 4), (2, 4), (2,)]),
    ("mse_loss", _same("mse_loss"), [(3, 4), (3, 4)]),
    ("l1_loss_sum", _same("l1_loss", reduction="sum"), [(3, 4), (3, 4)]),
    ("huber_loss", _same("huber_loss", delta=0.5), [(3, 4), (3, 4)]),
    ("smooth_l1_none", _same("smooth_l1_loss", reduction="none", beta=0.5), [(3, 4), (3, 4)]),
    ("bce_with_logits", lambda lib, x, y: (F if lib is ng else TF).binary_cross_entropy_with_logits(
        x * 20, y.sigmoid(), pos_weight=lib.tensor([1.0, 2.0, 0.5, 3.0], dtype=lib.float64)), [(3, 4), (3, 4)]),
    ("bce", lambda lib, x, y: (F if lib is ng else TF).binary_cross_entropy(x.sigmoid(), y.sigmoid()),
     [(3, 4), (3, 4)]),
    ("cross_entropy_probs", lambda lib, x, y: (F if lib is ng else TF).cross_entropy(
        x, y.softmax(1), label_smoothing=0.1), [(5, 4), (5, 4)]),
    ("nll_loss_3d", lambda lib, x: (F if lib is ng else TF).nll_loss(x, lib.tensor([[0, 3, 1], [2, 2, 0]])),
     [(2, 4, 3)]),
] + [(f"cross_entropy_{red}_ls{ls}_w{int(w)}_ign{ig}", _ce(red, ls, w, ig), [(5, 4)])
     for red in ("mean", "sum", "none") for ls in (0.0, 0.2) for w in (False, True) for ig in (-100, 1)]


@needs_torch
@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, fn, shapes):
    rng = np.random.default_rng(sum(map(ord, name)))
    arrays = [rng.standard_normal(s) for s in shapes]
    ours = [ng.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(ng, *ours), fn(torch, *theirs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-7, atol=1e-9)
    w = rng.standard_normal(tuple(ref.shape))
    (out * ng.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_softmax_is_stable_for_huge_logits():
    x = ng.tensor([[1000.0, 0.0, -1000.0], [1e30, 1e30, 0.0]], requires_grad=True)
    y = F.softmax(x, 1)
    np.testing.assert_allclose(y.detach().numpy(), [[1, 0, 0], [0.5, 0.5, 0]], atol=1e-7)
    lp = F.log_softmax(x, 1)
    assert np.isfinite(lp.detach().numpy()[0]).all()
    (lp[:, 0].sum() + y[:, 1].sum()).backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_cross_entropy_large_logits_finite():
    x = ng.tensor([[500.0, -500.0], [-800.0, 800.0]], requires_grad=True)
    loss = F.cross_entropy(x, ng.tensor([1, 0]))
    assert loss.item() == pytest.approx(1300.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, -0.5], [-0.5, 0.5]])


def test_softplus_linear_above_threshold_and_finite_grad():
    x = ng.tensor([-100.0, 0.0, 10.0, 25.0, 1e4], requires_grad=True)
    y = F.softplus(x, beta=1.0, threshold=20.0)
    np.testing.assert_allclose(y.detach().numpy(), [0.0, math.log(2), math.log1p(math.exp(10)), 25.0, 1e4],
                               rtol=1e-6, atol=1e-30)
    y.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    assert x.grad.numpy()[-1] == 1.0


def test_softmax_default_dtype_and_dim_argument():
    x = ng.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(F.softmax(x, dim=0).sum(0).numpy(), [1, 1, 1], rtol=1e-6)
    assert ng.softmax(x, 1, dtype=ng.float64).dtype == ng.float64
    with pytest.raises(RuntimeError):
        F.softmax(ng.arange(3), 0)


def test_one_hot():
    r = F.one_hot(ng.tensor([0, 2, 1]))
    assert r.dtype == ng.int64 and r.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(ng.tensor([1]), 4).shape == (1, 4)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(ng.tensor([3]), 2)
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(ng.tensor([-1]), 2)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(ng.tensor([1.0]))


def test_dropout_scales_and_respects_eval():
    ng.manual_seed(0)
    x = ng.ones(10000)
    y = F.dropout(x, 0.25)
    kept = (y != 0).float().mean().item()
    assert abs(kept - 0.75) < 0.03
    np.testing.assert_allclose(np.unique(y.numpy()), [0.0, 1 / 0.75], rtol=1e-6)
    assert F.dropout(x, 0.25, training=False) is x
    assert (F.dropout(x, 1.0) == 0).all().item()
    with pytest.raises(ValueError):
        F.dropout(x, 1.5)


def test_loss_argument_errors():
    x = ng.randn(3, 4)
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(x, ng.tensor([0, 5, 1]))
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(x, ng.tensor([0, 1]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(ng.tensor([1.5]), ng.tensor([1.0]))


def test_embedding_and_padding_idx():
    w = ng.randn(5, 3, requires_grad=True)
    idx = ng.tensor([[0, 2], [4, 2]])
    out = F.embedding(idx, w, padding_idx=2)
    assert out.shape == (2, 2, 3)
    np.testing.assert_allclose(out[0, 1].detach().numpy(), w[2].detach().numpy())
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[:, 0], [1, 0, 0, 0, 1])


def test_max_pool_return_indices_and_ties():
    x = ng.tensor([[[[1.0, 1.0, 0.0, 2.0], [1.0, 0.0, 2.0, 2.0]]]], requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert out.tolist() == [[[[1.0, 2.0]]]]
    assert idx.tolist() == [[[[0, 3]]]]
    out.sum().backward()
    # Like PyTorch, the whole gradient goes to one maximum, not split among ties.
    assert x.grad.sum().item() == 2.0 and x.grad.max().item() == 1.0


def test_large_inputs_take_the_threaded_kernels():
    ng.manual_seed(0)
    x = ng.randn(400, 400)
    y = F.log_softmax(x, 1)
    np.testing.assert_allclose(y[:100].numpy(), F.log_softmax(x[:100], 1).numpy(), rtol=1e-6)
    img = ng.randn(4, 8, 30, 30)
    cols = F.unfold(img, 3, padding=1)
    np.testing.assert_array_equal(cols[3].numpy(), F.unfold(img[3:], 3, padding=1)[0].numpy())
    back = F.fold(cols, (30, 30), 3, padding=1)
    np.testing.assert_allclose(back[2].numpy(), F.fold(cols[2:3], (30, 30), 3, padding=1)[0].numpy(),
                               rtol=1e-6)


def test_window_kernels_parallel_forms_match_serial(monkeypatch):
    # Conv and pooling windows spread over threads give exactly the serial results.
    from numgrad.backends.cpu import nn as kernels
    rng = np.random.default_rng(3)
    x = ng.tensor(rng.standard_normal((5, 3, 9, 8)), requires_grad=True)
    w = ng.tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)

    def run():
        a, ia = F.max_pool2d(x, 3, 2, 1, return_indices=True)
        c = F.conv2d(x, w, None, 1, 1)
        (a.sum() + c.sum()).backward()
        out = [a.detach().numpy().copy(), ia.numpy().copy(), c.detach().numpy().copy(),
               x.grad.numpy().copy(), w.grad.numpy().copy()]
        x.grad = w.grad = None
        return out

    serial = run()
    monkeypatch.setattr(kernels, "use_parallel", lambda n, threshold: True)
    for got, want in zip(run(), serial):
        np.testing.assert_array_equal(got, want)


# (name, function of (module, x)) for each fused activation
_ACTIVATIONS = [
    ("gelu", lambda m, x: m.gelu(x)),
    ("gelu_tanh", lambda m, x: m.gelu(x, approximate="tanh")),
    ("silu", lambda m, x: m.silu(x)),
    ("logsigmoid", lambda m, x: m.logsigmoid(x)),
    ("softplus", lambda m, x: m.softplus(x, 1.5, 10.0)),
    ("leaky_relu", lambda m, x: m.leaky_relu(x, 0.1)),
    ("elu", lambda m, x: m.elu(x, 1.5)),
    ("hardtanh", lambda m, x: m.hardtanh(x, -2.0, 3.0)),
    ("relu6", lambda m, x: m.relu6(x)),
]
_LARGE = [-1e4, -300.0, -90.0, -30.0, -3.0, -1e-3, 0.0, 2e-3, 2.5, 30.0, 90.0, 300.0, 1e4]
_KINKS = [-2.0, 0.0, 3.0, 6.0]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn", _ACTIVATIONS, ids=[a[0] for a in _ACTIVATIONS])
def test_activation_large_inputs_and_kinks_match_torch(name, fn, dtype):
    # Large magnitudes must neither overflow nor give NaN; at kinks the gradient is PyTorch's.
    # The reference is float64: PyTorch's float32 gelu loses digits to 1 + erf(x) cancelling.
    values = np.array(_LARGE + _KINKS, dtype=dtype)
    x = ng.tensor(values, requires_grad=True)
    t = torch.tensor(values.astype(np.float64), requires_grad=True)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        out = fn(F, x)
        out.sum().backward()
    ref = fn(TF, t)
    ref.sum().backward()
    assert out.dtype.name == dtype and type(out.grad_fn).__name__ == ref.grad_fn.name()
    assert np.isfinite(out.detach().numpy()).all() and np.isfinite(x.grad.numpy()).all()
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=1e-30)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-30)


@needs_torch
@pytest.mark.parametrize("name,fn", _ACTIVATIONS, ids=[a[0] for a in _ACTIVATIONS])
def test_activation_second_derivative_matches_torch(name, fn):
    values = np.random.default_rng(0).uniform(-4, 4, 8)
    x, t = ng.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    (g,) = ng.autograd.grad(fn(F, x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(fn(TF, t).sum(), t, create_graph=True)
    (gg,) = ng.autograd.grad((g * g).sum(), x, allow_unused=True, materialize_grads=True)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), t, allow_unused=True, materialize_grads=True)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda x: F.leaky_relu(x, 0.2, inplace=True), lambda x: F.leaky_relu_(x, 0.2),
    lambda x: F.elu(x, 1.5, inplace=True), lambda x: F.elu_(x), lambda x: F.silu(x, inplace=True),
    lambda x: F.hardtanh(x, -1.0, 0.5, inplace=True), lambda x: F.hardtanh_(x), lambda x: F.relu6(x, True)],
    ids=["leaky_relu", "leaky_relu_", "elu", "elu_", "silu", "hardtanh", "hardtanh_", "relu6"])
def test_activation_inplace_forms(call):
    values = np.array([-3.0, -0.5, 0.0, 0.25, 2.0, 7.0])
    leaf = ng.tensor(values, requires_grad=True)
    h = leaf * 1.0
    expected = call(ng.tensor(values) * 1.0)
    assert call(h) is h
    np.testing.assert_array_equal(h.detach().numpy(), expected.numpy())
    h.sum().backward()
    (g,) = ng.autograd.grad(call(leaf * 1.0).sum(), leaf)
    np.testing.assert_array_equal(leaf.grad.numpy(), g.numpy())
    with ng.no_grad():
        x = ng.tensor(values)
        call(x)
    np.testing.assert_array_equal(x.numpy(), expected.numpy())


def test_activation_dtype_errors():
    for fn in (F.gelu, F.silu, F.logsigmoid, F.softplus, F.elu, F.leaky_relu):
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            fn(ng.arange(3))
    assert F.hardtanh(ng.arange(-3, 4), -1.5, 2.5).tolist() == [-1, -1, -1, 0, 1, 2, 2]
    assert F.relu6(ng.arange(5) * 3).dtype is ng.int64
    with pytest.raises(RuntimeError, match="Bool inputs not supported"):
        F.hardtanh(ng.tensor([True]))
    with pytest.raises(RuntimeError, match="unsigned type with negative limits"):
        F.hardtanh(ng.arange(3, dtype=ng.uint8))
    with pytest.raises(RuntimeError, match="approximate argument"):
        F.gelu(ng.ones(2), approximate="fast")


def test_elementwise_special_values():
    nan, inf = float("nan"), float("inf")
    x = ng.tensor([0.0, 0.0, 0.0, 1.0, -1.0, nan, 0.0], requires_grad=True)
    y = ng.tensor([0.0, nan, -1.0, 0.0, 3.0, 1.0, inf], requires_grad=True)
    out = ng.xlogy(x, y)
    np.testing.assert_allclose(out.detach().numpy(), [0, nan, 0, -inf, -math.log(3), nan, 0], rtol=1e-6)
    gx, gy = ng.autograd.grad(out.sum(), [x, y])
    np.testing.assert_allclose(gx.numpy(), [0, nan, 0, -inf, math.log(3), 0, inf], rtol=1e-6)
    np.testing.assert_allclose(gy.numpy(), [nan, nan, -0.0, inf, -1 / 3, nan, 0], rtol=1e-6)
    v = ng.tensor([nan, inf, -inf, 1.0])
    np.testing.assert_array_equal(ng.nan_to_num(v).numpy(), [0, np.finfo(np.float32).max, np.finfo(np.float32).min, 1])
    np.testing.assert_array_equal(ng.nan_to_num(v.half()).numpy(), np.array([0, 65504, -65504, 1], dtype=np.float16))
    np.testing.assert_array_equal(ng.nan_to_num(v.double(), posinf=1e300).numpy(), [0, 1e300, np.finfo(np.float64).min, 1])
    np.testing.assert_array_equal(ng.nan_to_num(v, posinf=1e300).numpy(), [0, inf, np.finfo(np.float32).min, 1])
    np.testing.assert_array_equal(ng.sgn(v).numpy(), ng.sign(v).numpy())
    np.testing.assert_array_equal(ng.sign(v).numpy(), [0, 1, -1, 1])
    np.testing.assert_allclose(ng.logaddexp(v, v).numpy(), [nan, inf, -inf, 1 + math.log(2)], rtol=1e-6)
    assert ng.logaddexp(ng.tensor([1e4]), ng.tensor([-1e4])).item() == 1e4
    assert ng.hypot(ng.tensor([3e30]), ng.tensor([4e30])).item() == pytest.approx(5e30)
