"""Elementwise math and reductions at their edges (infinities, NaN, signed zeros, huge or tiny
operands, integer overflow), compared with PyTorch."""
import math
import os

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import numgrad  # noqa: E402
import numgrad.nn.functional as F  # noqa: E402

FLOATS = ["float16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
SIGNED = ["int8", "int16", "int32", "int64"]
nan, inf = math.nan, math.inf


def _torch():
    return pytest.importorskip("torch")


def _same_with_gradients(got, want, a, b):
    """Equal results, then equal gradients of their sums with respect to ``a`` and ``b``."""
    _same(got, want)
    got.sum().backward()
    want.sum().backward()
    _same(a.grad, b.grad)


def _same(got, want):
    """Equal values, NaN where NaN, and zeros of the same sign."""
    got = got.detach().numpy() if hasattr(got, "_storage") else np.asarray(got)
    want = want.detach().numpy()
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    if got.dtype.kind == "f":
        # The sign of a NaN is nobody's contract.
        np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got), np.signbit(want) & ~np.isnan(want))


def _pair(torch, values, dtype, requires_grad=False):
    a = numgrad.tensor(values, dtype=getattr(numgrad, dtype), requires_grad=requires_grad)
    b = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    return a, b


# ------------------------------------------------------------------------------------- relu
RELU_VALUES = [-inf, inf, nan, -2.5, -0.0, 0.0, 3.0]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("form", ["relu", "inplace", "relu_", "module"])
def test_relu_at_infinities_nan_and_signed_zero(dtype, form):
    torch = _torch()
    calls = {"relu": lambda m, x: m.nn.functional.relu(x),
             "inplace": lambda m, x: m.nn.functional.relu(x * 1, inplace=True),
             "relu_": lambda m, x: (x * 1).relu_(),
             "module": lambda m, x: m.nn.ReLU()(x)}
    a, b = _pair(torch, RELU_VALUES, dtype, requires_grad=True)
    ya, yb = calls[form](numgrad, a), calls[form](torch, b)
    _same_with_gradients(ya, yb, a, b)


def test_relu_of_integers():
    torch = _torch()
    for dtype in SIGNED:
        _same(F.relu(numgrad.tensor([-3, 0, 5], dtype=getattr(numgrad, dtype))),
              torch.relu(torch.tensor([-3, 0, 5], dtype=getattr(torch, dtype))))


# ---------------------------------------------------------------------- fmod / remainder / //
def _magnitudes():
    rng = np.random.default_rng(0)
    mags = [1e-30, 1e-8, 0.1, 1.0, 3.0, 1e4, 1e8, 1e17, 1e30]
    x = [s * m for m in mags for s in (1, -1)] + [0.0, -0.0, inf, -inf, nan, 2.5, -2.5, 7.0, -7.0]
    x += list(rng.standard_normal(20) * 10.0 ** rng.integers(-5, 10, 20))
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide", "div_floor", "div_trunc"])
def test_float_division_family_over_magnitudes(dtype, name):
    torch = _torch()
    values = _magnitudes()
    xs = [x for x in values for _ in values]
    ys = [y for _ in values for y in values]
    calls = {"fmod": lambda m, x, y: m.fmod(x, y), "remainder": lambda m, x, y: m.remainder(x, y),
             "floor_divide": lambda m, x, y: m.floor_divide(x, y),
             "div_floor": lambda m, x, y: m.div(x, y, rounding_mode="floor"),
             "div_trunc": lambda m, x, y: m.div(x, y, rounding_mode="trunc")}
    a, b = _pair(torch, xs, dtype)
    c, d = _pair(torch, ys, dtype)
    got, want = calls[name](numgrad, a, c), calls[name](torch, b, d)
    if name in ("fmod", "remainder") and dtype == "float32":
        # PyTorch's vectorized float32 fmod goes through x / y and gives NaN where that
        # overflows; the remainder itself is exact and finite there, as NumPy's is.
        x, y = b.numpy(), d.numpy()
        with np.errstate(all="ignore"):
            over = np.isfinite(x) & np.isfinite(y) & (y != 0) & ~np.isfinite(x / y)
            exact = np.fmod(x, y) if name == "fmod" else np.remainder(x, y)
        assert over.any()
        np.testing.assert_array_equal(got.numpy()[over], exact[over])
        want = torch.where(torch.from_numpy(over), torch.from_numpy(got.numpy()), want)
    _same(got, want)
    # A Python-scalar divisor takes the same kernel.
    _same(calls[name](numgrad, a, 1e8), calls[name](torch, b, 1e8))


