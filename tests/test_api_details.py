"""API details PyTorch programs rely on: NumPy's axis/keepdims names, varargs dims, formatting of
0-d tensors, PyTorch's rounding of powers and of add/sub with alpha, save of a Module, the safe
globals no-ops and the lazy RandomSampler with replacement."""
import io
import itertools

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn as nn
from numgrad.utils.data import RandomSampler

torch = pytest.importorskip("torch")

_X = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
        return
    a, b = a.detach().numpy(), np.asarray(b.detach().numpy())
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------------------ axis and keepdims
@pytest.mark.parametrize("name", ["sum", "mean", "nansum", "prod", "std", "var", "amax", "amin", "max", "min",
                                  "argmax", "argmin", "all", "any", "logsumexp", "median", "nanmean",
                                  "aminmax", "std_mean", "var_mean", "kthvalue"])
def test_axis_and_keepdims_as_pytorch(name):
    args = (2,) if name == "kthvalue" else ()
    for lib_kwargs in ({"axis": 1}, {"axis": 1, "keepdims": True}, {"dim": 1, "keepdims": True}):
        expected = getattr(torch, name)(torch.tensor(_X), *args, **lib_kwargs)
        _same(getattr(ng, name)(ng.tensor(_X), *args, **lib_kwargs), expected)
        if hasattr(torch.Tensor, name):
            _same(getattr(ng.tensor(_X), name)(*args, **lib_kwargs),
                  getattr(torch.tensor(_X), name)(*args, **lib_kwargs))


@pytest.mark.parametrize("call", ["cat", "concat", "concatenate", "stack"])
def test_joins_take_axis(call):
    ts, ns = [torch.tensor(_X)] * 2, [ng.tensor(_X)] * 2
    _same(getattr(ng, call)(ns, axis=2), getattr(torch, call)(ts, axis=2))


@pytest.mark.parametrize("expr", ["{m}.softmax(x, axis=1)", "{m}.log_softmax(x, axis=-1)", "x.softmax(axis=0)",
                                  "{m}.cumsum(x, axis=1)", "{m}.count_nonzero(x, axis=1)", "x.count_nonzero(axis=0)",
                                  "{m}.sort(x, axis=1).values", "{m}.argsort(x, axis=1)", "{m}.squeeze(x[:1], axis=0)",
                                  "{m}.unsqueeze(x, axis=0)", "{m}.topk(x, 2, axis=1).values",
                                  "{m}.gather(x, axis=2, index={m}.zeros(3, 4, 2, dtype={m}.long))",
                                  "{m}.index_select(x, axis=0, index={m}.tensor([0, 2]))"])
def test_other_dim_functions_take_axis(expr):
    _same(eval(expr.format(m="ng"), {"ng": ng, "x": ng.tensor(_X)}),
          eval(expr.format(m="torch"), {"torch": torch, "x": torch.tensor(_X)}))


def test_axis_and_dim_together_is_a_type_error():
    with pytest.raises(TypeError):
        torch.sum(torch.tensor(_X), dim=1, axis=1)
    with pytest.raises(TypeError, match="axis"):
        ng.sum(ng.tensor(_X), dim=1, axis=1)


def test_axis_keeps_gradients():
    x = ng.tensor(_X.astype(np.float64), requires_grad=True)
    t = torch.tensor(_X.astype(np.float64), requires_grad=True)
    ng.logsumexp(x, axis=2, keepdims=True).sum().backward()
    torch.logsumexp(t, axis=2, keepdims=True).sum().backward()
    _same(x.grad, t.grad)
    assert ng.autograd.gradcheck(lambda a: a.amax(axis=(0, 2)), (ng.tensor(_X[:2, :2, :2].astype(np.float64),
                                                                           requires_grad=True),))


# ------------------------------------------------------------------------------ varargs dims
@pytest.mark.parametrize("expr", ["x.flip(2, 1)", "x.flip((0, 2))", "x.flip([1])", "x.permute(0, 2, 1)",
                                  "x.permute((2, 0, 1))", "x.repeat(1, 2, 1)", "x.repeat((2, 1, 1))",
                                  "x.view(12, 5)", "x.view((-1,))", "x.reshape(3, 20)", "x.reshape((60,))",
                                  "x.tile(2, 1)", "x.tile((1, 2))", "x.expand(2, 3, 4, 5)",
                                  "x.transpose(1, 2).flip(0, 1)"])
