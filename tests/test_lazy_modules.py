"""Lazy modules: sized by their first input (or a state dict), initialised as PyTorch's, then
the full layer."""
import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

CASES = [
    ("LazyLinear", (5,), {}, (2, 7)),
    ("LazyLinear", (3,), {"bias": False}, (4, 2, 6)),
    ("LazyConv1d", (4, 3), {"stride": 2, "padding": 1}, (2, 3, 9)),
    ("LazyConv2d", (6, 3), {"groups": 2, "dilation": 2}, (1, 4, 9, 9)),
    ("LazyConv3d", (2, 2), {"bias": False}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2, "output_padding": 1}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2}, (1, 4, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), {"affine": False}, (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {"affine": False}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lazy_module_becomes_the_layer_pytorch_makes(name, args, kwargs, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    made = {}
    for lib in (numgrad, torch):
        lib.manual_seed(1)
        m = getattr(lib.nn, name)(*args, **kwargs)
        assert m.has_uninitialized_params() == (kwargs.get("affine", True) or kwargs.get("track_running_stats", True))
        out = m(lib.tensor(x))
        made[lib] = (m, out)
    (m, out), (tm, tout) = made[numgrad], made[torch]
    assert type(m).__name__ == type(tm).__name__ and repr(m) == repr(tm)
    assert not m.has_uninitialized_params() if hasattr(m, "has_uninitialized_params") else True
    assert sorted(m.state_dict()) == sorted(tm.state_dict())
    for key, value in tm.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[key].numpy(), value.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_uninitialized_parameter_and_state_dict_loading():
    lazy = numgrad.nn.LazyLinear(3)
    assert repr(lazy.weight) == "<UninitializedParameter>"
    assert isinstance(lazy.weight, numgrad.nn.UninitializedParameter)
    with pytest.raises(RuntimeError, match="uninitialized parameter"):
        lazy.weight.shape
    source = numgrad.nn.Linear(4, 3)
    lazy.load_state_dict(source.state_dict())
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), source.weight.detach().numpy())
    x = numgrad.randn(2, 4)
    np.testing.assert_array_equal(lazy(x).detach().numpy(), source(x).detach().numpy())
    assert type(lazy) is numgrad.nn.Linear and lazy.in_features == 4
    buffer = numgrad.nn.UninitializedBuffer()
    buffer.materialize((2, 3))
    assert type(buffer) is numgrad.Tensor and tuple(buffer.shape) == (2, 3)


def test_lazy_module_trains():
    numgrad.manual_seed(0)
    model = numgrad.nn.Sequential(numgrad.nn.LazyLinear(8), numgrad.nn.ReLU(), numgrad.nn.LazyLinear(1))
    model(numgrad.zeros(1, 5))
    opt = numgrad.optim.SGD(model.parameters(), lr=0.1)
    x, y = numgrad.randn(16, 5), numgrad.randn(16, 1)
    first = None
    for _ in range(20):
        loss = numgrad.nn.functional.mse_loss(model(x), y)
        first = loss.item() if first is None else first
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < first