def test_fmod_keeps_small_dividends():
    torch = _torch()
    _same(numgrad.fmod(numgrad.tensor([-1.0, -2.5]), 1e8), torch.fmod(torch.tensor([-1.0, -2.5]), 1e8))
    x = numgrad.tensor([-1.0], dtype=numgrad.float64)
    assert numgrad.fmod(x, 1e17).item() == -1.0
    assert numgrad.fmod(numgrad.tensor([-5.5]), inf).item() == -5.5


@pytest.mark.parametrize("dtype", ["float16"])
def test_half_division_family(dtype):
    torch = _torch()
    a, b = _pair(torch, [-1.0, 5.5, -5.5, 1000.0, 0.0, 7.0], dtype)
    c, d = _pair(torch, [1000.0, 2.0, -2.0, 3.0, -1.0, 0.1], dtype)
    for fn in ("fmod", "remainder", "floor_divide"):
        _same(getattr(numgrad, fn)(a, c), getattr(torch, fn)(b, d))
    _same(numgrad.div(a, c, rounding_mode="trunc"), torch.div(b, d, rounding_mode="trunc"))


# ------------------------------------------------------------------------- max / min with NaN
_NAN_ROWS = [[1.0, nan, 3.0, nan], [2.0, 5.0, 5.0, 0.0]]
_REDUCTIONS = {
    "max": lambda x: x.max(), "min": lambda x: x.min(), "max_row": lambda x: x[0].max(),
    "median": lambda x: x.median(), "max_dim": lambda x: x.max(1)[0], "min_dim": lambda x: x.min(1)[0],
    "amax": lambda x: x.amax(), "amax_dim": lambda x: x.amax(1), "amin_dim": lambda x: x.amin(1),
    "maximum": lambda x: x.maximum(x * 2), "minimum": lambda x: x.minimum(x * 2),
    "max_other": lambda x: x.max(x.flip(1)),
}


