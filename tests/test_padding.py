"""F.pad in its four modes and the convolution layers' padding modes: values, errors, names and
derivatives (gradcheck, gradgradcheck, forward mode), compared with PyTorch when installed."""
import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F
from numgrad import nn
from numgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the hard-coded expectations still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
MODES = ("constant", "reflect", "replicate", "circular")

# (input shape, pad) pairs every mode accepts: 1, 2 and 3 padded dims, batched and not, crops.
CASES = [
    ((2, 3, 5), (1, 2)),
    ((3, 5), (2, 0)),
    ((2, 3, 5), (-1, 2)),
    ((2, 3, 5), (2, -1)),
    ((1, 2, 4, 5), (1, 2, 2, 1)),
    ((2, 4, 5), (1, 0, 3, 2)),
    ((1, 1, 3, 4, 5), (1, 2, 0, 1, 2, 1)),
    ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1)),
    ((2, 3, 5), (0, 0)),
    ((0, 3, 5), (1, 1)),
]


def _x(shape, dtype=numgrad.float64, requires_grad=False):
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 0.37 - 1.0
    return numgrad.tensor(values, dtype=dtype, requires_grad=requires_grad)


def test_reflect_replicate_circular_values():
    x = numgrad.arange(4.0).reshape(1, 4)
    assert F.pad(x, (2, 1), mode="reflect").tolist() == [[2.0, 1.0, 0.0, 1.0, 2.0, 3.0, 2.0]]
    assert F.pad(x, (2, 1), mode="replicate").tolist() == [[0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0]]
    assert F.pad(x, (2, 1), mode="circular").tolist() == [[2.0, 3.0, 0.0, 1.0, 2.0, 3.0, 0.0]]
    assert F.pad(x, (1, 2), value=9.0).tolist() == [[9.0, 0.0, 1.0, 2.0, 3.0, 9.0, 9.0]]
    # Negative amounts crop: reflect and replicate index the whole input, circular wraps the rest.
    assert F.pad(x, (-1, 2), mode="reflect").tolist() == [[1.0, 2.0, 3.0, 2.0, 1.0]]
    assert F.pad(x, (-1, 2), mode="replicate").tolist() == [[1.0, 2.0, 3.0, 3.0, 3.0]]
    assert F.pad(x, (-1, 2), mode="circular").tolist() == [[1.0, 2.0, 3.0, 1.0, 2.0]]
    assert F.pad(x, (-1, -2)).tolist() == [[1.0]]


def test_two_dims_and_dtypes():
    x = numgrad.arange(6).reshape(1, 2, 3)
    assert F.pad(x, (1, 1, 1, 0), mode="replicate").tolist() == [[[0, 0, 1, 2, 2], [0, 0, 1, 2, 2],
                                                                    [3, 3, 4, 5, 5]]]
    assert F.pad(x, (0, 1, 0, 1), mode="circular").dtype is numgrad.int64
    assert F.pad(x.half(), (1, 1), mode="reflect").dtype is numgrad.float16
    b = numgrad.tensor([[True, False]])
    assert F.pad(b, (1, 0), mode="circular").tolist() == [[False, True, False]]


@pytest.mark.parametrize("mode, kernel", [("reflect", "reflection_pad1d"), ("replicate", "replication_pad1d")])
def test_bool_refused_where_pytorch_refuses(mode, kernel):
    with pytest.raises(NotImplementedError, match=kernel):
        F.pad(numgrad.tensor([[True, False]]), (1, 0), mode=mode)


ERRORS = [
    # (shape, pad, mode, value, exception, message)
    ((2, 3), (1, 2, 3), "constant", None, RuntimeError, "Padding length must be divisible by 2"),
    ((2, 3), (1,) * 6, "constant", None, RuntimeError, "less than or equal to two times the input dimension"),
    ((2, 3), (1, 1), "foo", None, NotImplementedError, "Unrecognised padding mode foo"),
    ((2, 3), (1, 1), "reflect", 1.0, RuntimeError, "doesn't take in value argument"),
    ((5,), (1, 1), "reflect", None, NotImplementedError, "Padding size 2 is not supported for 1D input"),
    ((2, 3), (1, 1, 1, 1), "circular", None, NotImplementedError, "Padding size 4 is not supported for 2D"),
    ((1, 2, 3, 4, 5), (1, 1), "replicate", None, NotImplementedError, "Padding size 2 is not supported for 5D"),
    ((2, 3, 4), (4, 1), "reflect", None, RuntimeError, r"Argument #4: Padding size should be less than"),
    ((2, 3, 2, 4), (1, 1, 2, 1), "reflect", None, RuntimeError, r"Argument #6: .* at dimension 2"),
    ((2, 3, 0), (1, 1), "reflect", None, RuntimeError, r"Expected 2D or 3D \(batch mode\) tensor"),
    ((2, 0, 3, 3), (1, 1, 1, 1), "replicate", None, RuntimeError, r"Expected 3D or 4D \(batch mode\)"),
    ((1, 4), (-2, -2), "replicate", None, RuntimeError, r"input \(W: 4\) is too small"),
    ((2, 3, 4), (5, 1), "circular", None, RuntimeError, "wrapping around more than once"),
    ((2, 3, 0), (1, 1), "circular", None, RuntimeError, "wrapping around more than once"),
    ((1, 4), (-3, -2), "circular", None, RuntimeError, "resulting in an empty dimension"),
    ((2, 3), (1.0, 1), "constant", None, TypeError, "must be tuple of ints"),
]


