"""Accuracy of the vectorizable transcendental functions: within 1 ulp of the correctly rounded
result, with PyTorch's special values. NUMGRAD_EXHAUSTIVE=1 also checks every float32 input."""
import math
import os

import numpy as np
import pytest
from numba import njit

import numgrad
from numgrad.ops.elementwise import vecmath

torch = pytest.importorskip("torch")

# name -> float64 reference for float32 inputs (float64 is exact enough to round from).
REFERENCES = {
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "sin": np.sin,
    "cos": np.cos,
    "erf": lambda x: torch.erf(torch.from_numpy(x)).numpy(),
    "erfc": lambda x: torch.erfc(torch.from_numpy(x)).numpy(),
}
SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 2.0, 0.5, -0.5, 1e-30, -1e-30, 1e-40,
            -1e-40, 1e-45, 88.7, 88.8, -103.9, -104.0, 710.0, -745.0, 1e-310, -1e-310, 5e-324, 3.4e38,
            -3.4e38, 1.7e308, -0.9999999, 1e-8, -1e-8, 20.0, -20.0, 0.99999994, 1.0000001, 9.2, 10.05,
            10.06, -10.06, 26.5, 27.3, 1.5707964, -1.5707964, 3.1415927, 6.2831855, 1e5, 1.2e22, 2.0 ** 77,
            -2.0 ** 76, 2.0 ** 100, 1e-20]


def _ulp_error32(out, ref):
    """|out - ref| in float32 ulps of ref; 0 where both are the same non-finite value."""
    out = out.astype(np.float64)
    with np.errstate(all="ignore"):
        rounded = ref.astype(np.float32)
        ulp = np.spacing(np.abs(rounded).astype(np.float32)).astype(np.float64)
        err = np.abs(out - ref) / ulp
    same = (out == rounded) | (np.isnan(out) & np.isnan(ref))
    return np.where(same, 0.0, np.where(np.isfinite(rounded), err, np.inf))


def _check32(name, x):
    out = getattr(numgrad, name)(numgrad.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        ref = REFERENCES[name](x.astype(np.float64))
    err = _ulp_error32(out, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, (name, x[worst], out[worst], ref[worst], err[worst])
    return float(err[worst])


def _float32_sample(n=1 << 20):
    # Uniform bit patterns cover every exponent range, subnormals included.
    bits = np.random.default_rng(0).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    with np.errstate(over="ignore"):
        return np.concatenate([bits.view(np.float32), np.array(SPECIALS, dtype=np.float32)])


@pytest.mark.parametrize("name", list(REFERENCES))
def test_float32_within_one_ulp(name):
    _check32(name, _float32_sample())


@pytest.mark.parametrize("name", list(REFERENCES))
def test_float32_near_one_and_small(name):
    # The regions where cancellation would show: around 0 and, for log, around 1.
    x = np.concatenate([np.linspace(-2, 2, 40001), 1 + np.linspace(-1e-3, 1e-3, 4001),
                        np.geomspace(1e-30, 1e-2, 2000), -np.geomspace(1e-30, 1e-2, 2000)])
    _check32(name, x.astype(np.float32))


@pytest.mark.parametrize("name", ["exp", "log", "log1p", "expm1", "sigmoid"])
def test_float64_within_one_ulp(name):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 120
    mp_ref = {"exp": mpmath.exp, "log": mpmath.log, "log1p": mpmath.log1p, "expm1": mpmath.expm1,
              "sigmoid": lambda v: 1 / (1 + mpmath.exp(-v))}[name]
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-1, 1, 1500) * 10.0 ** rng.uniform(-20, 2.85, 1500),
                        rng.uniform(-2, 2, 500)])
    if name in ("log", "log1p"):
        x = np.abs(x) * 10.0 ** rng.integers(-300, 300, x.size) if name == "log" else np.maximum(x, -0.999)
    out = getattr(numgrad, name)(numgrad.tensor(x)).numpy()
    for xi, yi in zip(x.tolist(), out.tolist()):
        ref = mp_ref(mpmath.mpf(xi))
        if ref == 0 or abs(ref) > 1.7e308:
            assert yi == float(ref)
            continue
        err = abs(mpmath.mpf(yi) - ref) / math.ulp(float(ref))
        assert err <= 1.0, (name, xi, yi, float(ref), float(err))


