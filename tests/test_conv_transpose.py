"""Transposed convolutions and 3-D convolution against PyTorch: values and gradients in float32
and float64, non-contiguous and unbatched inputs, empty batches, the layers (initialisation after
manual_seed, state_dict keys, output_size, padding modes), node names, errors and gradcheck."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def _pair(shape, dtype, rng, requires_grad=True):
    a = rng.standard_normal(shape).astype(dtype)
    return numgrad.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def _close(a, b, dtype):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **TOL[dtype])


TRANSPOSE_CASES = [
    (1, (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    (1, (4, 6), (4, 2, 2), dict(groups=2, dilation=2)),
    (2, (2, 4, 5, 4), (4, 3, 3, 2), dict(stride=(2, 1), padding=1, output_padding=(1, 0))),
    (2, (2, 4, 3, 4), (4, 2, 3, 3), dict(stride=2, groups=2, dilation=2, output_padding=1)),
    (2, (3, 4, 4), (3, 2, 3, 3), dict(stride=3, padding=2)),
    (3, (2, 4, 3, 2, 3), (4, 1, 2, 3, 2), dict(stride=(1, 2, 2), padding=(0, 1, 1), groups=4,
                                               dilation=(2, 1, 1))),
    (3, (1, 2, 2, 3, 2), (2, 3, 2, 2, 2), dict(stride=2, output_padding=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,xs,ws,kw", TRANSPOSE_CASES)
def test_conv_transpose_matches_pytorch(n, xs, ws, kw, dtype):
    rng = np.random.default_rng(0)
    (x, xt), (w, wt) = _pair(xs, dtype, rng), _pair(ws, dtype, rng)
    b, bt = _pair((ws[1] * kw.get("groups", 1),), dtype, rng)
    y = getattr(F, f"conv_transpose{n}d")(x, w, b, **kw)
    yt = getattr(TF, f"conv_transpose{n}d")(xt, wt, bt, **kw)
    assert tuple(y.shape) == tuple(yt.shape)
    _close(y, yt, dtype)
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
    g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    y.backward(numgrad.tensor(g))
    yt.backward(torch.tensor(g))
    for a, at in ((x, xt), (w, wt), (b, bt)):
        _close(a.grad, at.grad, dtype)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv3d_matches_pytorch(dtype):
    rng = np.random.default_rng(1)
    for xs, ws, kw in [((2, 4, 5, 6, 5), (6, 2, 2, 3, 2), dict(stride=2, padding=1, dilation=(1, 2, 1), groups=2)),
                       ((4, 5, 4, 5), (3, 4, 3, 2, 2), dict(padding="same")),
                       ((2, 4, 4, 4, 4), (2, 4, 1, 3, 3), dict(padding="valid", stride=(1, 2, 1)))]:
        (x, xt), (w, wt), (b, bt) = _pair(xs, dtype, rng), _pair(ws, dtype, rng), _pair((ws[0],), dtype, rng)
        y, yt = F.conv3d(x, w, b, **kw), TF.conv3d(xt, wt, bt, **kw)
        _close(y, yt, dtype)
        assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
        (y * y).sum().backward()
        (yt * yt).sum().backward()
        for a, at in ((x, xt), (w, wt), (b, bt)):
            _close(a.grad, at.grad, dtype)


def test_non_contiguous_inputs_and_empty_batch():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((5, 4, 4, 2))
    w = rng.standard_normal((2, 4, 3, 3))
    x, xt = numgrad.tensor(a).permute(3, 1, 2, 0), torch.tensor(a).permute(3, 1, 2, 0)
    wn, wt = numgrad.tensor(w).transpose(0, 1), torch.tensor(w).transpose(0, 1)
    _close(F.conv_transpose2d(x, wn, stride=2), TF.conv_transpose2d(xt, wt, stride=2), "float64")
    v = rng.standard_normal((3, 2, 6, 3, 4))
    w3 = rng.standard_normal((4, 3, 2, 2, 2))
    _close(F.conv3d(numgrad.tensor(v).transpose(0, 1)[..., ::2], numgrad.tensor(w3)),
           TF.conv3d(torch.tensor(v).transpose(0, 1)[..., ::2], torch.tensor(w3)), "float64")
    x0 = numgrad.zeros(0, 4, 3, 3, requires_grad=True)
    w0 = numgrad.ones(4, 2, 2, 2, requires_grad=True)
    y = F.conv_transpose2d(x0, w0, stride=2)
    assert tuple(y.shape) == tuple(TF.conv_transpose2d(torch.zeros(0, 4, 3, 3), torch.ones(4, 2, 2, 2),
                                                       stride=2).shape)
    y.sum().backward()
    assert x0.grad.shape == x0.shape and float(w0.grad.abs().sum()) == 0.0


def test_gradcheck_float64():
    x = numgrad.randn(1, 2, 3, 2, dtype=numgrad.float64, requires_grad=True)
    w = numgrad.randn(2, 2, 2, 2, dtype=numgrad.float64, requires_grad=True)
    b = numgrad.randn(4, dtype=numgrad.float64, requires_grad=True)
    f = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, groups=2, output_padding=1)  # noqa: E731
    assert numgrad.autograd.gradcheck(f, (x, w, b))
    assert numgrad.autograd.gradgradcheck(f, (x, w, b))
    x3 = numgrad.randn(1, 2, 3, 2, 2, dtype=numgrad.float64, requires_grad=True)
    w3 = numgrad.randn(2, 1, 2, 1, 2, dtype=numgrad.float64, requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda x, w: F.conv_transpose3d(x, w, stride=(2, 1, 1)), (x3, w3))
    v3 = numgrad.randn(2, 1, 2, 1, 2, dtype=numgrad.float64, requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda x, w: F.conv3d(x, w, padding=1), (x3, v3.transpose(0, 1)))


def test_forward_mode():
    x, w = numgrad.randn(2, 3, 4, dtype=numgrad.float64), numgrad.randn(3, 2, 3, dtype=numgrad.float64)
    tx, tw = numgrad.randn(2, 3, 4, dtype=numgrad.float64), numgrad.randn(3, 2, 3, dtype=numgrad.float64)
    _, jvp = numgrad.func.jvp(lambda x, w: F.conv_transpose1d(x, w, stride=2), (x, w), (tx, tw))
    expected = F.conv_transpose1d(tx, w, stride=2) + F.conv_transpose1d(x, tw, stride=2)
    np.testing.assert_allclose(jvp.numpy(), expected.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,args,kw,shape", [
    ("ConvTranspose1d", (4, 6, 3), dict(stride=2, groups=2, bias=False), (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, padding=1, output_padding=1), (2, 4, 5, 6)),
    ("ConvTranspose3d", (4, 6, 3), dict(stride=2, dilation=2), (2, 4, 3, 2, 3)),
    ("Conv3d", (4, 6, 3), dict(stride=2, padding=1, groups=2), (2, 4, 5, 6, 5)),
    ("Conv3d", (4, 6, (2, 3, 1)), dict(padding="same", padding_mode="reflect"), (2, 4, 5, 6, 5)),
    ("Conv3d", (4, 6, 3), dict(padding=1, padding_mode="circular"), (4, 5, 6, 5)),
    ("Conv3d", (4, 6, 3), dict(padding=(1, 0, 2), padding_mode="replicate"), (1, 4, 4, 4, 4)),
])
def test_layers_match_pytorch(name, args, kw, shape):
    numgrad.manual_seed(0)
    torch.manual_seed(0)
    m, mt = getattr(numgrad.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert list(m.state_dict()) == list(mt.state_dict())
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), mt.state_dict()[k].numpy())
    assert repr(m) == repr(mt)
    x, xt = _pair(shape, "float32", np.random.default_rng(3))
    y, yt = m(x), mt(xt)
    _close(y, yt, "float32")
    y.sum().backward()
    yt.sum().backward()
    _close(x.grad, xt.grad, "float32")
    _close(m.weight.grad, mt.weight.grad, "float32")


def test_output_size():
    m, mt = numgrad.nn.ConvTranspose2d(4, 3, 3, stride=2), torch.nn.ConvTranspose2d(4, 3, 3, stride=2)
    for size in ([12, 12], [11, 12], [1, 3, 12, 11]):
        assert tuple(m(numgrad.zeros(1, 4, 5, 5), output_size=size).shape) == \
            tuple(mt(torch.zeros(1, 4, 5, 5), output_size=size).shape)
    assert tuple(m(numgrad.zeros(4, 5, 5), output_size=[12, 12]).shape) == (3, 12, 12)
    for bad in ([14, 14], [1, 2, 3]):
        with pytest.raises(ValueError) as ours:
            m(numgrad.zeros(1, 4, 5, 5), output_size=bad)
        with pytest.raises(ValueError) as theirs:
            mt(torch.zeros(1, 4, 5, 5), output_size=bad)
        assert str(ours.value).split(" (for")[0] == str(theirs.value).split(" (for")[0]


def test_errors():
    x, w = numgrad.zeros(1, 4, 3, 3), numgrad.zeros(4, 2, 3, 3)
    with pytest.raises(RuntimeError, match="to have 4 channels, but got 5 channels"):
        F.conv_transpose2d(numgrad.zeros(1, 5, 3, 3), w)
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(x, w, output_padding=1)
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input"):
        F.conv_transpose2d(numgrad.zeros(4, 3), w)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        F.conv_transpose2d(x, w.double())
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.conv3d(numgrad.zeros(1, 4, 2, 2, 2), numgrad.zeros(2, 4, 3, 3, 3))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        numgrad.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        F.conv3d(numgrad.zeros(1, 4, 3, 3, 3), numgrad.zeros(2, 4, 1, 1, 1), stride=2, padding="same")
