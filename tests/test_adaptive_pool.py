"""Adaptive average pooling against PyTorch: values and gradients bit for bit, shapes (None
sizes, empty batches, zero-size outputs, global pooling), PyTorch's errors and node names,
higher derivatives, forward mode, the CUDA host fallback and the layers."""
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
import numgrad.nn.functional as F  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [((2, 3, 7, 5), (3, 2)), ((3, 7, 5), 4), ((2, 3, 7, 5), (None, 2)), ((20, 3, 9, 11), (4, 6)),
         ((1, 2, 3, 3), (5, 7)), ((0, 3, 4, 5), (2, 2)), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), 1),
         ((4, 64, 13, 13), (6, 6))]


def _both(shape, dtype, seed=0, requires_grad=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (numgrad.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,size", CASES)
def test_values_and_gradients_match_pytorch(shape, size, dtype):
    x, xt = _both(shape, dtype)
    y, yt = F.adaptive_avg_pool2d(x, size), TF.adaptive_avg_pool2d(xt, size)
    assert tuple(y.shape) == tuple(yt.shape) and y.dtype.name == dtype
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
    if 0 in tuple(yt.shape)[-2:]:
        with pytest.raises(RuntimeError, match="grad_output to have non-zero size"):
            y.backward(numgrad.tensor(g))
        with pytest.raises(RuntimeError, match="grad_output to have non-zero size"):
            yt.backward(torch.tensor(g))
        return
    y.backward(numgrad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__


def test_float16_forward_matches_pytorch():
    x, xt = _both((2, 3, 9, 11), "float16", requires_grad=False)
    y = F.adaptive_avg_pool2d(x, (4, 6))
    assert y.dtype is numgrad.float16
    np.testing.assert_array_equal(y.numpy(), TF.adaptive_avg_pool2d(xt, (4, 6)).numpy())


def test_non_contiguous_input():
    x, xt = _both((2, 3, 7, 5), "float64")
    np.testing.assert_array_equal(F.adaptive_avg_pool2d(x.transpose(-1, -2), 3).detach().numpy(),
                                  TF.adaptive_avg_pool2d(xt.transpose(-1, -2), 3).detach().numpy())


def test_adaptive_avg_pool1d_matches_pytorch():
    for shape, size in [((2, 3, 10), 4), ((3, 10), (3,)), ((0, 3, 4), 2)]:
        x, xt = _both(shape, "float64")
        y, yt = F.adaptive_avg_pool1d(x, size), TF.adaptive_avg_pool1d(xt, size)
        np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
        assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__ == "SqueezeBackward1"


def test_higher_derivatives_and_forward_mode():
    x = numgrad.randn(2, 3, 7, 5, dtype=numgrad.float64, requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (x,))
    assert numgrad.autograd.gradgradcheck(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (x,))
    v = numgrad.randn(2, 3, 3, 4, dtype=numgrad.float64, requires_grad=True)
    (gx,) = numgrad.autograd.grad(F.adaptive_avg_pool2d(x, (3, 4)), x, v, create_graph=True)
    assert type(gx.grad_fn).__name__ == "AdaptiveAvgPool2DBackwardBackward0"
    t = numgrad.randn(2, 3, 7, 5, dtype=numgrad.float64)
    _, jvp = numgrad.func.jvp(lambda x: F.adaptive_avg_pool2d(x, (3, 4)), (x.detach(),), (t,))
    np.testing.assert_allclose(jvp.numpy(), F.adaptive_avg_pool2d(t, (3, 4)).numpy())


@pytest.mark.parametrize("call", [
    lambda: F.adaptive_avg_pool2d(numgrad.randn(7, 5), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(1, 2, 4, 5, 6), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(2, 3, 7, 5), (1, 2, 3)),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(1, 4, 5), (2,)),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(2, 3, 0, 5), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(3, 0, 4), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(2, 3, 4, 5), -1),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(1, 4, 5), (2, -3)),
    lambda: F.adaptive_avg_pool2d(numgrad.arange(20).reshape(1, 4, 5), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.ones(1, 4, 5, dtype=numgrad.bool), 2),
    lambda: F.adaptive_avg_pool2d(numgrad.randn(1, 4, 5), 2.5),
    lambda: F.adaptive_avg_pool1d(numgrad.randn(2, 3, 7), (1, 2)),
    lambda: F.adaptive_avg_pool1d(numgrad.randn(7), 2),
    lambda: F.adaptive_avg_pool1d(numgrad.randn(2, 4), None),
    lambda: F.adaptive_avg_pool1d(numgrad.randn(2, 3, 0), 2),
])
def test_errors_match_pytorch(call):
    with pytest.raises(Exception) as ours:
        call()
    theirs = None
    try:
        # The same call spelled in PyTorch: the lambda's code with torch's modules as its globals.
        eval(call.__code__, {"F": TF, "numgrad": torch})
    except Exception as e:
        theirs = e
    assert theirs is not None
    assert type(ours.value) is type(theirs) and str(ours.value) == str(theirs)


def test_cuda_runs_on_host_copies():
    if not numgrad.cuda.is_available():
        pytest.skip("numba.cuda is not available")
    a = np.random.default_rng(2).standard_normal((2, 3, 7, 5))
    x = numgrad.tensor(a, device="cuda", requires_grad=True)
    y = F.adaptive_avg_pool2d(x, (3, 2))
    assert y.device.type == "cuda"
    (y * y).sum().backward()
    xc = numgrad.tensor(a, requires_grad=True)
    yc = F.adaptive_avg_pool2d(xc, (3, 2))
    (yc * yc).sum().backward()
    np.testing.assert_array_equal(y.detach().cpu().numpy(), yc.detach().numpy())
    assert x.grad.device.type == "cuda"
    np.testing.assert_array_equal(x.grad.cpu().numpy(), xc.grad.numpy())


def test_layers():
    assert repr(numgrad.nn.AdaptiveAvgPool2d((5, None))) == repr(torch.nn.AdaptiveAvgPool2d((5, None)))
    assert repr(numgrad.nn.AdaptiveAvgPool1d(3)) == repr(torch.nn.AdaptiveAvgPool1d(3))
    x, xt = _both((2, 3, 8, 8), "float32")
    np.testing.assert_array_equal(numgrad.nn.AdaptiveAvgPool2d(3)(x).detach().numpy(),
                                  torch.nn.AdaptiveAvgPool2d(3)(xt).detach().numpy())
    x, xt = _both((2, 3, 8), "float32")
    np.testing.assert_array_equal(numgrad.nn.AdaptiveAvgPool1d(5)(x).detach().numpy(),
                                  torch.nn.AdaptiveAvgPool1d(5)(xt).detach().numpy())
