"""autograd.functional.hvp and vhp against PyTorch's: values, several inputs, create_graph, and
strict mode's errors."""
import numpy as np
import pytest

import numgrad
from numgrad.testing import assert_close

torch = pytest.importorskip("torch")


def _smooth(L):
    return lambda x: (L.tanh(x) * x.sin()).sum() + (x ** 3).sum() * 0.1


def _two_inputs(L):
    return lambda x, y: (x.exp() * y).sum() + (x @ y) ** 2


def _kinked(L):
    return lambda x: (L.relu(x) ** 2 * x).sum() + L.nn.functional.softplus(x).sum()


CASES = [("smooth", _smooth, [(5,)]), ("two_inputs", _two_inputs, [(4,), (4,)]), ("kinked", _kinked, [(6,)])]


def _draw(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes], [rng.standard_normal(s) for s in shapes]


@pytest.mark.parametrize("product", ["hvp", "vhp"])
@pytest.mark.parametrize("name,make,shapes", CASES, ids=[c[0] for c in CASES])
def test_products_match_torch(product, name, make, shapes):
    xs, vs = _draw(shapes)
    results = []
    for L in (numgrad, torch):
        inputs = tuple(L.tensor(a) for a in xs)
        v = tuple(L.tensor(a) for a in vs)
        if len(inputs) == 1:
            inputs, v = inputs[0], v[0]
        results.append(getattr(L.autograd.functional, product)(make(L), inputs, v))
    (value, got), (want_value, want) = results
    assert_close(value, numgrad.tensor(want_value.numpy()))
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert_close(g, numgrad.tensor(w.numpy()))


@pytest.mark.parametrize("product", ["hvp", "vhp"])
def test_create_graph_gives_third_derivatives(product):
    xs, vs = _draw([(4,)])
    grads = []
    for L in (numgrad, torch):
        x = L.tensor(xs[0], requires_grad=True)
        _, p = getattr(L.autograd.functional, product)(_smooth(L), x, L.tensor(vs[0]), create_graph=True)
        (g,) = L.autograd.grad(p.sum(), x)
        grads.append(g)
    assert_close(grads[0], numgrad.tensor(grads[1].numpy()))


@pytest.mark.parametrize("product", ["hvp", "vhp"])
def test_strict_mode_refuses_a_linear_function(product):
    messages = []
    for L in (numgrad, torch):
        with pytest.raises(RuntimeError) as info:
            getattr(L.autograd.functional, product)(lambda x: (x * 2).sum(), L.ones(3, dtype=L.float64),
                                                     L.ones(3, dtype=L.float64), strict=True)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
