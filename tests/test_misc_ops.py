"""Composite ops (diff, logcumsumexp, aminmax, quantile, nanmedian, cov, corrcoef, isin, vander,
renorm, trapezoid, index sets, block_diag, distances): values against NumPy (and PyTorch when it
is installed), gradients, second derivatives and tangents in float64, and PyTorch's errors."""
import warnings

import numpy as np
import pytest

import numgrad
import numgrad.nn.functional as F
from numgrad.autograd import forward_ad as fwAD
from numgrad.autograd.gradcheck import gradcheck, gradgradcheck
from numgrad.testing import assert_close

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
rng = np.random.default_rng(0)


def t64(a, grad=False):
    return numgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def check_jvp(fn, *args, eps=1e-6, tol=1e-5):
    """The forward-mode tangent along a random direction equals a central finite difference."""
    tangents = [numgrad.tensor(rng.standard_normal(a.shape)) for a in args]
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(a.detach(), t) for a, t in zip(args, tangents)])
        tangent = fwAD.unpack_dual(out).tangent
    plus = fn(*[a.detach() + eps * t for a, t in zip(args, tangents)]).numpy()
    minus = fn(*[a.detach() - eps * t for a, t in zip(args, tangents)]).numpy()
    np.testing.assert_allclose(tangent.numpy(), (plus - minus) / (2 * eps), rtol=tol, atol=tol)


def check_grads(fn, *args, jvp=True):
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)
    if jvp:
        check_jvp(fn, *args)


# --------------------------------------------------------------------------------- values vs NumPy

def test_diff_values():
    a = rng.standard_normal((3, 5))
    for n, dim in ((1, -1), (2, 1), (1, 0), (0, 1), (7, 1)):
        assert_close(numgrad.diff(t64(a), n, dim), np.diff(a, n, axis=dim))
    pre, app = rng.standard_normal((3, 1)), rng.standard_normal((3, 2))
    assert_close(numgrad.diff(t64(a), prepend=t64(pre), append=t64(app)),
                 np.diff(a, prepend=pre, append=app))
    b = np.array([True, False, False, True])
    assert_close(numgrad.diff(numgrad.tensor(b)), np.diff(b))
    assert numgrad.tensor([1, 4, 9], dtype=numgrad.uint8).diff().tolist() == [3, 5]


def test_logcumsumexp_values_are_stable():
    a = np.array([[-1000.0, 0.0, 1000.0, 3.0], [-np.inf, 1.0, np.inf, 2.0]])
    expected = np.logaddexp.accumulate(a, axis=1)
    assert_close(numgrad.logcumsumexp(t64(a), 1), expected)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    assert_close(numgrad.tensor(x).logcumsumexp(0), np.logaddexp.accumulate(x, axis=0))
    assert numgrad.logcumsumexp(t64(2.0), 0).item() == 2.0


def test_aminmax():
    a = rng.standard_normal((3, 4))
    lo, hi = numgrad.aminmax(t64(a))
    assert (lo.item(), hi.item()) == (a.min(), a.max())
    r = t64(a).aminmax(dim=1, keepdim=True)
    assert_close(r.min, a.min(1, keepdims=True))
    assert_close(r.max, a.max(1, keepdims=True))
    assert "aminmax(\nmin=" in repr(r)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(interpolation):
    a = rng.standard_normal((4, 7))
    q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    got = numgrad.quantile(t64(a), t64(q), dim=1, keepdim=True, interpolation=interpolation)
    assert_close(got, np.quantile(a, q, axis=1, keepdims=True, method=interpolation))
    got = t64(a).quantile(0.3, interpolation=interpolation)
    assert_close(got, np.quantile(a, 0.3, method=interpolation))


@pytest.mark.filterwarnings("ignore:All-NaN slice")
def test_nanquantile_and_nan_rows():
    a = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan] * 4, [4.0, 1.0, 0.0, 2.0]])
    assert_close(numgrad.nanquantile(t64(a), 0.4, dim=1), np.nanquantile(a, 0.4, axis=1))
    assert_close(numgrad.quantile(t64(a), 0.4, dim=1), np.quantile(a, 0.4, axis=1))
    assert_close(numgrad.quantile(t64(3.0), 0.5, dim=0), np.float64(3.0))


