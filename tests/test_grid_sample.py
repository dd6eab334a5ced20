"""grid_sample and affine_grid against PyTorch: every mode and padding mode in 2-D and 3-D,
gradients with respect to the input and the grid, non-contiguous and empty inputs, gradcheck,
node names, warnings and errors."""
import os
import warnings

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
import numgrad.nn.functional as F  # noqa: E402

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape, dtype, rng, low=None, high=None):
    a = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
    a = a.astype(dtype)
    return numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _grid(shape, dtype, rng):
    a = rng.uniform(-1.3, 1.3, shape)
    # Points on the corners and the centre, where clipping and reflection have their kinks.
    a.reshape(-1, shape[-1])[:3] = [[-1] * shape[-1], [1] * shape[-1], [0] * shape[-1]]
    a = a.astype(dtype)
    return numgrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(a, b, dtype):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode,padding_mode", [(m, p) for m in ("bilinear", "nearest", "bicubic")
                                               for p in ("zeros", "border", "reflection")])
def test_grid_sample_matches_pytorch(mode, padding_mode, dtype):
    rng = np.random.default_rng(0)
    shapes = [((2, 3, 5, 4), (2, 3, 6, 2))]
    if mode != "bicubic":
        shapes.append(((2, 2, 3, 5, 4), (2, 3, 2, 4, 3)))
    for x_shape, grid_shape in shapes:
        for align_corners in (False, True):
            x, xt = _pair(x_shape, dtype, rng)
            grid, gridt = _grid(grid_shape, dtype, rng)
            y = F.grid_sample(x, grid, mode, padding_mode, align_corners)
            yt = TF.grid_sample(xt, gridt, mode, padding_mode, align_corners)
            assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
            _close(y, yt, dtype)
            g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
            y.backward(numgrad.tensor(g))
            yt.backward(torch.tensor(g))
            _close(x.grad, xt.grad, dtype)
            _close(grid.grad, gridt.grad, dtype)


def test_grid_sample_non_contiguous_and_empty():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    b = rng.uniform(-1, 1, (2, 2, 3, 6)).astype("float32")
    x, xt = numgrad.tensor(a).transpose(2, 3), torch.tensor(a).transpose(2, 3)
    grid, gridt = numgrad.tensor(b).permute(0, 2, 3, 1)[:, :, ::2], torch.tensor(b).permute(0, 2, 3, 1)[:, :, ::2]
    assert not x.is_contiguous() and not grid.is_contiguous()
    _close(F.grid_sample(x, grid, align_corners=False), TF.grid_sample(xt, gridt, align_corners=False), "float32")
    out = F.grid_sample(numgrad.zeros(0, 3, 4, 4), numgrad.zeros(0, 2, 2, 2), align_corners=False)
    assert tuple(out.shape) == (0, 3, 2, 2)
    out = F.grid_sample(numgrad.zeros(2, 3, 4, 4), numgrad.zeros(2, 0, 2, 2), align_corners=False)
    assert tuple(out.shape) == (2, 3, 0, 2)


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "reflection"),
                                               ("bicubic", "border"), ("nearest", "zeros")])
def test_grid_sample_gradcheck(mode, padding_mode):
    rng = np.random.default_rng(0)
    x = numgrad.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    grid = numgrad.tensor(rng.uniform(-1.2, 1.2, (1, 2, 2, 2)), requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, mode, padding_mode, False), (x, grid))


def test_grid_sample_3d_gradcheck():
    rng = np.random.default_rng(0)
    x = numgrad.tensor(rng.standard_normal((1, 1, 2, 3, 2)), requires_grad=True)
    grid = numgrad.tensor(rng.uniform(-1.2, 1.2, (1, 2, 1, 2, 3)), requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, "bilinear", "border", True), (x, grid))