def test_varargs_forms(expr):
    _same(eval(expr, {"x": ng.tensor(_X)}), eval(expr, {"x": torch.tensor(_X)}))


def test_flip_varargs_on_a_non_contiguous_input_has_pytorchs_gradient():
    x = ng.tensor(_X.astype(np.float64), requires_grad=True)
    t = torch.tensor(_X.astype(np.float64), requires_grad=True)
    w = np.arange(60.0).reshape(3, 5, 4)
    (x.transpose(1, 2).flip(2, 1) * ng.tensor(w)).sum().backward()
    (t.transpose(1, 2).flip(2, 1) * torch.tensor(w)).sum().backward()
    _same(x.grad, t.grad)


# ------------------------------------------------------------------------------ formatting
@pytest.mark.parametrize("value", [8.0, 3, -0.125, True, 1e-8])
@pytest.mark.parametrize("spec", ["", ".4f", ">10", ".2e"])
def test_format_of_a_0d_tensor_is_its_items(value, spec):
    if isinstance(value, bool) and spec in (".4f", ".2e"):
        spec = ""
    expected = format(torch.tensor(value), spec)
    assert format(ng.tensor(value), spec) == expected
    assert f"{ng.tensor(value)}" == f"{torch.tensor(value)}"


def test_format_of_a_tensor_with_dims():
    assert f"{ng.ones(2)}" == str(ng.ones(2))
    with pytest.raises(TypeError, match="unsupported format string"):
        format(torch.ones(2), ".4f")
    with pytest.raises(TypeError, match="unsupported format string"):
        format(ng.ones(2), ".4f")


# ------------------------------------------------------------------------------ rounding
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", [2, 3, -1, -2, -0.5, 0, 1, 2.0, 3.0])
def test_scalar_powers_round_as_pytorch(dtype, exponent):
    x = (np.random.default_rng(1).standard_normal(4099) * 3).astype(dtype)
    if exponent == -0.5:
        x = np.abs(x)
    np.testing.assert_array_equal((ng.tensor(x) ** exponent).numpy(), (torch.tensor(x) ** exponent).numpy())
    np.testing.assert_array_equal(ng.pow(ng.tensor(x), exponent).numpy(),
                                  torch.pow(torch.tensor(x), exponent).numpy())


@pytest.mark.parametrize("exponent", [4, 0.5, 1.5])
def test_other_scalar_powers_are_close(exponent):
    x = np.abs(np.random.default_rng(2).standard_normal(1000)).astype(np.float32)
    np.testing.assert_allclose((ng.tensor(x) ** exponent).numpy(), (torch.tensor(x) ** exponent).numpy(),
                               rtol=2e-7)


def test_power_gradients_match_pytorch():
    x = np.abs(np.random.default_rng(3).standard_normal(7)) + 0.5
    for exponent in (3, -1, -2, -0.5):
        a, b = ng.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        (a ** exponent).sum().backward()
        (b ** exponent).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-14)
        assert ng.autograd.gradcheck(lambda t: t ** exponent, (ng.tensor(x[:3], requires_grad=True),))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("alpha", [0.1, -0.01, 3, 1e-3])
def test_add_and_sub_with_alpha_round_once_as_pytorch(dtype, alpha):
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal(4099).astype(dtype), rng.standard_normal(4099).astype(dtype)
    for name in ("add", "sub"):
        np.testing.assert_array_equal(getattr(ng, name)(ng.tensor(x), ng.tensor(y), alpha=alpha).numpy(),
                                      getattr(torch, name)(torch.tensor(x), torch.tensor(y), alpha=alpha).numpy())
        a, b = ng.tensor(x), torch.tensor(x)
        getattr(a, name + "_")(ng.tensor(y), alpha=alpha)
        getattr(b, name + "_")(torch.tensor(y), alpha=alpha)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # Non-contiguous operands take the same kernel.
    np.testing.assert_array_equal(ng.tensor(x[:4096]).reshape(64, 64).T.add(ng.tensor(y[:64]), alpha=alpha).numpy(),
                                  torch.tensor(x[:4096]).reshape(64, 64).T.add(torch.tensor(y[:64]),
                                                                               alpha=alpha).numpy())


