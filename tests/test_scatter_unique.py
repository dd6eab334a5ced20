"""scatter_reduce (every reduction, with and without self, values and derivatives), unique and
unique_consecutive along a dim, and the derivatives of QR for wide matrices."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.func import jacfwd, jacrev
from numgrad.testing import assert_close

try:
    import torch
except ImportError:  # torch only sharpens the comparisons
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
REDUCES = ["sum", "prod", "mean", "amax", "amin"]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
SRC = RNG.standard_normal((3, 5))
INDEX = np.array([[0, 2, 2, 1], [0, 0, 2, 1]])


def _t(a, grad=False):
    return numgrad.tensor(a, requires_grad=grad)


def _sr(x, s, reduce, include_self, index=INDEX, dim=0):
    return x.scatter_reduce(dim, _t(index), s, reduce, include_self=include_self)


# ------------------------------------------------------------------------------ scatter_reduce values
def test_small_example_every_reduction():
    x, idx, src = _t([1.0, 2, 3, 4]), _t([0, 0, 2, 2]), _t([5.0, 6, 7, 8])
    expected = {("sum", True): [12, 2, 18, 4], ("sum", False): [11, 2, 15, 4],
                ("prod", True): [30, 2, 168, 4], ("prod", False): [30, 2, 56, 4],
                ("mean", True): [4, 2, 6, 4], ("mean", False): [5.5, 2, 7.5, 4],
                ("amax", True): [6, 2, 8, 4], ("amax", False): [6, 2, 8, 4],
                ("amin", True): [1, 2, 3, 4], ("amin", False): [5, 2, 7, 4]}
    for (reduce, include_self), want in expected.items():
        got = numgrad.scatter_reduce(x, 0, idx, src, reduce, include_self=include_self)
        assert got.tolist() == want, (reduce, include_self)


def test_integer_mean_rounds_down_and_wraps_like_pytorch():
    x = numgrad.tensor([0])
    assert x.scatter_reduce(0, _t([0, 0]), _t([-5, 0]), "mean").tolist() == [-2]
    assert x.scatter_reduce(0, _t([0, 0]), _t([-5, 0]), "mean", include_self=False).tolist() == [-3]
    # int8 sums wrap before the division, as PyTorch's do
    x8 = numgrad.zeros(3, dtype=numgrad.int8)
    src = numgrad.full((4,), 100, dtype=numgrad.int8)
    assert x8.scatter_reduce(0, _t([0, 0, 0, 0]), src, "mean").tolist() == [-23, 0, 0]


def test_amax_amin_propagate_nan_and_keep_untouched_self():
    nan = float("nan")
    r = _t([1.0, nan, 3.0]).scatter_reduce(0, _t([0, 1]), _t([nan, 4.0]), "amax")
    assert np.isnan(r[0].item()) and np.isnan(r[1].item()) and r[2].item() == 3.0
    r = _t([1.0, 2.0, 3.0]).scatter_reduce(0, _t([1]), _t([-7.0]), "amin", include_self=False)
    assert r.tolist() == [1.0, -7.0, 3.0]


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16"])
def test_dtypes_against_the_reference(dtype):
    from numgrad.testing import _np_scatter_reduce
    a = RNG.integers(-3, 4, (3, 4)).astype(dtype)
    s = RNG.integers(-3, 4, (2, 4)).astype(dtype)
    for reduce in REDUCES:
        if reduce == "mean" and dtype == "bool":
            continue
        for include_self in (True, False):
            got = numgrad.tensor(a).scatter_reduce(0, _t(INDEX), numgrad.tensor(s), reduce,
                                                   include_self=include_self)
            assert got.dtype.name == dtype
            want = _np_scatter_reduce(a.astype("float64") if dtype == "float16" else a, 0, INDEX,
                                      s.astype("float64") if dtype == "float16" else s, reduce, include_self)
            assert_close(got.numpy(), want.astype(dtype), rtol=2e-3, atol=1e-3)


@needs_torch
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_values_and_gradients_match_pytorch(reduce, include_self):
    g = RNG.standard_normal((3, 4))
    x, s = _t(X, True), _t(SRC[:2, :4].copy(), True)
    y = _sr(x, s, reduce, include_self)
    y.backward(_t(g))
    tx, ts = torch.tensor(X, requires_grad=True), torch.tensor(SRC[:2, :4].copy(), requires_grad=True)
    ty = tx.scatter_reduce(0, torch.tensor(INDEX), ts, reduce, include_self=include_self)
    ty.backward(torch.tensor(g))
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert_close(y.detach().numpy(), ty.detach().numpy())
    assert_close(x.grad.numpy(), tx.grad.numpy())
    assert_close(s.grad.numpy(), ts.grad.numpy())


@needs_torch
@pytest.mark.parametrize("reduce", ["mean", "prod"])
def test_integer_values_match_pytorch(reduce):
    a, s = RNG.integers(-9, 10, (4, 3)), RNG.integers(-9, 10, (4, 5))
    idx = RNG.integers(0, 3, (4, 2))
    for include_self in (True, False):
        got = numgrad.tensor(a).scatter_reduce(1, _t(idx), numgrad.tensor(s), reduce, include_self=include_self)
        want = torch.tensor(a).scatter_reduce(1, torch.tensor(idx), torch.tensor(s), reduce,
                                              include_self=include_self)
        assert got.tolist() == want.tolist()


# ------------------------------------------------------------------------------ scatter_reduce derivatives
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_gradcheck_and_gradgradcheck(reduce, include_self):
    x, s = _t(X, True), _t(SRC, True)   # src wider than index: its last column gets no gradient

    def f(a, b):
        return _sr(a, b, reduce, include_self)
    assert gradcheck(f, [x, s])
    assert gradgradcheck(f, [x, s])
    f(x, s).sum().backward()
    assert (s.grad.numpy()[:, 4] == 0).all() and (s.grad.numpy()[2] == 0).all()


@pytest.mark.parametrize("reduce", REDUCES)
def test_forward_mode_matches_reverse_mode(reduce):
    x, s = _t(X[:, :3].copy()), _t(SRC[:2, :3].copy())
    for include_self in (True, False):
        def f(a, b):
            return _sr(a, b, reduce, include_self, INDEX[:, :3])
        for fwd, rev in zip(jacfwd(f, (0, 1))(x, s), jacrev(f, (0, 1))(x, s)):
            assert_close(fwd, rev)


def test_amax_ties_share_the_gradient():
    x, s = _t([6.0, 2, 3, 4], True), _t([6.0, 6, 7, 1], True)
    x.scatter_reduce(0, _t([0, 0, 2, 2]), s, "amax").sum().backward()
    assert_close(x.grad, _t([1 / 3, 1, 0, 1]))
    assert_close(s.grad, _t([1 / 3, 1 / 3, 1, 0]))


def test_prod_gradient_with_zeros():
    idx = _t([0, 0, 2, 2])
    x, s = _t([0.0, 2, 3, 4], True), _t([0.0, 6, 7, 1], True)
    x.scatter_reduce(0, idx, s, "prod").sum().backward()
    assert x.grad.tolist() == [0, 1, 7, 1] and s.grad.tolist() == [0, 0, 3, 21]
    x, s = _t([0.0, 2, 3, 4], True), _t([0.0, 6, 7, 1], True)
    x.scatter_reduce(0, idx, s, "prod", include_self=False).sum().backward()
    assert x.grad.tolist() == [0, 1, 0, 1] and s.grad.tolist() == [6, 0, 1, 7]


def test_zero_dim_and_empty_index():
    r = _t(2.0).scatter_reduce(0, _t(0), _t(5.0), "prod")
    assert r.shape == () and r.item() == 10.0
    x = _t(X)
    assert_close(x.scatter_reduce(0, numgrad.zeros(0, 4, dtype=numgrad.int64), _t(SRC), "amin"), x)


# ------------------------------------------------------------------------------ scatter_reduce_ and errors
def test_in_place_form():
    x = _t([1.0, 2, 3, 4])
    v = x._version
    assert x.scatter_reduce_(0, _t([1, 1]), _t([5.0, 7]), "mean", include_self=False) is x
    assert x.tolist() == [1, 6, 3, 4] and x._version > v
    leaf = _t([1.0, 2], True)
    y = leaf * 1
    y.scatter_reduce_(0, _t([0, 0]), _t([3.0, 5.0]), "amax")
    y.sum().backward()
    assert leaf.grad.tolist() == [0, 1]


def test_out_argument():
    out = numgrad.empty(0)
    r = numgrad.scatter_reduce(_t([1.0, 2]), 0, _t([1]), _t([4.0]), "sum", out=out)
    assert r is out and out.tolist() == [1, 6]


def test_errors_are_raised_before_any_write():
    x = _t([1.0, 2, 3])
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 3"):
        x.scatter_reduce_(0, _t([0, 7]), _t([1.0, 1.0]), "amax", include_self=False)
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        x.scatter_reduce_(0, _t([-1]), _t([1.0]), "sum")
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        x.scatter_reduce_(0, _t([0]), _t([1]), "sum", include_self=False)
    assert x.tolist() == [1, 2, 3]
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        x.scatter_reduce(0, _t([0]), _t([1.0]), "max")
    with pytest.raises(RuntimeError, match="Expected dtype"):
        x.scatter_reduce(0, _t([0.0]), _t([1.0]), "sum")
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        _t(X).scatter_reduce(0, _t([0]), _t(SRC), "sum")
    with pytest.raises(IndexError, match="Dimension out of range"):
        _t(X).scatter_reduce(2, _t(INDEX), _t(SRC), "sum")
    with pytest.raises(TypeError, match="must be Tensor"):
        x.scatter_reduce(0, _t([0]), 1.0, "sum")
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        _t([True]).scatter_reduce(0, _t([0]), _t([False]), "mean")


# ------------------------------------------------------------------------------ index_reduce
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_is_scatter_reduce_over_slices(reduce):
    src = RNG.standard_normal((3, 2, 4))
    index = np.array([3, 0, 3, 3])
    for include_self in (True, False):
        x, s = _t(X, True), _t(src, True)

        def f(a, b):
            return a.index_reduce(-1, _t(index), b, reduce, include_self=include_self)
        want = x.detach().unsqueeze(1).expand(3, 2, 4).scatter_reduce(
            -1, _t(np.broadcast_to(index, (3, 2, 4))), s.detach(), reduce, include_self=include_self)
        got = numgrad.index_reduce(_t(X).unsqueeze(1).expand(3, 2, 4).contiguous(), 2, _t(index), _t(src),
                                   reduce, include_self=include_self)
        assert_close(got, want)
        assert gradcheck(lambda a, b: a.unsqueeze(1).repeat(1, 2, 1).index_reduce(2, _t(index), b, reduce,
                                                                                    include_self=include_self), [x, s])
        y = _t(X).unsqueeze(1).repeat(1, 2, 1)
        assert y.index_reduce_(2, _t(index), _t(src), reduce, include_self=include_self) is y
        assert_close(y, got)


@needs_torch
def test_index_reduce_matches_pytorch():
    import warnings
    src = RNG.standard_normal((2, 4))
    for reduce in ("prod", "mean", "amax", "amin"):
        got = _t(X).index_reduce(0, _t([2, 2]), _t(src), reduce, include_self=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # PyTorch marks index_reduce as beta
            want = torch.tensor(X).index_reduce(0, torch.tensor([2, 2]), torch.tensor(src), reduce,
                                                include_self=False)
        assert_close(got.numpy(), want.numpy())


def test_index_reduce_errors():
    x, s = numgrad.ones(3, 2), _t([[2.0, 3], [4, 5]])
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        x.index_reduce(0, _t([0, 0]), s, "sum")
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x.index_reduce_(0, _t([0, 5]), s, "amax")
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_reduce(0, _t([[0, 1]]), s, "amax")
    with pytest.raises(RuntimeError, match=r"Number of indices \(3\) should be equal to source.size\(dim\)"):
        x.index_reduce(0, _t([0, 1, 2]), s, "amax")
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        x.index_reduce(0, _t([0, 1]), s.double(), "amax")
    with pytest.raises(RuntimeError, match="source tensor shape must match self tensor shape"):
        x.index_reduce(0, _t([0, 1]), numgrad.ones(2, 3), "amax")
    assert x.tolist() == [[1, 1]] * 3


# ------------------------------------------------------------------------------ unique along a dim
def _np_unique_consecutive(a, axis):
    moved = np.moveaxis(a, axis, 0)
    keep, inverse, counts = [], [], []
    for k in range(moved.shape[0]):
        if not keep or not np.array_equal(moved[k], moved[keep[-1]]):
            keep.append(k)
            counts.append(0)
        inverse.append(len(keep) - 1)
        counts[-1] += 1
    return np.moveaxis(moved[keep], 0, axis), np.array(inverse), np.array(counts)


def test_unique_dim_example():
    x = _t([[1, 2, 1], [0, 5, 0], [1, 2, 1]])
    u, inv, counts = numgrad.unique(x, dim=0, return_inverse=True, return_counts=True)
    assert u.tolist() == [[0, 5, 0], [1, 2, 1]] and inv.tolist() == [1, 0, 1] and counts.tolist() == [1, 2]
    u, inv, counts = x.unique(dim=-1, return_inverse=True, return_counts=True)
    assert u.tolist() == [[1, 2], [0, 5], [1, 2]] and inv.tolist() == [0, 1, 0] and counts.tolist() == [2, 1]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2), st.integers(0, 10**6), st.sampled_from(["int64", "float32", "bool"]))
def test_unique_dim_matches_numpy(ndim, dim_seed, seed, dtype):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, tuple(rng.integers(1, 4, ndim))).astype(dtype)
    dim = dim_seed % ndim
    u, inv, counts = numgrad.unique(_t(a), dim=dim, return_inverse=True, return_counts=True)
    eu, einv, ecounts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    assert u.dtype.name == dtype
    assert_close(u.numpy(), eu)
    assert inv.tolist() == einv.reshape(-1).tolist() and counts.tolist() == ecounts.tolist()
    cu, cinv, ccounts = numgrad.unique_consecutive(_t(a), dim=dim, return_inverse=True, return_counts=True)
    eu, einv, ecounts = _np_unique_consecutive(a, dim)
    assert_close(cu.numpy(), eu)
    assert cinv.tolist() == einv.tolist() and ccounts.tolist() == ecounts.tolist()


def test_unique_dim_edge_cases():
    u, inv, counts = numgrad.unique(numgrad.zeros(0, 3), dim=0, return_inverse=True, return_counts=True)
    assert u.shape == (0, 3) and inv.shape == (0,) and counts.shape == (0,)
    assert numgrad.unique(numgrad.zeros(2, 0), dim=1).shape == (2, 0)
    with pytest.raises(RuntimeError, match="There are 0 sized dimensions, and they aren't selected"):
        numgrad.unique(numgrad.zeros(2, 0), dim=0)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        numgrad.unique(_t(3), dim=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        numgrad.unique(numgrad.zeros(2, 2), dim=2)
    nan = float("nan")
    u, inv = numgrad.unique(_t([[nan, 1.0], [nan, 1.0]]), dim=0, return_inverse=True)
    assert u.shape == (2, 2) and inv.tolist() == [0, 1]   # NaN slices are each distinct
    u, inv = numgrad.unique(numgrad.zeros(3, 2, 2, dtype=numgrad.float16), dim=1, return_inverse=True)
    assert u.shape == (3, 1, 2) and u.dtype is numgrad.float16 and inv.tolist() == [0, 0]
    x = _t(np.arange(12).reshape(3, 4) % 2)[:, ::2]   # a strided view
    assert numgrad.unique(x, dim=1).tolist() == [[0], [0], [0]]


def test_unique_consecutive_flat():
    x = _t([1, 1, 2, 2, 3, 1, 1, 2])
    u, inv, counts = numgrad.unique_consecutive(x, return_inverse=True, return_counts=True)
    assert u.tolist() == [1, 2, 3, 1, 2] and inv.tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert counts.tolist() == [2, 2, 1, 2, 1]
    u, inv = _t([[1, 1], [2, 2]]).unique_consecutive(return_inverse=True)
    assert u.tolist() == [1, 2] and inv.tolist() == [[0, 0], [1, 1]]
    u, inv, counts = numgrad.unique_consecutive(_t(5), return_inverse=True, return_counts=True)
    assert u.tolist() == [5] and inv.shape == () and inv.item() == 0 and counts.tolist() == [1]
    u, inv, counts = numgrad.unique_consecutive(numgrad.zeros(0), return_inverse=True, return_counts=True)
    assert u.shape == (0,) and inv.shape == (0,) and counts.shape == (0,)
    nan = float("nan")
    assert numgrad.unique_consecutive(_t([nan, nan]), return_counts=True)[1].tolist() == [1, 1]
    assert numgrad.unique_consecutive(_t([0.5, 0.5, 1.0])).tolist() == [0.5, 1.0]


@needs_torch
def test_unique_dim_matches_pytorch_on_floats():
    a = np.round(RNG.standard_normal((6, 3, 2)), 0)
    a[3] = a[1]
    for dim in (0, 1, 2):
        got = numgrad.unique(_t(a), dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique(torch.tensor(a), dim=dim, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            assert_close(g.numpy(), w.numpy())
        got = numgrad.unique_consecutive(_t(a), dim=dim, return_inverse=True, return_counts=True)
        want = torch.unique_consecutive(torch.tensor(a), dim=dim, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            assert_close(g.numpy(), w.numpy())


# ------------------------------------------------------------------------------ QR of wide matrices
@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize("shape", [(2, 4), (2, 2, 3)])
def test_qr_wide_derivatives(mode, shape):
    a = _t(RNG.standard_normal(shape), True)

    def f(x):
        return numgrad.linalg.qr(x, mode=mode)
    assert gradcheck(f, [a])
    assert gradgradcheck(f, [a], fast_mode=True)

    def flat(x):
        q, r = f(x)
        return numgrad.cat([q.reshape(-1), r.reshape(-1)])
    assert_close(jacfwd(flat)(a.detach()), jacrev(flat)(a.detach()))


@needs_torch
def test_qr_wide_gradient_matches_pytorch():
    a = RNG.standard_normal((3, 5))
    gq, gr = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 5))
    x = _t(a, True)
    q, r = numgrad.linalg.qr(x)
    ((q * _t(gq)).sum() + (r * _t(gr)).sum()).backward()
    tx = torch.tensor(a, requires_grad=True)
    tq, tr = torch.linalg.qr(tx)
    ((tq * torch.tensor(gq)).sum() + (tr * torch.tensor(gr)).sum()).backward()
    assert_close(x.grad.numpy(), tx.grad.numpy())


def test_qr_derivative_errors():
    a = _t(RNG.standard_normal((2, 3)), True)
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        numgrad.linalg.qr(a, mode="r").R.sum().backward()
    tall = _t(RNG.standard_normal((3, 2)), True)
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        numgrad.linalg.qr(tall, mode="complete").Q.sum().backward()
