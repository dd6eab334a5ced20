"""Advanced indexing (integer tensors, lists, masks mixed with basic indices) against NumPy, for
reads and writes, its errors, and gradients through it; plus nonzero and the masked ops."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import numgrad
from numgrad.testing import assert_close, noncontiguous_view

try:
    import torch
except ImportError:
    torch = None

X = np.arange(24.0).reshape(2, 3, 4)


def _t(a):
    return numgrad.tensor(a)


def _idx(i):
    """The same index with arrays turned into numgrad tensors."""
    if isinstance(i, tuple):
        return tuple(_idx(k) for k in i)
    return numgrad.tensor(i) if isinstance(i, np.ndarray) else i


# Index expressions whose results PyTorch and NumPy agree on.
READS = [
    np.array([1, 0]),
    (slice(None), np.array([2, 0, 2])),
    (Ellipsis, np.array([-1, 0])),
    (np.array([1, 0]), slice(None), np.array([3, 1])),              # non-adjacent: dims first
    (slice(None), np.array([[0], [2]]), np.array([1, 3])),           # broadcasting indices
    (np.array([0, 1]), np.array([2, 1]), np.array([3, 0])),
    X > 10,
    (slice(None), np.array([True, False, True])),
    (slice(None), X[0] > 5),
    (None, np.array([1]), slice(1, 3)),
    [0, 1, 1],
    (slice(None), 1, [0, 3]),
    (np.array(1), np.array([0, 2])),
    (np.array([], dtype=np.int64),),
    (slice(None), np.zeros(3, dtype=bool)),
]


@pytest.mark.parametrize("index", READS, ids=range(len(READS)))
def test_read_matches_numpy(index):
    expected = X[index]
    got = _t(X)[_idx(index)]
    assert tuple(got.shape) == expected.shape
    assert_close(got.numpy(), expected)


def test_read_is_a_copy_and_noncontiguous_source():
    x = noncontiguous_view(X)
    y = x[:, [0, 2]]
    assert_close(y.numpy(), X[:, [0, 2]])
    y.fill_(-1)
    assert_close(x.numpy(), X)


def test_int_before_advanced_follows_pytorch():
    # PyTorch applies the int first, so the advanced dim stays in place (NumPy would move it).
    assert tuple(_t(X)[0, :, [0, 1]].shape) == (3, 2)
    assert tuple(_t(X)[True].shape) == (1, 2, 3, 4)
    assert tuple(_t(X)[False].shape) == (0, 2, 3, 4)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float16", "float64"])
def test_read_dtypes(dtype):
    a = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    got = _t(a)[[2, 0], 1:]
    assert got.dtype.name == dtype
    assert_close(got.numpy(), a[[2, 0], 1:])


WRITES = [
    (np.array([1, 0]), 7.0),
    (X > 10, 0.0),
    ((slice(None), np.array([2, 0])), np.arange(16.0).reshape(2, 2, 4)),
    ((np.array([1, 0]), slice(None), np.array([3, 1])), np.array([5.0, 6.0, 7.0])),
    ((Ellipsis, np.array([True, False, True, False])), -1.0),
]


@pytest.mark.parametrize("index, value", WRITES, ids=range(len(WRITES)))
def test_write_matches_numpy(index, value):
    expected = X.copy()
    expected[index] = value
    x = _t(X)
    version = x._version
    x[_idx(index)] = _t(value) if isinstance(value, np.ndarray) else value
    assert x._version > version
    assert_close(x.numpy(), expected)


def test_write_into_noncontiguous_view_reaches_base():
    base = _t(X.copy())
    view = base[:, 1:]
    view[[0, 1], [0, 1]] = 100.0
    expected = X.copy()
    expected[:, 1:][[0, 1], [0, 1]] = 100.0
    assert_close(base.numpy(), expected)


def test_repeated_indices_do_not_accumulate_but_index_put_can():
    x = numgrad.zeros(3)
    x[[0, 0, 2]] += 1
    assert x.tolist() == [1.0, 0.0, 1.0]
    y = numgrad.index_put(numgrad.zeros(3), (numgrad.tensor([0, 0, 2]),), numgrad.tensor(1.0), accumulate=True)
    assert y.tolist() == [2.0, 0.0, 1.0]
    z = numgrad.zeros(3)
    z.index_put_((numgrad.tensor([1, 1]),), numgrad.tensor([1.0, 2.0]), accumulate=True)
    assert z.tolist() == [0.0, 3.0, 0.0]


def test_write_value_cast_and_broadcast():
    x = numgrad.zeros(2, 3, dtype=numgrad.int64)
    x[[1]] = 7.9
    x[numgrad.tensor([True, False])] = numgrad.tensor(2.7)
    x[[1]] = numgrad.tensor([1, 2, 3])
    assert x.tolist() == [[2, 2, 2], [1, 2, 3]]
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x[[1]] = numgrad.tensor([1.7, 2.2, 3.9])


@pytest.mark.parametrize("index, exc, match", [
    ((slice(None), [0, 7]), IndexError, "index 7 is out of bounds for dimension 1 with size 3"),
    ([-3], IndexError, "index -3 is out of bounds for dimension 0 with size 2"),
    (([0, 1], [0, 1, 2]), IndexError, r"shape mismatch: indexing tensors could not be broadcast together with shapes \[2\], \[3\]"),
    (np.array([0.0]), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (np.ones(3, dtype=bool), IndexError, r"The shape of the mask \[3\] at index 0 does not match"),
    ((0, 0, 0, [0]), IndexError, "too many indices"),
])
def test_read_errors(index, exc, match):
    with pytest.raises(exc, match=match):
        _t(X)[_idx(index)]


def test_write_errors_leave_tensor_untouched():
    x = _t(X)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
        x[[0, 5]] = 1.0
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[[0, 1]] = numgrad.ones(5)
    with pytest.raises(RuntimeError, match="dtypes match"):
        x[[0, 1]] = numgrad.ones(4)
    assert_close(x.numpy(), X)


# ---------------------------------------------------------------------------------- hypothesis

@st.composite
def _index_case(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=3)))
    n_adv = draw(st.integers(1, len(shape)))
    dims = sorted(draw(st.permutations(range(len(shape))))[:n_adv])
    ishape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=2)))
    index = []
    for d in range(len(shape)):
        if d in dims:
            size = shape[d]
            # Mostly valid indices, sometimes one outside [-size, size).
            lo, hi = -size - 1, size
            if size and not draw(st.booleans()):
                lo, hi = -size, size - 1
            vals = draw(st.lists(st.integers(lo, hi), min_size=int(np.prod(ishape)),
                                 max_size=int(np.prod(ishape))))
            index.append(np.array(vals, dtype=np.int64).reshape(ishape))
        else:
            index.append(slice(None) if draw(st.booleans()) else slice(1, None, 2))
    return shape, tuple(index)


@given(_index_case())
def test_hypothesis_read_and_write_match_numpy(case):
    shape, index = case
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        expected = a[index]
    except IndexError:
        with pytest.raises(IndexError, match="out of bounds"):
            _t(a)[_idx(index)]
        x = _t(a)
        with pytest.raises(IndexError, match="out of bounds"):
            x[_idx(index)] = -1.0
        assert_close(x.numpy(), a)
        return
    got = _t(a)[_idx(index)]
    assert_close(got.numpy(), expected)
    b = a.copy()
    b[index] = -1.0
    x = _t(a)
    x[_idx(index)] = -1.0
    assert_close(x.numpy(), b)


@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(0, 2 ** 32 - 1))
def test_hypothesis_masks_match_numpy(shape, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    mask = rng.random(shape) < 0.4
    assert_close(_t(a)[_t(mask)].numpy(), a[mask])
    b = a.copy()
    b[mask] = 0.0
    x = _t(a)
    x[_t(mask)] = 0.0
    assert_close(x.numpy(), b)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint8", "int64", "bool"])
@pytest.mark.parametrize("mask_dims", [1, 2, 3])
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous", "empty"])
def test_mask_reads_copy_the_kept_blocks(dtype, mask_dims, layout):
    # x[mask] outside autograd, and masked_select, copy the kept blocks in one pass: every
    # dtype, masks over 1 to all dims, strided inputs, nothing kept or nothing to keep.
    rng = np.random.default_rng(mask_dims)
    shape = (0, 3, 4) if layout == "empty" else (5, 3, 4)
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    mask = rng.random(shape[:mask_dims]) < 0.5
    x, m = (noncontiguous_view(a), noncontiguous_view(mask)) if layout == "noncontiguous" else (_t(a), _t(mask))
    assert np.array_equal(x[m].numpy(), a[mask]) and x[m].dtype == x.dtype
    assert x[numgrad.zeros(shape[:mask_dims], dtype=numgrad.bool)].shape == (0,) + shape[mask_dims:]
    full = np.broadcast_to(mask.reshape(mask.shape + (1,) * (3 - mask_dims)), shape)
    assert np.array_equal(numgrad.masked_select(x, _t(full)).numpy(), a[full])


@pytest.mark.parametrize("dtype", ["float16", "float32", "int8", "int64", "bool"])
@pytest.mark.parametrize("mask_dims", [1, 3])
@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
def test_mask_writes_match_numpy(dtype, mask_dims, layout):
    # x[mask] = number / tensor outside autograd writes in place through the mask directly.
    rng = np.random.default_rng(mask_dims)
    a = (rng.standard_normal((5, 3, 4)) * 50).astype(dtype)
    mask = rng.random(a.shape[:mask_dims]) < 0.5
    x = noncontiguous_view(a) if layout == "noncontiguous" else _t(a)
    storage = x.untyped_storage()
    expected = a.copy()
    expected[mask] = 1
    x[_t(mask)] = 1
    assert np.array_equal(x.numpy(), expected) and x.untyped_storage().data_ptr() == storage.data_ptr()
    rows = (rng.standard_normal(a.shape[mask_dims:]) * 9).astype(dtype)
    expected[mask] = rows
    x[_t(mask)] = _t(rows)
    assert np.array_equal(x.numpy(), expected)
    kept = (rng.standard_normal((int(mask.sum()),) + a.shape[mask_dims:]) * 9).astype(dtype)
    expected[mask] = kept
    x[_t(mask)] = _t(kept)
    assert np.array_equal(x.numpy(), expected)


def test_mask_write_errors_and_versions():
    x = numgrad.zeros(4, 3)
    mask = numgrad.tensor([True, False, True, False])
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3, 3\] cannot be broadcast "
                                           r"to indexing result of shape \[2, 3\]"):
        x[mask] = numgrad.ones(3, 3)
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
        x[mask] = numgrad.ones(3, dtype=numgrad.float64)
    with pytest.raises(IndexError, match="The shape of the mask"):
        x[numgrad.tensor([True, False])] = 1.0
    # A write bumps the version, so a tensor saved for backward is known to be stale.
    w = numgrad.ones(4, 3, requires_grad=True)
    y = x * 1.0
    z = (w * y).sum()
    y[mask] = 2.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # A value that requires grad records, as index_put.
    v = numgrad.ones(3, requires_grad=True)
    y = numgrad.zeros(4, 3)
    y[mask] = v
    y.sum().backward()
    assert v.grad.tolist() == [2.0, 2.0, 2.0]


def test_masked_select_broadcasts_both_operands():
    a = np.arange(12.0).reshape(3, 1, 4)
    mask = np.array([[True], [False]])
    expected = np.broadcast_to(a, (3, 2, 4))[np.broadcast_to(mask, (3, 2, 4))]
    assert np.array_equal(numgrad.masked_select(_t(a), _t(mask)).numpy(), expected)
    assert numgrad.masked_select(numgrad.tensor(2.0), numgrad.tensor(True)).tolist() == [2.0]


# ---------------------------------------------------------------------------------- autograd

def test_gradient_of_read_accumulates_repeats():
    x = numgrad.tensor(X, requires_grad=True)
    x[[0, 0, 1], 1:].sum().backward()
    expected = np.zeros_like(X)
    np.add.at(expected, ([0, 0, 1], slice(1, None)), 1.0)
    assert_close(x.grad.numpy(), expected)


def test_gradient_of_write():
    x = numgrad.tensor(X, requires_grad=True)
    v = numgrad.tensor([1.0, 2.0], dtype=numgrad.float64, requires_grad=True)
    y = x * 1
    y[[0, 1], 0, [1, 2]] = v
    (y * y).sum().backward()
    gx = 2 * X
    gx[[0, 1], 0, [1, 2]] = 0
    assert_close(x.grad.numpy(), gx)
    assert_close(v.grad.numpy(), np.array([2.0, 4.0]))


def test_gradcheck_index():
    from numgrad.autograd import gradcheck, gradgradcheck
    x = numgrad.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    idx = numgrad.tensor([2, 0, 2])
    assert gradcheck(lambda t: t[idx, 1:], (x,))
    assert gradgradcheck(lambda t: t[idx, 1:], (x,))
    mask = x.detach() > 0
    assert gradcheck(lambda t: t.masked_fill(mask, 2.0), (x,))


def test_forward_mode_index():
    import numgrad.autograd.forward_ad as fwAD
    x = numgrad.tensor(X)
    t = numgrad.ones_like(x)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        y = d[[1, 0], 2]
        assert_close(fwAD.unpack_dual(y).tangent.numpy(), np.ones((2, 4)))


# ---------------------------------------------------------------------------------- nonzero & masks

@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_nonzero_and_argwhere(dtype):
    a = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    got = numgrad.nonzero(_t(a))
    assert got.dtype is numgrad.int64
    assert_close(got.numpy(), np.argwhere(a))
    assert_close(numgrad.argwhere(noncontiguous_view(a)).numpy(), np.argwhere(a))
    for g, e in zip(numgrad.nonzero(_t(a), as_tuple=True), np.nonzero(a)):
        assert_close(g.numpy(), e)
    for g, e in zip(numgrad.where(_t(a) != 0), np.nonzero(a)):
        assert_close(g.numpy(), e)
    assert tuple(numgrad.nonzero(numgrad.zeros(0, 3)).shape) == (0, 2)
    assert tuple(numgrad.nonzero(numgrad.tensor(5)).shape) == (1, 0)


def test_masked_ops():
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    assert_close(numgrad.masked_select(_t(a), _t(m)).numpy(), a[np.broadcast_to(m, a.shape)])
    assert_close(_t(a).masked_fill(_t(m), -1.0).numpy(), np.where(m, -1.0, a))
    x = _t(a)
    assert x.masked_fill_(_t(m), numgrad.tensor(9.0)) is x
    assert_close(x.numpy(), np.where(m, 9.0, a))
    y = _t(a)
    y.masked_scatter_(_t(m), numgrad.tensor([10.0, 20.0, 30.0, 40.0, 50.0], dtype=numgrad.float64))
    expected = a.copy()
    expected[np.broadcast_to(m, a.shape)] = [10.0, 20.0, 30.0, 40.0]
    assert_close(y.numpy(), expected)
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        _t(a).masked_fill(_t(m.astype(np.float32)), 1.0)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_masked_fill_grad_matches_torch():
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    x = numgrad.tensor(a, requires_grad=True)
    (x.masked_fill(_t(m), 0.0) * x).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (tx.masked_fill(torch.tensor(m), 0.0) * tx).sum().backward()
    assert_close(x.grad.numpy(), tx.grad.numpy())
