"""numgrad.func.functional_call / stack_module_state and nn.utils.stateless against PyTorch:
substituted values and gradients, restoring the module, tied weights, strict keys."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numgrad  # noqa: E402
from numgrad.func import functional_call, stack_module_state  # noqa: E402


def _net(lib, dtype):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(3, 4)
            self.b = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.BatchNorm1d(4), lib.nn.Tanh())
            self.head = lib.nn.Linear(4, 2)

        def forward(self, x, scale=1.0):
            return self.head(self.b(self.a(x))) * scale

    lib.manual_seed(0)
    return Net().to(dtype)


def _pair(dtype_name):
    return _net(numgrad, getattr(numgrad, dtype_name)), _net(torch, getattr(torch, dtype_name))


def _values(lib, module, factor):
    return {k: (v.detach() * factor).requires_grad_(v.requires_grad) if v.is_floating_point() else v.clone()
            for k, v in list(module.named_parameters()) + list(module.named_buffers())}


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_match_torch(dtype):
    (m, tm), x = _pair(dtype), np.random.default_rng(0).standard_normal((5, 3))
    rtol = 1e-5 if dtype == "float32" else 1e-10
    p, tp = _values(numgrad, m, 1.5), _values(torch, tm, 1.5)
    y = functional_call(m, p, numgrad.tensor(x).to(getattr(numgrad, dtype)), {"scale": 2.0})
    ty = torch.func.functional_call(tm, tp, torch.tensor(x).to(getattr(torch, dtype)), {"scale": 2.0})
    np.testing.assert_allclose(_np(y), _np(ty), rtol=rtol, atol=rtol)
    names = ["a.weight", "b.0.bias", "b.1.weight", "head.weight"]
    grads = numgrad.autograd.grad(y.square().sum(), [p[n] for n in names])
    tgrads = torch.autograd.grad(ty.square().sum(), [tp[n] for n in names])
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(_np(g), _np(tg), rtol=rtol * 10, atol=rtol * 10)
    # Buffers passed in are the ones the call updates in place, as in PyTorch.
    np.testing.assert_allclose(_np(p["b.1.running_mean"]), _np(tp["b.1.running_mean"]), rtol=rtol, atol=rtol)
    assert int(p["b.1.num_batches_tracked"]) == 1
    # The module's own tensors are back and untouched.
    assert m.a.weight.grad is None and m.b[1].num_batches_tracked.item() == 0
    assert isinstance(m.a.weight, numgrad.nn.Parameter)


def test_restored_after_an_error():
    m = numgrad.nn.Linear(2, 2)
    weight, bias = m.weight, m.bias

    def boom(*args):
        raise ValueError("boom")
    m.register_forward_pre_hook(boom)
    with pytest.raises(ValueError, match="boom"):
        functional_call(m, {"weight": numgrad.zeros(2, 2), "bias": numgrad.zeros(2), "extra": numgrad.ones(1)},
                        numgrad.ones(1, 2))
    assert m.weight is weight and m.bias is bias and not hasattr(m, "extra")


def test_non_tuple_args_tuple_of_dicts_and_missing_names():
    m = numgrad.nn.Linear(2, 3)
    w, b = numgrad.ones(3, 2), numgrad.full((3,), 0.5)
    x = numgrad.tensor([[1.0, 2.0]])
    expected = [[3.5, 3.5, 3.5]]
    assert functional_call(m, ({"weight": w}, {"bias": b}), x).tolist() == expected
    # Names not given keep the module's own values.
    y = functional_call(m, {"weight": w}, (x,))
    np.testing.assert_allclose(_np(y), _np(x @ w.t() + m.bias))
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(m, ({"weight": w}, {"weight": w}), x)
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
        functional_call(m, 3, x)


def _tied(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
    m[1].weight = m[0].weight
    return m


def test_tied_weights_follow_pytorch():
    m, tm = _tied(numgrad), _tied(torch)
    x = [[1.0, -2.0]]
    w = [[0.5, 1.0], [2.0, -1.0]]
    for tie in (True, False):
        y = functional_call(m, {"0.weight": numgrad.tensor(w)}, numgrad.tensor(x), tie_weights=tie)
        ty = torch.func.functional_call(tm, {"0.weight": torch.tensor(w)}, torch.tensor(x), tie_weights=tie)
        np.testing.assert_allclose(_np(y), _np(ty), rtol=1e-6)
    a, b = numgrad.tensor(w), numgrad.tensor(w) * 2
    with pytest.raises(ValueError) as err:
        functional_call(m, {"0.weight": a, "1.weight": b}, numgrad.tensor(x))
    with pytest.raises(ValueError) as terr:
        torch.func.functional_call(tm, {"0.weight": torch.tensor(w), "1.weight": torch.tensor(w) * 2},
                                   torch.tensor(x))
    assert str(err.value) == str(terr.value)
    functional_call(m, {"0.weight": a, "1.weight": a}, numgrad.tensor(x))  # the same value twice is fine


def test_strict_reports_missing_and_unexpected_keys_as_pytorch():
    m, tm = _pair("float32")
    with pytest.raises(RuntimeError) as err:
        functional_call(m, {"a.weight": numgrad.ones(4, 3), "zz": numgrad.ones(1)}, numgrad.ones(2, 3), strict=True)
    with pytest.raises(RuntimeError) as terr:
        torch.func.functional_call(tm, {"a.weight": torch.ones(4, 3), "zz": torch.ones(1)}, torch.ones(2, 3),
                                   strict=True)
    assert str(err.value) == str(terr.value)
    full = _values(numgrad, m, 1.0)
    functional_call(m, full, numgrad.ones(2, 3), strict=True)


def test_gradcheck_through_functional_call():
    numgrad.manual_seed(0)
    m = numgrad.nn.Sequential(numgrad.nn.Linear(3, 2), numgrad.nn.Tanh()).double()
    x = numgrad.randn(4, 3, dtype=numgrad.float64)
    w = numgrad.randn(2, 3, dtype=numgrad.float64, requires_grad=True)
    b = numgrad.randn(2, dtype=numgrad.float64, requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda w, b: functional_call(m, {"0.weight": w, "0.bias": b}, x), (w, b))
    # Composes with numgrad.func.grad: per-parameter gradients as a function of the parameters.
    gw = numgrad.func.grad(lambda w: functional_call(m, {"0.weight": w}, x).sum())(w)
    assert gw.shape == w.shape


def test_zero_size_batch():
    m = numgrad.nn.Linear(3, 2)
    y = functional_call(m, {"weight": numgrad.ones(2, 3)}, numgrad.ones(0, 3))
    assert tuple(y.shape) == (0, 2)


def test_stateless_spelling_warns_and_calls():
    m = numgrad.nn.Linear(2, 1)
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        y = numgrad.nn.utils.stateless.functional_call(m, {"weight": numgrad.ones(1, 2), "bias": numgrad.zeros(1)},
                                                       numgrad.tensor([[1.0, 2.0]]))
    assert y.tolist() == [[3.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stack_module_state_matches_torch(dtype):
    def models(lib):
        lib.manual_seed(0)
        return [lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)).to(getattr(lib, dtype))
                for _ in range(3)]
    params, buffers = stack_module_state(models(numgrad))
    tparams, tbuffers = torch.func.stack_module_state(models(torch))
    assert list(params) == list(tparams) and list(buffers) == list(tbuffers)
    for k in tparams:
        assert params[k].requires_grad and params[k].is_leaf and params[k].dtype == getattr(numgrad, dtype)
        np.testing.assert_allclose(_np(params[k]), _np(tparams[k]), rtol=1e-6)
    for k in tbuffers:
        assert tuple(buffers[k].shape) == tuple(tbuffers[k].shape) and not buffers[k].requires_grad


def test_stack_module_state_errors():
    with pytest.raises(RuntimeError, match="Expected at least one model"):
        stack_module_state([])
    with pytest.raises(RuntimeError, match="same class"):
        stack_module_state([numgrad.nn.Linear(2, 2), numgrad.nn.Tanh()])
    a, b = numgrad.nn.Linear(2, 2), numgrad.nn.Linear(2, 2)
    b.eval()
    with pytest.raises(RuntimeError, match="training/eval mode"):
        stack_module_state([a, b])
    b.train()
    b.bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected bias from each model to have the same .requires_grad"):
        stack_module_state([a, b])
