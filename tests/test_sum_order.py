"""Float sums add in PyTorch's order (its single-threaded CPU kernels), so sums, means and losses
print PyTorch's numbers to the last bit: digests of results pinned from PyTorch that need no torch,
and side-by-side checks over layouts and dims when torch is importable."""
import hashlib
import itertools

import numpy as np
import pytest

import numgrad

# (dtype, shape, dim, transposed, digest of PyTorch's result bytes) for numgrad.randn(shape) after
# manual_seed(0) (PyTorch's numbers); "transposed" sums x.transpose(0, -1), or x[::2] for 1-d x.
PINNED = [
    ('float32', (7,), None, False, '36b33022c278'),
    ('float32', (7,), None, True, '8089e3fb6759'),
    ('float32', (9,), None, False, 'a5eda0276373'),
    ('float32', (9,), None, True, '86772f4d5978'),
    ('float32', (1000,), None, False, '73c66050e247'),
    ('float32', (1000,), None, True, 'dfb606c0701a'),
    ('float32', (70000,), None, False, '192369b0d608'),
    ('float32', (70000,), None, True, '46d3f944d191'),
    ('float32', (64, 10), 0, False, '1465a3f3dbe5'),
    ('float32', (64, 10), 0, True, '46347b6d3768'),
    ('float32', (64, 10), 1, False, '46347b6d3768'),
    ('float32', (64, 10), 1, True, '1465a3f3dbe5'),
    ('float32', (100, 33), 0, False, 'd2615c597681'),
    ('float32', (100, 33), 0, True, '9f7c2f43dbe3'),
    ('float32', (3, 5, 40), (0, 2), False, '7b72594409d9'),
    ('float32', (3, 5, 40), (0, 2), True, '7b72594409d9'),
    ('float32', (6, 7, 9), 1, False, '91f8f1665ce7'),
    ('float32', (6, 7, 9), 1, True, 'ca6b1b0c9747'),
    ('float64', (7,), None, False, '3a7e23c5b2f4'),
    ('float64', (7,), None, True, '47f59347e012'),
    ('float64', (9,), None, False, 'dbd7e714419e'),
    ('float64', (9,), None, True, '8f9983dba444'),
    ('float64', (1000,), None, False, '371512529ab4'),
    ('float64', (1000,), None, True, 'ba2a22279df8'),
    ('float64', (70000,), None, False, '46c7d98fe06f'),
    ('float64', (70000,), None, True, '8c287a33d30f'),
    ('float64', (64, 10), 0, False, '56bce53bdf30'),
    ('float64', (64, 10), 0, True, '4b71589e21c9'),
    ('float64', (64, 10), 1, False, '4b71589e21c9'),
    ('float64', (64, 10), 1, True, '56bce53bdf30'),
    ('float64', (100, 33), 0, False, '5d8f37b22d68'),
    ('float64', (100, 33), 0, True, '50f5d798ddd0'),
    ('float64', (3, 5, 40), (0, 2), False, '7951f8392c9f'),
    ('float64', (3, 5, 40), (0, 2), True, '7951f8392c9f'),
    ('float64', (6, 7, 9), 1, False, '2b0c31debcfd'),
    ('float64', (6, 7, 9), 1, True, '6a63837c6007'),
]


def _digest(t):
    return hashlib.sha1(t.contiguous().numpy().tobytes()).hexdigest()[:12]


@pytest.mark.parametrize("dtype,shape,dim,transposed,digest", PINNED)
def test_sums_match_pinned_pytorch_results(dtype, shape, dim, transposed, digest):
    numgrad.manual_seed(0)
    x = numgrad.randn(shape, dtype=getattr(numgrad, dtype))
    if transposed:
        x = x.transpose(0, -1) if x.dim() > 1 else x[::2]
    assert _digest(x.sum() if dim is None else x.sum(dim)) == digest


def test_order_is_not_sequential():
    # Seven float32 terms: four streams (one term each), the last three terms added to the first
    # stream, then the other streams. Added one by one from the left, y would give 1 + 3 * 2**-23.
    e = 2.0**-24
    assert numgrad.tensor([1.0] + [e] * 6).sum().item() == 1.0
    assert numgrad.tensor([e] * 6 + [1.0]).sum().item() == 1.0 + 2.0**-22
    assert not np.signbit(numgrad.tensor([-0.0]).sum().item())
    assert not np.signbit(numgrad.tensor(-0.0).sum().item())


