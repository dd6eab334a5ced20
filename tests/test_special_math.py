"""Special functions and the small elementwise ops around them: known values, poles and
infinities, float16 neighbours, argument errors, derivatives at their delicate points, and the
``numgrad.special`` names. The op table checks the rest (values, gradients, forms, dtypes)."""
import math

import numpy as np
import pytest

import numgrad
from numgrad.testing import assert_close

try:
    import torch
except ImportError:  # the checks against known values still run
    torch = None

F64 = numgrad.float64
INF, NAN = math.inf, math.nan
EULER = 0.5772156649015329
ZETA3 = 1.2020569031595942


def _t(values, dtype=F64, **kw):
    return numgrad.tensor(values, dtype=dtype, **kw)


def test_known_values():
    assert_close(numgrad.digamma(_t([1.0, 0.5])), _t([-EULER, -EULER - 2 * math.log(2)]), rtol=1e-15, atol=0)
    assert_close(numgrad.polygamma(1, _t([1.0, 0.5])), _t([math.pi ** 2 / 6, math.pi ** 2 / 2]), rtol=1e-15, atol=0)
    assert_close(numgrad.polygamma(2, _t([1.0])), _t([-2 * ZETA3]), rtol=1e-15, atol=0)
    assert_close(numgrad.lgamma(_t([0.5, 10.0])), _t([0.5 * math.log(math.pi), math.log(362880.0)]),
                 rtol=1e-15, atol=0)
    assert_close(numgrad.i0(_t([0.0, 1.0, -1.0])), _t([1.0, 1.2660658777520082, 1.2660658777520082]),
                 rtol=1e-15, atol=0)
    assert_close(numgrad.special.i1(_t([1.0, -1.0])), _t([0.5651591039924851, -0.5651591039924851]),
                 rtol=1e-15, atol=0)
    assert_close(numgrad.sinc(_t([0.0, 0.5, 1.0])), _t([1.0, 2 / math.pi, 0.0]), rtol=1e-15, atol=1e-16)


def test_erfinv_inverts_erf_to_float64_precision():
    # Where erf is well conditioned, erfinv(erf(y)) gives y back...
    y = np.concatenate([np.linspace(-1.5, 1.5, 31), [1e-300, 1e-8, 0.47]])
    np.testing.assert_allclose(numgrad.erfinv(numgrad.erf(_t(y))).numpy(), y, rtol=4e-15, atol=0)
    # ...and towards 1, erfc(erfinv(x)) gives 1 - x (exact there) to nearly full relative precision.
    x = 1 - np.logspace(-15, -1, 15)
    np.testing.assert_allclose(numgrad.erfc(numgrad.erfinv(_t(x))).numpy(), 1 - x, rtol=1e-14, atol=0)


def test_poles_and_infinities():
    got = numgrad.lgamma(_t([0.0, -0.0, -3.0, INF, -INF, NAN])).tolist()
    assert got[:5] == [INF] * 5 and math.isnan(got[5])
    got = numgrad.digamma(_t([0.0, -0.0, -2.0, INF, -INF])).tolist()
    assert got[:2] == [-INF, INF] and math.isnan(got[2]) and got[3] == INF and math.isnan(got[4])
    assert numgrad.polygamma(1, _t([0.0, -1.0, INF])).tolist() == [INF, INF, 0.0]
    assert numgrad.polygamma(2, _t([0.0, -1.0])).tolist() == [-INF, -INF]
    got = numgrad.erfinv(_t([1.0, -1.0, 1.5, -0.0])).tolist()
    assert got[:2] == [INF, -INF] and math.isnan(got[2]) and math.copysign(1, got[3]) == -1
    assert numgrad.logit(_t([0.0, 1.0])).tolist() == [-INF, INF]
    assert math.isnan(numgrad.logit(_t([1.5])).item())
    assert numgrad.i0(_t([1e4])).item() == INF
    assert np.isfinite(numgrad.i0(_t([710.0])).item())  # beyond exp's overflow, I0 is still finite


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_negative_arguments_match_torch():
    x = np.array([-0.5, -1.3, -2.7, -10.25, 0.1, 3.5, 25.0])
    for name in ("lgamma", "digamma"):
        assert_close(getattr(numgrad, name)(_t(x)).numpy(), getattr(torch, name)(torch.tensor(x)).numpy(),
                     rtol=1e-12, atol=1e-12)
    for n in (1, 2, 3):
        # torch's trigamma is accurate to ~1e-9 only.
        assert_close(numgrad.polygamma(n, _t(x)).numpy(), torch.polygamma(n, torch.tensor(x)).numpy(),
                     rtol=1e-8, atol=0)
    for dtype in (numgrad.int64, numgrad.bool, numgrad.float32):
        t = numgrad.ones(3, dtype=dtype)
        assert numgrad.polygamma(2, t).dtype.name == str(torch.polygamma(2, torch.ones(3, dtype=getattr(
            torch, dtype.name))).dtype).replace("torch.", "")


