"""The activations beyond ReLU's family: modules, PReLU's parameter, rrelu's noise, in-place
forms and errors, checked against torch where it is installed."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

F = ng.nn.functional

try:
    import torch
    import torch.nn.functional as TF
except ImportError:
    torch = None

_needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
_X = np.array([[-3.5, -3.0, -1.2, -0.4, 0.0], [0.2, 0.6, 1.5, 3.0, 4.2]])

MODULES = ["SELU()", "SELU(True)", "CELU(0.5)", "CELU(2.0, inplace=True)", "Mish()", "Mish(True)", "Hardswish()",
           "Hardswish(True)", "Hardsigmoid()", "Softsign()", "Softshrink()", "Hardshrink(0.3)", "Tanhshrink()",
           "Threshold(0.1, 20)", "Threshold(0.1, 20.0, True)", "GLU()", "GLU(0)", "PReLU()", "PReLU(2, 0.1)",
           "RReLU()", "RReLU(0.1, 0.3, True)"]

CALLS = {
    "selu": lambda f, x: f.selu(x), "celu": lambda f, x: f.celu(x, 0.7), "mish": lambda f, x: f.mish(x),
    "hardswish": lambda f, x: f.hardswish(x), "hardsigmoid": lambda f, x: f.hardsigmoid(x),
    "softsign": lambda f, x: f.softsign(x), "tanhshrink": lambda f, x: f.tanhshrink(x),
    "softshrink": lambda f, x: f.softshrink(x, 0.5), "hardshrink": lambda f, x: f.hardshrink(x, 0.5),
    "threshold": lambda f, x: f.threshold(x, 0.3, -2.0), "glu": lambda f, x: f.glu(x, 0),
    "rrelu_eval": lambda f, x: f.rrelu(x, 0.1, 0.4),
    "selu_": lambda f, x: f.selu(x * 1, inplace=True), "celu_": lambda f, x: f.celu_(x * 1, 0.7),
    "mish_": lambda f, x: f.mish(x * 1, inplace=True), "hardswish_": lambda f, x: f.hardswish(x * 1, True),
    "hardsigmoid_": lambda f, x: f.hardsigmoid(x * 1, True), "threshold_": lambda f, x: f.threshold_(x * 1, 0.3, 2.0),
    "rrelu_": lambda f, x: f.rrelu_(x * 1, 0.1, 0.4),
}


@_needs_torch
@pytest.mark.parametrize("expr", MODULES)
def test_module_repr_matches_torch(expr):
    assert repr(eval("ng.nn." + expr)) == repr(eval("torch.nn." + expr))


@_needs_torch
@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_grads_match_torch(name):
    fn = CALLS[name]
    x, xt = ng.tensor(_X, requires_grad=True), torch.tensor(_X, requires_grad=True)
    y, yt = fn(F, x), fn(TF, xt)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
    w = np.linspace(-1.0, 1.0, y.numel()).reshape(tuple(y.shape))
    (g,) = ng.autograd.grad((y * ng.tensor(w)).sum(), x)
    (gt,) = torch.autograd.grad((yt * torch.tensor(w)).sum(), xt)
    # torch's celu and hardsigmoid backward round their constants to float32
    np.testing.assert_allclose(g.numpy(), gt.numpy(), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("name", ["selu_", "celu_", "mish_", "threshold_", "rrelu_"])
def test_in_place_forms_gradcheck(name):
    x = ng.tensor(_X + 0.05, requires_grad=True)
    fn = lambda t: CALLS[name](F, t)  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_prelu_module_learns_per_channel_slopes():
    m = ng.nn.PReLU(3, 0.1).double()
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [("weight", (3,))]
    x = ng.tensor(np.arange(-12.0, 12.0).reshape(2, 3, 4) / 4 + 0.125, requires_grad=True)
    m(x).sum().backward()
    # d/da of a * x summed over the negative inputs of each channel
    expected = np.where(x.detach().numpy() < 0, x.detach().numpy(), 0).sum(axis=(0, 2))
    np.testing.assert_allclose(m.weight.grad.numpy(), expected)
    w = ng.tensor([0.2, -0.3, 0.5], dtype=ng.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


def test_prelu_errors():
    with pytest.raises(RuntimeError, match="Found parameter numbers = 2 and channel size = 3"):
        F.prelu(ng.zeros(2, 3), ng.zeros(2))
    with pytest.raises(RuntimeError, match="scalar or 1D tensor"):
        F.prelu(ng.zeros(2, 3), ng.zeros(1, 1))
    with pytest.raises(RuntimeError, match="Type promoting not supported. Got Double and Float"):
        F.prelu(ng.zeros(2, 3, dtype=ng.float64), ng.zeros(1))
    assert F.prelu(ng.tensor(-2.0), ng.tensor([0.5])).shape == ()


def test_rrelu_training_draws_slopes_in_range():
    ng.manual_seed(0)
    x = ng.full((1000,), -1.0, dtype=ng.float64, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    y.sum().backward()
    # the gradient is the slope drawn for each element
    np.testing.assert_allclose(x.grad.numpy(), slopes)
    m = ng.nn.RReLU(0.1, 0.3)
    m.eval()
    np.testing.assert_allclose(m(ng.tensor([-1.0, 2.0])).numpy(), [-0.2, 2.0], rtol=1e-6)


def test_glu_halves_along_dim():
    a, b = _X[:, :2], _X[:, 2:4]
    x = ng.tensor(_X[:, :4], requires_grad=True)
    np.testing.assert_allclose(F.glu(x).detach().numpy(), a / (1 + np.exp(-b)))
    assert gradcheck(lambda t: F.glu(t, 1), (x,))
    assert gradgradcheck(lambda t: F.glu(t, 1), (x,))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 5"):
        F.glu(ng.tensor(_X))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(ng.tensor(1.0))


def test_errors_and_integer_inputs():
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(ng.zeros(2), 0.0)
    with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float"):
        F.softshrink(ng.zeros(2), -0.5)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(ng.zeros(2), 0.5, 0.2)
    with pytest.raises(NotImplementedError, match="hardshrink_cpu"):
        F.hardshrink(ng.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="In-place elu backward"):
        F.celu_(ng.tensor([-1.0], requires_grad=True) * 1, -1.0).sum().backward()
    assert F.threshold(ng.tensor([1, 2, 3]), 1.5, 2.5).tolist() == [2, 2, 3]
    assert F.softsign(ng.tensor([1, 3])).dtype is ng.float32
    x = ng.tensor([-1.0, 0.5])
    assert ng.threshold_(x, 0.0, 7.0) is x and x.tolist() == [7.0, 0.5]
    assert ng.selu(ng.tensor([0.0])).tolist() == [0.0] and ng.celu is F.celu
