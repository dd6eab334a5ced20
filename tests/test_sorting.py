"""Sorting and selection against NumPy (and PyTorch's NaN/tie conventions): sort, argsort,
topk, kthvalue, msort, unique, searchsorted, bucketize, bincount and histc."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.testing import assert_close, noncontiguous_view, transposed_view

try:
    import torch
except ImportError:
    torch = None

RNG = np.random.default_rng(0)
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _t(a):
    return numgrad.tensor(a)


def _arr(shape, dtype, seed=0):
    a = np.random.default_rng(seed).integers(-20, 20, shape)
    if dtype == "bool":
        return a > 0
    if dtype == "uint8":
        return np.abs(a).astype(dtype)
    return a.astype(dtype) if dtype.startswith("int") else (a / 3).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [5, 16, 17, 3000], ids=["insertion", "insertion_max", "radix_short", "radix"])
def test_sort_matches_numpy_stable(dtype, n):
    a = _arr((2, n), dtype)
    r = numgrad.sort(_t(a), dim=1, stable=True)
    order = np.argsort(a, axis=1, kind="stable")
    assert r.values.dtype.name == dtype and r.indices.dtype is numgrad.int64
    assert_close(r.indices.numpy(), order)
    assert_close(r.values.numpy(), np.take_along_axis(a, order, 1))
    d = numgrad.sort(_t(a), dim=1, descending=True, stable=True)
    # Stable descending: equal elements keep their original order.
    key = -a.astype(np.float64) if dtype != "bool" else ~a
    assert_close(d.indices.numpy(), np.argsort(key, axis=1, kind="stable"))


RADIX_CASES = {
    "one_pass": lambda rng, n: rng.integers(-500, 500, n),             # 10-bit range: one pass
    "rebased": lambda rng, n: rng.integers(-70000, 70000, n).astype(np.int32),  # range < key width
    "uint8": lambda rng, n: rng.integers(0, 256, n).astype(np.uint8),
    "bool": lambda rng, n: rng.integers(0, 2, n).astype(bool),
    "int16": lambda rng, n: rng.integers(-2**15, 2**15, n).astype(np.int16),
    "float16": lambda rng, n: np.where(rng.random(n) < 0.1, np.nan, rng.standard_normal(n)).astype("float16"),
    "float32": lambda rng, n: (rng.standard_normal(n) * 1e3).astype(np.float32),
    "int64_wide": lambda rng, n: rng.integers(-2**63, 2**63 - 1, n),     # key and index in two arrays
    "float64": lambda rng, n: np.where(rng.random(n) < 0.1, -0.0, rng.standard_normal(n)),
    "uint64_like": lambda rng, n: rng.integers(0, 2**62, n) * 2,        # low digit constant: skipped
    "skipped_digit": lambda rng, n: (rng.integers(-2**23, 2**23, n) * 256).astype(np.int32),  # odd passes
    "constant": lambda rng, n: np.full(n, 7, dtype=np.int32),            # no pass moves anything
    "constant_zeros": lambda rng, n: np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(np.float32),
}


@pytest.mark.parametrize("case", list(RADIX_CASES))
def test_radix_paths_match_numpy(case):
    rng = np.random.default_rng(1)
    for shape in [(4001,), (3, 257)]:
        a = RADIX_CASES[case](rng, shape)
        for descending in (False, True):
            r = numgrad.sort(_t(a), descending=descending, stable=True)
            if a.dtype.kind == "f":
                # NaN sorts last ascending, first descending (these cases hold no infinities).
                key = np.where(np.isnan(a), -np.inf, -a.astype(np.float64)) if descending else a
            else:
                key = ~a if descending else a  # the complement reverses integer order exactly
            order = np.argsort(key, axis=-1, kind="stable")
            assert r.indices.numpy().tolist() == order.tolist()
            assert r.values.numpy().tobytes() == np.take_along_axis(a, order, -1).tobytes()


SPARSE_TOP_CASES = {  # rows long enough for the three-pass plan of keys with a sparse top
    "float32": lambda rng, n: np.where(rng.random(n) < 0.01, np.nan,
                                       np.where(rng.random(n) < 0.01, -0.0, rng.standard_normal(n))
                                       ).astype(np.float32),
    "int32_top": lambda rng, n: ((rng.integers(-4, 4, n) << 26) + rng.integers(0, 1 << 20, n)
                                 ).astype(np.int32),
    "float32_integers": lambda rng, n: rng.integers(0, 999, n).astype(np.float32),  # no low pass
    "int64_dense": lambda rng, n: rng.integers(-10**9, 10**9, n),   # dense top: four passes
    "int32_narrow": lambda rng, n: rng.integers(-2**24, 2**24, n).astype(np.int32),  # 25 bits
}


@pytest.mark.parametrize("case", list(SPARSE_TOP_CASES))
def test_long_rows_match_numpy(case):
    rng = np.random.default_rng(2)
    a = SPARSE_TOP_CASES[case](rng, (2, 1 << 16))
    for descending in (False, True):
        r = numgrad.sort(_t(a), descending=descending, stable=True)
        if a.dtype.kind == "f":
            key = np.where(np.isnan(a), -np.inf, -a.astype(np.float64)) if descending else a
        else:
            key = ~a if descending else a
        order = np.argsort(key, axis=-1, kind="stable")
        assert (r.indices.numpy() == order).all()
        assert r.values.numpy().tobytes() == np.take_along_axis(a, order, -1).tobytes()


def test_sort_from_threads():
    # Each thread keeps its own scratch between sorts: concurrent sorts must not share it.
    from concurrent.futures import ThreadPoolExecutor
    arrays = [np.random.default_rng(s).standard_normal(3000 + 500 * s).astype(np.float32)
              for s in range(4)]

    def check(a):
        for _ in range(20):
            r = numgrad.sort(_t(a), stable=True)
            if not (r.indices.numpy() == np.argsort(a, kind="stable")).all():
                return False
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(check, arrays))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_sort_keeps_signed_zeros_and_nan_payloads(dtype):
    udt = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}[dtype]
    a = np.array([0.0, -0.0, 1.5, np.nan, -0.0, -2.0, 0.0] * 300, dtype=dtype)
    bits = a.view(udt).copy()
    bits[3] |= udt(1)  # a NaN with a payload
    a = bits.view(dtype)
    r = numgrad.sort(_t(a), stable=True)
    idx = r.indices.numpy()
    # Values are the input's own bits: -0.0 keeps its sign, NaN its payload.
    assert r.values.numpy().view(udt).tolist() == bits[idx].tolist()
    assert np.isnan(r.values.numpy()[-300:]).all()
    zeros = idx[(a[idx] == 0)]
    assert zeros.tolist() == sorted(zeros.tolist())  # -0.0 and 0.0 tie, in input order


def test_sort_rows_parallel_kernel(monkeypatch):
    from numgrad.backends.cpu import sort as S
    monkeypatch.setattr(S, "use_parallel", lambda n, threshold: True)
    a = RNG.standard_normal((9, 300)).astype(np.float32)
    r = numgrad.sort(_t(a), dim=1, descending=True)
    order = np.argsort(-a, axis=1, kind="stable")
    assert_close(r.indices.numpy(), order)
    assert_close(r.values.numpy(), np.take_along_axis(a, order, 1))


@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=60), st.booleans())
def test_hypothesis_int64_sort(values, descending):
    a = np.array(values, dtype=np.int64)
    r = numgrad.sort(_t(a), descending=descending, stable=True)
    order = np.argsort(~a if descending else a, kind="stable")
    assert r.indices.tolist() == order.tolist()
    assert r.values.tolist() == a[order].tolist()


def test_sort_nan_and_signed_zero_follow_pytorch():
    a = np.array([1.0, np.nan, 3.0, -0.0, 0.0, -np.inf, np.nan])
    r = numgrad.sort(_t(a), stable=True)
    assert r.indices.tolist() == [5, 3, 4, 0, 2, 1, 6]
    d = numgrad.sort(_t(a), descending=True, stable=True)
    assert d.indices.tolist() == [1, 6, 2, 0, 3, 4, 5]
    if torch is not None:
        t = torch.sort(torch.tensor(a), descending=True, stable=True)
        assert d.indices.tolist() == t.indices.tolist()


@pytest.mark.parametrize("make", [transposed_view, noncontiguous_view], ids=["transposed", "stepped"])
def test_sort_dims_and_layouts(make):
    a = RNG.standard_normal((3, 4, 5))
    for dim in (0, 1, -1):
        r = numgrad.sort(make(a), dim)
        assert_close(r.values.numpy(), np.sort(a, axis=dim))
        assert_close(r.indices.numpy(), np.argsort(a, axis=dim, kind="stable"))
        assert_close(numgrad.argsort(make(a), dim, descending=True).numpy(), np.argsort(-a, axis=dim, kind="stable"))
    assert_close(numgrad.msort(_t(a)).numpy(), np.sort(a, axis=0))
    s = numgrad.sort(numgrad.tensor(3.0))
    assert s.values.item() == 3.0 and s.indices.item() == 0
    assert tuple(numgrad.sort(numgrad.zeros(2, 0)).values.shape) == (2, 0)


def test_return_types():
    r = numgrad.sort(_t([2.0, 1.0]))
    values, indices = r
    assert values is r.values and indices is r.indices
    assert repr(r).startswith("numgrad.return_types.sort(")
    assert type(numgrad.topk(_t([1.0]), 1)).__name__ == "topk"


@pytest.mark.parametrize("largest", [True, False])
def test_topk_kthvalue(largest):
    a = RNG.standard_normal((4, 6))
    r = numgrad.topk(_t(a), 3, dim=1, largest=largest)
    order = np.argsort(-a if largest else a, axis=1)[:, :3]
    assert_close(r.indices.numpy(), order)
    assert_close(r.values.numpy(), np.take_along_axis(a, order, 1))
    k = numgrad.kthvalue(_t(a), 2, dim=0)
    assert_close(k.values.numpy(), np.sort(a, 0)[1])
    assert_close(k.indices.numpy(), np.argsort(a, 0)[1])
    assert tuple(numgrad.kthvalue(_t(a), 1, 1, keepdim=True).values.shape) == (4, 1)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        numgrad.topk(_t(a), 7)
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range"):
        numgrad.kthvalue(_t(a), 0)


def test_sort_topk_gradients():
    x = numgrad.tensor(RNG.standard_normal((3, 5)), requires_grad=True)
    for fn in (lambda t: numgrad.sort(t, 1, descending=True).values,
               lambda t: numgrad.topk(t, 2, 0).values,
               lambda t: numgrad.kthvalue(t, 3, 1).values,
               lambda t: numgrad.msort(t)):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    r = numgrad.sort(x)
    assert not r.indices.requires_grad and r.values.grad_fn.name() == "SortBackward0"


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=40))
def test_hypothesis_sort_is_a_stable_permutation(values):
    a = np.array(values, dtype=np.float32)
    r = numgrad.sort(_t(a), stable=True)
    # NumPy also sorts NaN last, and its stable sort keeps ties in order.
    order = np.argsort(np.where(a == 0, 0, a), kind="stable")
    assert r.indices.tolist() == order.tolist()


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=40))
def test_hypothesis_descending_sort_puts_nan_first(values):
    a = np.array(values, dtype=np.float32)
    r = numgrad.sort(_t(a), descending=True, stable=True)
    nan = np.isnan(a)
    order = np.lexsort((np.where(nan, 0, -a), ~nan))  # NaN first, then larger first; stable
    assert r.indices.tolist() == order.tolist()
    assert r.values.numpy().tobytes() == a[order].tobytes()


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float64"])
def test_unique(dtype):
    a = _arr((4, 5), dtype)
    u, inv, counts = numgrad.unique(_t(a), return_inverse=True, return_counts=True)
    eu, einv, ecounts = np.unique(a, return_inverse=True, return_counts=True)
    assert u.dtype.name == dtype
    assert_close(u.numpy(), eu)
    assert_close(inv.numpy(), einv.reshape(a.shape))
    assert_close(counts.numpy(), ecounts)
    assert tuple(numgrad.unique(numgrad.zeros(0)).shape) == (0,)


def test_unique_nan_each_distinct_like_pytorch():
    u, c = numgrad.unique(_t([np.nan, 1.0, np.nan, -0.0, 0.0]), return_counts=True)
    assert str(u.tolist()) == "[-0.0, 1.0, nan, nan]" and c.tolist() == [2, 1, 1, 1]


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_bucketize(right):
    seq = np.array([1.0, 2.0, 2.0, 5.0])
    v = np.array([[0.0, 2.0], [5.0, 9.0]])
    side = "right" if right else "left"
    assert_close(numgrad.searchsorted(_t(seq), _t(v), right=right).numpy(), np.searchsorted(seq, v, side))
    assert_close(numgrad.bucketize(_t(v), _t(seq), right=right).numpy(), np.searchsorted(seq, v, side))
    rows = np.array([[1, 3, 5], [2, 4, 6]])
    vals = np.array([[3, 0], [7, 4]])
    got = numgrad.searchsorted(_t(rows), _t(vals), side=side)
    expected = np.stack([np.searchsorted(r, q, side) for r, q in zip(rows, vals)])
    assert_close(got.numpy(), expected)
    assert numgrad.searchsorted(_t(seq), 2.0, right=right).item() == np.searchsorted(seq, 2.0, side)
    assert numgrad.searchsorted(_t(seq), _t(v), out_int32=True).dtype is numgrad.int32
    s = numgrad.searchsorted(_t([5.0, 1.0, 2.0]), _t([1.5]), sorter=_t([1, 2, 0]))
    assert s.tolist() == [1]
    with pytest.raises(RuntimeError, match="boundaries tensor should be 1 dimension"):
        numgrad.searchsorted(_t([[1.0, 2.0]]), _t([1.0, 2.0, 3.0]))


def test_bincount_histc():
    x = np.array([0, 3, 3, 1, 7])
    assert_close(numgrad.bincount(_t(x)).numpy(), np.bincount(x))
    assert_close(numgrad.bincount(_t(x), minlength=10).numpy(), np.bincount(x, minlength=10))
    w = np.array([0.5, 1.0, 2.0, 0.25, 1.0], dtype=np.float32)
    r = numgrad.bincount(_t(x), _t(w))
    assert r.dtype is numgrad.float32
    assert_close(r.numpy(), np.bincount(x, w).astype(np.float32))
    assert numgrad.bincount(_t(x), _t(x)).dtype is numgrad.float64
    with pytest.raises(RuntimeError, match="non-negative"):
        numgrad.bincount(_t([-1, 2]))
    h = numgrad.histc(_t([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=3)
    assert h.tolist() == [0.0, 2.0, 1.0, 0.0]
    assert numgrad.histc(_t([1.0, 2.0, 1.0]), bins=4).tolist() == [2.0, 0.0, 0.0, 1.0]
    data = RNG.standard_normal(200)
    assert_close(numgrad.histc(_t(data), 10, -2, 2).numpy(),
                 np.histogram(data, 10, (-2, 2))[0].astype(np.float64))
    with pytest.raises(NotImplementedError, match="histogram_cpu"):
        numgrad.histc(_t([1, 2]))