def test_grid_sample_forward_mode_and_second_derivative():
    import numgrad.autograd.forward_ad as fwAD
    rng = np.random.default_rng(0)
    x, grid = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1, 1, (1, 2, 3, 2))
    tx, tgrid = rng.standard_normal((1, 2, 3, 4)), rng.standard_normal((1, 2, 3, 2))
    with fwAD.dual_level():
        y = F.grid_sample(fwAD.make_dual(numgrad.tensor(x), numgrad.tensor(tx)),
                          fwAD.make_dual(numgrad.tensor(grid), numgrad.tensor(tgrid)), align_corners=False)
        tangent = fwAD.unpack_dual(y).tangent
    # PyTorch has no forward mode for grid_sample: compare with a central difference of its forward.
    eps = 1e-6
    plus = TF.grid_sample(torch.tensor(x + eps * tx), torch.tensor(grid + eps * tgrid), align_corners=False)
    minus = TF.grid_sample(torch.tensor(x - eps * tx), torch.tensor(grid - eps * tgrid), align_corners=False)
    np.testing.assert_allclose(tangent.numpy(), ((plus - minus) / (2 * eps)).numpy(), rtol=1e-6, atol=1e-7)
    xs, grids = numgrad.tensor(x, requires_grad=True), numgrad.tensor(grid, requires_grad=True)
    gx, ggrid = numgrad.autograd.grad(F.grid_sample(xs, grids, align_corners=False).sum(), (xs, grids),
                                      create_graph=True)
    with pytest.raises(NotImplementedError, match="second derivatives stop there"):
        numgrad.autograd.grad(ggrid.sum(), (xs, grids))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_second_derivatives_through_the_input(mode):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.2, 1.2, (1, 2, 3, 2))
    grid = numgrad.tensor(b)
    x = numgrad.tensor(a, requires_grad=True)
    assert numgrad.autograd.gradgradcheck(lambda t: F.grid_sample(t, grid, mode, "reflection", False), (x,))
    # The grid's part of a second pass through the input's cotangent, against PyTorch's.
    v, w = rng.standard_normal((1, 2, 2, 3)), rng.standard_normal((1, 2, 3, 4))
    grid.requires_grad_()
    xt, gridt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    gx, = numgrad.autograd.grad((F.grid_sample(x, grid, mode, align_corners=False) * numgrad.tensor(v)).sum(), (x,),
                                create_graph=True)
    gxt, = torch.autograd.grad((TF.grid_sample(xt, gridt, mode, align_corners=False) * torch.tensor(v)).sum(), (xt,),
                               create_graph=True)
    _close(numgrad.autograd.grad((gx * numgrad.tensor(w)).sum(), (grid,))[0],
           torch.autograd.grad((gxt * torch.tensor(w)).sum(), (gridt,))[0], "float64")


def test_grid_sample_nearest_grid_gradient_is_zero():
    x = numgrad.ones(1, 1, 3, 3, requires_grad=True)
    grid = numgrad.zeros(1, 2, 2, 2, requires_grad=True)
    F.grid_sample(x, grid, mode="nearest", align_corners=False).sum().backward()
    np.testing.assert_array_equal(grid.grad.numpy(), np.zeros((1, 2, 2, 2)))


def _raises_like_torch(call, match=None):
    with pytest.raises(Exception) as theirs:
        call(TF, torch)
    with pytest.raises(type(theirs.value), match=match):
        call(F, numgrad)