def test_hundreds_of_sgd_updates_stay_bit_identical():
    rng = np.random.default_rng(5)
    p0, grads = rng.standard_normal(257).astype(np.float32), rng.standard_normal((300, 257)).astype(np.float32)
    a, b = ng.tensor(p0), torch.tensor(p0)
    for g in grads:
        a.add_(ng.tensor(g), alpha=-0.01)
        b.add_(torch.tensor(g), alpha=-0.01)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_add_with_alpha_gradients():
    x = np.random.default_rng(6).standard_normal(5)
    a, b = ng.tensor(x, requires_grad=True), ng.tensor(x[::-1].copy(), requires_grad=True)
    ng.sub(a, b, alpha=0.5).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones(5))
    np.testing.assert_array_equal(b.grad.numpy(), -0.5 * np.ones(5))
    assert ng.autograd.gradcheck(lambda u, v: ng.add(u, v, alpha=-2.5), (a, b))


# ------------------------------------------------------------------------------ serialization
def test_saving_a_module_or_optimizer_asks_for_its_state_dict():
    model = nn.Linear(2, 2)
    for obj in (model, ng.optim.SGD(model.parameters(), lr=0.1), {"model": model}):
        with pytest.raises(TypeError, match=r"pickle-free.*state_dict\(\)"):
            ng.save(obj, io.BytesIO())
    buf = io.BytesIO()
    ng.save(model.state_dict(), buf)
    buf.seek(0)
    assert set(ng.load(buf)) == {"weight", "bias"}


def test_safe_globals_are_accepted_no_ops():
    from numgrad import serialization
    serialization.add_safe_globals([nn.Linear])
    assert serialization.get_safe_globals() == []
    with serialization.safe_globals([nn.Linear]):
        buf = io.BytesIO()
        ng.save({"x": ng.ones(1)}, buf)
        buf.seek(0)
        assert ng.load(buf, weights_only=True)["x"].tolist() == [1.0]
    serialization.clear_safe_globals()
    for name in ("add_safe_globals", "safe_globals", "get_safe_globals", "clear_safe_globals"):
        assert hasattr(torch.serialization, name)
        assert "pickle" in getattr(serialization, name).__doc__ or "add_safe_globals" in \
            getattr(serialization, name).__doc__


# ------------------------------------------------------------------------------ RandomSampler
def test_random_sampler_with_replacement_draws_lazily():
    sampler = RandomSampler(range(10), replacement=True, num_samples=10 ** 10,
                            generator=ng.Generator().manual_seed(0))
    assert len(list(itertools.islice(iter(sampler), 100))) == 100
    assert len(sampler) == 10 ** 10


@pytest.mark.parametrize("num_samples", [5, 32, 70])
def test_random_sampler_with_replacement_matches_pytorch(num_samples):
    ours = list(RandomSampler(range(10), replacement=True, num_samples=num_samples,
                              generator=ng.Generator().manual_seed(0)))
    theirs = list(torch.utils.data.RandomSampler(range(10), replacement=True, num_samples=num_samples,
                                                 generator=torch.Generator().manual_seed(0)))
    assert ours == theirs


def test_random_sampler_without_a_generator_follows_the_seeded_default_one():
    ng.manual_seed(7)
    torch.manual_seed(7)
    ours = list(RandomSampler(range(10), replacement=True, num_samples=40))
    theirs = list(torch.utils.data.RandomSampler(range(10), replacement=True, num_samples=40))
    assert ours == theirs


def test_functional_softmax_takes_dim_only_as_pytorch():
    with pytest.raises(TypeError):
        torch.nn.functional.softmax(torch.tensor(_X), axis=1)
    with pytest.raises(TypeError):
        nn.functional.softmax(ng.tensor(_X), axis=1)


@pytest.mark.parametrize("options", [{}, {"momentum": 0.9, "weight_decay": 1e-4}, {"momentum": 0.9, "nesterov": True}])
def test_sgd_optimizer_steps_stay_bit_identical(options):
    rng = np.random.default_rng(8)
    p0, grads = rng.standard_normal(129).astype(np.float32), rng.standard_normal((200, 129)).astype(np.float32)
    params = []
    for lib in (ng, torch):
        p = lib.nn.Parameter(lib.tensor(p0))
        opt = lib.optim.SGD([p], lr=0.05, **options)
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
        params.append(p.detach().numpy())
    np.testing.assert_array_equal(params[0], params[1])
