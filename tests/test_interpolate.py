"""interpolate against PyTorch: every mode's values, gradients and node names, PyTorch's source
index rules for scale factors, non-contiguous and empty inputs, higher derivatives, forward mode,
errors, the deprecated aliases and the Upsample layers."""
import os
import warnings

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
import numgrad.nn.functional as F  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# (shape, mode): every mode at its ranks.
MODES = [((2, 3, 5), "nearest"), ((2, 2, 5, 4), "nearest"), ((1, 2, 3, 4, 5), "nearest"),
         ((2, 3, 5), "nearest-exact"), ((2, 2, 5, 4), "nearest-exact"), ((1, 2, 3, 4, 5), "nearest-exact"),
         ((2, 3, 5), "linear"), ((2, 2, 5, 4), "bilinear"), ((2, 2, 5, 4), "bicubic"),
         ((1, 2, 3, 4, 5), "trilinear"), ((2, 3, 7), "area"), ((2, 2, 7, 5), "area"), ((1, 2, 7, 4, 5), "area")]
# Sizes and scale factors: up, down, odd ratios, per-dim factors, recomputed factors.
RESIZES = [dict(scale_factor=2), dict(scale_factor=1.7), dict(scale_factor=0.6), dict(size=7), dict(size=3),
           dict(scale_factor=2.3, recompute_scale_factor=True), dict(scale_factor=(1.5, 2.5, 0.7))]
INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def _both(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _resize(kwargs, k):
    kwargs = dict(kwargs)
    if isinstance(kwargs.get("scale_factor"), tuple):
        kwargs["scale_factor"] = kwargs["scale_factor"][:k]
    return kwargs


def _check(x, xt, kwargs, dtype):
    y, yt = F.interpolate(x, **kwargs), TF.interpolate(xt, **kwargs)
    assert tuple(y.shape) == tuple(yt.shape) and y.dtype.name == dtype
    assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **tol)
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape)).astype(dtype)
    y.backward(numgrad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,mode", MODES)
def test_values_and_gradients_match_pytorch(shape, mode, dtype):
    for resize in RESIZES:
        for align_corners in ((False, True) if mode in INTERPOLATING else (None,)):
            x, xt = _both(shape, dtype)
            _check(x, xt, dict(_resize(resize, len(shape) - 2), mode=mode, align_corners=align_corners), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialias_matches_pytorch(mode, dtype):
    for resize in (dict(size=(3, 2)), dict(size=(9, 4)), dict(scale_factor=0.45), dict(scale_factor=(0.3, 1.6))):
        for align_corners in (False, True):
            x, xt = _both((2, 2, 11, 7), dtype)
            _check(x, xt, dict(resize, mode=mode, align_corners=align_corners, antialias=True), dtype)
    x = numgrad.tensor(np.random.default_rng(0).standard_normal((1, 1, 5, 4)), requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda t: F.interpolate(t, size=(2, 3), mode=mode, antialias=True), (x,))


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_non_contiguous_and_empty_batch(mode):
    a = np.random.default_rng(0).standard_normal((2, 3, 6, 5)).astype("float32")
    x = numgrad.tensor(a).transpose(2, 3).requires_grad_()
    xt = torch.tensor(a).transpose(2, 3).requires_grad_()
    assert not x.is_contiguous()
    y, yt = F.interpolate(x, size=(4, 9), mode=mode), TF.interpolate(xt, size=(4, 9), mode=mode)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    empty = F.interpolate(numgrad.zeros(0, 3, 4, 4), scale_factor=2, mode=mode)
    assert tuple(empty.shape) == (0, 3, 8, 8)


def test_scale_factor_sets_source_positions_unless_recomputed():
    # 5 * 1.7 rounds down to 8 outputs; PyTorch places them with 1 / 1.7, not 5 / 8.
    x, xt = _both((1, 1, 5), "float64")
    for mode in ("nearest", "linear"):
        for recompute in (None, True):
            kwargs = dict(scale_factor=1.7, mode=mode, recompute_scale_factor=recompute)
            np.testing.assert_allclose(F.interpolate(x, **kwargs).detach().numpy(),
                                       TF.interpolate(xt, **kwargs).detach().numpy(), rtol=1e-12)
    assert not np.allclose(F.interpolate(x, scale_factor=1.7, mode="linear").detach().numpy(),
                           F.interpolate(x, size=8, mode="linear").detach().numpy())


def test_uint8_nearest():
    a = np.arange(24, dtype=np.uint8).reshape(1, 2, 3, 4)
    for mode in ("nearest", "nearest-exact"):
        y = F.interpolate(numgrad.tensor(a), scale_factor=(1.5, 2), mode=mode)
        assert y.dtype is numgrad.uint8
        np.testing.assert_array_equal(y.numpy(), TF.interpolate(torch.tensor(a), scale_factor=(1.5, 2),
                                                                mode=mode).numpy())


@pytest.mark.parametrize("shape,mode", [((1, 2, 3), "linear"), ((1, 1, 3, 2), "bilinear"), ((1, 1, 3, 2), "bicubic"),
                                        ((1, 1, 2, 2, 3), "trilinear"), ((1, 2, 3, 2), "nearest"),
                                        ((1, 1, 5, 3), "nearest-exact"), ((1, 1, 2, 5, 3), "area")])
def test_gradcheck_and_gradgradcheck(shape, mode):
    x = numgrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    kwargs = dict(size=(4,) * (len(shape) - 2), mode=mode)
    assert numgrad.autograd.gradcheck(lambda t: F.interpolate(t, **kwargs), (x,))
    assert numgrad.autograd.gradgradcheck(lambda t: F.interpolate(t, **kwargs), (x,))


def test_forward_mode_matches_backward():
    import numgrad.autograd.forward_ad as fwAD
    a = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    t = np.random.default_rng(1).standard_normal((1, 2, 3, 4))
    with fwAD.dual_level():
        y = F.interpolate(fwAD.make_dual(numgrad.tensor(a), numgrad.tensor(t)), size=(5, 6), mode="bicubic")
        tangent = fwAD.unpack_dual(y).tangent
    expected = F.interpolate(numgrad.tensor(t), size=(5, 6), mode="bicubic")
    np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=1e-12)


def _raises_like_torch(call, match=None):
    with pytest.raises(Exception) as theirs:
        call(TF, torch.zeros)
    with pytest.raises(type(theirs.value), match=match):
        call(F, numgrad.zeros)


def test_errors_match_pytorch():
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=2, align_corners=True), "align_corners")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=2, scale_factor=2), "only one of")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4)), "either size or scale_factor")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=(2, 2, 2)), "same number of spatial")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), scale_factor=(2,)), "same number of spatial")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=(2.0, 2)), "expected size")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=2, recompute_scale_factor=True),
                       "not meaningful")
    _raises_like_torch(lambda f, z: f.interpolate(z(4, 4), size=2), "Only 3D, 4D and 5D")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 4, 4), size=2, mode="bilinear"), "needs 4D input")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=2, mode="cubic"), "Only 3D")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), scale_factor=0.1),
                       r"sizes should be greater than 0, but got input \(H: 4, W: 4\) output \(H: 0, W: 0\)")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 0, 4, 4), size=2, mode="bilinear"), "Non-empty 4D")
    _raises_like_torch(lambda f, z: f.interpolate(z(1, 1, 4, 4), size=2, mode="nearest", antialias=True),
                       "Anti-alias")
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.interpolate(numgrad.zeros(1, 1, 4, 4, dtype=numgrad.int64), size=2, mode="bilinear")


