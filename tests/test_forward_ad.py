"""Forward-mode AD: dual levels, tangents through views and in-place writes, and every op's
JVP rule against finite differences and against its VJP (<J v, u> == <v, J^T u>)."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import forward_ad as fwAD
from numgrad.testing import OP_DB, assert_close

F64 = numgrad.float64


def t64(data):
    return numgrad.tensor(data, dtype=F64)


# ------------------------------------------------------------------------------ levels
def test_make_and_unpack_dual():
    x, v = t64([0.5, 1.0, 2.0]), t64([1.0, 0.0, 2.0])
    with fwAD.dual_level():
        y = (fwAD.make_dual(x, v).sin() * x).sum()
        primal, tangent = fwAD.unpack_dual(y)
        assert type(fwAD.unpack_dual(y)).__name__ == "UnpackedDualTensor"
        assert_close(tangent, (x.cos() * x * v).sum())
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(y).tangent is None  # dropped when the level exits
    assert_close(primal, (x.sin() * x).sum())


def test_level_errors():
    x = t64([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, t64([1.0, 2.0, 3.0]))
        with pytest.raises(ValueError, match="floating point"):
            fwAD.make_dual(numgrad.tensor([1, 2]), x)


def test_tangents_through_views():
    x, v = t64([[1.0, 2.0, 3.0]]), t64([[1.0, 0.0, 2.0]])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        y = d.reshape(3, 1).expand(3, 2).t()[1, 1:]
        assert_close(fwAD.unpack_dual(y).tangent, t64([0.0, 2.0]))
        assert_close(fwAD.unpack_dual(d.permute(1, 0)).tangent, v.t())
        assert_close(fwAD.unpack_dual(d.sum(1)).tangent, v.sum(1))


def test_inplace_updates_tangents():
    with fwAD.dual_level():
        # written through a view: the base's tangent changes too
        d = fwAD.make_dual(numgrad.zeros(3, dtype=F64), numgrad.ones(3, dtype=F64))
        d[1:].mul_(3)
        assert_close(fwAD.unpack_dual(d).tangent, t64([1.0, 3.0, 3.0]))
        # a dual value written into part of a plain tensor gives that tensor a tangent
        b = numgrad.zeros(2, 3, dtype=F64)
        b[0].copy_(fwAD.make_dual(t64([1.0, 2.0, 3.0]), t64([1.0, 0.0, 2.0])))
        assert_close(fwAD.unpack_dual(b).tangent, t64([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]]))
        # a plain value overwrites the tangent with zeros
        c = fwAD.make_dual(numgrad.zeros(3, dtype=F64), numgrad.ones(3, dtype=F64))
        c.copy_(numgrad.ones(3, dtype=F64))
        assert_close(fwAD.unpack_dual(c).tangent, numgrad.zeros(3, dtype=F64))
        # an in-place op on a dual tensor
        e = fwAD.make_dual(t64([1.0, 2.0]), t64([1.0, 1.0])) * 1
        e.exp_()
        assert_close(fwAD.unpack_dual(e).tangent, t64([1.0, 2.0]).exp())


def test_forward_over_reverse():
    x, v = t64([0.3, -0.7, 1.1]), t64([1.0, 2.0, -1.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x.detach().requires_grad_(), v)
        y = (d.tanh() * d.exp()).sum()
        g, = numgrad.autograd.grad(y, d, create_graph=True)
        hv = fwAD.unpack_dual(g).tangent
    ex = _hessian_fd(lambda a: (np.tanh(a) * np.exp(a)).sum(), x.numpy()) @ v.numpy()
    assert_close(hv, numgrad.tensor(ex), rtol=1e-5, atol=1e-6)


def test_reverse_over_forward():
    x = t64([0.3, -0.7]).requires_grad_()
    with fwAD.dual_level():
        t = fwAD.unpack_dual(fwAD.make_dual(x, t64([1.0, 1.0])).sin().sum()).tangent
    g, = numgrad.autograd.grad(t, x)
    assert_close(g, -x.detach().sin())


def _hessian_fd(f, x, eps=1e-4):
    n = x.size
    h = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps
        h[i] = (_grad_fd(f, x + e) - _grad_fd(f, x - e)) / (2 * eps)
    return h


def _grad_fd(f, x, eps=1e-5):
    g = np.zeros(x.size)
    for i in range(x.size):
        e = np.zeros(x.size)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ------------------------------------------------------------------------------ the op table
JVP_OPS = [info for info in OP_DB if info.supports_forward_ad and info.supports_grad and "float64" in info.dtypes]


def _differentiable(a) -> bool:
    return isinstance(a, np.ndarray) and a.dtype == np.float64


def _pick(samples):
    """Up to two non-empty samples with a float64 array (indices and masks ride along as
    constants): the first plain one and the first broadcasting one."""
    ok = [s for s in samples if any(map(_differentiable, s.args)) and all(
        not isinstance(a, np.ndarray) or a.size for a in s.args)]
    plain = [s for s in ok if not s.broadcasts and isinstance(s.args[0], np.ndarray) and s.args[0].ndim]
    return plain[:1] + [s for s in ok if s.broadcasts][:1]


CASES = [pytest.param(info, s, id=f"{info.id}-{k}") for info in JVP_OPS
         for k, s in enumerate(_pick(info.samples("float64")))]


@pytest.mark.parametrize("info,sample", CASES)
def test_jvp_matches_finite_differences_and_vjp(info, sample):
    rng = np.random.default_rng(1)
    arrays = [a for a in sample.args if _differentiable(a)]
    vs = [rng.standard_normal(a.shape) for a in arrays]

    def call(xs):
        it = iter(xs)
        args = [next(it) if _differentiable(a) else numgrad.tensor(a) if isinstance(a, np.ndarray) else a
                for a in sample.args]
        return info.op(*args, **sample.kwargs)

    with fwAD.dual_level():
        out = call([fwAD.make_dual(numgrad.tensor(a), numgrad.tensor(v)) for a, v in zip(arrays, vs)])
        primal, tangent = fwAD.unpack_dual(out)
        tangent = np.zeros(primal.shape) if tangent is None else tangent.numpy().copy()

    eps = 1e-6
    plus = call([numgrad.tensor(a + eps * v) for a, v in zip(arrays, vs)]).numpy()
    minus = call([numgrad.tensor(a - eps * v) for a, v in zip(arrays, vs)]).numpy()
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-4, atol=1e-5)

    xs = [numgrad.tensor(a, requires_grad=True) for a in arrays]
    out = call(xs)
    u = rng.standard_normal(tuple(out.shape))
    if out.requires_grad:
        grads = numgrad.autograd.grad(out, xs, numgrad.tensor(u), allow_unused=True, materialize_grads=True)
        rhs = sum(float((g.numpy() * v).sum()) for g, v in zip(grads, vs))
    else:
        rhs = 0.0
    np.testing.assert_allclose(float((tangent * u).sum()), rhs, rtol=1e-7, atol=1e-9)
