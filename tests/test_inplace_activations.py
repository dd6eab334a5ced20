"""In-place activations: one kernel over the input, one node reading the result (PyTorch's
is_result backward), and in-place ops whose node reads the overwritten input."""
import inspect

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.autograd import forward_ad as fwAD
from numgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

VALUES = [-3.0, -0.5, -0.1, 0.25, 0.7, 2.0, 7.0, -1.5]

# name -> (in-place call, out-of-place call), each taking the module F or torch's F first
CASES = {
    "relu": (lambda f, x: f.relu(x, inplace=True), lambda f, x: f.relu(x)),
    "relu_": (lambda f, x: f.relu_(x), lambda f, x: f.relu(x)),
    "leaky_relu": (lambda f, x: f.leaky_relu(x, 0.2, inplace=True), lambda f, x: f.leaky_relu(x, 0.2)),
    "leaky_relu_0": (lambda f, x: f.leaky_relu_(x, 0.0), lambda f, x: f.leaky_relu(x, 0.0)),
    "elu": (lambda f, x: f.elu(x, 1.5, inplace=True), lambda f, x: f.elu(x, 1.5)),
    "elu_0": (lambda f, x: f.elu_(x, 0.0), lambda f, x: f.elu(x, 0.0)),
    "hardtanh": (lambda f, x: f.hardtanh(x, -1.0, 0.5, inplace=True), lambda f, x: f.hardtanh(x, -1.0, 0.5)),
    "hardtanh_": (lambda f, x: f.hardtanh_(x), lambda f, x: f.hardtanh(x)),
    "relu6": (lambda f, x: f.relu6(x, True), lambda f, x: f.relu6(x)),
    "silu": (lambda f, x: f.silu(x, inplace=True), lambda f, x: f.silu(x)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_gradients_and_version(name):
    inplace, outofplace = CASES[name]
    leaf = ng.tensor(VALUES, dtype=ng.float64, requires_grad=True)
    h = leaf * 2
    version = h._version
    out = inplace(F, h)
    assert out is h and h._version > version
    expected = outofplace(F, leaf * 2)
    np.testing.assert_array_equal(h.detach().numpy(), expected.detach().numpy())
    w = ng.tensor(np.linspace(-1, 1, len(VALUES)), dtype=ng.float64)
    (g,) = ng.autograd.grad((h * w).sum(), leaf)
    (ref,) = ng.autograd.grad((expected * w).sum(), leaf)
    np.testing.assert_allclose(g.numpy(), ref.numpy(), rtol=1e-13)


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_through_non_leaf(name):
    inplace, _ = CASES[name]
    x = ng.tensor([[-1.3, 0.4, 2.2], [0.8, -0.3, 1.4]], dtype=ng.float64, requires_grad=True)
    fn = lambda x: inplace(F, x * 1)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["leaky_relu", "elu", "hardtanh", "silu"])
def test_forward_mode_alone(name):
    inplace, outofplace = CASES[name]
    primal = ng.tensor(VALUES, dtype=ng.float64)
    tangent = ng.tensor(np.linspace(0.5, 2, len(VALUES)), dtype=ng.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(primal.clone(), tangent)
        inplace(F, d)
        got = fwAD.unpack_dual(d)
        ref = fwAD.unpack_dual(outofplace(F, fwAD.make_dual(primal, tangent)))
    np.testing.assert_allclose(got.primal.numpy(), ref.primal.numpy())
    np.testing.assert_allclose(got.tangent.numpy(), ref.tangent.numpy(), rtol=1e-13)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_second_derivative_matches_torch(name):
    inplace, _ = CASES[name]
    x = ng.tensor(VALUES, dtype=ng.float64, requires_grad=True)
    t = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    (g,) = ng.autograd.grad(inplace(F, x * 1).pow(2).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(inplace(TF, t * 1).pow(2).sum(), t, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12)
    (gg,) = ng.autograd.grad((g * g).sum(), x)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), t)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-12)