def test_deprecated_aliases_warn_and_resize():
    x, xt = _both((1, 2, 3, 4), "float32")
    for name, kwargs in (("upsample", dict(scale_factor=2, mode="bilinear")), ("upsample_nearest", dict(size=5)),
                         ("upsample_bilinear", dict(scale_factor=2))):
        with pytest.warns(UserWarning, match=f"nn.functional.{name}` is deprecated"):
            y = getattr(F, name)(x, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yt = getattr(TF, name)(xt, **kwargs)
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_upsample_layers():
    x, xt = _both((1, 2, 3, 4), "float32")
    for make in (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), lambda nn: nn.Upsample(size=(5, 7)),
                 lambda nn: nn.UpsamplingNearest2d(scale_factor=(2, 3)), lambda nn: nn.UpsamplingBilinear2d(size=6),
                 lambda nn: nn.Upsample(scale_factor=1.5, mode="bicubic", align_corners=True,
                                        recompute_scale_factor=True)):
        layer, reference = make(numgrad.nn), make(torch.nn)
        assert repr(layer) == repr(reference)
        assert layer.state_dict() == {}
        np.testing.assert_allclose(layer(x).detach().numpy(), reference(xt).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_cuda_runs_on_host_copies():
    if not numgrad.cuda.is_available():
        pytest.skip("numba.cuda is not available")
    a = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype("float32")
    x = numgrad.tensor(a, device="cuda", requires_grad=True)
    y = F.interpolate(x, scale_factor=2, mode="bilinear")
    assert y.device.type == "cuda"
    y.sum().backward()
    assert x.grad.device.type == "cuda"
    xt = torch.tensor(a, requires_grad=True)
    TF.interpolate(xt, scale_factor=2, mode="bilinear").sum().backward()
    np.testing.assert_allclose(x.grad.to("cpu").numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
