"""3-D max and average pooling, adaptive max and 3-D adaptive average pooling, Lp pooling, max
unpooling and the Fold/Unfold layers against PyTorch: values, indices and gradients in float32
and float64, non-contiguous and unbatched inputs, node names, the layers, errors and gradcheck."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-13)}


def _pair(shape, dtype, seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    if positive:
        a = np.abs(a) + np.asarray(0.1, dtype)
    return numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


CASES = [
    ("max_pool3d", (3,), dict(stride=2, padding=1, return_indices=True), (2, 3, 5, 6, 7), False),
    ("max_pool3d", ((2, 3, 2),), dict(stride=(1, 2, 2), dilation=(2, 1, 1), ceil_mode=True), (3, 5, 6, 7), False),
    ("avg_pool3d", (3,), dict(stride=2, padding=1), (2, 3, 5, 6, 7), False),
    ("avg_pool3d", (3,), dict(stride=2, padding=1, count_include_pad=False, ceil_mode=True), (2, 2, 5, 6, 7), False),
    ("avg_pool3d", (2,), dict(divisor_override=3), (3, 4, 4, 4), False),
    ("adaptive_avg_pool3d", ((2, 3, None),), {}, (2, 3, 5, 6, 7), False),
    ("adaptive_avg_pool3d", (1,), {}, (2, 3, 5, 6, 7), False),
    ("adaptive_max_pool1d", (3,), dict(return_indices=True), (2, 3, 7), False),
    ("adaptive_max_pool2d", ((3, None),), dict(return_indices=True), (2, 3, 7, 5), False),
    ("adaptive_max_pool2d", (4,), {}, (3, 5, 9), False),
    ("adaptive_max_pool3d", (2,), dict(return_indices=True), (3, 7, 5, 4), False),
    ("adaptive_max_pool3d", ((3, 1, 2),), {}, (2, 2, 4, 5, 6), False),
    ("lp_pool1d", (2, 3), dict(stride=2), (2, 3, 7), False),
    ("lp_pool2d", (3, 2), {}, (2, 3, 7, 6), True),
    ("lp_pool2d", (1.5, (2, 3)), dict(stride=1, ceil_mode=True), (3, 5, 6), True),
    ("lp_pool3d", (2, 2), {}, (2, 3, 4, 4, 4), False),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,args,kw,shape,positive", CASES)
def test_pooling_matches_pytorch(name, args, kw, shape, positive, dtype):
    x, xt = _pair(shape, dtype, positive=positive)
    y, yt = getattr(F, name)(x, *args, **kw), getattr(TF, name)(xt, *args, **kw)
    if kw.get("return_indices"):
        np.testing.assert_array_equal(y[1].numpy(), yt[1].numpy())
        y, yt = y[0], yt[0]
    assert tuple(y.shape) == tuple(yt.shape)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **TOL[dtype])
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
    y.backward(numgrad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), **TOL[dtype])


def test_non_contiguous_and_empty_batch():
    a = np.random.default_rng(2).standard_normal((5, 4, 6, 3, 2))
    x, xt = numgrad.tensor(a).permute(4, 3, 0, 1, 2), torch.tensor(a).permute(4, 3, 0, 1, 2)
    for name, args in (("max_pool3d", (2,)), ("avg_pool3d", (2, 1)), ("adaptive_max_pool3d", (2,)),
                       ("adaptive_avg_pool3d", (3,)), ("lp_pool3d", (2, 2))):
        np.testing.assert_allclose(getattr(F, name)(x, *args).numpy(), getattr(TF, name)(xt, *args).numpy(),
                                   rtol=1e-12, atol=1e-13)
    for name, args in (("max_pool3d", (2,)), ("avg_pool3d", (2,)), ("adaptive_max_pool3d", (2,)),
                       ("adaptive_avg_pool3d", (2,))):
        x0 = numgrad.zeros(0, 2, 4, 4, 4, requires_grad=True)
        y = getattr(F, name)(x0, *args)
        assert tuple(y.shape) == tuple(getattr(TF, name)(torch.zeros(0, 2, 4, 4, 4), *args).shape)
        y.sum().backward()
        assert x0.grad.shape == x0.shape


def test_nan_wins_max_pooling():
    a = np.arange(64, dtype=np.float64).reshape(1, 1, 4, 4, 4)
    a[0, 0, 1, 2, 3] = np.nan
    for pool in (lambda lib, x: lib.nn.functional.max_pool3d(x, 2, return_indices=True),
                 lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, 2, return_indices=True)):
        (y, i), (yt, it) = pool(numgrad, numgrad.tensor(a)), pool(torch, torch.tensor(a))
        np.testing.assert_array_equal(y.numpy(), yt.numpy())
        np.testing.assert_array_equal(i.numpy(), it.numpy())


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_matches_pytorch(n):
    shape = (2, 3) + (6, 8, 4)[:n]
    a = np.random.default_rng(3).standard_normal(shape)
    y, idx = getattr(TF, f"max_pool{n}d")(torch.tensor(a), 2, return_indices=True)
    for size in (None, tuple(s + 1 for s in shape[2:])):
        x, xt = numgrad.tensor(y.numpy(), requires_grad=True), y.clone().requires_grad_(True)
        u = getattr(F, f"max_unpool{n}d")(x, numgrad.tensor(idx.numpy()), 2, output_size=size)
        ut = getattr(TF, f"max_unpool{n}d")(xt, idx, 2, output_size=size)
        np.testing.assert_array_equal(u.detach().numpy(), ut.detach().numpy())
        assert type(u.grad_fn).__name__ == type(ut.grad_fn).__name__
        g = np.random.default_rng(4).standard_normal(tuple(ut.shape))
        u.backward(numgrad.tensor(g))
        ut.backward(torch.tensor(g))
        np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    m, mt = getattr(numgrad.nn, f"MaxUnpool{n}d")(2), getattr(torch.nn, f"MaxUnpool{n}d")(2)
    assert repr(m) == repr(mt)
    np.testing.assert_array_equal(m(numgrad.tensor(y.numpy()), numgrad.tensor(idx.numpy())).numpy(),
                                  mt(y, idx).numpy())


def test_gradcheck_float64():
    x = numgrad.randn(1, 2, 3, 4, 3, dtype=numgrad.float64, requires_grad=True)
    for f in (lambda x: F.max_pool3d(x, 2, stride=1, padding=1),
              lambda x: F.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False),
              lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)),
              lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
              lambda x: F.lp_pool3d(x, 2, 2, stride=1),
              lambda x: F.adaptive_max_pool2d(x[0], (2, 3))):
        assert numgrad.autograd.gradcheck(f, (x,))
    assert numgrad.autograd.gradgradcheck(lambda x: F.avg_pool3d(x, 2, stride=1), (x,))
    assert numgrad.autograd.gradgradcheck(lambda x: F.max_pool3d(x, 2, stride=1), (x,))
    y, idx = F.max_pool2d(numgrad.randn(1, 2, 4, 4, dtype=numgrad.float64), 2, return_indices=True)
    y.requires_grad_(True)
    assert numgrad.autograd.gradcheck(lambda y: F.max_unpool2d(y, idx, 2), (y,))


@pytest.mark.parametrize("name,args,kw,shape", [
    ("MaxPool3d", (2,), dict(stride=1, return_indices=False), (2, 3, 4, 4, 4)),
    ("AvgPool3d", (2,), dict(stride=1, padding=1), (2, 3, 4, 4, 4)),
    ("AdaptiveAvgPool3d", ((2, 3, 2),), {}, (2, 3, 4, 5, 6)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveMaxPool2d", (3,), dict(return_indices=True), (2, 3, 7, 7)),
    ("AdaptiveMaxPool3d", ((2, None, 1),), {}, (2, 3, 4, 5, 6)),
    ("LPPool1d", (2, 2), {}, (2, 3, 4)),
    ("LPPool2d", (2, 2), dict(stride=1), (2, 3, 4, 4)),
    ("LPPool3d", (2, 2), {}, (2, 3, 4, 4, 4)),
    ("Fold", ((4, 5), 2), {}, (2, 12, 12)),
    ("Unfold", (2,), dict(padding=1), (2, 3, 4, 5)),
])
def test_layers_match_pytorch(name, args, kw, shape):
    m, mt = getattr(numgrad.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(m) == repr(mt)
    x, xt = _pair(shape, "float32")
    y, yt = m(x), mt(xt)
    if isinstance(yt, tuple):
        np.testing.assert_array_equal(y[1].numpy(), yt[1].numpy())
        y, yt = y[0], yt[0]
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **TOL["float32"])


def test_errors():
    with pytest.raises(RuntimeError, match="pad should be smaller than or equal to half of kernel size"):
        F.max_pool3d(numgrad.zeros(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="Expected 4D \\(unbatched\\) or 5D \\(batched\\) input"):
        F.avg_pool3d(numgrad.zeros(4, 4, 4), 2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool3d(numgrad.zeros(1, 1, 4, 1, 4), 2)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(numgrad.zeros(1, 1, 4, 4, 4), 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.adaptive_max_pool2d(numgrad.zeros(4, 4), 2)
    with pytest.raises(RuntimeError, match="Expected input to have non-zero size for non-batch dimensions"):
        F.adaptive_max_pool3d(numgrad.zeros(1, 2, 0, 3, 3), 2)
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        F.max_unpool2d(numgrad.ones(1, 1, 2, 2), numgrad.tensor([[[[0, 1], [2, 99]]]]), 2)
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(numgrad.ones(1, 1, 2, 2), numgrad.zeros(1, 1, 2, 2, dtype=numgrad.int64), 2,
                       output_size=(9, 9))
    with pytest.raises(RuntimeError, match="Expected shape of indices to be same as that of the input tensor"):
        F.max_unpool2d(numgrad.ones(1, 1, 2, 2), numgrad.zeros(1, 1, 2, 1, dtype=numgrad.int64), 2)


def test_unbatched_fold_and_unfold():
    x, xt = _pair((3, 5, 5), "float64")
    u, ut = F.unfold(x, 2, padding=1), TF.unfold(xt, 2, padding=1)
    np.testing.assert_array_equal(u.detach().numpy(), ut.detach().numpy())
    f, ft = F.fold(u, (5, 5), 2, padding=1), TF.fold(ut, (5, 5), 2, padding=1)
    np.testing.assert_array_equal(f.detach().numpy(), ft.detach().numpy())
    f.sum().backward()
    ft.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    with pytest.raises(RuntimeError):
        F.fold(numgrad.zeros(12), (5, 5), 2)
