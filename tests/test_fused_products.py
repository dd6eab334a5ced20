"""The add* products (addmv, addr, baddbmm, addbmm): PyTorch's values for beta 0 (the input
ignored, even NaN), scalar and integer inputs, and PyTorch's errors."""
import numpy as np
import pytest

import numgrad


def T(a):
    return numgrad.tensor(np.asarray(a))


def test_values_and_beta_zero():
    rng = np.random.default_rng(0)
    a, v, b1, b2 = rng.standard_normal((4, 6)), rng.standard_normal(6), rng.standard_normal((2, 4, 3)), \
        rng.standard_normal((2, 3, 6))
    np.testing.assert_allclose(numgrad.addmv(T(np.full(4, np.nan)), T(a), T(v), beta=0, alpha=3).numpy(), 3 * a @ v)
    np.testing.assert_allclose(numgrad.addmv(T(1.5), T(a), T(v), beta=2).numpy(), 3.0 + a @ v)
    np.testing.assert_allclose(numgrad.addr(T(a), T(a[:, 0]), T(v), beta=0.5).numpy(),
                               0.5 * a + np.outer(a[:, 0], v))
    np.testing.assert_allclose(numgrad.baddbmm(T(a[:, :1]), T(b1), T(b2), beta=0.5, alpha=-1).numpy(),
                               0.5 * a[:, :1] - b1 @ b2)
    np.testing.assert_allclose(numgrad.addbmm(T(a[0]), T(b1), T(b2), beta=0.5).numpy(),
                               0.5 * a[0] + (b1 @ b2).sum(0))
    ints = numgrad.addr(T(np.ones((2, 3), np.int64)), T(np.arange(2)), T(np.arange(3)), alpha=2)
    assert ints.dtype is numgrad.int64 and ints.tolist() == [[1, 1, 1], [1, 3, 5]]


@pytest.mark.parametrize("call, message", [
    (lambda: numgrad.addmv(numgrad.ones(5), numgrad.ones(3, 2), numgrad.ones(2)),
     r"size mismatch, got input \(5\), mat \(3x2\), vec \(2\)"),
    (lambda: numgrad.baddbmm(numgrad.ones(2, 3, dtype=numgrad.float64), numgrad.ones(2, 2, 4), numgrad.ones(2, 4, 3)),
     "Input dtypes must be the same, got: input double, batch1: float, batch2: float"),
    (lambda: numgrad.addbmm(numgrad.ones(2, 3, dtype=numgrad.float64), numgrad.ones(2, 2, 4), numgrad.ones(2, 4, 3)),
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda: numgrad.addr(numgrad.ones(3, 3), numgrad.ones(2), numgrad.ones(3)), "The expanded size of the tensor"),
])
def test_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_results_are_not_views():
    # One fresh tensor each, as PyTorch's: nothing hidden behind them to write through.
    x = numgrad.randn(3, 3, dtype=numgrad.float64, requires_grad=True)
    for r in (numgrad.mv(x, x[0]), numgrad.addmv(x[0], x, x[1]), numgrad.rot90(x), numgrad.diag(x),
              numgrad.linalg.cross(x, x.flip(0)), *numgrad.var_mean(x, 0)):
        assert r._base is None and r.grad_fn is not None


@pytest.mark.parametrize("call", [
    lambda: numgrad.addmm(numgrad.ones(5), numgrad.ones(2, 3), numgrad.ones(3, 4), beta=0),
    lambda: numgrad.baddbmm(numgrad.ones(5), numgrad.ones(1, 2, 3), numgrad.ones(1, 3, 4), beta=0),
    lambda: numgrad.addr(numgrad.ones(5), numgrad.ones(2), numgrad.ones(4), beta=0),
])
def test_an_ignored_input_must_still_broadcast(call):
    # beta=0 ignores input's values, not its shape, as PyTorch's
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        call()