def test_nanmedian():
    a = np.array([[1.0, np.nan, 3.0, 4.0], [5.0, 2.0, np.nan, np.nan], [0.5, 0.25, 2.0, 1.0]])
    r = numgrad.nanmedian(t64(a), 1)
    assert r.values.tolist() == [3.0, 2.0, 0.5]
    assert r.indices.tolist() == [2, 1, 0]
    assert numgrad.nanmedian(t64(a)).item() == 2.0
    assert numgrad.nanmedian(numgrad.tensor([3, 1, 2, 4])).item() == 2
    assert np.isnan(numgrad.nanmedian(t64(np.zeros(0))).item())


def test_cov_and_corrcoef():
    a = rng.standard_normal((3, 6))
    fw = np.array([1, 2, 1, 3, 1, 2])
    aw = rng.random(6) + 0.1
    assert_close(numgrad.cov(t64(a)), np.cov(a))
    assert_close(numgrad.cov(t64(a), correction=0), np.cov(a, ddof=0))
    assert_close(numgrad.cov(t64(a), fweights=numgrad.tensor(fw), aweights=t64(aw)),
                 np.cov(a, fweights=fw, aweights=aw))
    assert_close(numgrad.cov(t64(a), aweights=t64(aw), correction=2), np.cov(a, aweights=aw, ddof=2))
    assert_close(numgrad.cov(t64(a[0])), np.cov(a[0]))
    assert numgrad.cov(numgrad.tensor([[0, 1, 2], [3, 4, 5]])).dtype is numgrad.float32
    assert_close(t64(a).corrcoef(), np.corrcoef(a))
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isinf(numgrad.cov(t64(a), correction=6).numpy()).all()


def test_isin():
    e = np.array([[1, 5, 3], [2, 2, 9]])
    s = np.array([2, 3, 4])
    assert_close(numgrad.isin(numgrad.tensor(e), numgrad.tensor(s)), np.isin(e, s))
    assert_close(numgrad.isin(numgrad.tensor(e), numgrad.tensor(s), invert=True), np.isin(e, s, invert=True))
    assert numgrad.isin(numgrad.tensor([1, 2, 3]), 2).tolist() == [False, True, False]
    assert numgrad.isin(2, numgrad.tensor([1.0, 2.0])).item() is True
    assert numgrad.isin(t64([1.0, np.nan]), t64([np.nan, 1.0])).tolist() == [True, False]
    assert numgrad.isin(numgrad.tensor([1, 2]), numgrad.tensor([], dtype=numgrad.int64)).tolist() == [False, False]


def test_vander_and_trapezoid():
    x = np.array([2.0, -1.0, 0.5])
    assert_close(numgrad.vander(t64(x)), np.vander(x))
    assert_close(numgrad.vander(t64(x), 4, increasing=True), np.vander(x, 4, increasing=True))
    assert numgrad.vander(numgrad.tensor([1, 2, 3])).dtype is numgrad.int64
    y = rng.standard_normal((3, 5))
    pts = np.sort(rng.random(5))
    assert_close(numgrad.trapezoid(t64(y)), np.trapezoid(y))
    assert_close(numgrad.trapezoid(t64(y), t64(pts)), np.trapezoid(y, pts))
    assert_close(numgrad.trapezoid(t64(y), dx=0.5, dim=0), np.trapezoid(y, dx=0.5, axis=0))
    assert_close(numgrad.trapezoid(t64(np.zeros((2, 0)))), np.zeros(2))
    expected = np.stack([np.trapezoid(y[:, :k + 2], pts[:k + 2]) for k in range(4)], 1)
    assert_close(numgrad.cumulative_trapezoid(t64(y), t64(pts)), expected)
    assert_close(numgrad.cumulative_trapezoid(t64(y), dx=2.0, dim=0)[-1], np.trapezoid(y, dx=2.0, axis=0))


def test_renorm():
    a = rng.standard_normal((3, 4)) * 3
    norms = np.linalg.norm(a, axis=0, keepdims=True)
    expected = a * np.where(norms > 2.0, 2.0 / (norms + 1e-7), 1.0)
    assert_close(numgrad.renorm(t64(a), 2, 1, 2.0), expected)
    x = t64(a)
    x.renorm_(2, 1, 2.0)
    assert_close(x, expected)


