"""The padding layers against PyTorch's: values and gradients for every mode and rank, batched and
unbatched, non-contiguous and empty-batch inputs, reprs, gradcheck and errors."""
import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

KINDS = ["ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"]
PADDINGS = {1: [2, (1, 3)], 2: [1, (1, 2, 0, 2)], 3: [1, (2, 1, 0, 1, 1, 2)]}


def _layers(kind, dims, padding):
    args = (padding, 1.5) if kind == "ConstantPad" else (padding,)
    name = f"{kind}{dims}d"
    return getattr(numgrad.nn, name)(*args), getattr(torch.nn, name)(*args)


def _both(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_layers_match_pytorch(kind, dims, dtype):
    for padding in PADDINGS[dims]:
        layer, reference = _layers(kind, dims, padding)
        assert repr(layer) == repr(reference)
        assert layer.padding == reference.padding
        for batched in (True, False):
            shape = ((2,) if batched else ()) + (3,) + (4, 5, 3)[:dims]
            x, xt = _both(shape, dtype)
            y, yt = layer(x), reference(xt)
            np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
            g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
            y.backward(numgrad.tensor(g))
            yt.backward(torch.tensor(g))
            np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_non_contiguous_and_empty_batch(kind):
    layer, reference = _layers(kind, 2, (1, 2, 2, 1))
    a = np.random.default_rng(0).standard_normal((2, 3, 5, 4)).astype("float32")
    x, xt = numgrad.tensor(a).transpose(2, 3), torch.tensor(a).transpose(2, 3)
    np.testing.assert_array_equal(layer(x).numpy(), reference(xt).numpy())
    empty, empty_t = layer(numgrad.zeros(0, 3, 4, 4)), reference(torch.zeros(0, 3, 4, 4))
    assert tuple(empty.shape) == tuple(empty_t.shape)


def test_negative_padding_crops():
    for kind in ("ConstantPad", "ZeroPad", "CircularPad"):
        layer, reference = _layers(kind, 2, (-1, 2, 1, -2))
        x, xt = _both((1, 2, 4, 5), "float64")
        np.testing.assert_array_equal(layer(x).detach().numpy(), reference(xt).detach().numpy())


@pytest.mark.parametrize("kind", ["ReflectionPad", "ReplicationPad", "CircularPad"])
def test_gradcheck(kind):
    x = numgrad.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 3)), requires_grad=True)
    layer = getattr(numgrad.nn, f"{kind}2d")((1, 2, 2, 1))
    assert numgrad.autograd.gradcheck(layer, (x,))
    assert numgrad.autograd.gradgradcheck(layer, (x,))


def test_integer_inputs():
    a = np.arange(12).reshape(1, 3, 4)
    for kind in ("ConstantPad", "ReplicationPad", "CircularPad", "ReflectionPad"):
        layer, reference = _layers(kind, 1, 2)
        if kind == "ConstantPad":
            layer, reference = numgrad.nn.ConstantPad1d(2, 7), torch.nn.ConstantPad1d(2, 7)
        np.testing.assert_array_equal(layer(numgrad.tensor(a)).numpy(), reference(torch.tensor(a)).numpy())


def _raises_like_torch(make, shape, match=None):
    layer, reference = make(numgrad.nn), make(torch.nn)
    with pytest.raises(Exception) as theirs:
        reference(torch.zeros(shape))
    with pytest.raises(type(theirs.value), match=match):
        layer(numgrad.zeros(shape))


def test_errors_match_pytorch():
    _raises_like_torch(lambda nn: nn.ReflectionPad1d(4), (1, 2, 4), "Padding size should be less than")
    _raises_like_torch(lambda nn: nn.ReflectionPad2d((1, 1, 3, 3)), (1, 2, 3, 5), "Padding size should be less")
    _raises_like_torch(lambda nn: nn.CircularPad2d(1), (4, 4), "expected 3D or 4D input")
    _raises_like_torch(lambda nn: nn.CircularPad1d(1), (1, 1, 2, 4), "expected 2D or 3D input")
    _raises_like_torch(lambda nn: nn.CircularPad1d(5), (1, 2, 4), "wrapping around more than once")
    _raises_like_torch(lambda nn: nn.ReplicationPad3d(1), (3, 3), "less than or equal to two times")
    _raises_like_torch(lambda nn: nn.ReplicationPad3d(1), (2, 3, 3), "not supported for 3D input")
    _raises_like_torch(lambda nn: nn.ReflectionPad2d(1), (1, 0, 3, 3), "non-zero dimensions")
