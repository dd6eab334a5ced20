"""numgrad.autograd.functional: the tutorial examples, return nesting and errors as PyTorch's,
and Jacobians and Hessians against finite differences."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import functional as AF
from numgrad.testing import assert_close

try:
    import torch
except ImportError:
    torch = None

F64 = numgrad.float64


def t64(data):
    return numgrad.tensor(data, dtype=F64)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def do_some_doubling(x):
    y = x * 2
    while (y * y).sum().sqrt().item() < 1000:
        y = y * 2
    return y


# ------------------------------------------------------------------------------ tutorial
@pytest.mark.parametrize("kw", [{}, {"vectorize": True}, {"strategy": "forward-mode"}])
def test_exp_adder_jacobian(kw):
    jx, jy = AF.jacobian(exp_adder, (numgrad.tensor([0.9773]), numgrad.tensor([0.8007])), **kw)
    assert_close(jx, numgrad.tensor([[5.3145]]), rtol=1e-4, atol=1e-4)
    assert_close(jy, numgrad.tensor([[3.0]]))
    x, y = numgrad.tensor([0.5580, 0.7055, 0.4242]), numgrad.tensor([0.6580, 0.4605, 0.3707])
    jx, jy = AF.jacobian(exp_adder, (x, y), **kw)
    assert_close(jx, numgrad.tensor([[3.4942, 0, 0], [0, 4.0498, 0], [0, 0, 3.0566]]), rtol=1e-4, atol=1e-4)
    assert_close(jy, 3 * numgrad.eye(3))


def test_do_some_doubling_vjp():
    x = numgrad.tensor([0.3498, 1.0547, -1.5105])
    out, g = AF.vjp(do_some_doubling, x, v=numgrad.tensor([0.1, 1.0, 0.0001]))
    assert_close(out, x * 1024)
    assert_close(g, numgrad.tensor([1.0240e+02, 1.0240e+03, 1.0240e-01]))


def test_hessian_hvp_vhp_of_a_polynomial():
    # f = x0^2 x1 + x1^3: H = [[2 x1, 2 x0], [2 x0, 6 x1]]
    def f(x):
        return x[0] * x[0] * x[1] + x[1] ** 3
    x, v = t64([1.5, -2.0]), t64([1.0, 3.0])
    h = t64([[-4.0, 3.0], [3.0, -12.0]])
    for kw in ({}, {"vectorize": True}, {"vectorize": True, "outer_jacobian_strategy": "forward-mode"}):
        assert_close(AF.hessian(f, x, **kw), h)
    value, hv = AF.hvp(f, x, v)
    assert_close(value, f(x))
    assert_close(hv, h @ v)
    assert_close(AF.vhp(f, x, v)[1], v @ h)


# ------------------------------------------------------------------------------ conventions
def test_nesting_of_results():
    x, y = t64([1.0, 2.0]), t64([3.0, 4.0, 5.0])
    j = AF.jacobian(lambda a: a.sin(), x)
    assert tuple(j.shape) == (2, 2)
    j = AF.jacobian(lambda a, b: (a.sum() * b, a * 2), (x, y))
    assert [[tuple(b.shape) for b in row] for row in j] == [[(3, 2), (3, 3)], [(2, 2), (2, 3)]]
    h = AF.hessian(lambda a, b: (a * a).sum() * b.sum(), (x, y))
    assert [[tuple(b.shape) for b in row] for row in h] == [[(2, 2), (2, 3)], [(3, 2), (3, 3)]]
    out, jv = AF.jvp(lambda a: (a * 2, a.sum()), x, t64([1.0, 1.0]))
    assert isinstance(out, tuple) and isinstance(jv, tuple)
    assert_close(jv[1], t64(2.0))
    out, g = AF.vjp(lambda a, b: a.sum() * b.sum(), (x, y))
    assert isinstance(g, tuple) and len(g) == 2


def test_create_graph_results_are_differentiable():
    x = t64([0.5, 1.5]).requires_grad_()
    _, g = AF.vjp(lambda a: (a ** 3).sum(), x, create_graph=True)
    assert g.requires_grad
    gg, = numgrad.autograd.grad(g.sum(), x)
    assert_close(gg, 6 * x.detach())
    _, g = AF.vjp(lambda a: (a ** 3).sum(), x)
    assert not g.requires_grad


def test_errors():
    x = t64([1.0, 2.0])
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a Tensor or a tuple"):
        AF.jacobian(lambda a: a, [x])
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        AF.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be numgrad.Size\(\[2\]\) but got numgrad.Size\(\[3\]\)"):
        AF.vjp(lambda a: a * 2, x, t64([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require"):
        AF.vjp(lambda a: x.detach() * 2, x, x, strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, x), strict=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported"):
        AF.jacobian(lambda a: a, x, strict=True, vectorize=True)
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        AF.hessian(lambda a: (a.sum(), a.sum()), x)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        AF.hessian(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="The Tensor returned by the function given to hvp should contain"):
        AF.hvp(lambda a: a * 2, x, x)
    with pytest.raises(RuntimeError, match="jacobian of the user-provided function with respect to input 0 is "
                                           "independent"):
        AF.hessian(lambda a: a.sum() * 2, x, strict=True)
    with pytest.raises(AssertionError, match="Expected strategy"):
        AF.jacobian(lambda a: a, x, strategy="sideways")


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_errors_match_torch():
    x, tx = t64([1.0, 2.0]), torch.tensor([1.0, 2.0], dtype=torch.float64)
    calls = [lambda F, a: F.hvp(lambda b: b * 2, a, a), lambda F, a: F.vjp(lambda b: b * 2, a),
             lambda F, a: F.jvp(lambda b: b, (a, a), (a,)), lambda F, a: F.hessian(lambda b: b.sum() * 2, a,
                                                                                 strict=True)]
    for call in calls:
        with pytest.raises(Exception) as ours:
            call(AF, x)
        with pytest.raises(Exception) as theirs:
            call(torch.autograd.functional, tx)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value).replace("numgrad", "torch") == str(theirs.value)


# ------------------------------------------------------------------------------ vs finite differences
def _random_function(seed):
    """A smooth function of two inputs composed from table ops."""
    rng = np.random.default_rng(seed)
    w = t64(rng.standard_normal((3, 4)) / 2)
    unary = [numgrad.tanh, numgrad.sin, numgrad.sigmoid, lambda a: a * a, numgrad.exp, numgrad.atan]
    picks = rng.integers(0, len(unary), 3)

    def f(x, y):
        h = unary[picks[0]](w @ x) * y
        h = unary[picks[1]](h.reshape(3, 1) + y.unsqueeze(0)[:, :2])
        return unary[picks[2]](h).sum(1) / 2
    return f


def _jacobian_fd(f, xs, eps=1e-6):
    blocks = []
    base = f(*xs)
    for i, x in enumerate(xs):
        cols = []
        for k in range(x.numel()):
            e = np.zeros(x.numel())
            e[k] = eps
            plus = list(xs)
            minus = list(xs)
            plus[i] = t64(x.numpy() + e.reshape(x.shape))
            minus[i] = t64(x.numpy() - e.reshape(x.shape))
            cols.append(((f(*plus) - f(*minus)) / (2 * eps)).numpy().reshape(-1))
        blocks.append(np.stack(cols, -1).reshape(tuple(base.shape) + tuple(x.shape)))
    return blocks


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("kw", [{}, {"vectorize": True}, {"strategy": "forward-mode"}])
def test_jacobian_vs_finite_differences(seed, kw):
    f = _random_function(seed)
    rng = np.random.default_rng(seed + 10)
    xs = (t64(rng.standard_normal(4)), t64(rng.standard_normal(3)))
    for got, ex in zip(AF.jacobian(f, xs, **kw), _jacobian_fd(f, xs)):
        assert_close(got, numgrad.tensor(ex), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kw", [{}, {"vectorize": True}, {"outer_jacobian_strategy": "forward-mode",
                                                           "vectorize": True}])
def test_hessian_vs_finite_differences(seed, kw):
    f = _random_function(seed)
    y = t64(np.random.default_rng(seed).standard_normal(3))

    def scalar(x):
        return f(x, y).sum()
    x = t64(np.random.default_rng(seed + 5).standard_normal(4))
    ex = _jacobian_fd(lambda a: AF.jacobian(scalar, a), (x,), eps=1e-5)[0]
    assert_close(AF.hessian(scalar, x, **kw), numgrad.tensor(ex), rtol=1e-5, atol=1e-6)
    v = t64(np.arange(4.0))
    assert_close(AF.hvp(scalar, x, v)[1], numgrad.tensor(ex @ v.numpy()), rtol=1e-5, atol=1e-6)
