"""The neural-network kernels on CUDA against the CPU: convolution, pooling, softmax, losses and
scatter_reduce, values and gradients.

Runs on Numba's CUDA simulator unless NUMBA_ENABLE_CUDASIM=0 is set (see tests/test_cuda.py);
sizes stay tiny because every simulated GPU thread is a Python thread.
"""
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import math  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
import numgrad.nn.functional as F  # noqa: E402
from numgrad.ops import nn as nn_ops  # noqa: E402
from numgrad.testing import assert_close  # noqa: E402

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(), reason="numba.cuda is not available")

CUDA = "cuda"


def _on_both(fn, arrays, grad=True, dtype=None):
    """fn's outputs and the gradients of sum(out * out) on the CPU and on CUDA, as CPU tensors."""
    results = []
    for device in ("cpu", CUDA):
        xs = [numgrad.tensor(a, dtype=dtype, device=device, requires_grad=grad and np.issubdtype(a.dtype, np.floating))
              for a in arrays]
        out = fn(*xs)
        outs = list(out) if isinstance(out, tuple) else [out]
        assert all(o.device.type == device for o in outs)
        if grad:
            sum((o * o).sum() for o in outs if o.dtype.is_floating_point).backward()
        grads = [x.grad.cpu() for x in xs if x.grad is not None] if grad else []
        results.append([o.detach().cpu() for o in outs] + grads)
    return results


def _check(fn, arrays, tol=1e-10, **kwargs):
    cpu, gpu = _on_both(fn, arrays, **kwargs)
    assert len(cpu) == len(gpu)
    for c, g in zip(cpu, gpu):
        assert g.dtype is c.dtype
        assert_close(g, c, rtol=tol, atol=tol, equal_nan=True)


def test_no_host_fallback():
    for fn in (nn_ops.im2col, nn_ops.col2im, nn_ops.max_pool2d, nn_ops.max_pool2d_backward,
               numgrad.scatter_reduce, numgrad.index_reduce, numgrad.Tensor.scatter_reduce_,
               numgrad.Tensor.index_reduce_):
        assert not hasattr(fn, "__wrapped_for_cuda__"), fn


# -------------------------------------------------------------------------------- convolution
@pytest.mark.parametrize("stride, padding, dilation, groups", [
    (1, 0, 1, 1), (2, 1, 1, 1), ((1, 2), (2, 0), (2, 1), 2)])