def test_index_sets_and_blocks():
    for args in ((3, 4, 1), (4, 3, -1), (0, 3, 0), (3, 3, -10)):
        assert_close(numgrad.tril_indices(*args), np.stack(np.tril_indices(args[0], args[2], args[1])))
        assert_close(numgrad.triu_indices(*args), np.stack(np.triu_indices(args[0], args[2], args[1])))
    assert numgrad.tril_indices(2, 2, dtype=numgrad.int32).dtype is numgrad.int32
    c = numgrad.combinations(numgrad.tensor([10, 20, 30, 40]), 3)
    assert c.tolist() == [[10, 20, 30], [10, 20, 40], [10, 30, 40], [20, 30, 40]]
    assert numgrad.combinations(numgrad.tensor([1, 2]), with_replacement=True).tolist() == [[1, 1], [1, 2], [2, 2]]
    assert tuple(numgrad.combinations(numgrad.tensor([1, 2]), 3).shape) == (0, 3)
    assert tuple(numgrad.combinations(numgrad.tensor([1, 2]), 0).shape) == (0,)
    b = numgrad.block_diag(numgrad.tensor(1), t64([2.0, 3.0]), numgrad.ones(2, 2, dtype=numgrad.int32))
    assert b.dtype is numgrad.float64
    assert b.tolist() == [[1, 0, 0, 0, 0], [0, 2, 3, 0, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1]]
    assert tuple(numgrad.block_diag().shape) == (1, 0)
    u, v = numgrad.broadcast_tensors(t64(np.ones((2, 1))), t64(np.ones(3)))
    assert tuple(u.shape) == tuple(v.shape) == (2, 3)
    assert tuple(t64([1.0, 2.0]).broadcast_to((3, 2)).shape) == (3, 2)


def test_distances():
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert_close(F.cosine_similarity(t64(a), t64(b)), cos)
    assert_close(numgrad.nn.CosineSimilarity(dim=1)(t64(a), t64(b)), cos)
    assert F.cosine_similarity(t64(np.zeros(3)), t64(np.zeros(3)), dim=0).item() == 0.0
    assert_close(F.pairwise_distance(t64(a), t64(b)), np.linalg.norm(a - b + 1e-6, axis=1))
    assert_close(numgrad.nn.PairwiseDistance(p=1.0, keepdim=True)(t64(a), t64(b)),
                 np.abs(a - b + 1e-6).sum(1, keepdims=True))
    i, j = np.triu_indices(4, 1)
    assert_close(F.pdist(t64(a)), np.linalg.norm(a[i] - a[j], axis=1))
    assert_close(F.pdist(t64(a), p=1), np.abs(a[i] - a[j]).sum(1))
    assert tuple(F.pdist(t64(np.zeros((1, 3)))).shape) == (0,)


# --------------------------------------------------------------------------------- derivatives

def _no_ties(shape):
    return t64(rng.permutation(np.prod(shape)).reshape(shape) / 3.0 + rng.random(shape) * 0.1, True)


@pytest.mark.parametrize("name", ["diff", "logcumsumexp", "quantile", "nanquantile", "nanmedian", "cov",
                                  "corrcoef", "renorm", "vander", "trapezoid", "cumulative_trapezoid",
                                  "block_diag", "combinations", "aminmax", "cosine_similarity",
                                  "pairwise_distance", "pdist"])
def test_gradients(name):
    x = _no_ties((3, 4))
    other = t64(rng.standard_normal((3, 4)), True)
    pts = t64(np.sort(rng.random(4)) * 3, True)
    fns = {
        "diff": (lambda x, p: numgrad.diff(x, 2, prepend=p[:, :1]), (x, other)),
        "logcumsumexp": (lambda x: numgrad.logcumsumexp(x, 1), (x,)),
        "quantile": (lambda x: numgrad.quantile(x, t64([0.2, 0.7]), dim=0), (x,)),
        "nanquantile": (lambda x: numgrad.nanquantile(x, 0.4, dim=1, interpolation="midpoint"), (x,)),
        "nanmedian": (lambda x: numgrad.nanmedian(x, 1).values + numgrad.nanmedian(x), (x,)),
        "cov": (lambda x, w: numgrad.cov(x, aweights=w), (x, t64(rng.random(4) + 0.5, True))),
        "corrcoef": (lambda x: numgrad.corrcoef(x), (x,)),
        "renorm": (lambda x: numgrad.renorm(x, 3, 0, 2.0), (other,)),
        "vander": (lambda v: numgrad.vander(v, 4), (pts,)),
        "trapezoid": (lambda y, p: numgrad.trapezoid(y, p), (other, pts)),
        "cumulative_trapezoid": (lambda y, p: numgrad.cumulative_trapezoid(y, p), (other, pts)),
        "block_diag": (lambda x, v: numgrad.block_diag(x, v), (x, pts)),
        "combinations": (lambda v: numgrad.combinations(v, 2), (pts,)),
        "aminmax": (lambda x: numgrad.aminmax(x, dim=0).max - numgrad.aminmax(x).min, (x,)),
        "cosine_similarity": (lambda a, b: F.cosine_similarity(a, b), (x, other)),
        "pairwise_distance": (lambda a, b: F.pairwise_distance(a, b, p=3), (x, other)),
        "pdist": (lambda a: F.pdist(a), (other,)),
    }
    fn, args = fns[name]
    check_grads(fn, *args)


