"""Reductions, index-returning reductions and scans against NumPy (and PyTorch's rules where
NumPy has none): dtypes, dims, keepdim, 0-d, empty and non-contiguous inputs, NaN, errors, and
gradients of the rules declared with them."""
import math

import numpy as np
import pytest

import numgrad as ng

RNG = np.random.default_rng(0)


def _data(shape, dtype):
    if dtype == np.bool_:
        return RNG.random(shape) > 0.5
    if np.issubdtype(dtype, np.integer):
        return RNG.integers(-5, 6, shape).astype(dtype) if dtype != np.uint8 else \
            RNG.integers(0, 6, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _views(a):
    """(name, numgrad tensor, NumPy array) for contiguous, transposed, stepped and expanded inputs."""
    t = ng.from_numpy(a.copy())
    yield "contig", t, a
    if a.ndim >= 2:
        yield "transposed", t.transpose(0, -1), np.swapaxes(a, 0, -1)
        yield "stepped", t[::2, ..., ::2], a[::2, ..., ::2]
        yield "expanded", t[:1].expand(3, *a.shape[1:]), np.broadcast_to(a[:1], (3,) + a.shape[1:])


DIMS = [None, 0, -1, (0, 2), (1, 2), (0, 1, 2)]


def _close(got, want, dtype, rtol=1e-5):
    got = got.numpy()
    assert got.shape == np.shape(want)
    if dtype in (np.float16,):
        rtol = 2e-3
    np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, dtype=np.float64),
                               rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_, np.float16, np.uint8])