def test_conv2d(stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((2, 2, 4, 5)), rng.standard_normal((2, 2 // groups, 3, 2)), rng.standard_normal(2)
    _check(lambda x, w, b: F.conv2d(x, w, b, stride, padding, dilation, groups), [x, w, b])


def test_conv_float32_same_padding_and_conv1d():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((1, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 2, 3)).astype(np.float32)
    _check(lambda x, w: F.conv2d(x, w, padding="same"), [x, w], tol=1e-5)
    _check(lambda x, w: F.conv1d(x, w, stride=2, padding=1), [x[:, :, 0], w[:, :, 0]], tol=1e-5)


def test_unfold_fold():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 1, 4, 4))
    _check(lambda x: F.fold(F.unfold(x, 3, padding=1, stride=2), (4, 4), 3, padding=1, stride=2), [x])
    ints = np.arange(24).reshape(1, 2, 3, 4)
    _check(lambda x: F.unfold(x, (2, 3), dilation=(1, 1), padding=(1, 0)), [ints], grad=False)
    halves = x.astype(np.float16)
    _check(lambda x: F.fold(F.unfold(x, 2), (4, 4), 2), [halves], tol=1e-3)


# ---------------------------------------------------------------------------------- pooling
@pytest.mark.parametrize("kernel, stride, padding, dilation, ceil_mode", [
    (2, None, 0, 1, False), (3, 1, 1, 1, False), ((3, 2), (2, 1), (1, 0), (1, 2), True)])
def test_max_pool2d(kernel, stride, padding, dilation, ceil_mode):
    rng = np.random.default_rng(3)
    # Few distinct values: ties, whose first maximum must win on both devices.
    x = rng.integers(-2, 3, (2, 2, 5, 6)).astype(np.float64)
    _check(lambda x: F.max_pool2d(x, kernel, stride, padding, dilation, ceil_mode, return_indices=True), [x])


def test_max_pool_nan_float32_float16_and_1d():
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    x[0, 0, 1, 0] = np.nan
    _check(lambda x: F.max_pool2d(x, 2, return_indices=True), [x], tol=1e-6)
    _check(lambda x: F.max_pool2d(x, 3, 1, 1), [x.astype(np.float16)], tol=1e-3)
    _check(lambda x: F.max_pool1d(x, 2, 1, return_indices=True), [x[0]], tol=1e-6)


def test_max_pool_double_backward():
    x = np.random.default_rng(4).standard_normal((1, 1, 4, 4))
    grads = []
    for device in ("cpu", CUDA):
        t = numgrad.tensor(x, device=device, requires_grad=True)
        (g,) = numgrad.autograd.grad((F.max_pool2d(t, 3, 1) ** 2).sum(), t, create_graph=True)
        (gg,) = numgrad.autograd.grad((g * g).sum(), t)
        grads.append((g.detach().cpu(), gg.cpu()))
    for c, g in zip(*grads):
        assert_close(g, c, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d(count_include_pad):
    x = np.random.default_rng(5).standard_normal((2, 2, 5, 4))
    _check(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=count_include_pad), [x])
    _check(lambda x: F.avg_pool1d(x, 2), [x[0]])


# ---------------------------------------------------------------------------------- softmax
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_log_softmax(dim):
    # 11 columns: rows longer than a simulated block, walked in strides.
    x = np.random.default_rng(6).standard_normal((3, 11)) * 10
    if dim == 0:
        x = x[:, :3]
    _check(lambda x: (F.softmax(x, dim), F.log_softmax(x, dim)), [x])
    _check(lambda x: (F.softmax(x, dim), F.log_softmax(x, dim)), [x], dtype=numgrad.float32, tol=1e-5)


# The simulator computes in NumPy scalars, which warn where a GPU silently gives NaN.
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_softmax_special_rows_and_layouts():
    x = np.array([[1.0, np.nan, 2.0], [np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf], [1e4, -1e4, 0.0],
                  [-np.inf, 0.0, 1.0]])
    _check(lambda x: (F.softmax(x, 1), F.log_softmax(x, 1)), [x], grad=False)
    y = np.random.default_rng(7).standard_normal((2, 3, 4))
    _check(lambda y: F.log_softmax(y.transpose(0, 2), 1) * F.softmax(y[:, 1], 0).sum(), [y])
    _check(lambda y: F.softmax(y, 2), [y.astype(np.float16)], tol=1e-3)


def test_log_softmax_higher_order():
    x = np.random.default_rng(8).standard_normal((3, 5))
    out = []
    for device in ("cpu", CUDA):
        t = numgrad.tensor(x, device=device, requires_grad=True)
        (g,) = numgrad.autograd.grad((F.log_softmax(t, 1) ** 2).sum(), t, create_graph=True)
        (gg,) = numgrad.autograd.grad((g ** 3).sum(), t)
        out.append((g.detach().cpu(), gg.cpu()))
    for c, g in zip(*out):
        assert_close(g, c, rtol=1e-10, atol=1e-10)


# ----------------------------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((11, 5))
    t = numgrad.tensor([0, 4, -100, 2, 1, 3, -100, 0, 4, 1, 2])
    for label_smoothing in (0.0, 0.2):
        _check(lambda x: F.cross_entropy(x, t.to(x.device), reduction=reduction,
                                         label_smoothing=label_smoothing), [x])
    t4 = t.clamp_min(4) - numgrad.tensor([0, 0, 0, 4, 3, 2, 0, 4, 0, 3, 4])
    _check(lambda x: F.nll_loss(x, t4.to(x.device), reduction=reduction, ignore_index=4), [x],
           dtype=numgrad.float32, tol=1e-5)


def test_nll_edge_cases():
    x = numgrad.zeros(3, 4, device=CUDA)
    loss = F.nll_loss(x, numgrad.full((3,), -100, device=CUDA))
    assert loss.is_cuda and math.isnan(loss.item())
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.cross_entropy(x, numgrad.tensor([1, 7, 0], device=CUDA))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        F.nll_loss(x, numgrad.tensor([1, 2, 0]))


# ----------------------------------------------------------------------------- scatter_reduce
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce(reduce):
    rng = np.random.default_rng(10)
    x, src = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    idx = numgrad.tensor([[2, 0, 2, 1], [2, 2, 0, 0]])
    for include_self in (True, False):
        _check(lambda x, s: numgrad.scatter_reduce(x, 0, idx.to(x.device), s, reduce, include_self=include_self),
               [x, src])

    def on_ints(x):
        if reduce == "sum":  # index_reduce has no 'sum'
            return x.scatter_reduce(1, idx.to(x.device), x[:2], reduce)
        return x.clone().index_reduce_(0, idx[0, :3].to(x.device), x * 2, reduce)
    _check(on_ints, [np.arange(12).reshape(3, 4) % 5], grad=False)
