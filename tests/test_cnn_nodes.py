"""CNN layers as one autograd node each (convolution, avg_pool2d, batch_norm, embedding) and
reshape's copy: values, gradients and graph structure against torch when it is installed."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

F = numgrad.nn.functional
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _randn(gen, *shape):
    return numgrad.randn(*shape, dtype=numgrad.float64, generator=gen)


def _against_torch(name, args, kwargs, seed=0):
    """Value and gradients (for a random cotangent) of F.<name> in numgrad and torch; args are
    numgrad tensors, float ones requiring grad."""
    gen = numgrad.Generator().manual_seed(seed)
    for a in args:
        if a is not None and a.grad_fn is not None:
            a.retain_grad()
    out = getattr(F, name)(*args, **kwargs)
    g = _randn(gen, *out.shape)
    out.backward(g)
    targs = [None if a is None else torch.tensor(a.detach().numpy(), requires_grad=a.requires_grad)
             for a in args]
    tout = getattr(torch.nn.functional, name)(*targs, **kwargs)
    tout.backward(torch.tensor(g.numpy()))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, t in zip(args, targs):
        if a is not None and a.requires_grad:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__


CONVS = [
    ("conv2d", (2, 3, 5, 5), (4, 3, 3, 3), True, {}),
    ("conv2d", (2, 3, 6, 5), (4, 3, 2, 3), True, dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1))),
    ("conv2d", (2, 4, 5, 5), (6, 2, 3, 3), False, dict(groups=2, padding=1)),
    ("conv2d", (1, 3, 5, 5), (2, 3, 2, 3), True, dict(padding="same")),
    ("conv2d", (3, 5, 5), (2, 3, 3, 3), True, dict(padding=1)),
    ("conv1d", (2, 3, 8), (4, 3, 3), True, dict(stride=2, padding=1, dilation=2)),
    ("conv1d", (2, 4, 7), (4, 2, 4), False, dict(groups=2, padding="same")),
    ("conv1d", (3, 8), (4, 3, 3), True, {}),
]


@needs_torch
@pytest.mark.parametrize("name, xs, ws, bias, kwargs", CONVS)
def test_convolution_matches_torch(name, xs, ws, bias, kwargs):
    gen = numgrad.Generator().manual_seed(len(xs) + ws[0])
    x, w = _randn(gen, *xs).requires_grad_(), _randn(gen, *ws).requires_grad_()
    b = _randn(gen, ws[0]).requires_grad_() if bias else None
    _against_torch(name, [x, w, b], kwargs)
    # a non-contiguous input takes the same path
    w.grad = None
    if b is not None:
        b.grad = None
    _against_torch(name, [x.transpose(-1, -2).contiguous().transpose(-1, -2).detach().requires_grad_(), w, b],
                   kwargs)


@pytest.mark.parametrize("kwargs", [dict(stride=2, padding=1), dict(groups=3, dilation=(2, 1))])
def test_convolution_second_order(kwargs):
    gen = numgrad.Generator().manual_seed(7)
    x, w, b = _randn(gen, 1, 3, 4, 4), _randn(gen, 3, 3 // kwargs.get("groups", 1), 2, 2), _randn(gen, 3)
    xs = [x.requires_grad_(), w.requires_grad_(), b.requires_grad_()]
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, **kwargs), xs)
    assert gradgradcheck(lambda x, w, b: F.conv2d(x, w, b, **kwargs), xs)


def test_convolution_graph():
    x = numgrad.randn(1, 2, 4, 4, requires_grad=True)
    w = numgrad.randn(3, 2, 3, 3, requires_grad=True)
    out = F.conv2d(x, w)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    nexts = out.grad_fn.next_functions
    assert [type(f).__name__ for f, _ in nexts] == ["AccumulateGrad", "AccumulateGrad", "NoneType"]
    # The forward's windows serve the first backward; a retained graph recomputes them.
    out.sum().backward(retain_graph=True)
    first = w.grad.clone()
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * first.numpy(), rtol=1e-6)
    # an input that alone requires grad
    x.grad = None
    F.conv1d(x[0, :, 0], w[:, :, 0].detach(), padding=1).sum().backward()
    assert x.grad.shape == (1, 2, 4, 4)


@needs_torch
@pytest.mark.parametrize("shape, kwargs", [
    ((2, 3, 6, 6), dict(kernel_size=2)),
    ((2, 2, 7, 6), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((3, 5, 5), dict(kernel_size=(2, 3), stride=(1, 2), divisor_override=3)),
])
def test_avg_pool2d_matches_torch(shape, kwargs):
    x = _randn(numgrad.Generator().manual_seed(2), *shape).requires_grad_()
    _against_torch("avg_pool2d", [x.transpose(-1, -2)], kwargs)


@needs_torch
@pytest.mark.parametrize("training, stats, affine", [
    (True, False, False), (True, True, True), (False, True, True), (False, True, False)])
def test_batch_norm_matches_torch(training, stats, affine):
    gen = numgrad.Generator().manual_seed(3)
    x = _randn(gen, 3, 2, 2, 3).requires_grad_()
    w, b = (_randn(gen, 2).requires_grad_(), _randn(gen, 2).requires_grad_()) if affine else (None, None)
    rm, rv = (_randn(gen, 2), _randn(gen, 2).abs() + 0.5) if stats else (None, None)
    trm, trv = (torch.tensor(rm.numpy()), torch.tensor(rv.numpy())) if stats else (None, None)
    kwargs = dict(training=training, momentum=0.3)
    _against_torch("batch_norm", [x, rm, rv, w, b], kwargs)
    if stats:
        torch.nn.functional.batch_norm(torch.tensor(x.detach().numpy()), trm, trv, training=training, momentum=0.3)
        np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-12)
        np.testing.assert_allclose(rv.numpy(), trv.numpy(), rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("needs", ["xwb", "w", "b", "xb", "wb"])
def test_batch_norm_rules_share_sums_per_backward(needs):
    # The training rules share per-channel sums within one backward: any subset of inputs,
    # and a retained graph replayed with a new cotangent, must still match torch.
    rng = np.random.default_rng(5)
    vals = [rng.standard_normal(s) for s in ((4, 3, 2), (3,), (3,), (4, 3, 2), (4, 3, 2))]
    x, w, b = [numgrad.tensor(v, requires_grad=k in needs) for v, k in zip(vals, "xwb")]
    tx, tw, tb = [torch.tensor(v, requires_grad=k in needs) for v, k in zip(vals, "xwb")]
    out = F.batch_norm(x, None, None, w, b, training=True)
    tout = torch.nn.functional.batch_norm(tx, None, None, tw, tb, training=True)
    for g in vals[3:]:
        out.backward(numgrad.tensor(g), retain_graph=True)
        tout.backward(torch.tensor(g), retain_graph=True)
        for a, t in ((x, tx), (w, tw), (b, tb)):
            if t.requires_grad:
                np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, dict(padding_idx=2), dict(padding_idx=-1, scale_grad_by_freq=True)])
def test_embedding_matches_torch(kwargs):
    w = _randn(numgrad.Generator().manual_seed(4), 5, 3).requires_grad_()
    idx = numgrad.tensor([[1, 2, 4], [4, 2, 1]])
    out = F.embedding(idx, w, **kwargs)
    g = numgrad.ones(*out.shape, dtype=numgrad.float64)
    out.backward(g)
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    torch.nn.functional.embedding(torch.tensor(idx.numpy()), tw, **kwargs).backward(torch.ones(2, 3, 3,
                                                                                               dtype=torch.float64))
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy())
    assert [type(f).__name__ for f, _ in out.grad_fn.next_functions] == ["AccumulateGrad"]


def test_embedding_padding_row_gets_no_gradient_to_second_order():
    w = numgrad.randn(4, 2, dtype=numgrad.float64, requires_grad=True)
    idx = numgrad.tensor([0, 3, 3, 1])
    (g,) = numgrad.autograd.grad((F.embedding(idx, w, padding_idx=3) ** 2).sum(), w, create_graph=True)
    assert g[3].tolist() == [0.0, 0.0]
    assert gradgradcheck(lambda w: F.embedding(idx, w, padding_idx=3, scale_grad_by_freq=True), [w])


def test_embedding_padding_idx_out_of_range():
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(numgrad.tensor([0]), numgrad.zeros(3, 2), padding_idx=3)


def test_reshape_copy_is_not_a_view():
    x = numgrad.randn(2, 3, 4, requires_grad=True)
    y = x.transpose(1, 2).reshape(2, -1)
    assert y.grad_fn.name() == "UnsafeViewBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    assert y._base is None and y.is_contiguous()
    z = y * 1
    z.reshape(-1).mul_(2)  # a write through a view of the copy: its node, not the copy's
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3, 4), 2.0))