@pytest.mark.parametrize("name", sorted(_REDUCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_gradients_with_nan(name, dtype):
    torch = _torch()
    a, b = _pair(torch, _NAN_ROWS, dtype, requires_grad=True)
    ra, rb = _REDUCTIONS[name](a), _REDUCTIONS[name](b)
    _same_with_gradients(ra, rb, a, b)


def test_full_max_node_and_ties():
    torch = _torch()
    a, b = _pair(torch, [3.0, 1.0, 3.0], "float32", requires_grad=True)
    ra, rb = a.max(), b.max()
    assert type(ra.grad_fn).__name__ == type(rb.grad_fn).__name__ == "MaxBackward1"
    ra.backward(numgrad.tensor(inf))
    rb.backward(torch.tensor(inf))
    _same(a.grad, b.grad)  # the others get exactly 0, not inf * 0


# ------------------------------------------------------------------------ rounding divisions
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_rounding_div_has_zero_gradient(mode):
    torch = _torch()
    values_x, values_y = [1.0, 2.0, -3.0, inf, 5.0], [0.0, 0.5, 2.0, 1.0, nan]
    a, b = _pair(torch, values_x, "float64", requires_grad=True)
    c, d = _pair(torch, values_y, "float64", requires_grad=True)
    ra, rb = numgrad.div(a, c, rounding_mode=mode), torch.div(b, d, rounding_mode=mode)
    _same(ra, rb)
    assert type(ra.grad_fn).__name__ == type(rb.grad_fn).__name__
    ga = numgrad.autograd.grad(ra.sum(), [a, c])
    gb = torch.autograd.grad(rb.sum(), [b, d])
    for x, y in zip(ga, gb):
        _same(x, y)
    # With a Python scalar on either side, and in place.
    ga = numgrad.autograd.grad(numgrad.div(a, 2.0, rounding_mode=mode).sum(), [a])[0]
    _same(ga, torch.zeros(5, dtype=torch.float64))
    x = a * 1
    x.div_(c, rounding_mode=mode)
    _same(numgrad.autograd.grad(x.sum(), [c])[0], torch.zeros(5, dtype=torch.float64))


def test_rounding_div_forward_ad_is_zero():
    fwad = numgrad.autograd.forward_ad
    with fwad.dual_level():
        d = fwad.make_dual(numgrad.tensor([1.0, 2.0]), numgrad.tensor([1.0, 1.0]))
        for mode in ("floor", "trunc"):
            assert fwad.unpack_dual(numgrad.div(d, 3.0, rounding_mode=mode)).tangent.tolist() == [0.0, 0.0]
        with pytest.raises(NotImplementedError,
                           match="Trying to use forward AD with aten::floor_divide that does not support it."):
            numgrad.floor_divide(d, 3.0)


@pytest.mark.parametrize("call", [lambda m, a: m.floor_divide(a, m.tensor([0.0, 2.0, 3.0])),
                                  lambda m, a: a // 2, lambda m, a: 3 // a,
                                  lambda m, a: (a * 1).floor_divide_(2.0)])
def test_floor_divide_backward_raises(call):
    torch = _torch()
    a, b = _pair(torch, [1.0, 2.0, -3.0], "float32", requires_grad=True)
    ra, rb = call(numgrad, a), call(torch, b)
    _same(ra, rb)
    assert ra.requires_grad and type(ra.grad_fn).__name__ == type(rb.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide"):
        rb.sum().backward()
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        ra.sum().backward()


def test_remainder_second_derivative_is_zero():
    torch = _torch()
    a, b = _pair(torch, [5.5, -3.2], "float64", requires_grad=True)
    c, d = _pair(torch, [2.0, 1.5], "float64", requires_grad=True)
    gy = numgrad.autograd.grad(numgrad.remainder(a, c).sum(), [a, c], create_graph=True)[1]
    ty = torch.autograd.grad(torch.remainder(b, d).sum(), [b, d], create_graph=True)[1]
    _same(gy, ty)
    for x, y in zip(numgrad.autograd.grad(gy.sum(), [a, c]), torch.autograd.grad(ty.sum(), [b, d])):
        _same(x, y)


def test_rounding_div_out_refuses_grad():
    a = numgrad.tensor([1.0, 2.0], requires_grad=True)
    for mode in ("floor", "trunc"):
        with pytest.raises(RuntimeError, match=r"^div\(\): functions with out=\.\.\. arguments"):
            numgrad.div(a, 2.0, rounding_mode=mode, out=numgrad.empty(2))


# ------------------------------------------------------------------------------ integer ops
@pytest.mark.parametrize("dtype", INTS)
def test_shifts_past_the_width(dtype):
    torch = _torch()
    info = torch.iinfo(getattr(torch, dtype))
    values = [1, -1, -8, 5, info.max, info.min]
    a, b = _pair(torch, [v for v in values if info.min <= v <= info.max], dtype)
    counts = [0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 100, 127]
    if dtype != "uint8":
        counts += [-1, -2, -64, -70]
    for s in counts:
        if not info.min <= s <= info.max:
            continue
        for form in (lambda m, k: k, lambda m, k: m.tensor(k, dtype=getattr(m, dtype))):
            _same(a << form(numgrad, s), b << form(torch, s))
            _same(a >> form(numgrad, s), b >> form(torch, s))
    # A wider shift count promotes the computation, and its width.
    _same(numgrad.bitwise_left_shift(a, numgrad.tensor([40])), torch.bitwise_left_shift(b, torch.tensor([40])))


@pytest.mark.parametrize("dtype", SIGNED)
def test_integer_division_by_minus_one_wraps(dtype):
    torch = _torch()
    info = torch.iinfo(getattr(torch, dtype))
    a, b = _pair(torch, [info.min, info.min + 1, 5, -7, 7, 0], dtype)
    c, d = _pair(torch, [-1, -1, -1, 2, -2, -1], dtype)
    _same(numgrad.floor_divide(a, c), torch.floor_divide(b, d))
    _same(a // -1, b // -1)
    _same(numgrad.div(a, c, rounding_mode="floor"), torch.div(b, d, rounding_mode="floor"))
    _same(numgrad.remainder(a, c), torch.remainder(b, d))
    _same(numgrad.fmod(a, c), torch.fmod(b, d))
    _same(numgrad.remainder(a, -1), torch.remainder(b, -1))
    _same(numgrad.fmod(a, -1), torch.fmod(b, -1))
    # PyTorch's trunc division of INT_MIN by -1 traps for int32 and int64 (SIGFPE); it wraps,
    # as its floor division does.
    assert numgrad.div(a, c, rounding_mode="trunc").tolist() == [info.min, info.max, -5, -3, -3, 0]


# ------------------------------------------------------------------------------------ digamma
# Just above a negative integer PyTorch's float64 reflection loses digits (digamma(-1 + 1e-10) is
# 6e-7 off), so those points are checked against reference values instead.
DIGAMMA_POINTS = [-1e-30, -1e-20, -1e-10, -1e-5, -0.1, -0.5, -1.5, -2.5, -10.3, -1 - 1e-10,
                  1e-30, 1e-10, 0.5, 1.0, 0.0, -0.0, -1.0, -2.0, -3.0, -1e20]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_digamma_near_zero_and_negative_integers(dtype):
    torch = _torch()
    a, b = _pair(torch, DIGAMMA_POINTS, dtype, requires_grad=True)
    got, want = numgrad.digamma(a), torch.digamma(b)
    # PyTorch's own float32 reflection is good to ~1e-6 only.
    rtol = 1e-5 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol)
    assert got[0].item() == pytest.approx(1e30, rel=1e-6)
    # The gradient (trigamma) near 0: 1 / x**2 dominates.
    got.sum().backward()
    want.sum().backward()
    near = slice(0, 5)
    np.testing.assert_allclose(a.grad.numpy()[near], b.grad.numpy()[near], rtol=rtol)


def test_digamma_just_above_negative_integers():
    # mpmath.digamma at these float64 points.
    x = numgrad.tensor([-0.9999999, -0.9999999999, -2.9999999], dtype=numgrad.float64)
    want = [-9999999.582478958888862, -9999999172.173574133417570, -9999998.760247819714681]
    np.testing.assert_allclose(numgrad.digamma(x).numpy(), want, rtol=1e-12)


def test_polygamma_near_zero_from_below():
    torch = _torch()
    x = [-1e-30, -1e-10, -1e-3, -0.3, -0.49]
    for n in (1, 2, 3):
        a, b = _pair(torch, x, "float64")
        np.testing.assert_allclose(numgrad.polygamma(n, a).numpy(), torch.polygamma(n, b).numpy(), rtol=1e-8)


# ---------------------------------------------------------------------------------- threshold
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("dtype", FLOATS)
def test_threshold_passes_nan(inplace, dtype):
    torch = _torch()
    a, b = _pair(torch, [nan, 0.2, 0.5, 1.0, -inf, inf], dtype, requires_grad=True)
    ra = F.threshold(a * 1, 0.5, 2.0, inplace)
    rb = torch.nn.functional.threshold(b * 1, 0.5, 2.0, inplace)
    _same_with_gradients(ra, rb, a, b)
    # A NaN threshold replaces nothing.
    _same(F.threshold(a.detach(), nan, 2.0), torch.nn.functional.threshold(b.detach(), nan, 2.0))


@pytest.mark.parametrize("size", [0, 2])
def test_threshold_checks_an_integer_value_without_elements(size):
    # PyTorch converts the value to the tensor's dtype before looking at the elements.
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        F.threshold(numgrad.zeros(size, dtype=numgrad.uint8), 0.3, -2.0)
    assert F.threshold(numgrad.zeros(size, dtype=numgrad.int8), 0.3, -2.0).tolist() == [-2] * size


# ----------------------------------------------------------------- integer results and grad
def _int_writes(m, v):
    def copy_():
        x = m.tensor([0, 0])
        x.copy_(v)
        return x

    def copy_broadcast():
        x = m.tensor([0, 0])
        x.copy_(v[1] * 2)
        return x

    def setitem():
        x = m.tensor([0, 0])
        x[0] = v[1]
        return x

    def setitem_slice():
        x = m.tensor([0, 0])
        x[0:2] = v
        return x

    return {"copy_": copy_, "copy_broadcast": copy_broadcast, "setitem": setitem, "setitem_slice": setitem_slice}


@pytest.mark.parametrize("name", ["copy_", "copy_broadcast", "setitem", "setitem_slice"])
def test_integer_tensor_written_from_grad_tensor_needs_no_grad(name):
    torch = _torch()
    a, b = _pair(torch, [1.5, 2.5], "float32", requires_grad=True)
    ra, rb = _int_writes(numgrad, a)[name](), _int_writes(torch, b)[name]()
    _same(ra, rb)
    assert ra.requires_grad is rb.requires_grad is False
    assert ra.grad_fn is None and rb.grad_fn is None


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64"])
@pytest.mark.parametrize("leaf", [True, False])
def test_dtype_view_is_not_differentiable(dtype, leaf):
    torch = _torch()
    a, b = _pair(torch, [1.0, 2.0], "float64", requires_grad=True)
    va = (a if leaf else a * 1).view(getattr(numgrad, dtype))
    vb = (b if leaf else b * 1).view(getattr(torch, dtype))
    _same(va, vb)
    assert va.requires_grad is vb.requires_grad is False
    assert va.grad_fn is None and vb.grad_fn is None
    # Still a view: writes show through, versions are shared.
    y = a.detach().clone()
    w = y.view(getattr(numgrad, dtype))
    w.zero_()
    assert y.tolist() == [0.0, 0.0] and y._version == w._version


@pytest.mark.parametrize("method", ["add_", "mul_", "sub_", "copysign_"])
def test_integer_in_place_with_float_grad_operand_raises(method):
    torch = _torch()
    for m in (torch, numgrad):
        x = m.tensor([1, 2])
        w = m.tensor([1.5, 2.5], requires_grad=True)
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            getattr(x, method)(w)
        assert x.tolist() == [1, 2] and not x.requires_grad


# ------------------------------------------------------------------------------- CUDA kernels
def test_cuda_kernels_at_the_edges():
    if not numgrad.cuda.is_available():
        pytest.skip("numba.cuda is not available")
    torch = _torch()
    cases = [
        (lambda m, x: m.nn.functional.relu(x), RELU_VALUES, "float32"),
        (lambda m, x: m.fmod(x, 1e8), [-1.0, -2.5, 3.0], "float32"),
        (lambda m, x: m.remainder(x, -1e8), [-1.0, 2.5, 0.0], "float32"),
        (lambda m, x: m.floor_divide(x, 0.1), [7.0, -7.0, 0.3], "float32"),
        (lambda m, x: m.nn.functional.threshold(x, 0.5, 2.0), [nan, 0.2, 1.0], "float32"),
        (lambda m, x: m.digamma(x), [-1e-30, -1e-20], "float64"),
        (lambda m, x: x << 64, [1, -1, 5], "int64"),
        (lambda m, x: x >> 70, [1, -1, 5], "int64"),
        (lambda m, x: x // -1, [-2 ** 63, 5], "int64"),
    ]
    for call, values, dtype in cases:
        a, b = _pair(torch, values, dtype)
        _same(call(numgrad, a.to("cuda")).cpu(), call(torch, b))


# ------------------------------------------------------------------ activation rules at NaN
# PyTorch's rules test x <= 0 (or the band -lambd <= x <= lambd), so NaN takes the other
# branch. Few elements: its vectorized loops (16 or more) answer otherwise.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", [("elu", {"alpha": 1.5}), ("selu", {}), ("celu", {"alpha": 0.5}),
                                          ("softshrink", {"lambd": 0.7}), ("hardshrink", {"lambd": 0.7}),
                                          ("hardtanh", {})])
def test_activation_derivatives_at_nan(name, kwargs, dtype):
    torch = _torch()
    a, b = _pair(torch, [nan, -2.0, -0.5, 0.0, 0.5, 2.0], dtype, requires_grad=True)
    _same_with_gradients(getattr(F, name)(a, **kwargs), getattr(torch.nn.functional, name)(b, **kwargs), a, b)


# ------------------------------------------------------------------ derivatives at infinity
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs", [("softsign", {}), ("gelu", {"approximate": "tanh"})])
def test_derivatives_at_infinities_and_overflow(name, kwargs, dtype):
    torch = _torch()
    values = [-inf, inf, -1e300, 1e300, -3.0, 0.0, 0.7] if dtype == "float64" else [-inf, inf, -3e19, 3e19, -3.0, 0.0]
    a, b = _pair(torch, values, dtype, requires_grad=True)
    getattr(F, name)(a, **kwargs).sum().backward()
    getattr(torch.nn.functional, name)(b, **kwargs).sum().backward()
    # NaN where PyTorch's formula meets inf / inf or 0 * inf; elsewhere within rounding.
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4 if dtype == "float32" else 1e-10)


# ------------------------------------------------------------------- float16 intermediates
def test_float16_mean_accumulates_in_float32():
    torch = _torch()
    values = [[60000.0, 60000.0, 3.0], [1.0, 2.0, 3.0]]
    a, b = _pair(torch, values, "float16", requires_grad=True)
    _same_with_gradients(a.mean(), b.mean(), a, b)
    for kwargs in ({"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": (0, 1)}):
        _same(a.mean(**kwargs), b.mean(**kwargs))
    _same(a[:, :0].mean(1), b[:, :0].mean(1))


def test_float16_renorm_norm_in_float32():
    torch = _torch()
    values = np.full((2, 3, 4), 300.0).tolist()
    a, b = _pair(torch, values, "float16", requires_grad=True)
    _same_with_gradients(numgrad.renorm(a, 2, 0, 5.0), torch.renorm(b, 2, 0, 5.0), a, b)


@pytest.mark.parametrize("rows", [[[1e3, 1e3, 1.0], [65504.0, 2.0, -3.0]], [[1e-5, 2e-5, 0.0], [3e-6, 0.0, 1e-7]],
                                  [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]])
def test_float16_distances_in_float32(rows):
    torch = _torch()
    a1, b1 = _pair(torch, rows, "float16")
    a2, b2 = _pair(torch, [[-r for r in row] for row in rows], "float16")
    _same(F.cosine_similarity(a1, a1 * 0.5), torch.nn.functional.cosine_similarity(b1, b1 * 0.5))
    _same(F.cosine_similarity(a1, a2), torch.nn.functional.cosine_similarity(b1, b2))
    _same(F.pairwise_distance(a1, a2), torch.nn.functional.pairwise_distance(b1, b2))


def test_cosine_similarity_of_an_infinite_norm():
    torch = _torch()
    # The norm over dim 0 overflows float16 to inf: x / inf is 0, not NaN.
    x1 = [[3.5, -4.5, 65504.0]] * 3
    x2 = [[1.0, -1.0, 4.0], [1.5, 1.5, -1.0], [-3.5, 2.0, 0.25]]
    a1, b1 = _pair(torch, x1, "float16")
    a2, b2 = _pair(torch, x2, "float16")
    _same(F.cosine_similarity(a1, a2, dim=0), torch.nn.functional.cosine_similarity(b1, b2, dim=0))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("decimals", [-3, -1, 2, 5])
def test_round_decimals_scales_in_the_compute_type(dtype, decimals):
    from numgrad.ops.registry import run_elementwise
    from numgrad.ops.records import OPS
    torch = _torch()
    values = [60000.0, -60000.0, 1234.5, -0.0, 0.125, -2.675, 1e-4, nan, inf]
    a, b = _pair(torch, values, dtype)
    _same(run_elementwise(OPS["round_decimals"], (a, decimals)), torch.round(b, decimals=decimals))


# ---------------------------------------------------------------------- singular matrices
@pytest.mark.parametrize("name", ["inv", "solve"])
def test_singular_matrices_raise_linalg_error(name):
    torch = _torch()
    row = [4.25, -0.5, -0.875]
    a, b = _pair(torch, [row, row, row], "float32")
    rhs = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    args = {"inv": lambda m, x: (x,), "solve": lambda m, x: (x, m.tensor(rhs))}[name]
    with pytest.raises(torch.linalg.LinAlgError) as want:
        getattr(torch.linalg, name)(*args(torch, b))
    with pytest.raises(numgrad.linalg.LinAlgError, match=r"singular") as got:
        getattr(numgrad.linalg, name)(*args(numgrad, a))
    assert str(got.value).split(":")[0] == str(want.value).split(":")[0]


# ---------------------------------------------------------------------------------- renorm
@pytest.mark.parametrize("values", [[[nan, 1.0], [1.0, 2.0]], [[3.0, 4.0], [0.1, 0.2]], [[inf, 1.0], [1.0, 2.0]]])
def test_renorm_passes_gradients_of_unscaled_slices(values):
    torch = _torch()
    a, b = _pair(torch, values, "float32", requires_grad=True)
    got, want = numgrad.renorm(a, 2, 0, 1.0), torch.renorm(b, 2, 0, 1.0)
    assert got.grad_fn.name() == want.grad_fn.name()
    _same(got, want)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6)


