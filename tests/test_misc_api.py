"""finfo/iinfo, meshgrid, cartesian_prod, rot90, cdist and the parameter containers, against
PyTorch (when installed) and NumPy; gradients by finite differences in float64."""
import math

import numpy as np
import pytest

import numgrad
from numgrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")
FLOATS = ["float16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def _leaf(a):
    return numgrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)


# ------------------------------------------------------------------------------ finfo / iinfo
@needs_torch
@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_torch(name):
    ours, ref = numgrad.finfo(getattr(numgrad, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(ref, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(ref, attr)), attr
    assert repr(ours) == repr(ref)


@needs_torch
@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(name):
    ours, ref = numgrad.iinfo(getattr(numgrad, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(ref, attr), attr
    assert repr(ours) == repr(ref)


def test_finfo_defaults_to_default_dtype():
    assert numgrad.finfo().dtype == "float32"
    numgrad.set_default_dtype(numgrad.float64)
    try:
        assert numgrad.finfo() == numgrad.finfo(numgrad.float64)
    finally:
        numgrad.set_default_dtype(numgrad.float32)


def test_info_errors():
    with pytest.raises(TypeError, match="requires a floating point input type"):
        numgrad.finfo(numgrad.int32)
    with pytest.raises(TypeError, match="requires a floating point input type"):
        numgrad.finfo(numgrad.bool)
    with pytest.raises(TypeError, match="requires an integer input type"):
        numgrad.iinfo(numgrad.float16)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        numgrad.iinfo(numgrad.bool)
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        numgrad.finfo("float32")


# ------------------------------------------------------------------------------ meshgrid
@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = np.arange(3.0), np.arange(2.0) + 10, np.arange(4.0) - 5
    ours = numgrad.meshgrid(numgrad.tensor(a), numgrad.tensor(b), numgrad.tensor(c), indexing=indexing)
    ref = np.meshgrid(a, b, c, indexing=indexing)
    assert isinstance(ours, tuple) and len(ours) == 3
    for o, r in zip(ours, ref):
        np.testing.assert_array_equal(o.numpy(), r)
    # A list argument, 0-d inputs, and the default indexing ('ij').
    g = numgrad.meshgrid([numgrad.tensor(1.0, dtype=numgrad.float64), numgrad.tensor(b)])
    assert [tuple(x.shape) for x in g] == [(1, 2), (1, 2)]


def test_meshgrid_views_and_gradient():
    x, y = _leaf([1.0, 2.0, 3.0]), _leaf([4.0, 5.0])
    gx, gy = numgrad.meshgrid(x, y, indexing="xy")
    assert gx.stride() == (0, 1) and gy.stride() == (1, 0)
    assert gradcheck(lambda a, b: [t * 1.0 for t in numgrad.meshgrid(a, b, indexing="xy")], (x, y))
    assert gradgradcheck(lambda a, b: [t * t for t in numgrad.meshgrid(a, b)], (x, y))


def test_meshgrid_errors():
    with pytest.raises(RuntimeError, match="indexing must be one of"):
        numgrad.meshgrid(numgrad.ones(2), indexing="foo")
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        numgrad.meshgrid(numgrad.ones(2), numgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match="same dtype"):
        numgrad.meshgrid(numgrad.ones(2), numgrad.ones(2, dtype=numgrad.int64))
    with pytest.raises(RuntimeError, match="non-empty"):
        numgrad.meshgrid()


# ------------------------------------------------------------------------------ cartesian_prod
def test_cartesian_prod():
    import itertools
    a, b, c = [1, 2, 3], [4, 5], [6, 7]
    got = numgrad.cartesian_prod(numgrad.tensor(a), numgrad.tensor(b), numgrad.tensor(c))
    assert got.dtype is numgrad.int64
    assert got.tolist() == [list(p) for p in itertools.product(a, b, c)]
    one = numgrad.tensor(a)
    assert numgrad.cartesian_prod(one) is one
    with pytest.raises(RuntimeError, match="Expect a 1D vector"):
        numgrad.cartesian_prod(one, numgrad.ones(2, 2))
    x, y = _leaf([1.0, 2.0]), _leaf([3.0, 4.0, 5.0])
    assert gradcheck(numgrad.cartesian_prod, (x, y))
    assert gradgradcheck(numgrad.cartesian_prod, (x, y))


# ------------------------------------------------------------------------------ rot90
@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0), (-1, 1)])
def test_rot90_matches_numpy(k, dims):
    a = np.arange(24.0).reshape(2, 3, 4)
    got = numgrad.rot90(numgrad.tensor(a), k, dims)
    np.testing.assert_array_equal(got.numpy(), np.rot90(a, k, dims))
    np.testing.assert_array_equal(numgrad.tensor(a).rot90(k, dims).numpy(), np.rot90(a, k, dims))


def test_rot90_gradient_and_copy():
    x = _leaf(np.arange(6.0).reshape(2, 3))
    for k in range(4):
        assert gradcheck(lambda t: numgrad.rot90(t, k), (x,))
    assert gradgradcheck(lambda t: numgrad.rot90(t, 1, [1, 0]) ** 2, (x,))
    r = numgrad.rot90(x.detach(), 0)
    assert r.data_ptr() != x.data_ptr()


def test_rot90_errors():
    x = numgrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 1"):
        numgrad.rot90(x, 1, [0])
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        numgrad.rot90(numgrad.ones(3))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        numgrad.rot90(x, 1, [0, -2])
    with pytest.raises(IndexError, match="Dimension out of range"):
        numgrad.rot90(x, 1, [0, 2])
    with pytest.raises(TypeError, match="must be int"):
        numgrad.rot90(x, 1.5)


# ------------------------------------------------------------------------------ cdist
PS = [0.0, 1.0, 2.0, 3.0, 1.5, 0.5, math.inf]


def _np_cdist(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    if math.isinf(p):
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("p", PS)
def test_cdist_values(p):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((5, 3))
    got = numgrad.cdist(numgrad.tensor(a), numgrad.tensor(b), p)
    assert got.shape == (2, 4, 5)
    np.testing.assert_allclose(got.numpy(), _np_cdist(a, b[None], p), rtol=1e-12, atol=1e-12)
    if torch is not None:
        np.testing.assert_allclose(got.numpy(), torch.cdist(torch.tensor(a), torch.tensor(b), p).numpy(),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist", None])
def test_cdist_euclid_modes(mode):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((30, 3)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    got = numgrad.cdist(numgrad.tensor(a), numgrad.tensor(b), compute_mode=mode)
    assert got.dtype is numgrad.float32
    np.testing.assert_allclose(got.numpy(), _np_cdist(a.astype(np.float64), b, 2), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("p", PS)
def test_cdist_gradients(p):
    rng = np.random.default_rng(3)
    # Well separated coordinates: no ties in the inf norm and no zero differences.
    x1 = _leaf(rng.permutation(12).reshape(2, 2, 3) * 0.37 + 0.1)
    x2 = _leaf(rng.permutation(9).reshape(3, 3) * 0.41 - 0.05)
    f = lambda a, b: numgrad.cdist(a, b, p)  # noqa: E731
    assert f(x1, x2).grad_fn.name() == "CdistBackward0"
    assert gradcheck(f, (x1, x2))
    assert gradgradcheck(f, (x1, x2))
    mm = lambda a, b: numgrad.cdist(a, b, p, compute_mode="use_mm_for_euclid_dist")  # noqa: E731
    assert gradcheck(mm, (x1, x2))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_cdist_forward_mode_matches_reverse(p):
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
    f = lambda x, y: numgrad.cdist(x, y, p)  # noqa: E731
    args = (numgrad.tensor(a), numgrad.tensor(b))
    for argnum in (0, 1):
        fwd = numgrad.func.jacfwd(f, argnums=argnum)(*args)
        rev = numgrad.func.jacrev(f, argnums=argnum)(*args)
        np.testing.assert_allclose(fwd.numpy(), rev.numpy(), rtol=1e-10, atol=1e-12)


def test_cdist_zero_distance_gradient_is_zero():
    x = _leaf([[1.0, 2.0], [3.0, 5.0]])
    numgrad.cdist(x, x).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    if torch is not None:
        t = torch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=torch.float64, requires_grad=True)
        torch.cdist(t, t).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-12)


def test_cdist_empty_and_errors():
    assert numgrad.cdist(numgrad.ones(0, 2), numgrad.ones(3, 2)).shape == (0, 3)
    assert numgrad.cdist(numgrad.ones(2, 0), numgrad.ones(3, 0)).tolist() == [[0.0] * 3] * 2
    with pytest.raises(RuntimeError, match="at least 2D tensors, X1 got: 1D"):
        numgrad.cdist(numgrad.ones(3), numgrad.ones(3, 3))
    with pytest.raises(RuntimeError, match="same number of columns. X1: 2 X2: 3"):
        numgrad.cdist(numgrad.ones(3, 2), numgrad.ones(3, 3))
    with pytest.raises(RuntimeError, match="non-negative p"):
        numgrad.cdist(numgrad.ones(3, 2), numgrad.ones(3, 2), -1)
    with pytest.raises(RuntimeError, match="floating-point dtypes, X1 got: Long"):
        numgrad.cdist(numgrad.ones(3, 2, dtype=numgrad.int64), numgrad.ones(3, 2))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        numgrad.cdist(numgrad.ones(3, 2), numgrad.ones(3, 2, dtype=numgrad.float64))
    with pytest.raises(ValueError, match="not a valid value for compute_mode"):
        numgrad.cdist(numgrad.ones(3, 2), numgrad.ones(3, 2), compute_mode="fast")


# ------------------------------------------------------------------------------ parameter containers
def test_parameter_list_registration_and_repr():
    nn = numgrad.nn
    pl = nn.ParameterList([nn.Parameter(numgrad.ones(2, 3)), numgrad.ones(2)])
    pl.append("tag")
    assert len(pl) == 3 and isinstance(pl[1], nn.Parameter) and pl[-1] == "tag"
    assert list(pl.state_dict()) == ["0", "1"]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    assert isinstance(pl[:2], nn.ParameterList) and len(pl[:2]) == 2
    pl[0] = numgrad.zeros(1)
    assert isinstance(pl[0], nn.Parameter) and pl[0].shape == (1,)
    pl += [numgrad.ones(4)]
    assert len(list(pl.parameters())) == 3
    with pytest.raises(IndexError):
        pl[7]
    with pytest.raises(TypeError, match="should be called with an iterable"):
        pl.extend(5)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([nn.Parameter(numgrad.ones(1)) for _ in range(2)])

    assert [n for n, _ in Net().named_parameters()] == ["ps.0", "ps.1"]
    if torch is not None:
        ref = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2, 3)), torch.ones(2)])
        ref.append("tag")
        ours = nn.ParameterList([nn.Parameter(numgrad.ones(2, 3)), numgrad.ones(2)])
        ours.append("tag")
        assert repr(ours) == repr(ref).replace("torch.float32", "numgrad.float32")
        assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList())