@pytest.mark.parametrize("shape, pad, mode, value, exc, msg", ERRORS)
def test_errors(shape, pad, mode, value, exc, msg):
    with pytest.raises(exc, match=msg):
        F.pad(numgrad.zeros(shape), pad, mode=mode, value=value)
    if torch is not None:
        with pytest.raises(exc, match=msg):
            torch.nn.functional.pad(torch.zeros(shape), pad, mode=mode, value=value)


@needs_torch
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, pad", CASES)
def test_matches_torch(mode, shape, pad):
    x = _x(shape, requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    y, yt = F.pad(x, pad, mode=mode), torch.nn.functional.pad(xt, pad, mode=mode)
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
    weights = np.linspace(-1.0, 2.0, y.numel()).reshape(y.shape)
    (y * numgrad.tensor(weights)).sum().backward()
    (yt * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode, name", [("reflect", "ReflectionPad{}DBackward0"),
                                        ("replicate", "ReplicationPad{}DBackward0"),
                                        ("constant", "ConstantPadNdBackward0")])
def test_grad_fn_names(mode, name):
    for k, shape in ((1, (2, 3)), (2, (1, 3, 3)), (3, (1, 1, 3, 3, 3))):
        y = F.pad(_x(shape, requires_grad=True), (1, 1) * k, mode=mode)
        assert type(y.grad_fn).__name__ == name.format(k)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, pad", [((2, 4), (2, -1)), ((1, 3, 3), (1, 2, 2, 0)),
                                        ((1, 2, 2, 3), (1, 1, 1, 0, 0, 1))])
def test_gradcheck_and_gradgradcheck(mode, shape, pad):
    x = _x(shape, requires_grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode=mode), (x,))
    assert gradgradcheck(lambda t: F.pad(t, pad, mode=mode), (x,))


@pytest.mark.parametrize("mode", ("reflect", "replicate", "circular"))
def test_forward_mode_is_the_padded_tangent(mode):
    x, t = _x((2, 4)), _x((2, 4)) * 0.5 + 1.0
    out, tangent = numgrad.func.jvp(lambda a: F.pad(a, (2, 1), mode=mode), (x,), (t,))
    np.testing.assert_allclose(tangent.numpy(), F.pad(t, (2, 1), mode=mode).numpy())


# ------------------------------------------------------------------------ convolution layers

@pytest.mark.parametrize("mode", ("reflect", "replicate", "circular"))
def test_conv2d_padding_mode_is_pad_then_conv(mode):
    conv = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode, dtype=numgrad.float64)
    x = _x((1, 2, 4, 5), requires_grad=True)
    expected = F.conv2d(F.pad(x, (2, 2, 1, 1), mode=mode), conv.weight, conv.bias)
    np.testing.assert_allclose(conv(x).detach().numpy(), expected.detach().numpy())
    assert conv(x).shape == (1, 3, 4, 7)
    assert gradcheck(lambda t: conv(t), (x,))


@pytest.mark.parametrize("mode", ("zeros", "reflect", "circular"))
def test_conv1d_same_and_valid(mode):
    conv = nn.Conv1d(2, 2, 4, padding="same", dilation=2, padding_mode=mode, dtype=numgrad.float64)
    assert conv._reversed_padding_repeated_twice == [3, 3]
    x = _x((2, 7))  # unbatched
    assert conv(x).shape == (2, 7)
    valid = nn.Conv1d(2, 2, 4, padding="valid", padding_mode=mode)
    assert valid(x.float()).shape == (2, 4)


def test_conv_module_errors_and_repr():
    with pytest.raises(ValueError, match="padding_mode must be one of .* but got padding_mode='foo'"):
        nn.Conv2d(2, 3, 3, padding_mode="foo")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(2, 3, 3, padding="full")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv1d(2, 3, 3, padding="same", stride=2)
    assert repr(nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect")) == (
        "Conv2d(2, 3, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), padding_mode=reflect)")
    assert repr(nn.Conv1d(2, 3, 3, padding="same", padding_mode="circular")) == (
        "Conv1d(2, 3, kernel_size=(3,), stride=(1,), padding=same, padding_mode=circular)")


@needs_torch
@pytest.mark.parametrize("mode", ("reflect", "replicate", "circular"))
@pytest.mark.parametrize("cls, padding, shape", [("Conv1d", "same", (2, 2, 6)), ("Conv2d", 1, (1, 2, 4, 5)),
                                                 ("Conv2d", "same", (2, 4, 5))])
def test_conv_padding_modes_match_torch(mode, cls, padding, shape):
    ours = getattr(nn, cls)(2, 3, 3, padding=padding, padding_mode=mode, dtype=numgrad.float64)
    theirs = getattr(torch.nn, cls)(2, 3, 3, padding=padding, padding_mode=mode, dtype=torch.float64)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.detach().numpy()))
        theirs.bias.copy_(torch.tensor(ours.bias.detach().numpy()))
    x = _x(shape, requires_grad=True)
    xt = torch.tensor(x.detach().numpy(), requires_grad=True)
    y, yt = ours(x), theirs(xt)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert repr(ours) == repr(theirs)