def test_leaf_is_refused():
    x = ng.tensor(VALUES, requires_grad=True)
    for call in (lambda: F.relu(x, inplace=True), lambda: F.elu_(x), lambda: F.silu(x, inplace=True)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            call()
    with ng.no_grad():
        F.leaky_relu_(x, 0.5)
    assert x.detach().tolist()[:2] == [-1.5, -0.25]


@pytest.mark.parametrize("call, what", [
    (lambda x: F.leaky_relu_(x, -0.2), "leakyReLu"),
    (lambda x: F.elu(x, -0.5, inplace=True), "elu"),
])
def test_negative_slope_refused_in_backward(call, what):
    x = ng.tensor(VALUES, requires_grad=True)
    y = call(x * 1)  # the forward runs, as PyTorch's
    with pytest.raises(RuntimeError, match=f"In-place {what} backward calculation is triggered with a negative slope"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="negative slope"), fwAD.dual_level():
        call(fwAD.make_dual(ng.tensor(VALUES), ng.ones(len(VALUES))))
    plain = ng.tensor(VALUES)
    assert call(plain) is plain  # nothing to differentiate: no error


def test_result_written_later_is_detected():
    x = ng.tensor(VALUES, requires_grad=True)
    y = F.elu_(x * 1)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_write_into_a_view():
    x = ng.tensor([VALUES, VALUES[::-1]], dtype=ng.float64, requires_grad=True)
    h = x * 1
    F.hardtanh_(h[:, 1::2], -0.5, 0.5)
    assert type(h.grad_fn).__name__ == "CopySlices"
    ref = x * 1
    ref = ng.cat([ref[:, i:i + 1] if i % 2 == 0 else F.hardtanh(ref[:, i:i + 1], -0.5, 0.5)
                  for i in range(len(VALUES))], 1)
    np.testing.assert_array_equal(h.detach().numpy(), ref.detach().numpy())
    w = ng.arange(16, dtype=ng.float64).reshape(2, 8)
    (g,) = ng.autograd.grad((h * w).sum(), x)
    (gr,) = ng.autograd.grad((ref * w).sum(), x)
    np.testing.assert_array_equal(g.numpy(), gr.numpy())


def test_relu_signature():
    assert list(inspect.signature(F.relu).parameters) == ["input", "inplace"]
    assert "out" in inspect.signature(ng.relu).parameters
    x = ng.tensor([-1, 0, 3])
    assert F.relu(x, inplace=True) is x and x.tolist() == [0, 0, 3]


@pytest.mark.parametrize("module", [ng.nn.ReLU, ng.nn.LeakyReLU, ng.nn.ELU, ng.nn.Hardtanh, ng.nn.ReLU6, ng.nn.SiLU])
def test_modules_write_in_place(module):
    x = ng.tensor(VALUES, requires_grad=True)
    h = x * 1
    assert module(inplace=True)(h) is h
    np.testing.assert_array_equal(h.detach().numpy(), module()(x).detach().numpy())


# In-place methods through the general path: their nodes read self as it was before the write.
@pytest.mark.parametrize("call, grad", [
    (lambda y, w: y.sin_(), lambda x, w: np.cos(x)),
    (lambda y, w: y.pow_(3), lambda x, w: 3 * x ** 2),
    (lambda y, w: y.mul_(w), lambda x, w: w),
    (lambda y, w: y.clamp_(0.2, 0.6), lambda x, w: ((x >= 0.2) & (x <= 0.6)).astype(float)),
])
def test_inplace_methods_that_read_self(call, grad):
    xv, wv = np.array([0.1, 0.5, 0.9]), np.array([2.0, -1.0, 3.0])
    x = ng.tensor(xv, dtype=ng.float64, requires_grad=True)
    w = ng.tensor(wv, dtype=ng.float64, requires_grad=True)
    y = call(x * 1, w)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad(xv, wv), rtol=1e-14)
    if w.grad is not None:
        np.testing.assert_allclose(w.grad.numpy(), xv, rtol=1e-14)