def test_parameter_dict_registration_and_repr():
    nn = numgrad.nn
    pd = nn.ParameterDict({"w": nn.Parameter(numgrad.ones(2)), "b": numgrad.zeros(3, dtype=numgrad.float64)})
    assert list(pd) == ["b", "w"]  # a plain dict is added in sorted key order
    assert list(pd.state_dict()) == ["b", "w"]
    assert isinstance(pd["b"], nn.Parameter) and "w" in pd and len(pd) == 2
    pd["c"] = numgrad.ones(1)
    assert [k for k, _ in pd.named_parameters()] == ["b", "w", "c"]
    assert pd.pop("w").shape == (2,) and "w" not in pd and len(list(pd.parameters())) == 2
    assert pd.get("zz") is None and pd.setdefault("d", numgrad.ones(5)).shape == (5,)
    pd.update([("e", numgrad.ones(1))])
    assert list(pd.keys()) == ["b", "c", "d", "e"]
    assert list((pd | {"f": numgrad.ones(1)}).keys())[-1] == "f"
    with pytest.raises(TypeError, match="not a string"):
        pd[1]
    pd.clear()
    assert len(pd) == 0 and not list(pd.parameters())
    if torch is not None:
        ref = torch.nn.ParameterDict({"w": torch.nn.Parameter(torch.ones(2)),
                                      "b": torch.zeros(3, dtype=torch.float64)})
        ours = nn.ParameterDict({"w": nn.Parameter(numgrad.ones(2)),
                                 "b": numgrad.zeros(3, dtype=numgrad.float64)})
        assert repr(ours) == repr(ref)
        assert repr(nn.ParameterDict()) == repr(torch.nn.ParameterDict())


def test_version_module_reports_no_compiled_toolkits():
    import numgrad.version
    assert numgrad.version.__version__ == numgrad.__version__
    assert numgrad.version.cuda is None and numgrad.version.hip is None and numgrad.version.debug is False