def _layouts(rng, shape, dtype):
    base = rng.standard_normal(shape).astype(dtype)
    yield base
    if base.ndim >= 2:
        yield base.swapaxes(0, -1)
        yield base[..., 1:-1]
    if base.ndim and shape[0] > 2:
        yield base[::2]


# (20, 1100): columns past a page of a row, summed side by side in more than one pass.
SHAPES = [(), (1,), (7,), (8,), (33,), (1000,), (64, 10), (100, 33), (3, 5, 40), (40, 1, 30), (2, 3, 4, 9),
          (20, 1100)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sums_and_means_match_pytorch(dtype, shape):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    for a in _layouts(rng, shape, dtype):
        x, t = numgrad.from_numpy(a), torch.from_numpy(a)
        dims = [None] + [c for r in range(1, a.ndim + 1) for c in itertools.combinations(range(a.ndim), r)]
        for dim in dims:
            for name in ("sum", "mean", "nansum"):
                got = getattr(x, name)() if dim is None else getattr(x, name)(dim)
                want = getattr(t, name)() if dim is None else getattr(t, name)(dim)
                assert np.array_equal(got.numpy(), want.numpy()), (name, a.shape, a.strides, dim)
                assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


def test_expanded_input_sums_as_pytorch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    a = np.random.default_rng(1).standard_normal((1, 30)).astype(np.float32)
    x, t = numgrad.tensor(a).expand(40, 30), torch.tensor(a).expand(40, 30)
    for dim in (None, 0, 1):
        got, want = (x.sum(), t.sum()) if dim is None else (x.sum(dim), t.sum(dim))
        assert np.array_equal(got.numpy(), want.numpy())


def test_losses_and_bias_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((64, 10)).astype(np.float32) for _ in range(2))
    results = []
    for lib in (numgrad, torch):
        x, y = lib.tensor(a), lib.tensor(b)
        bias = lib.zeros(10, requires_grad=True)
        loss = lib.nn.functional.mse_loss(x + bias, y)
        loss.backward()
        results.append([loss.item(), lib.nn.functional.l1_loss(x, y).item(), bias.grad.numpy().tobytes()])
    assert results[0] == results[1]


def test_running_totals_accumulate_float32_in_float64():
    numgrad.manual_seed(0)
    x = numgrad.randn(20)
    assert x.cumsum(0)[-3:].tolist() == [4.881984233856201, 6.886964797973633, 6.940701484680176]
    assert x.cumprod(0)[5:8].tolist() == [-0.13135439157485962, 0.04483918845653534, 0.08308728784322739]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_running_totals_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for shape, dim in [((1000,), 0), ((50, 40), 0), ((50, 40), 1), ((3, 4, 5), 1)]:
        a = rng.standard_normal(shape).astype(dtype)
        for b in (a, a.swapaxes(0, -1)):
            for name in ("cumsum", "cumprod"):
                got = getattr(numgrad.from_numpy(b), name)(dim).numpy()
                want = getattr(torch.from_numpy(b), name)(dim).numpy()
                assert np.array_equal(got, want, equal_nan=True), (name, b.shape, dim)


def test_variance_accumulates_float32_in_float64():
    numgrad.manual_seed(0)
    x = numgrad.randn(100) * 3 + 1
    y = numgrad.randn(64, 10)
    assert (x.var().item(), x.std().item()) == (9.540698051452637, 3.088801860809326)
    assert y.std(0)[:3].tolist() == [1.0324866771697998, 0.8717584013938904, 0.9803462624549866]
    assert y.var(1)[:2].tolist() == [0.7598473429679871, 0.9510065317153931]
    assert y.var().dtype is numgrad.float32


def test_variance_matches_pytorch():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    for shape, dim in [((100,), None), ((1000,), None), ((64, 10), 0), ((64, 10), 1), ((5, 6, 7), (0, 2))]:
        a = rng.standard_normal(shape).astype(np.float32) * 3 + 1
        for name in ("var", "std"):
            got = getattr(numgrad, name)(numgrad.from_numpy(a), dim)
            want = getattr(torch, name)(torch.from_numpy(a), dim)
            assert np.array_equal(got.numpy(), want.numpy()), (name, shape, dim)