def test_polygamma_far_below_zero_costs_no_more_than_near_it():
    # Far from 0 the reflection term dominates: polygamma(1, -m + 1/2) = pi^2 - O(1/m), polygamma(2, .) -> 0,
    # and the cost is the same for any |x| (no recurrence over every unit down to x).
    x = _t([-1e9 + 0.5, -4.5e15 + 0.5, -2.5])
    assert_close(numgrad.polygamma(1, x)[:2].numpy(), np.full(2, math.pi ** 2), rtol=1e-9, atol=0)
    assert abs(numgrad.polygamma(2, x)[0].item()) < 1e-20
    # trigamma(-2.5) = trigamma(1/2) + sum over -2.5, -1.5, -0.5 of 1/x^2, trigamma(1/2) = pi^2 / 2
    expected = math.pi ** 2 / 2 + 1 / 6.25 + 1 / 2.25 + 1 / 0.25
    assert_close(numgrad.polygamma(1, x)[2].item(), expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_steps_one_ulp_of_the_dtype(dtype):
    x = np.array([0.0, 1.0, 1.0, -2.0, 65504.0, 3e-5, np.inf, 1.5], dtype=dtype)
    y = np.array([1.0, 2.0, 0.0, 0.0, np.inf, -1.0, 0.0, 1.5], dtype=dtype)
    got = numgrad.nextafter(numgrad.tensor(x), numgrad.tensor(y))
    assert got.dtype.name == dtype
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got.numpy(), np.nextafter(x, y))


def test_signbit_and_infinity_tests():
    x = _t([-0.0, 0.0, -INF, INF, NAN, -1.0])
    assert numgrad.signbit(x).tolist() == [True, False, True, False, False, True]
    assert numgrad.isneginf(x).tolist() == [False, False, True, False, False, False]
    assert numgrad.isposinf(x).tolist() == [False, False, False, True, False, False]
    assert numgrad.signbit(numgrad.tensor([-3, 0, 4])).tolist() == [True, False, False]
    assert x.isreal().tolist() == [True] * 6


def test_argument_errors():
    x = _t([0.5, 1.5])
    with pytest.raises(RuntimeError, match="does not support negative n"):
        numgrad.polygamma(-1, x)
    with pytest.raises(TypeError, match="must be int"):
        numgrad.polygamma(1.0, x)
    with pytest.raises(RuntimeError, match="different dtypes"):
        numgrad.heaviside(x, numgrad.tensor([0.5]))
    for fn in (numgrad.heaviside, numgrad.logaddexp2, numgrad.nextafter, numgrad.ldexp):
        with pytest.raises(TypeError, match="must be Tensor"):
            fn(x, 2.0)
    with pytest.raises(TypeError):
        numgrad.copysign(1.0, x)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        numgrad.nextafter(numgrad.tensor([1]), numgrad.tensor([2]))
    with pytest.raises(RuntimeError, match="float_power_ has dtype Float"):
        numgrad.ones(2).float_power_(2)
    with pytest.raises(RuntimeError, match="output given to float_power has dtype Float"):
        numgrad.float_power(x, 2, out=numgrad.empty(2))


def test_float_power_is_double_and_has_an_inplace_form():
    assert numgrad.float_power(numgrad.tensor([2, 3]), 2).tolist() == [4.0, 9.0]
    assert numgrad.float_power(numgrad.tensor([2.0], dtype=numgrad.float16), 0.5).dtype is F64
    out = numgrad.empty(0, dtype=F64)
    assert numgrad.float_power(2, numgrad.tensor([3]), out=out) is out and out.tolist() == [8.0]
    x = _t([4.0, 9.0])
    assert x.float_power_(0.5) is x and x.tolist() == [2.0, 3.0]


def test_polygamma_method_and_inplace_forms():
    x = _t([0.5, 2.0])
    assert_close(x.polygamma(1), numgrad.polygamma(1, x))
    y = x.clone()
    assert y.polygamma_(2) is y
    assert_close(y, numgrad.polygamma(2, x))
    z = x.clone()
    numgrad.logit_(z.mul_(0.25))
    assert_close(z, numgrad.logit(x * 0.25))
    assert numgrad.tensor([-1.5, 2.5]).fix_().tolist() == [-1.0, 2.0]


def test_derivatives_at_delicate_points():
    x = _t([0.0, 0.05, 0.5, 0.97], requires_grad=True)
    (g,) = numgrad.autograd.grad(numgrad.logit(x, eps=0.1).sum(), x)
    assert g.tolist() == [0.0, 0.0, 4.0, 0.0]
    x = _t([-0.5, 0.5], requires_grad=True)
    (g,) = numgrad.autograd.grad(numgrad.logit(x).sum(), x)
    assert math.isnan(g[0].item()) and g[1].item() == 4.0
    x = _t([0.0, 1.0], requires_grad=True)
    (g,) = numgrad.autograd.grad(numgrad.sinc(x).sum(), x)
    assert g.tolist() == [0.0, -1.0]
    x = _t([0.0], requires_grad=True)
    (g,) = numgrad.autograd.grad(numgrad.special.i1(x).sum(), x)
    assert g.tolist() == [0.5]
    x, y = _t([0.0, -2.0, 3.0], requires_grad=True), _t([-1.0, 1.0, -1.0], requires_grad=True)
    gx, gy = numgrad.autograd.grad(numgrad.copysign(x, y).sum(), (x, y))
    assert gx.tolist() == [0.0, -1.0, -1.0] and gy.tolist() == [0.0, 0.0, 0.0]
    gx, gy = numgrad.autograd.grad(numgrad.nextafter(x, y).sum(), (x, y))
    assert gx.tolist() == [1.0, 1.0, 1.0] and gy.tolist() == [0.0, 0.0, 0.0]


def test_special_namespace():
    x = _t([0.2, 0.7])
    assert numgrad.special.expit is numgrad.sigmoid and numgrad.special.psi is numgrad.digamma
    assert numgrad.special.gammaln is numgrad.lgamma
    assert_close(numgrad.special.logit(numgrad.special.expit(x)), x)
    names = set(numgrad.special.__all__)
    if torch is not None:
        assert all(hasattr(torch.special, n) for n in names)
    assert {"expit", "logit", "erfinv", "gammaln", "digamma", "psi", "i0", "sinc", "xlogy", "log1p",
            "expm1", "exp2"} <= names