def test_logcumsumexp_node_and_large_gradients():
    x = t64([[-800.0, 0.5, 800.0, 1.0]], True)
    y = numgrad.logcumsumexp(x, 1)
    assert type(y.grad_fn).__name__ == "LogcumsumexpBackward0"
    g = t64([[1.0, -2.0, 0.5, 3.0]])
    y.backward(g)
    exponent = x.detach().numpy()[0][:, None] - y.detach().numpy()[0][None, :]
    expected = (np.exp(np.where(np.triu(np.ones((4, 4))) > 0, exponent, -np.inf)) * g.numpy()[0]).sum(1)
    assert np.isfinite(x.grad.numpy()).all()
    assert_close(x.grad[0], expected)


# ------------------------------------------------------------------------------- PyTorch parity

@needs_torch
def test_against_torch():
    a = rng.standard_normal((3, 5))
    ta, na = torch.tensor(a), t64(a)
    pairs = [
        (torch.diff(ta, 2, 0), numgrad.diff(na, 2, 0)),
        (torch.logcumsumexp(ta, 0), numgrad.logcumsumexp(na, 0)),
        (torch.quantile(ta, 0.35, 1, interpolation="nearest"), numgrad.quantile(na, 0.35, 1, interpolation="nearest")),
        (torch.cov(ta, correction=0), numgrad.cov(na, correction=0)),
        (torch.corrcoef(ta), numgrad.corrcoef(na)),
        (torch.renorm(ta, 1, 0, 1.5), numgrad.renorm(na, 1, 0, 1.5)),
        (torch.trapezoid(ta, dx=0.3), numgrad.trapezoid(na, dx=0.3)),
        (torch.cumulative_trapezoid(ta, dim=0), numgrad.cumulative_trapezoid(na, dim=0)),
        (torch.nn.functional.pdist(ta, 3), F.pdist(na, 3)),
        (torch.nn.functional.cosine_similarity(ta, ta.flip(0), 0), F.cosine_similarity(na, na.flip(0), 0)),
        (torch.block_diag(ta[:2], ta[2]), numgrad.block_diag(na[:2], na[2])),
        (torch.vander(ta[0], 3), numgrad.vander(na[0], 3)),
    ]
    for expected, got in pairs:
        assert_close(got, expected.numpy())
    for row, col, off in ((4, 6, 2), (5, 2, -1)):
        assert torch.tril_indices(row, col, off).tolist() == numgrad.tril_indices(row, col, off).tolist()
        assert torch.triu_indices(row, col, off).tolist() == numgrad.triu_indices(row, col, off).tolist()


# ----------------------------------------------------------------------------------------- errors

