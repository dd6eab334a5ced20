"""Data movement against NumPy: gather/scatter and the index_* family, take/put, cat/stack,
repeats, flips and rolls, triangles and diagonals; their index validation and gradients."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.testing import assert_close, noncontiguous_view, transposed_view

try:
    import torch
except ImportError:
    torch = None

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))


def _t(a, **kw):
    return numgrad.tensor(a, **kw)


def _leaf(a):
    return numgrad.tensor(a, requires_grad=True)


DTYPES = ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"]


def _arr(shape, dtype, seed=0):
    a = np.random.default_rng(seed).integers(-5, 6, shape)
    return (a > 0) if dtype == "bool" else np.abs(a).astype(dtype) if dtype == "uint8" else a.astype(dtype)


# ---------------------------------------------------------------------------------- gather / scatter

@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_and_index_select_dtypes(dtype):
    a = _arr((3, 4), dtype)
    idx = np.array([[0, 3], [2, 2], [1, 0]])
    assert_close(numgrad.gather(_t(a), 1, _t(idx)).numpy(), np.take_along_axis(a, idx, 1))
    sel = np.array([2, 0, 2])
    assert_close(numgrad.index_select(_t(a), 0, _t(sel)).numpy(), a[sel])
    assert_close(_t(a).index_select(1, _t(sel.astype(np.int32))).numpy(), a[:, sel])


@pytest.mark.parametrize("make", [transposed_view, noncontiguous_view], ids=["transposed", "stepped"])
def test_gather_scatter_noncontiguous(make):
    a = RNG.standard_normal((4, 5))
    idx = np.array([[0, 3, 1], [2, 2, 0], [1, 0, 4], [3, 3, 3]]) % 4
    got = numgrad.gather(make(a), 0, make(idx))
    assert_close(got.numpy(), a[idx, np.arange(3)[None, :]])
    expected = a.copy()
    np.add.at(expected, (idx, np.arange(3)[None, :]), 1.0)
    x = make(a)
    x.scatter_add_(0, make(idx), numgrad.ones(4, 3, dtype=numgrad.float64))
    assert_close(x.numpy(), expected)


def test_scatter_variants():
    x = numgrad.zeros(3, 4)
    idx = _t([[0, 1, 2, 0], [2, 0, 0, 1]])
    src = numgrad.arange(1.0, 9.0).reshape(2, 4)
    expected = np.zeros((3, 4))
    i = idx.numpy()
    for r in range(2):
        for c in range(4):
            expected[i[r, c], c] = src.numpy()[r, c]
    assert_close(numgrad.scatter(x, 0, idx, src).numpy(), expected)
    assert_close(x.scatter(0, idx, 5.0).numpy(), np.where(expected != 0, 5.0, 0.0))
    add = np.ones((3, 4))
    np.add.at(add, (i, np.arange(4)), src.numpy())
    assert_close(numgrad.ones(3, 4).scatter_(0, idx, src, reduce="add").numpy(), add)
    mul = np.full((3, 4), 2.0)
    np.multiply.at(mul, (i, np.arange(4)), src.numpy())
    assert_close(numgrad.full((3, 4), 2.0).scatter_(0, idx, src, reduce="multiply").numpy(), mul)
    assert_close(numgrad.scatter_add(numgrad.ones(3, 4), 0, idx, src).numpy(), add)
    assert x.tolist() == np.zeros((3, 4)).tolist()


@pytest.mark.parametrize("fn, match, exc", [
    (lambda: numgrad.gather(_t(A), 1, _t([[7]] * 3)), "index 7 is out of bounds for dimension 1 with size 4",
     RuntimeError),
    (lambda: numgrad.gather(_t(A), 1, _t([[-1]])), "index -1 is out of bounds for dimension 1 with size 4",
     RuntimeError),
    (lambda: numgrad.gather(_t(A), 1, _t([[0.0]])), "Expected dtype int64", RuntimeError),
    (lambda: numgrad.gather(_t(A), 1, _t([0])), "same number of dimensions", RuntimeError),
    (lambda: numgrad.zeros(3).scatter_(0, _t([5]), numgrad.ones(1)), "index 5 is out of bounds", RuntimeError),
    (lambda: numgrad.zeros(3).scatter_(0, _t([1]), numgrad.ones(1, dtype=numgrad.float64)),
     "self.dtype to be equal to src.dtype", RuntimeError),
    (lambda: numgrad.zeros(2).scatter_(0, _t([0, 1, 1]), numgrad.ones(2)), r"index \[3\].*src \[2\]", RuntimeError),
    (lambda: numgrad.index_select(_t(A), 1, _t([4])), "index 4 is out of bounds for dimension 1 with size 4",
     IndexError),
    (lambda: numgrad.index_select(_t(A), 1, _t([1.0])), "Expected dtype int64 or int32", RuntimeError),
    (lambda: numgrad.zeros(3).index_add_(0, _t([1, 2]), numgrad.ones(1)), "Number of indices", RuntimeError),
    (lambda: numgrad.zeros(3).index_add_(0, _t([1]), numgrad.ones(1, dtype=numgrad.float64)),
     "same scalar type", RuntimeError),
    (lambda: numgrad.take(_t(A), _t([12])), "tried to access index 12 on a tensor of 12 elements", IndexError),
    (lambda: numgrad.zeros(3).put_(_t([-4]), numgrad.ones(1)), "tried to access index -4", IndexError),
])
def test_index_errors(fn, match, exc):
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("dtype", ["int64", "float32", "float16"])
def test_index_add_copy_fill(dtype):
    a = _arr((4, 3), dtype)
    src = _arr((2, 3), dtype, seed=1)
    idx = np.array([3, 3]) if dtype != "float16" else np.array([3, 0])
    expected = a.copy()
    np.add.at(expected, idx, src * 2 if dtype != "float16" else src)
    alpha = 2 if dtype != "float16" else 1
    assert_close(numgrad.index_add(_t(a), 0, _t(idx), _t(src), alpha=alpha).numpy(), expected)
    x = _t(a)
    x.index_copy_(0, _t(np.array([1, 0])), _t(src))
    expected = a.copy()
    expected[[1, 0]] = src
    assert_close(x.numpy(), expected)
    expected = a.copy()
    expected[:, [0, 2]] = 1
    assert_close(_t(a).index_fill(1, _t([0, 2]), 1).numpy(), expected)


def test_take_put():
    idx = np.array([[0, -1], [5, 5]])
    assert_close(numgrad.take(transposed_view(A), _t(idx)).numpy(), np.take(A, idx))
    x = _t(A)
    x.put_(_t([1, -1]), _t([10.0, 20.0], dtype=numgrad.float64))
    expected = A.copy().reshape(-1)
    expected[[1, -1]] = [10.0, 20.0]
    assert_close(x.numpy(), expected.reshape(3, 4))
    y = transposed_view(A)
    y.put_(_t([0, 0]), _t([1.0, 2.0], dtype=numgrad.float64), accumulate=True)
    expected = A.copy()
    expected[0, 0] += 3.0
    assert_close(y.numpy(), expected)


def test_empty_index_and_empty_input():
    e = numgrad.zeros(0, 3)
    assert tuple(numgrad.gather(_t(A), 0, numgrad.zeros(0, 4, dtype=numgrad.int64)).shape) == (0, 4)
    assert tuple(numgrad.index_select(e, 1, _t([2, 0])).shape) == (0, 2)
    assert tuple(numgrad.take(e, numgrad.zeros(0, dtype=numgrad.int64)).shape) == (0,)
    assert tuple(_t(A).index_select(0, numgrad.zeros(0, dtype=numgrad.int64)).shape) == (0, 4)


# ---------------------------------------------------------------------------------- gradients

GRAD_CASES = [
    ("gather", lambda x: numgrad.gather(x, 1, _t([[0, 0], [3, 1], [2, 2]]))),
    ("index_select", lambda x: numgrad.index_select(x, 0, _t([2, 0, 2]))),
    ("take", lambda x: numgrad.take(x, _t([[0, -1], [5, 5]]))),
    ("scatter", lambda x: numgrad.scatter(x, 1, _t([[0], [3], [1]]), 0.5)),
    ("index_fill", lambda x: x.index_fill(1, _t([1]), 2.0)),
    ("flip", lambda x: numgrad.flip(x, (0, 1))),
    ("roll", lambda x: numgrad.roll(x, (1, -2), (0, 1))),
    ("tril", lambda x: numgrad.tril(x, -1)),
    ("triu", lambda x: x.triu(1)),
    ("repeat", lambda x: x.repeat(2, 1, 2)),
    ("tile", lambda x: numgrad.tile(x, (2,))),
    ("repeat_interleave", lambda x: numgrad.repeat_interleave(x, _t([1, 0, 2]), 0)),
    ("diag", lambda x: numgrad.diag(x, 1)),
    ("diag_embed", lambda x: numgrad.diag_embed(x, -1)),
    ("cat", lambda x: numgrad.cat([x, x * 2, x[:1]], 0)),
    ("stack", lambda x: numgrad.stack([x, x.flip(1)], 1)),
]


@pytest.mark.parametrize("name, fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn):
    x = _leaf(A.copy())
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gradcheck_two_inputs():
    x, s = _leaf(A.copy()), _leaf(RNG.standard_normal((2, 4)))
    idx = _t([[0, 1, 2, 0], [2, 0, 0, 1]])
    assert gradcheck(lambda a, b: numgrad.scatter_add(a, 0, idx, b), (x, s))
    assert gradcheck(lambda a, b: numgrad.scatter(a, 0, _t([[0, 1, 2, 0], [1, 2, 0, 2]]), b), (x, s))
    assert gradcheck(lambda a, b: numgrad.index_add(a, 0, _t([2, 2]), b, alpha=3), (x, s))
    assert gradcheck(lambda a, b: numgrad.index_copy(a, 0, _t([2, 0]), b), (x, s))
    assert gradcheck(lambda a, b: numgrad.put(a, _t([1, 5]), b[0, :2]), (x, s))


def test_forward_mode_gather():
    import numgrad.autograd.forward_ad as fwAD
    idx = _t([[0, 0], [3, 1], [2, 2]])
    with fwAD.dual_level():
        d = fwAD.make_dual(_t(A), numgrad.ones(3, 4, dtype=numgrad.float64))
        y = numgrad.gather(d, 1, idx)
        assert_close(fwAD.unpack_dual(y).tangent.numpy(), np.ones((3, 2)))
        z = numgrad.cat([d, d * 2], 0)
        assert_close(fwAD.unpack_dual(z).tangent.numpy(), np.concatenate([np.ones((3, 4)), 2 * np.ones((3, 4))]))


def test_inplace_with_grad_rebases_history():
    x = _leaf(A.copy())
    y = x * 1
    y.index_add_(0, _t([0, 0]), numgrad.ones(2, 4, dtype=numgrad.float64))
    y.scatter_(1, _t([[0], [0], [0]]), 0.0)
    y.sum().backward()
    expected = np.ones_like(A)
    expected[:, 0] = 0
    assert_close(x.grad.numpy(), expected)


# ---------------------------------------------------------------------------------- cat / stack

@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_stack_dtypes(dtype):
    a, b = _arr((2, 3), dtype), _arr((1, 3), dtype, seed=1)
    assert_close(numgrad.cat([_t(a), transposed_view(b)]).numpy(), np.concatenate([a, b]))
    assert_close(numgrad.stack([_t(a), noncontiguous_view(a)], -1).numpy(), np.stack([a, a], -1))


def test_cat_promotes_skips_legacy_empty_and_validates():
    r = numgrad.cat([numgrad.ones(2, dtype=numgrad.int32), numgrad.tensor([0.5])])
    assert r.dtype is numgrad.float32 and r.tolist() == [1.0, 1.0, 0.5]
    assert tuple(numgrad.cat([numgrad.ones(2, 3), numgrad.zeros(0)], 0).shape) == (2, 3)
    assert tuple(numgrad.concat([numgrad.ones(0, 3), numgrad.ones(2, 3)]).shape) == (2, 3)
    with pytest.raises(RuntimeError, match=r"Expected size 3 but got size 4 for tensor number 1.*\[2, 3\] and \[2, 4\]"):
        numgrad.cat([numgrad.zeros(2, 3), numgrad.zeros(2, 4)])
    with pytest.raises(RuntimeError, match=r"got \[2, 3\] at entry 0 and \[2, 4\] at entry 1"):
        numgrad.stack([numgrad.zeros(2, 3), numgrad.zeros(2, 4)])
    with pytest.raises(ValueError, match="non-empty list"):
        numgrad.cat([])
    with pytest.raises(RuntimeError, match="zero-dimensional"):
        numgrad.cat([numgrad.tensor(1.0)])


def test_hstack_vstack_dstack_column_stack():
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    assert_close(numgrad.hstack([_t(a), _t(b)]).numpy(), np.hstack([a, b]))
    assert_close(numgrad.vstack([_t(a), _t(b)]).numpy(), np.vstack([a, b]))
    assert_close(numgrad.dstack([_t(a), _t(b)]).numpy(), np.dstack([a, b]))
    assert_close(numgrad.column_stack([_t(a), _t(b)]).numpy(), np.column_stack([a, b]))
    m = A
    assert_close(numgrad.hstack([_t(m), _t(m)]).numpy(), np.hstack([m, m]))


# ---------------------------------------------------------------------------------- repeats, flips

@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
def test_repeat_tile_repeat_interleave(dtype):
    a = _arr((2, 3), dtype)
    assert_close(_t(a).repeat(2, 1, 3).numpy(), np.tile(a, (2, 1, 3)))
    assert_close(numgrad.tile(_t(a), (2,)).numpy(), np.tile(a, (1, 2)))
    assert_close(numgrad.repeat_interleave(_t(a), 2).numpy(), np.repeat(a, 2))
    assert_close(_t(a).repeat_interleave(_t([1, 0, 3]), dim=1).numpy(), np.repeat(a, [1, 0, 3], axis=1))
    assert_close(numgrad.repeat_interleave(_t([2, 0, 1])).numpy(), np.array([0, 0, 2]))
    assert tuple(numgrad.zeros(0, 2).repeat(3, 1).shape) == (0, 2)
    with pytest.raises(RuntimeError, match="can not be smaller"):
        _t(a).repeat(2)
    with pytest.raises(RuntimeError, match="negative"):
        numgrad.repeat_interleave(_t(a), _t([1, -1]), 0)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16", "float64"])
def test_flip_roll(dtype):
    a = _arr((3, 4, 2), dtype)
    for dims in [(0,), (1, 2), (-1, 0)]:
        assert_close(numgrad.flip(transposed_view(a), dims).numpy(), np.flip(a, dims))
    assert_close(numgrad.fliplr(_t(a)).numpy(), np.fliplr(a))
    assert_close(numgrad.flipud(_t(a)).numpy(), np.flipud(a))
    assert_close(numgrad.roll(_t(a), 5).numpy(), np.roll(a, 5))
    assert_close(numgrad.roll(noncontiguous_view(a), (1, -3), (0, 2)).numpy(), np.roll(a, (1, -3), (0, 2)))
    assert tuple(numgrad.roll(numgrad.zeros(0, 2), 1, 0).shape) == (0, 2)


# ---------------------------------------------------------------------------------- triangles, diagonals

@pytest.mark.parametrize("k", [-2, 0, 1, 5])
def test_tril_triu(k):
    a = RNG.standard_normal((2, 3, 4))
    assert_close(numgrad.tril(_t(a), k).numpy(), np.tril(a, k))
    assert_close(numgrad.triu(transposed_view(a), k).numpy(), np.triu(a, k))
    b = _t(a[0] > 0)
    assert numgrad.tril(b, k).dtype is numgrad.bool
    x = _t(a)
    assert x.triu_(k) is x
    assert_close(x.numpy(), np.triu(a, k))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        numgrad.tril(numgrad.ones(3))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_diag_diag_embed(k):
    v = np.arange(1.0, 4.0)
    assert_close(numgrad.diag(_t(v), k).numpy(), np.diag(v, k))
    assert_close(numgrad.diag(_t(A), k).numpy(), np.diag(A, k))
    assert_close(numgrad.diagflat(_t(A[:2, :2]), k).numpy(), np.diagflat(A[:2, :2], k))
    e = numgrad.diag_embed(_t(A), k)
    assert tuple(e.shape) == (3, 4 + abs(k), 4 + abs(k))
    for i in range(3):
        assert_close(e[i].numpy(), np.diag(A[i], k))
    assert_close(numgrad.diag_embed(_t(A), k, 0, 2).permute(1, 0, 2).numpy(), e.numpy())
    with pytest.raises(RuntimeError, match="1D or 2D"):
        numgrad.diag(numgrad.ones(2, 2, 2))


def test_one_hot():
    one_hot = numgrad.nn.functional.one_hot
    x = _t([[0, 2], [1, 0]])
    assert_close(one_hot(x).numpy(), np.eye(3, dtype=np.int64)[x.numpy()])
    assert tuple(one_hot(x, 5).shape) == (2, 2, 5)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        one_hot(x, 2)
    with pytest.raises(RuntimeError, match="LongTensor"):
        one_hot(x.int())


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_result_dtypes_match_torch():
    a = A.astype(np.float32)
    idx = np.array([[0, 1]] * 3)
    pairs = [
        (numgrad.cat([_t(a), _t(a.astype(np.float64))]), torch.cat([torch.tensor(a), torch.tensor(a, dtype=torch.float64)])),
        (numgrad.gather(_t(a), 1, _t(idx)), torch.gather(torch.tensor(a), 1, torch.tensor(idx))),
        (numgrad.tril(_t(a > 0)), torch.tril(torch.tensor(a > 0))),
        (numgrad.repeat_interleave(_t([1, 2])), torch.repeat_interleave(torch.tensor([1, 2]))),
    ]
    for ours, theirs in pairs:
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
        assert_close(ours.numpy(), theirs.numpy())


def test_tile_takes_dims_one_by_one():
    x = numgrad.arange(6).reshape(2, 3)
    assert x.tile(2).tolist() == numgrad.tile(x, (2,)).tolist() == np.tile(np.arange(6).reshape(2, 3), 2).tolist()
    assert x.tile(2, 1, 1).shape == (2, 2, 3)