def test_sum_matches_numpy(dtype):
    a = _data((4, 3, 6), dtype)
    for name, t, x in _views(a):
        for dim in DIMS:
            for keepdim in (False, True):
                want = x.sum(axis=dim, keepdims=keepdim, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
                got = ng.sum(t, dim, keepdim)
                _close(got, want, dtype)
                expect = ng.int64 if dtype in (np.int64, np.int32, np.bool_, np.uint8) else t.dtype
                assert got.dtype == expect, (name, dim)


@pytest.mark.parametrize("fn,ref", [("prod", np.prod), ("amax", np.amax), ("amin", np.amin),
                                    ("any", np.any), ("all", np.all)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_combine_reductions_match_numpy(fn, ref, dtype):
    a = _data((4, 3, 6), dtype) if fn != "prod" else (RNG.random((4, 3, 6)) + 0.5).astype(dtype)
    for name, t, x in _views(a):
        for dim in DIMS:
            kw = {} if dim is None else {"dim": dim}
            got = getattr(ng, fn)(t, **kw)
            want = ref(x, axis=dim)
            _close(got, want, dtype, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_amax_amin_propagate_nan_from_any_position(dtype):
    # The float kernels run vector lanes, whole blocks and a scalar tail: a NaN or an infinity
    # in any of them must reach the result, along rows, columns and the whole tensor.
    for n in [1, 7, 16, 33, 1030, 5000]:
        for pos in sorted({0, n // 2, n - 1}):
            for special in (np.nan, np.inf, -np.inf):
                a = RNG.standard_normal((3, n)).astype(dtype)
                a[1, pos] = special
                for name, t, x in _views(a):
                    for fn, ref in (("amax", np.amax), ("amin", np.amin)):
                        for dim in (None, 0, 1):
                            got = getattr(ng, fn)(t) if dim is None else getattr(ng, fn)(t, dim)
                            assert np.array_equal(got.numpy(), ref(x, axis=dim), equal_nan=True), \
                                (fn, n, pos, special, name, dim)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8])
def test_arg_extremes_pick_the_first_from_any_position(dtype):
    # Contiguous rows find the extreme in one pass, then its first index: ties, NaNs and
    # infinities anywhere must give the index (and value) of a serial walk.
    for n in [1, 2, 16, 33, 1030]:
        for pos in sorted({0, n // 2, n - 1}):
            a = _data((4, n), dtype)
            a[0, pos] = a[0].max()
            a[0, n - 1 - pos] = a[0, pos]
            a[1, pos] = a[1].min()
            if np.issubdtype(dtype, np.floating):
                a[2, pos] = np.nan
                a[2, n // 3] = np.nan
                a[3, pos] = np.inf if pos % 2 else -np.inf
            for name, t, x in _views(a):
                for dim in (0, 1, -1):
                    assert np.array_equal(ng.argmax(t, dim).numpy(), np.argmax(x, axis=dim)), (n, pos, name, dim)
                    assert np.array_equal(ng.argmin(t, dim).numpy(), np.argmin(x, axis=dim)), (n, pos, name, dim)
                    values, indices = ng.max(t, dim)
                    assert np.array_equal(indices.numpy(), np.argmax(x, axis=dim))
                    assert np.array_equal(values.numpy(), np.max(x, axis=dim), equal_nan=True)
                assert ng.argmax(t).item() == np.argmax(x) and ng.argmin(t).item() == np.argmin(x)


def test_dtype_argument_and_result_dtypes():
    x = ng.tensor([1, 2, 3], dtype=ng.int8)
    assert x.sum().dtype == ng.int64 and x.prod().dtype == ng.int64
    assert x.sum(dtype=ng.float64).dtype == ng.float64
    assert ng.tensor([1, 2], dtype=ng.uint8).all().dtype == ng.uint8
    assert ng.tensor([1.0, 0.0]).any().dtype == ng.bool
    assert ng.tensor([1, 2]).cumsum(0).dtype == ng.int64
    assert ng.ones(2, 3).cumsum(1, dtype=ng.int32).dtype == ng.int32
    assert ng.tensor([True, True]).cumprod(0).dtype == ng.int64
    big = ng.tensor([2 ** 62, 2 ** 62], dtype=ng.int64)
    assert big.sum().item() == -(2 ** 63)  # int64 wraps like PyTorch


def test_zero_d_and_empty():
    s = ng.tensor(3.5)
    assert s.sum().item() == 3.5 and s.sum(0).item() == 3.5 and s.amax(-1).item() == 3.5
    assert s.max(0).indices.item() == 0 and s.argmax().item() == 0
    e = ng.ones(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert e.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert tuple(e.sum(1).shape) == (0,)
    assert math.isnan(e.mean().item())
    assert math.isnan(ng.median(ng.ones(0)).item())
    assert tuple(e.amax(1).shape) == (0,)
    assert e.all().item() and not e.any().item()
    assert tuple(e.cumsum(0).shape) == (0, 3)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: ng.ones(0).max(), RuntimeError,
     "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
     "with the 'dim' argument."),
    (lambda: ng.ones(0, 3).amax(), RuntimeError, "amax(): Expected reduction dim to be specified"),
    (lambda: ng.ones(0, 3).max(0), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda: ng.ones(0, 3).argmin(0), IndexError, "argmin(): Expected reduction dim 0 to have non-zero size."),
    (lambda: ng.ones(0).argmax(), IndexError, "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: ng.ones(0, 2).median(0), IndexError, "median(): Expected reduction dim 0 to have non-zero size."),
    (lambda: ng.ones(0).mode(), IndexError, "mode(): Expected reduction dim 0 to have non-zero size."),
    (lambda: ng.ones(2, 3).sum(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: ng.ones(2, 3).sum((0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: ng.tensor([1, 2]).mean(), RuntimeError, "mean(): could not infer output dtype"),
    (lambda: ng.tensor([1, 2]).var(), RuntimeError, "var(): input dtype should be"),
    (lambda: ng.tensor([True]).argmax(), RuntimeError, "argmax(): does not support bool input"),
])
def test_errors(call, exc, msg):
    with pytest.raises(exc) as info:
        call()
    assert msg in str(info.value)


def test_nan_propagation():
    nan = float("nan")
    x = ng.tensor([[1.0, nan, 3.0], [4.0, 5.0, 6.0], [nan, -1.0, nan]])
    assert math.isnan(x.max().item()) and math.isnan(x.amin().item()) and math.isnan(x.sum().item())
    assert [math.isnan(v) for v in x.amax(1).tolist()] == [True, False, True]
    assert x.argmax(1).tolist() == [1, 2, 0] and x.argmin(1).tolist() == [1, 0, 0]
    r = x.max(1)
    assert r.indices.tolist() == [1, 2, 0] and math.isnan(r.values[0].item())
    assert x.argmax().item() == 1
    assert ng.nansum(x).item() == pytest.approx(18.0)
    assert ng.nanmean(x, 1).tolist() == pytest.approx([2.0, 5.0, -1.0])


def test_max_min_forms():
    a = _data((3, 5), np.float32)
    t = ng.from_numpy(a)
    r = ng.max(t, 1)
    assert type(r).__name__ == "max" and r.values is r[0] and r.indices is r[1]
    np.testing.assert_array_equal(r.values.numpy(), a.max(1))
    np.testing.assert_array_equal(r.indices.numpy(), a.argmax(1))
    r = t.min(0, keepdim=True)
    assert tuple(r.values.shape) == (1, 5)
    np.testing.assert_array_equal(r.indices.numpy()[0], a.argmin(0))
    np.testing.assert_array_equal(ng.max(t, t * 0).numpy(), np.maximum(a, 0))
    assert t.max().item() == a.max() and t.min().item() == a.min()
    assert repr(r).startswith("numgrad.return_types.min(\nvalues=tensor(")
    ties = ng.tensor([1, 5, 5, 0])
    assert ties.argmax().item() == 1 and ties.max(0).indices.item() == 1 and ties.argmin().item() == 3


def test_return_types_live_in_one_module():
    import pickle
    t = ng.tensor([[1.0, 4.0], [3.0, 2.0]])
    for r in (t.max(0), ng.aminmax(t), ng.linalg.qr(t), ng.sort(t)):
        assert getattr(ng.return_types, type(r).__name__) is type(r)
        assert pickle.loads(pickle.dumps(type(r))) is type(r)
        assert repr(r).startswith(f"numgrad.return_types.{type(r).__name__}(\n{r._fields[0]}=tensor(")


def test_argmax_flat_index_of_noncontiguous_and_keepdim():
    a = _data((4, 5), np.float64)
    t = ng.from_numpy(a).t()
    assert t.argmax().item() == a.T.argmax()
    assert tuple(t.argmax(keepdim=True).shape) == (1, 1)
    np.testing.assert_array_equal(t.argmin(1, keepdim=True).numpy(), a.T.argmin(1)[:, None])


def test_median_and_mode():
    x = ng.tensor([[3.0, 1.0, 2.0, 1.0], [float("nan"), 5.0, float("nan"), 0.0]])
    m = x.median(1)
    assert m.values[0].item() == 1.0 and math.isnan(m.values[1].item())
    assert x[0, m.indices[0].item()].item() == 1.0 and m.indices[1].item() == 0
    assert ng.tensor([1.0, 4.0, 2.0, 3.0]).median().item() == 2.0  # lower median
    a = _data((5, 6), np.float32)
    for _, t, v in _views(a):
        r = t.median(0)
        want = np.sort(v, 0)[(v.shape[0] - 1) // 2]
        np.testing.assert_array_equal(r.values.numpy(), want)
        np.testing.assert_array_equal(np.take_along_axis(v, r.indices.numpy()[None], 0)[0], want)
    r = ng.tensor([[1, 2, 2, 1, 3], [5, 5, 4, 4, 4]]).mode(1)
    assert r.values.tolist() == [1, 4] and r.indices.tolist() == [3, 4]
    r = ng.tensor([3.0, 1.0, 1.0, 3.0, 2.0]).mode()
    assert r.values.item() == 1.0 and r.indices.item() == 2


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float16])
def test_cumsum_cumprod(dtype):
    a = _data((3, 4, 5), dtype) if dtype != np.float16 else (RNG.random((3, 4, 5)) + 0.5).astype(dtype)
    for _, t, x in _views(a):
        for dim in (0, 1, -1):
            ref = x.astype(np.float64) if x.dtype.kind == "f" else x.astype(np.int64)
            _close(t.cumsum(dim), np.cumsum(ref, dim), dtype, rtol=1e-4)
            _close(ng.cumprod(t, dim), np.cumprod(ref, dim), dtype, rtol=1e-3)
    assert ng.tensor(2.0).cumsum(0).item() == 2.0


def _np_cumext(x, dim, want_max):
    """Running extremes and the last index reaching them, NaN sticky, by a plain loop."""
    x = np.moveaxis(x, dim, -1)
    values, indices = np.empty_like(x), np.zeros(x.shape, dtype=np.int64)
    for row in np.ndindex(x.shape[:-1]):
        best, at = x[row + (0,)], 0
        for i, v in enumerate(x[row]):
            if v != v or (v >= best if want_max else v <= best):
                best, at = v, i
            values[row + (i,)], indices[row + (i,)] = best, at
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_, np.float16])
def test_cummax_cummin(dtype):
    a = RNG.integers(-3, 4, (3, 4, 5)).astype(dtype)  # ties exercise the last-index rule
    if dtype == np.float64:
        a[1, 2, 1] = a[2, 0, 3] = np.nan
    for _, t, x in _views(a):
        for dim in (0, 1, -1):
            for want_max, fn in ((True, ng.cummax), (False, ng.cummin)):
                values, indices = fn(t, dim)
                want_values, want_indices = _np_cumext(x, dim, want_max)
                np.testing.assert_array_equal(values.numpy(), want_values)
                np.testing.assert_array_equal(indices.numpy(), want_indices)
    r = ng.tensor(2.5).cummax(0)
    assert r.values.item() == 2.5 and r.indices.item() == 0
    assert tuple(ng.zeros(0, 3).cummin(1).indices.shape) == (0, 3)
    out = (ng.empty(0), ng.empty(0, dtype=ng.int64))
    assert ng.cummax(ng.tensor([1.0, 3.0, 2.0]), 0, out=out).values is out[0]
    assert out[1].tolist() == [0, 1, 1]


def test_cummax_cummin_derivatives():
    x = ng.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    for fn in (ng.cummax, ng.cummin):
        for dim in (0, 1):
            assert ng.autograd.gradcheck(lambda t: fn(t, dim).values, (x,))
            assert ng.autograd.gradgradcheck(lambda t: fn(t, dim).values, (x,))
    assert type(x.cummax(0).values.grad_fn).__name__ == "CummaxBackward0"
    assert type(x.cummin(1).values.grad_fn).__name__ == "CumminBackward0"
    import numgrad.autograd.forward_ad as fwAD
    tangent = ng.tensor(RNG.standard_normal((3, 4)))
    with fwAD.dual_level():
        y = ng.cummax(fwAD.make_dual(x.detach(), tangent), 1).values
        jvp = fwAD.unpack_dual(y).tangent
    indices = x.detach().cummax(1).indices
    np.testing.assert_allclose(jvp.numpy(), tangent.gather(1, indices).numpy())


def test_statistics_match_numpy():
    a = _data((4, 3, 5), np.float64)
    for _, t, x in _views(a):
        for dim in (None, 1, (0, 2)):
            _close(t.mean(dim), x.mean(axis=dim), np.float64)
            _close(t.var(dim), x.var(axis=dim, ddof=1), np.float64)
            _close(t.std(dim, correction=0), x.std(axis=dim), np.float64)
            _close(t.var(dim, unbiased=False, keepdim=True), x.var(axis=dim, keepdims=True), np.float64)
            lse = np.log(np.exp(x).sum(axis=dim if dim is not None else (0, 1, 2)))
            _close(t.logsumexp(dim if dim is not None else (0, 1, 2)), lse, np.float64)
        _close(t.count_nonzero(1), np.count_nonzero(x, 1), np.float64)
    v, m = ng.var_mean(ng.from_numpy(a), 1)
    _close(v, a.var(1, ddof=1), np.float64)
    _close(m, a.mean(1), np.float64)
    s, m = ng.std_mean(ng.from_numpy(a), (0, 2), keepdim=True)
    _close(s, a.std((0, 2), ddof=1, keepdims=True), np.float64)
    assert ng.var(ng.from_numpy(a), True).item() == pytest.approx(a.var(ddof=1))
    big = ng.tensor([1000.0, 1000.0])
    assert big.logsumexp(0).item() == pytest.approx(1000.0 + math.log(2))
    assert ng.tensor([-math.inf, -math.inf]).logsumexp(0).item() == -math.inf
    assert ng.dist(ng.tensor([1.0, 2.0]), ng.tensor([4.0, 6.0])).item() == pytest.approx(5.0)
    assert math.isnan(ng.tensor([1.0]).var().item())


def test_out_arguments():
    t = ng.from_numpy(_data((3, 4), np.float32))
    out = ng.empty(0)
    assert ng.sum(t, 1, out=out) is out and tuple(out.shape) == (3,)
    values, indices = ng.empty(0), ng.empty(0, dtype=ng.int64)
    r = ng.max(t, 1, out=(values, indices))
    assert r.values is values and indices.tolist() == t.numpy().argmax(1).tolist()
    c = ng.empty(0)
    assert ng.cumsum(t, 0, out=c) is c


# --------------------------------------------------------------------------- derivatives

def _grad(fn, a):
    x = ng.tensor(a, requires_grad=True)
    fn(x).sum().backward()
    return x.grad.numpy()


def _numeric(fn, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        hi, lo = a.copy(), a.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (fn(ng.tensor(hi)).sum().item() - fn(ng.tensor(lo)).sum().item()) / (2 * eps)
    return g


@pytest.mark.parametrize("name,fn", [
    ("sum", lambda x: x.sum((0, 2))),
    ("prod", lambda x: x.prod(1)),
    ("prod_all", lambda x: x.prod()),
    ("mean", lambda x: x.mean(-1, keepdim=True)),
    ("var", lambda x: x.var(0)),
    ("std", lambda x: x.std((1, 2))),
    ("logsumexp", lambda x: x.logsumexp(1)),
    ("cumsum", lambda x: x.cumsum(1)),
    ("cumprod", lambda x: x.cumprod(2)),
    ("max_dim", lambda x: x.max(2).values),
    ("amin", lambda x: x.amin(0)),
    ("median_dim", lambda x: x.median(1).values),
])
def test_gradients_match_finite_differences(name, fn):
    a = RNG.standard_normal((2, 3, 4))
    np.testing.assert_allclose(_grad(fn, a), _numeric(fn, a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [lambda x: x.prod(1), lambda x: x.prod(), lambda x: x.cumprod(1),
                                lambda x: x.cumprod(0)])
def test_prod_and_cumprod_gradients_with_zeros(fn):
    a = RNG.standard_normal((3, 4))
    a[0, 1] = a[1, 1] = a[1, 3] = a[2, 0] = a[2, 2] = 0.0
    np.testing.assert_allclose(_grad(fn, a), _numeric(fn, a), rtol=1e-5, atol=1e-6)


def test_second_derivative_of_prod_and_forward_mode():
    import numgrad.autograd.forward_ad as fwAD
    a = RNG.standard_normal((2, 3))
    x = ng.tensor(a, requires_grad=True)
    (g,) = ng.autograd.grad(x.prod(), x, create_graph=True)
    g.sum().backward()
    assert np.all(np.isfinite(x.grad.numpy()))
    t = RNG.standard_normal((2, 3))
    for fn in (lambda v: v.prod(1), lambda v: v.cumprod(1), lambda v: v.max(1).values, lambda v: v.sum(0)):
        with fwAD.dual_level():
            y = fn(fwAD.make_dual(ng.tensor(a), ng.tensor(t)))
            got = fwAD.unpack_dual(y).tangent.numpy()
        eps = 1e-6
        want = (fn(ng.tensor(a + eps * t)).numpy() - fn(ng.tensor(a - eps * t)).numpy()) / (2 * eps)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_amax_ties_share_gradient_and_max_dim_picks_one():
    x = ng.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    x.amax(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5]]
    y = ng.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    y.max(1).values.sum().backward()
    assert y.grad.tolist() == [[0.0, 1.0, 0.0]]
    assert y.max(1).values.grad_fn.name() == "MaxBackward0"
    assert ng.tensor([1.0], requires_grad=True).mean().grad_fn.name() == "MeanBackward0"


def test_torch_agreement_when_available():
    torch = pytest.importorskip("torch")
    a = _data((3, 4, 5), np.float32)
    t, tt = ng.from_numpy(a), torch.from_numpy(a)
    for fn in ("sum", "mean", "amax", "std", "var", "logsumexp", "norm"):
        for dim in ((1,), (0, 2)):
            want = getattr(tt, fn)(dim=dim).numpy()
            np.testing.assert_allclose(getattr(t, fn)(dim=dim).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(t.median(1).values.numpy(), tt.median(1).values.numpy())
    np.testing.assert_allclose(t.cumsum(2).numpy(), tt.cumsum(2).numpy(), rtol=1e-5, atol=1e-6)
