"""pixel_shuffle, pixel_unshuffle and channel_shuffle against PyTorch: values, gradients, node
names, extra batch dims, non-contiguous and empty inputs, gradcheck, errors and the layers."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [("pixel_shuffle", (2, 8, 3, 2), 2), ("pixel_shuffle", (9, 2, 3), 3), ("pixel_shuffle", (2, 3, 4, 2, 2), 2),
         ("pixel_shuffle", (2, 4, 2, 3), 1), ("pixel_unshuffle", (2, 2, 4, 6), 2), ("pixel_unshuffle", (1, 6, 3), 3),
         ("pixel_unshuffle", (2, 3, 1, 4, 2), 2), ("channel_shuffle", (2, 6, 3), 2),
         ("channel_shuffle", (1, 6, 2, 2), 3), ("channel_shuffle", (2, 4, 1, 2, 2), 4),
         ("channel_shuffle", (2, 4, 3), 1)]
NODES = {"pixel_shuffle": "PixelShuffleBackward0", "pixel_unshuffle": "PixelUnshuffleBackward0",
         "channel_shuffle": "ChannelShuffleBackward0"}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,shape,factor", CASES)
def test_values_and_gradients_match_pytorch(name, shape, factor, dtype):
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    x, xt = numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, yt = getattr(F, name)(x, factor), getattr(TF, name)(xt, factor)
    assert type(y.grad_fn).__name__ == NODES[name]
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
    y.backward(numgrad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())


@pytest.mark.parametrize("name,factor", [("pixel_shuffle", 2), ("pixel_unshuffle", 2), ("channel_shuffle", 2)])
def test_non_contiguous_empty_and_fresh(name, factor):
    a = np.random.default_rng(0).standard_normal((2, 4, 6, 4)).astype("float32")
    x, xt = numgrad.tensor(a).transpose(2, 3), torch.tensor(a).transpose(2, 3)
    np.testing.assert_array_equal(getattr(F, name)(x, factor).numpy(), getattr(TF, name)(xt, factor).numpy())
    empty = getattr(F, name)(numgrad.zeros(0, 4, 2, 2), factor)
    # PyTorch's pixel_unshuffle returns an empty input's shape unchanged; numgrad's shape is the
    # one a non-empty batch gets.
    expected = getattr(TF, name)(torch.zeros(1, 4, 2, 2), factor).shape[1:]
    assert tuple(empty.shape) == (0,) + tuple(expected)
    x = numgrad.zeros(1, 4, 2, 2)
    getattr(F, name)(x, 1).add_(1)
    assert x.sum().item() == 0


@pytest.mark.parametrize("name,shape,factor", [("pixel_shuffle", (1, 8, 2, 1), 2), ("pixel_unshuffle", (1, 2, 2, 4), 2),
                                               ("channel_shuffle", (1, 6, 2), 3)])
def test_gradcheck_and_forward_mode(name, shape, factor):
    x = numgrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    fn = getattr(F, name)
    assert numgrad.autograd.gradcheck(lambda t: fn(t, factor), (x,))
    assert numgrad.autograd.gradgradcheck(lambda t: fn(t, factor), (x,))
    import numgrad.autograd.forward_ad as fwAD
    t = numgrad.tensor(np.random.default_rng(1).standard_normal(shape))
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fn(fwAD.make_dual(x.detach(), t), factor)).tangent
    np.testing.assert_array_equal(tangent.numpy(), fn(t, factor).numpy())


def test_integer_and_bool_inputs():
    a = np.arange(32).reshape(1, 8, 2, 2)
    for name in ("pixel_shuffle", "channel_shuffle"):
        for dtype in ("int64", "bool"):
            b = a.astype(dtype) if dtype != "bool" else a % 3 == 0
            np.testing.assert_array_equal(getattr(F, name)(numgrad.tensor(b), 2).numpy(),
                                          getattr(TF, name)(torch.tensor(b), 2).numpy())


def _raises_like_torch(name, shape, factor, match):
    with pytest.raises(Exception) as theirs:
        getattr(TF, name)(torch.zeros(shape), factor)
    with pytest.raises(type(theirs.value), match=match):
        getattr(F, name)(numgrad.zeros(shape), factor)


def test_errors_match_pytorch():
    _raises_like_torch("pixel_shuffle", (4, 2), 2, "at least 3 dimensions")
    _raises_like_torch("pixel_shuffle", (1, 4, 2, 2), 0, "positive upscale_factor")
    _raises_like_torch("pixel_shuffle", (1, 8, 2, 2), 3, r"input.size\(-3\)=8 is not divisible by 9")
    _raises_like_torch("pixel_shuffle", (1, 4, 2, 2), 2.0, "must be int")
    _raises_like_torch("pixel_unshuffle", (4, 2), 2, "at least 3 dimensions")
    _raises_like_torch("pixel_unshuffle", (1, 1, 4, 6), 0, "positive downscale_factor")
    _raises_like_torch("pixel_unshuffle", (1, 1, 3, 6), 2, r"height .* input.size\(-2\)=3")
    _raises_like_torch("pixel_unshuffle", (1, 1, 4, 6), 4, r"width .* input.size\(-1\)=6")
    _raises_like_torch("channel_shuffle", (2, 8), 2, "> 2 dims")
    _raises_like_torch("channel_shuffle", (1, 8, 2), 0, "must be positive")
    _raises_like_torch("channel_shuffle", (1, 8, 2), 3, "Got 8 channels and 3 groups")


def test_layers():
    a = np.random.default_rng(0).standard_normal((2, 8, 4, 4)).astype("float32")
    for name, arg in (("PixelShuffle", 2), ("PixelUnshuffle", 2), ("ChannelShuffle", 4)):
        layer, reference = getattr(numgrad.nn, name)(arg), getattr(torch.nn, name)(arg)
        assert repr(layer) == repr(reference)
        assert layer.state_dict() == {}
        np.testing.assert_array_equal(layer(numgrad.tensor(a)).numpy(), reference(torch.tensor(a)).numpy())