@pytest.mark.parametrize("call, exc, match", [
    (lambda: numgrad.diff(t64(1.0)), RuntimeError, "at least one-dimensional"),
    (lambda: numgrad.diff(t64([1.0]), -1), RuntimeError, "order must be non-negative but got -1"),
    (lambda: numgrad.diff(t64([[1.0]]), prepend=t64([1.0])), RuntimeError, "same dimension as input"),
    (lambda: numgrad.logcumsumexp(numgrad.tensor([1, 2]), 0), NotImplementedError, "not implemented for 'Long'"),
    (lambda: numgrad.aminmax(t64(np.zeros(0))), RuntimeError, "cannot compute aminmax over an empty"),
    (lambda: numgrad.aminmax(t64(np.zeros((0, 3))), dim=0), IndexError, "Expected reduction dim 0"),
    (lambda: numgrad.quantile(t64([1.0]), 1.5), RuntimeError, r"q must be in the range \[0, 1\] but got 1.5"),
    (lambda: numgrad.quantile(t64([1.0]), t64([[0.5]])), RuntimeError, "q must be a scalar or 1D tensor"),
    (lambda: numgrad.quantile(t64([1.0]), t64([2.0])), RuntimeError, r"q values must be in the range \[0, 1\]"),
    (lambda: numgrad.quantile(numgrad.tensor([1.0]), t64([0.5])), RuntimeError, "same dtype as the input"),
    (lambda: numgrad.quantile(numgrad.tensor([1, 2]), 0.5), RuntimeError, "either float or double dtype"),
    (lambda: numgrad.nanquantile(t64(np.zeros(0)), 0.5), RuntimeError, r"nanquantile\(\) input tensor must be non-empty"),
    (lambda: numgrad.quantile(t64([1.0]), 0.5, interpolation="x"), RuntimeError, "interpolation must be one of"),
    (lambda: numgrad.nanmedian(t64(np.zeros((2, 0))), 1), IndexError, "Expected reduction dim 1"),
    (lambda: numgrad.cov(t64(np.zeros((2, 2, 2)))), RuntimeError, "two or fewer dimensions"),
    (lambda: numgrad.cov(numgrad.tensor([True])), RuntimeError, "bool dtype is not supported"),
    (lambda: numgrad.cov(t64(np.ones((2, 3))), fweights=t64([1.0, 2, 3])), RuntimeError, "integral dtype"),
    (lambda: numgrad.cov(t64(np.ones((2, 3))), fweights=numgrad.tensor([1, -2, 3])), RuntimeError,
     "fweights cannot be negative"),
    (lambda: numgrad.cov(t64(np.ones((2, 3))), aweights=t64([1.0, 2])), RuntimeError, "got 2 != 3"),
    (lambda: numgrad.broadcast_tensors(t64([1.0, 2]), t64([1.0, 2, 3])), RuntimeError, "must match the size"),
    (lambda: numgrad.block_diag(t64(np.zeros((1, 1, 1)))), RuntimeError, "Input 0 has 3 dimensions"),
    (lambda: numgrad.tril_indices(-1, 3), RuntimeError, "row must be non-negative, got-1"),
    (lambda: numgrad.triu_indices(3, -2), RuntimeError, "col must be non-negative, got-2"),
    (lambda: numgrad.tril_indices(3, 3, dtype=numgrad.float32), NotImplementedError, "not implemented for 'Float'"),
    (lambda: numgrad.isin(numgrad.tensor([True]), numgrad.tensor([True])), RuntimeError, "isin\\(\\): Bool"),
    (lambda: numgrad.combinations(t64(np.zeros((2, 2)))), RuntimeError, r"Expect a 1D vector, but got shape \[2, 2\]"),
    (lambda: numgrad.combinations(t64([1.0]), -1), RuntimeError, "Expect a non-negative number, but got -1"),
    (lambda: numgrad.vander(t64(1.0)), RuntimeError, "x must be a one-dimensional tensor."),
    (lambda: numgrad.vander(t64([1.0]), -1), RuntimeError, "N must be non-negative."),
    (lambda: numgrad.renorm(t64(np.ones((2, 2))), 0, 0, 1.0), RuntimeError, "non-positive-norm not supported"),
    (lambda: numgrad.renorm(t64(np.ones((2, 2))), 2, 0, -1), RuntimeError, "maxnorm to be >= 0 but got -1"),
    (lambda: numgrad.renorm(t64([1.0]), 2, 0, 1), RuntimeError, "at least 2 dimensions, got 1 dimensions"),
    (lambda: numgrad.trapezoid(t64(1.0)), IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    (lambda: numgrad.trapezoid(t64(np.ones((2, 3))), t64([1.0, 2])), RuntimeError, "one `x` value for each"),
    (lambda: numgrad.trapezoid(t64(np.ones((2, 3))), t64([1.0, 2, 3]), dx=2), TypeError, "invalid combination"),
    (lambda: F.cosine_similarity(numgrad.tensor([1, 2]), numgrad.tensor([1, 2]), 0), RuntimeError,
     "common dtype is Long"),
    (lambda: F.pdist(t64([1.0, 2])), RuntimeError, "pdist only supports 2D tensors, got: 1D"),
    (lambda: F.pdist(t64(np.ones((2, 2))), -1), RuntimeError, "non-negative p values"),
])
def test_errors(call, exc, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc, match=match):
            call()


def test_tensor_methods_follow_torch():
    for name in ("diff", "logcumsumexp", "aminmax", "quantile", "nanquantile", "nanmedian", "cov", "corrcoef",
                 "renorm", "renorm_", "broadcast_to"):
        assert hasattr(numgrad.Tensor, name), name