def test_grid_sample_errors_and_warning():
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 2, 2, 2), mode="area"),
                       "expected mode")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 2, 2, 2), padding_mode="wrap"),
                       "expected padding_mode")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(2, 2, 2, 2), align_corners=False),
                       "same batch size")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 2, 2, 3), align_corners=False),
                       "size 2 in last dimension")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 1, 2, 2), t.zeros(1, 1, 2, 2, 3), mode="bicubic",
                                                  align_corners=False), "bicubic interpolation only supports 4D")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 0, 2), t.zeros(1, 2, 2, 2), align_corners=False),
                       "non-empty spatial")
    _raises_like_torch(lambda f, t: f.grid_sample(t.zeros(1, 1, 2, 2), t.zeros(1, 2, 2, 2, dtype=t.float64),
                                                  align_corners=False), "expected scalar type Float")
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(numgrad.zeros(1, 1, 2, 2), numgrad.zeros(1, 2, 2, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 2, 3, 4, 5)])
def test_affine_grid_matches_pytorch(size, dtype):
    rng = np.random.default_rng(0)
    k = len(size) - 2
    for align_corners in (False, True):
        theta, thetat = _pair((size[0], k, k + 1), dtype, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y, yt = F.affine_grid(theta, size, align_corners), TF.affine_grid(thetat, size, align_corners)
        assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__ == "AffineGridGeneratorBackward0"
        _close(y, yt, dtype)
        g = rng.standard_normal(tuple(yt.shape)).astype(dtype)
        y.backward(numgrad.tensor(g))
        yt.backward(torch.tensor(g))
        _close(theta.grad, thetat.grad, dtype)


def test_affine_grid_gradcheck_and_non_contiguous():
    rng = np.random.default_rng(0)
    theta = numgrad.tensor(rng.standard_normal((2, 3, 2)), requires_grad=True)
    assert numgrad.autograd.gradcheck(lambda t: F.affine_grid(t.transpose(1, 2), (2, 1, 3, 2), False), (theta,))
    assert numgrad.autograd.gradgradcheck(lambda t: F.affine_grid(t.transpose(1, 2), (2, 1, 3, 2), False), (theta,))


def test_affine_grid_errors_and_warnings():
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(1, 2, 3, dtype=t.int64), (1, 1, 2, 2), False),
                       "floating point")
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(1, 3, 4), (1, 1, 2, 2), False), "Nx2x3")
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(1, 2, 3), (1, 1, 2, 2, 2), False), "Nx3x4")
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(1, 2, 3), (1, 1, 2), False), "only supports 4D and 5D")
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(1, 2, 3), (1, 1, 0, 2), False), "non-zero, positive")
    _raises_like_torch(lambda f, t: f.affine_grid(t.zeros(2, 2, 3), (3, 1, 2, 2), False), "batch2")
    with pytest.warns(UserWarning, match="unit-size grids"):
        F.affine_grid(numgrad.zeros(1, 2, 3), (1, 1, 1, 2), True)


def test_cuda_runs_on_host_copies():
    if not numgrad.cuda.is_available():
        pytest.skip("numba.cuda is not available")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((1, 2, 3, 4)).astype("float32"), rng.uniform(-1, 1, (1, 2, 2, 2)).astype("float32")
    x = numgrad.tensor(a, device="cuda", requires_grad=True)
    grid = numgrad.tensor(b, device="cuda", requires_grad=True)
    y = F.grid_sample(x, grid, align_corners=False)
    assert y.device.type == "cuda"
    y.sum().backward()
    assert x.grad.device.type == "cuda" and grid.grad.device.type == "cuda"
    xt, gridt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    TF.grid_sample(xt, gridt, align_corners=False).sum().backward()
    np.testing.assert_allclose(grid.grad.to("cpu").numpy(), gridt.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflection"])
def test_grid_sample_one_cotangent_matches_both(padding_mode):
    # Both cotangents come from one fused kernel; each alone from its own rule: they must agree.
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    b = rng.uniform(-1.2, 1.2, (2, 4, 6, 2)).astype(np.float32)
    g = numgrad.tensor(rng.standard_normal((2, 3, 4, 6)).astype(np.float32))
    grads = {}
    for wants in ((True, True), (True, False), (False, True)):
        x, grid = numgrad.tensor(a, requires_grad=wants[0]), numgrad.tensor(b, requires_grad=wants[1])
        F.grid_sample(x, grid, padding_mode=padding_mode, align_corners=False).backward(g)
        grads[wants] = (x.grad, grid.grad)
    np.testing.assert_allclose(grads[True, True][0].numpy(), grads[True, False][0].numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(grads[True, True][1].numpy(), grads[False, True][1].numpy(), rtol=1e-6, atol=1e-6)