def test_cross_entropy_of_ignored_samples_has_positive_zero_gradient():
    torch = _torch()
    a, b = _pair(torch, [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]], "float32", requires_grad=True)
    F.cross_entropy(a, numgrad.tensor([-100, -100])).backward()
    torch.nn.functional.cross_entropy(b, torch.tensor([-100, -100])).backward()
    _same(a.grad, b.grad)


# ------------------------------------------------------------- Python numbers out of a type's range
@pytest.mark.parametrize("call", [
    lambda m, x: m.floor_divide(x, 256), lambda m, x: m.remainder(x, 512), lambda m, x: m.fmod(x, 256),
    lambda m, x: m.div(x, 256, rounding_mode="trunc"), lambda m, x: m.pow(x, 256), lambda m, x: m.clamp(x, 300),
    lambda m, x: m.clamp_min(x, -256), lambda m, x: m.clamp_max(x, 1000), lambda m, x: m.clamp(x, -1),
    lambda m, x: m.clamp(x, max=255), lambda m, x: m.clamp(x, 1.5), lambda m, x: x // 3])
def test_integer_scalars_convert_as_pytorch_converts_them(call):
    torch = _torch()
    a, b = _pair(torch, [4, 7, 0], "uint8")
    try:
        want = call(torch, b)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).split(" without")[0]):
            call(numgrad, a)
        return
    _same(call(numgrad, a), want)


@pytest.mark.parametrize("call", [lambda m, x: m.clamp(x, 1e5), lambda m, x: m.clamp(x, 65504.0),
                                  lambda m, x: m.clamp(x, inf), lambda m, x: m.pow(x, 1e5),
                                  lambda m, x: m.pow(x, 2.0)])
def test_float16_scalars_out_of_range(call):
    torch = _torch()
    a, b = _pair(torch, [1.0, 2.0], "float16")
    try:
        want = call(torch, b)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            call(numgrad, a)
        return
    _same(call(numgrad, a), want)
