"""nn.utils.parametrize, parametrizations.weight_norm/spectral_norm and the hook-based
weight_norm/spectral_norm, beside PyTorch's values, gradients and state-dict keys."""
import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")


def _pair(seed=0, shape=(4, 3)):
    w = np.random.default_rng(seed).standard_normal(shape)
    return numgrad.nn.Linear(shape[1], shape[0]).double(), torch.nn.Linear(shape[1], shape[0]).double(), w


def _load(n, t, w):
    with numgrad.no_grad():
        n.weight.copy_(numgrad.tensor(w))
        n.bias.copy_(numgrad.tensor(t.bias.detach().numpy()))
    with torch.no_grad():
        t.weight.copy_(torch.tensor(w))


def _same(a, b, tol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


class Symmetric:
    @staticmethod
    def make(lib):
        class Sym(lib.nn.Module):
            def forward(self, x):
                return x.triu() + x.triu(1).transpose(-1, -2)
        return Sym()


def test_register_and_remove_parametrization():
    n, t, _ = _pair(shape=(3, 3))
    _load(n, t, np.arange(9.0).reshape(3, 3))
    for lib, m in ((numgrad, n), (torch, t)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", Symmetric.make(lib))
    assert type(n).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert sorted(n.state_dict()) == sorted(t.state_dict())
    _same(n.weight, t.weight)
    x = np.random.default_rng(1).standard_normal((2, 3))
    n(numgrad.tensor(x)).sum().backward()
    t(torch.tensor(x)).sum().backward()
    _same(n.parametrizations.weight.original.grad, t.parametrizations.weight.original.grad)
    assert numgrad.nn.utils.parametrize.is_parametrized(n, "weight")
    with numgrad.nn.utils.parametrize.cached():
        assert n.weight is n.weight
    for lib, m in ((numgrad, n), (torch, t)):
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
    assert type(n) is numgrad.nn.Linear
    _same(n.weight, t.weight)
    assert sorted(n.state_dict()) == sorted(t.state_dict())


def test_weight_norm_parametrization():
    n, t, w = _pair()
    _load(n, t, w)
    numgrad.nn.utils.parametrizations.weight_norm(n)
    torch.nn.utils.parametrizations.weight_norm(t)
    assert sorted(n.state_dict()) == sorted(t.state_dict())
    for key in n.state_dict():
        _same(n.state_dict()[key], t.state_dict()[key])
    x = np.random.default_rng(2).standard_normal((5, 3))
    n(numgrad.tensor(x)).pow(2).sum().backward()
    t(torch.tensor(x)).pow(2).sum().backward()
    for i in (0, 1):
        _same(getattr(n.parametrizations.weight, f"original{i}").grad,
              getattr(t.parametrizations.weight, f"original{i}").grad)


def test_spectral_norm_parametrization_matches_after_seed():
    n, t, w = _pair(shape=(5, 4))
    _load(n, t, w)
    numgrad.manual_seed(3)
    torch.manual_seed(3)
    numgrad.nn.utils.parametrizations.spectral_norm(n)
    torch.nn.utils.parametrizations.spectral_norm(t)
    assert sorted(n.state_dict()) == sorted(t.state_dict())
    for step in range(3):
        _same(n.weight, t.weight, 1e-10)
    # u converges to the top singular vector: equal to the convergence reached, not bit for bit.
    _same(n.parametrizations.weight[0]._u, t.parametrizations.weight[0]._u, 1e-5)


def test_hook_based_weight_and_spectral_norm():
    for fn, removal in (("weight_norm", "remove_weight_norm"), ("spectral_norm", "remove_spectral_norm")):
        n, t, w = _pair(shape=(4, 6))
        _load(n, t, w)
        numgrad.manual_seed(4)
        torch.manual_seed(4)
        getattr(numgrad.nn.utils, fn)(n)
        getattr(torch.nn.utils, fn)(t)
        assert sorted(n.state_dict()) == sorted(t.state_dict())
        x = np.random.default_rng(5).standard_normal((3, 6))
        for _ in range(2):
            _same(n(numgrad.tensor(x)), t(torch.tensor(x)), 1e-10)
        n(numgrad.tensor(x)).sum().backward()
        t(torch.tensor(x)).sum().backward()
        for (name, p), (tname, tp) in zip(n.named_parameters(), t.named_parameters()):
            assert name == tname
            _same(p.grad, tp.grad, 1e-10)
        getattr(numgrad.nn.utils, removal)(n)
        getattr(torch.nn.utils, removal)(t)
        assert sorted(n.state_dict()) == sorted(t.state_dict())
        _same(n.weight, t.weight, 1e-10)