@pytest.mark.parametrize("name", list(REFERENCES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_match_torch(name, dtype):
    with np.errstate(over="ignore"):
        x = np.array(SPECIALS, dtype=dtype)
    out = getattr(numgrad, name)(numgrad.tensor(x)).numpy()
    expected = getattr(torch, name)(torch.tensor(x)).numpy()
    # PyTorch may flush a subnormal result to 0: one subnormal step of slack, none elsewhere.
    tiny = np.finfo(dtype).smallest_subnormal
    np.testing.assert_allclose(out, expected, rtol=4 * np.finfo(dtype).eps, atol=tiny)
    exact = ~np.isfinite(expected) | (np.abs(expected) == 1) | (x == 0)
    np.testing.assert_array_equal(out[exact], expected[exact])
    zero = expected == 0  # the sign of a NaN is unspecified; that of a zero is not
    np.testing.assert_array_equal(np.signbit(out[zero]), np.signbit(expected[zero]))


@pytest.mark.parametrize("name", ["log", "log1p", "expm1"])
def test_noncontiguous_and_grad(name):
    x = np.linspace(0.1, 3.0, 24).reshape(4, 6)[:, ::2]
    xg = numgrad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    getattr(numgrad, name)(xg).sum().backward()
    getattr(torch, name)(xt).sum().backward()
    np.testing.assert_allclose(getattr(numgrad, name)(xg).detach().numpy(),
                               getattr(torch, name)(xt).detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-15)
    small = numgrad.tensor(x[:2, :2], requires_grad=True)
    assert numgrad.autograd.gradcheck(getattr(numgrad, name), (small,))


def test_cpu_code_is_the_polynomial_code():
    # A CPU specialization that fails to compile falls back to libm silently: check that each
    # routine compiles and that the kernels run it.
    x = np.array([0.3, 1.7, 2.5e-5], dtype=np.float64)
    for name, f64 in [("log", vecmath._log64), ("log1p", vecmath._log1p64)]:
        direct = np.array([njit(f64)(v) for v in x])
        np.testing.assert_array_equal(getattr(numgrad, name)(numgrad.tensor(x)).numpy(), direct)
    x32 = x.astype(np.float32)
    direct = np.array([njit(vecmath._expm1_f32)(v) for v in x32], dtype=np.float32)
    np.testing.assert_array_equal(numgrad.expm1(numgrad.tensor(x32)).numpy(), direct)
    for name in ["tanh", "sin", "cos", "erf", "erfc"]:
        f32 = njit(getattr(vecmath, f"_{name}_f32"))
        direct = np.array([f32(v) for v in x32], dtype=np.float32)
        np.testing.assert_array_equal(getattr(numgrad, name)(numgrad.tensor(x32)).numpy(), direct)


def test_sin_cos_reduction_constant():
    # The chunks of 2/pi that reduce sin's and cos's arguments, against an independent 2/pi.
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 400
    bits = int(mpmath.floor(2 / mpmath.pi * mpmath.mpf(2) ** 300))
    assert vecmath._two_over_pi(300) == bits
    for skip, chunks in [(0, vecmath._TWO_OVER_PI_LOW), (52, vecmath._TWO_OVER_PI_HIGH)]:
        for j, c in enumerate(chunks):
            last = skip + 28 * (j + 1)
            assert c == math.ldexp((bits >> (300 - last)) & ((1 << 28) - 1), -last)


def test_compiled_graph_and_gelu_inline_the_polynomial_code():
    # Bodies declared with inline_math are inlined into fused kernels and into gelu as well.
    x = numgrad.tensor(np.linspace(-30, 30, 1001, dtype=np.float32))
    fused = numgrad.compile(lambda t: numgrad.sin(t) * numgrad.erf(t) + numgrad.cos(t))
    expected = numgrad.sin(x) * numgrad.erf(x) + numgrad.cos(x)
    np.testing.assert_array_equal(fused(x).numpy(), expected.numpy())
    y = numgrad.nn.functional.gelu(x).numpy()
    # Against float64 x Phi(x) from the same float32 argument of erfc (whose rounding the tail
    # magnifies): PyTorch's float32 1 + erf(x / sqrt 2) cancels there.
    half_sqrt = np.float32(math.sqrt(0.5))
    exact = [float(v) * 0.5 * math.erfc(-v * half_sqrt) for v in x.numpy()]
    np.testing.assert_allclose(y, exact, rtol=4e-7, atol=1e-44)
    # the float32 erfc's own digits: x Phi(x) with Phi from erfc
    direct = njit(vecmath._erfc_f32)
    phi = np.array([direct(np.float32(-v * np.float32(np.sqrt(0.5)))) for v in x.numpy()], dtype=np.float32)
    np.testing.assert_array_equal(y, x.numpy() * np.float32(0.5) * phi)


@pytest.mark.skipif(os.environ.get("NUMGRAD_EXHAUSTIVE") != "1", reason="set NUMGRAD_EXHAUSTIVE=1")
@pytest.mark.parametrize("name", list(REFERENCES))
def test_float32_exhaustive(name):
    chunk = 1 << 24
    worst = 0.0
    for start in range(0, 1 << 32, chunk):
        bits = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32)
        worst = max(worst, _check32(name, bits.view(np.float32)))
    print(f"{name}: max error {worst:.4f} ulp over all float32 inputs")
