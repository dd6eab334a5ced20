"""poisson draws PyTorch's numbers after manual_seed, and linspace/logspace round each value as
PyTorch does: pinned values (taken from PyTorch) that need no torch, and side-by-side checks
when torch is importable."""
import numpy as np
import pytest

import numgrad

RATES = [0.0, 0.5, 3.0, 9.99, 10.0, 50.0, 1e6]


def test_pinned_poisson():
    numgrad.manual_seed(0)
    x = numgrad.tensor(RATES, dtype=numgrad.float64)
    assert numgrad.poisson(x).tolist() == [0.0, 2.0, 4.0, 10.0, 13.0, 54.0, 1000066.0]
    # The generator is left where PyTorch leaves it.
    assert numgrad.rand(2, dtype=numgrad.float64).tolist() == [0.5582430753802258, 0.5875289618364469]
    numgrad.manual_seed(1)
    h = numgrad.tensor([[1.5, 20.0, 0.0], [7.0, 300.0, 2.0]], dtype=numgrad.float16)
    y = numgrad.poisson(h.t())  # drawn in the order of the result's elements
    assert y.dtype is numgrad.float16 and y.tolist() == [[0.0, 4.0], [19.0, 304.0], [0.0, 2.0]]
    assert numgrad.poisson(numgrad.tensor(12.5)).item() == 11.0
    # Rates beyond int64 give its smallest value, as PyTorch's x86 build does.
    numgrad.manual_seed(2)
    z = numgrad.tensor([1e300, float("inf"), 4.0], dtype=numgrad.float64)
    assert numgrad.poisson(z).tolist() == [-2.0 ** 63, -2.0 ** 63, 3.0]


def test_poisson_shapes_generator_and_gradient():
    assert numgrad.poisson(numgrad.empty(0, 3)).shape == (0, 3)
    g = numgrad.Generator().manual_seed(4)
    a = numgrad.poisson(numgrad.tensor([2.0, 30.0]), generator=g).tolist()
    numgrad.manual_seed(4)
    assert numgrad.poisson(numgrad.tensor([2.0, 30.0])).tolist() == a
    x = numgrad.tensor([2.0, 20.0], requires_grad=True)
    y = numgrad.poisson(x)
    assert y.grad_fn.name() == "PoissonBackward0"
    (y * 3).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    with numgrad.no_grad():
        assert not numgrad.poisson(x).requires_grad


def test_poisson_errors_leave_the_draws_before_them():
    with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
        numgrad.poisson(numgrad.tensor([1, 2]))
    for bad in (-1.0, float("nan")):
        with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
            numgrad.poisson(numgrad.tensor([5.0, 20.0, bad, 3.0]))
    # The two valid rates before the bad one drew their numbers, as in PyTorch.
    numgrad.manual_seed(0)
    with pytest.raises(RuntimeError):
        numgrad.poisson(numgrad.tensor([5.0, 20.0, -1.0, 3.0]))
    assert numgrad.rand(2).tolist() == [0.39709991216659546, 0.8741558790206909]


def test_pinned_linspace_and_logspace():
    assert numgrad.linspace(4.0, -93.28288493890713, 11, dtype=numgrad.float64).tolist() == [
        4.0, -5.728288493890712, -15.456576987781425, -25.184865481672137, -34.91315397556285,
        -44.641442469453565, -54.36973096334428, -64.098019457235, -73.8263079511257, -83.55459644501641,
        -93.28288493890713]
    assert numgrad.linspace(27.39233746429086, 42.062834790421746, 9).tolist() == [
        27.392337799072266, 29.226150512695312, 31.05996322631836, 32.893775939941406, 34.72758483886719,
        36.561397552490234, 38.39521026611328, 40.22902297973633, 42.062835693359375]
    assert numgrad.linspace(-3.0755, 5.0, 11, dtype=numgrad.int64).tolist() == [-3, -2, -1, 0, 0, 0, 1, 2, 3, 4, 5]
    h = numgrad.linspace(0.3, 2.2, 3001, dtype=numgrad.float16)
    assert [h[i].item() for i in (5, 2047, 2999)] == [0.30322265625, 1.595703125, 2.19921875]
    assert numgrad.logspace(-1.3, 2.7, 7, base=3.0).tolist() == [
        0.23974104225635529, 0.4986814558506012, 1.0372992753982544, 2.1576693058013916, 4.488133430480957,
        9.335693359375, 19.419025421142578]


@pytest.mark.parametrize("call, error, message", [
    (lambda: numgrad.linspace(-200, 100, 5, dtype=numgrad.int8), RuntimeError, "type int8_t without overflow"),
    (lambda: numgrad.linspace(-0.5, 3, 5, dtype=numgrad.uint8), RuntimeError, "type uint8_t without overflow"),
    (lambda: numgrad.linspace(1e5, 2, 3, dtype=numgrad.float16), RuntimeError, "type c10::Half without"),
    (lambda: numgrad.linspace(0, 1, 3, dtype=numgrad.bool), NotImplementedError, "\"linspace_cpu\" not impl"),
    (lambda: numgrad.linspace(0, 2 ** 64, 3), OverflowError, "int too big to convert"),
    (lambda: numgrad.logspace(0, 1, -1), RuntimeError, "number of steps must be non-negative"),
])
def test_linspace_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_linspace_conversions():
    # Negative integers wrap into uint8; one step is a fill, which half precision takes unchecked.
    assert numgrad.linspace(-1, 5, 3, dtype=numgrad.uint8).tolist() == [255, 130, 5]
    assert numgrad.linspace(70000.0, 1, 1, dtype=numgrad.float16).tolist() == [float("inf")]
    assert numgrad.linspace(2 ** 63 - 10, 2 ** 63 - 1, 2, dtype=numgrad.int64).tolist() == [-2 ** 63] * 2


# ------------------------------------------------------------------------- side by side with torch
def _torch():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_poisson_matches_torch(dtype):
    torch = _torch()
    rng = np.random.default_rng(0)
    rates = np.concatenate([rng.uniform(0, 10, 12), rng.uniform(10, 500, 12), [0.0, 10.0, 6e4]])
    rng.shuffle(rates)
    rates = rates[:24].reshape(4, 6)
    for seed, view in enumerate([lambda t: t, lambda t: t.t(), lambda t: t[:, ::2], lambda t: t[1, 2]]):
        torch.manual_seed(seed)
        expected = torch.poisson(view(torch.tensor(rates, dtype=getattr(torch, dtype))))
        after = torch.rand(3)
        numgrad.manual_seed(seed)
        got = numgrad.poisson(view(numgrad.tensor(rates, dtype=getattr(numgrad, dtype))))
        assert got.tolist() == expected.tolist()
        assert numgrad.rand(3).tolist() == after.tolist()


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int64", "int16", "uint8"])
def test_linspace_and_logspace_match_torch(dtype):
    torch = _torch()
    rng = np.random.default_rng(1)
    for _ in range(25):
        if dtype.startswith(("int", "uint")):
            start, end = (float(v) for v in rng.uniform(0, 100, 2))
        else:
            start, end = (float(v) for v in rng.uniform(-1, 1, 2) * 10.0 ** rng.uniform(-3, 3, 2))
        steps = int(rng.choice([2, 3, 10, 33, 101]))
        for name, a, b in [("linspace", start, end), ("logspace", start / 50, end / 50)]:
            expected = getattr(torch, name)(a, b, steps, dtype=getattr(torch, dtype)).numpy()
            got = getattr(numgrad, name)(a, b, steps, dtype=getattr(numgrad, dtype)).numpy()
            assert got.tobytes() == expected.tobytes(), (name, a, b, steps)
