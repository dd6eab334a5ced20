"""numgrad.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian, and their
composition (nested grads against analytic derivatives of a polynomial)."""
import numpy as np
import pytest

import numgrad
from numgrad import func as ngf
from numgrad.testing import assert_close

F64 = numgrad.float64


def t64(data):
    return numgrad.tensor(data, dtype=F64)


def poly(x):
    # p(x) = x^4 - 2 x^3 + 3 x: p' = 4x^3 - 6x^2 + 3, p'' = 12x^2 - 12x, p''' = 24x - 12
    return x ** 4 - 2 * x ** 3 + 3 * x


@pytest.mark.parametrize("x0", [-1.5, 0.25, 2.0])
def test_nested_grad_matches_analytic_derivatives(x0):
    x = t64(x0)
    assert_close(ngf.grad(poly)(x), t64(4 * x0 ** 3 - 6 * x0 ** 2 + 3))
    assert_close(ngf.grad(ngf.grad(poly))(x), t64(12 * x0 ** 2 - 12 * x0))
    assert_close(ngf.grad(ngf.grad(ngf.grad(poly)))(x), t64(24 * x0 - 12))
    assert not ngf.grad(ngf.grad(poly))(x).requires_grad


def test_grad_argnums_and_aux():
    x, y = t64([1.0, 2.0]), t64([3.0, -1.0])

    def f(a, b):
        return (a * a * b).sum(), a.sum()
    gx, aux = ngf.grad(f, has_aux=True)(x, y)
    assert_close(gx, 2 * x * y)
    assert_close(aux, t64(3.0))
    gx, gy = ngf.grad(lambda a, b: (a * a * b).sum(), argnums=(0, 1))(x, y)
    assert_close(gy, x * x)
    g, value = ngf.grad_and_value(lambda a: (a.exp()).sum())(x)
    assert_close(g, x.exp())
    assert_close(value, x.exp().sum())


def test_grad_errors():
    x = t64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"):
        ngf.grad(lambda a: a)(x)
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        ngf.grad(lambda a: a.sum(), has_aux=True)(x)
    with pytest.raises(RuntimeError, match="Got argnum=3, but only 1 positional inputs"):
        ngf.grad(lambda a: a.sum(), argnums=3)(x)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        ngf.jvp(lambda a: a, x, x)


def test_vjp_and_jvp():
    x, y = t64([0.5, -1.0]), t64([2.0, 3.0])
    out, vjp_fn = ngf.vjp(lambda a, b: a.sin() * b, x, y)
    assert_close(out, x.sin() * y)
    u = t64([1.0, 10.0])
    gx, gy = vjp_fn(u)
    assert_close(gx, x.cos() * y * u)
    assert_close(vjp_fn(u)[1], x.sin() * u)  # callable again
    out, tangent = ngf.jvp(lambda a, b: a.sin() * b, (x, y), (t64([1.0, 0.0]), t64([0.0, 1.0])))
    assert_close(tangent, t64([np.cos(0.5) * 2.0, np.sin(-1.0)]))


def _f(x, w):
    return (w @ x).tanh() * x[:3]


@pytest.mark.parametrize("transform", [ngf.jacrev, ngf.jacfwd])
def test_jacobians_agree_with_reverse_rows(transform):
    rng = np.random.default_rng(0)
    x, w = t64(rng.standard_normal(4)), t64(rng.standard_normal((3, 4)))
    j = transform(_f)(x, w)
    rows = [numgrad.autograd.grad(_f(x.requires_grad_(), w)[i], x)[0] for i in range(3)]
    x.requires_grad_(False)
    assert_close(j, t64(np.stack([r.numpy() for r in rows])))
    jx, jw = transform(_f, argnums=(0, 1))(x, w)
    assert tuple(jw.shape) == (3, 3, 4)
    assert_close(jx, j)


def test_hessian_is_forward_over_reverse():
    rng = np.random.default_rng(1)
    w = t64(rng.standard_normal((4, 4)))
    x = t64(rng.standard_normal(4))

    def f(a):
        return ((w @ a).sin() * a).sum()
    h = ngf.hessian(f)(x)
    h2 = numgrad.autograd.functional.hessian(f, x)
    assert_close(h, h2)
    assert_close(ngf.jacfwd(ngf.grad(f))(x), h2)
    assert_close(ngf.jacrev(ngf.grad(f))(x), h2)
