"""max_pool2d's windows against a direct reference: every geometry, layout and dtype that the
kernel's vectorized rows (2x2 stride 2, 3x3 stride 1 or 2) and its clipped windows serve."""
import itertools

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F


def _reference(x, k, s, p, d, ceil_mode):
    """Each window's first maximum in row-major tap order (a NaN wins; the first NaN stays)."""
    from numgrad.nn.functional.conv import _out_size
    N, C, H, W = x.shape
    oh, ow = _out_size(H, k, s, p, d, ceil_mode), _out_size(W, k, s, p, d, ceil_mode)
    values = np.empty((N, C, oh, ow), x.dtype)
    indices = np.empty((N, C, oh, ow), np.int64)
    for n, c, i, j in itertools.product(range(N), range(C), range(oh), range(ow)):
        best = None
        for a, b in itertools.product(range(k), range(k)):
            y, xx = i * s - p + a * d, j * s - p + b * d
            if not (0 <= y < H and 0 <= xx < W):
                continue
            v = x[n, c, y, xx]
            if best is None or (best[0] == best[0] and not v <= best[0]):
                best = (v, y * W + xx)
        values[n, c, i, j], indices[n, c, i, j] = best
    return values, indices


# (kernel, stride, padding, dilation, ceil_mode): the vectorized poolings, then clipped and generic ones
GEOMETRIES = [(2, 2, 0, 1, False), (3, 1, 0, 1, False), (3, 2, 0, 1, False), (3, 1, 1, 1, False),
              (3, 2, 1, 1, True), (2, 2, 1, 1, True), (3, 3, 1, 1, False), (2, 1, 0, 2, False),
              (3, 2, 1, 2, False), (1, 1, 0, 1, False)]


@pytest.mark.parametrize("k,s,p,d,ceil_mode", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_max_pool_matches_reference(k, s, p, d, ceil_mode, dtype):
    rng = np.random.default_rng(k * 100 + s * 10 + p + d)
    # Few distinct values make ties; NaN and -inf test the comparisons.
    raw = rng.integers(-3, 3, (2, 3, 19, 23)).astype(dtype)
    if dtype is not np.int64:
        raw[rng.random(raw.shape) < 0.05] = np.nan
        raw[rng.random(raw.shape) < 0.05] = -np.inf
    want_v, want_i = _reference(raw, k, s, p, d, ceil_mode)
    full = ng.tensor(raw)
    # Contiguous, sliced out of a larger buffer (reads near the buffer's end), and strided views.
    views = [full, ng.tensor(np.concatenate([raw, raw], 0))[2:], ng.tensor(raw.repeat(2, -1))[..., ::2],
             ng.tensor(raw.transpose(0, 1, 3, 2).copy()).transpose(2, 3)]
    for x in views:
        v, i = F.max_pool2d(x, k, s, p, d, ceil_mode, return_indices=True)
        np.testing.assert_array_equal(v.numpy(), want_v)
        np.testing.assert_array_equal(i.numpy(), want_i)


def test_max_pool_threaded_rows_match_reference(monkeypatch):
    from numgrad.backends.cpu import nn as kernels
    monkeypatch.setattr(kernels, "use_parallel", lambda n, threshold: True)
    raw = np.random.default_rng(0).standard_normal((3, 2, 12, 30)).astype(np.float32)
    v, i = F.max_pool2d(ng.tensor(raw), 2, return_indices=True)
    want_v, want_i = _reference(raw, 2, 2, 0, 1, False)
    np.testing.assert_array_equal(v.numpy(), want_v)
    np.testing.assert_array_equal(i.numpy(), want_i)


def test_max_pool_gradient_goes_to_first_maximum():
    x = ng.tensor(np.ones((1, 1, 4, 40), np.float32), requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    g = x.grad.numpy()[0, 0]
    assert g[0, ::2].tolist() == [1.0] * 20 and g[0, 1::2].sum() == 0 and g[1].sum() == 0


@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 1, 1), (3, 2, 1)])
def test_max_pool_gradcheck(k, s, p):
    # Distinct, well separated values: the maxima do not move under gradcheck's perturbations.
    raw = np.random.default_rng(k + s + p).permutation(2 * 2 * 9 * 10).reshape(2, 2, 9, 10) / 10.0
    x = ng.tensor(raw, requires_grad=True)
    fn = lambda t: F.max_pool2d(t, k, s, p)  # noqa: E731
    assert ng.autograd.gradcheck(fn, (x,))
    assert ng.autograd.gradgradcheck(fn, (x,))
