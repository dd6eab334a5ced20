"""Fused backward ops (tanh_backward, sigmoid_backward), in-place unary ops that record one node,
heaviside's NotImplemented node, and the out= forms of aminmax and nanmedian."""
import numpy as np
import pytest

import numgrad
from numgrad.autograd import forward_ad as fwAD
from numgrad.autograd import profiler

try:
    import torch
except ImportError:  # the NumPy references still pin the values
    torch = None

_A = np.array([[0.5, -1.2, 2.0], [1.5, 0.3, -4.0]])
_W = np.array([[1.0, -0.5, 2.0], [0.25, 3.0, -1.5]])


def _np_first_second(name, a):
    """d/dx and d2/dx2 of tanh or sigmoid at ``a``."""
    y = np.tanh(a) if name == "tanh" else 1 / (1 + np.exp(-a))
    if name == "tanh":
        return 1 - y * y, -2 * y * (1 - y * y)
    return y * (1 - y), y * (1 - y) * (1 - 2 * y)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_rules_values(name, dtype):
    a, w = _A.astype(dtype), _W.astype(dtype)
    x = numgrad.tensor(a, requires_grad=True)
    (g,) = numgrad.autograd.grad((getattr(x, name)() * numgrad.tensor(w)).sum(), x, create_graph=True)
    assert g.dtype is getattr(numgrad, dtype)
    assert g.grad_fn.name() == name.capitalize() + "BackwardBackward0"
    (gg,) = numgrad.autograd.grad(g.sum(), x)
    d1, d2 = _np_first_second(name, _A)
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(g.detach().numpy(), w * d1, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(gg.numpy(), w * d2, rtol=rtol * 10, atol=rtol)
    if torch is not None:
        tx = torch.tensor(a, requires_grad=True)
        (tg,) = torch.autograd.grad((getattr(tx, name)() * torch.tensor(w)).sum(), tx, create_graph=True)
        (tgg,) = torch.autograd.grad(tg.sum(), tx)
        np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=rtol * 10, atol=rtol)


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_fused_rules_forward_mode(name):
    x, t = numgrad.tensor(_A), numgrad.tensor(_W)
    with fwAD.dual_level():
        _, jt = fwAD.unpack_dual(getattr(fwAD.make_dual(x, t), name)())
    np.testing.assert_allclose(jt.numpy(), _W * _np_first_second(name, _A)[0], rtol=1e-12)


@pytest.mark.parametrize("name, node", [("relu", "ReluBackward0"), ("sigmoid", "SigmoidBackward0"),
                                        ("tanh", "TanhBackward0"), ("exp", "ExpBackward0")])
def test_inplace_unary_one_kernel_one_node(name, node):
    x = numgrad.tensor(_A, requires_grad=True)
    y = x * 1
    before = y.grad_fn
    with profiler.profile() as prof:
        assert getattr(y, name + "_")() is y
    assert [e.name for e in prof.function_events] == ["aten::" + name + "_"]
    assert y.grad_fn.name() == node and y.grad_fn.next_functions[0][0] is before
    (g,) = numgrad.autograd.grad((y * numgrad.tensor(_W)).sum(), x)
    x2 = numgrad.tensor(_A, requires_grad=True)
    (ref,) = numgrad.autograd.grad((getattr(x2, name)() * numgrad.tensor(_W)).sum(), x2)
    np.testing.assert_allclose(g.numpy(), ref.numpy(), rtol=1e-12)


def test_inplace_unary_saves_its_result():
    x = numgrad.tensor(_A, requires_grad=True)
    y = (x * 1).exp_()
    y.mul_(2)  # overwrites the result ExpBackward0 reads
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.tanh_()
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        numgrad.tensor([1, 2]).exp_()


def test_inplace_unary_on_a_view():
    x = numgrad.tensor(_A, requires_grad=True)
    y = x * 1
    y[0].sigmoid_()
    (g,) = numgrad.autograd.grad(y.sum(), x)
    s = 1 / (1 + np.exp(-_A[0]))
    np.testing.assert_allclose(g.numpy(), np.stack([s * (1 - s), np.ones(3)]), rtol=1e-12)


def test_heaviside_records_a_node_that_refuses():
    x = numgrad.tensor(_A, requires_grad=True)
    v = numgrad.tensor(0.5, dtype=numgrad.float64)
    y = numgrad.heaviside(x, v)
    assert y.requires_grad and y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        y.sum().backward()
    with numgrad.no_grad():
        assert not numgrad.heaviside(x, v).requires_grad
    with fwAD.dual_level():
        with pytest.raises(NotImplementedError, match="forward AD with aten::heaviside"):
            numgrad.heaviside(fwAD.make_dual(x.detach(), x.detach()), v)


_NAN_ROWS = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, np.nan]], dtype=np.float32)


def test_aminmax_out():
    x = numgrad.tensor(_A)
    lo, hi = numgrad.empty(0, dtype=numgrad.float64), numgrad.empty(0, dtype=numgrad.float64)
    r = numgrad.aminmax(x, dim=1, keepdim=True, out=(lo, hi))
    assert type(r).__name__ == "aminmax_out" and r.min is lo and r.max is hi
    assert lo.tolist() == [[-1.2], [-4.0]] and hi.tolist() == [[2.0], [1.5]]
    # a non-contiguous out is written through its strides
    lo, hi = numgrad.empty(3, 2, dtype=numgrad.float64).t(), numgrad.empty(2, 3, dtype=numgrad.float64)
    numgrad.aminmax(x.unsqueeze(0).expand(2, 2, 3), dim=0, out=(lo, hi))
    assert lo.tolist() == _A.tolist() and hi.tolist() == _A.tolist()
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got long int instead"):
        numgrad.aminmax(x, out=(numgrad.empty(0, dtype=numgrad.float64), numgrad.empty(0, dtype=numgrad.int64)))
    with pytest.raises(TypeError, match="argument 'out' must be tuple of Tensors, not Tensor"):
        numgrad.aminmax(x, out=lo)
    with pytest.raises(TypeError, match="expected tuple of 2 elements but got 1"):
        numgrad.aminmax(x, out=(lo,))


def test_nanmedian_out():
    x = numgrad.tensor(_NAN_ROWS)
    v, i = numgrad.empty(0), numgrad.empty(0, dtype=numgrad.int64)
    r = numgrad.nanmedian(x, 0, out=(v, i))
    assert type(r).__name__ == "nanmedian_out" and r.values is v and r.indices is i
    assert v.tolist() == [1.0, 5.0, 3.0] and i.tolist() == [0, 1, 0]
    r = numgrad.nanmedian(x, 1, True, out=(v, i))
    assert v.tolist() == [[1.0], [2.0]] and i.tolist() == [[0], [0]]
    with pytest.raises(RuntimeError, match="'values' to have the same type .* torch.DoubleTensor does not "
                                           "equal torch.FloatTensor"):
        numgrad.nanmedian(x, 0, out=(numgrad.empty(0, dtype=numgrad.float64), i))
    with pytest.raises(RuntimeError, match="'indices' to have scalar type Long; but got torch.FloatTensor"):
        numgrad.nanmedian(x, 0, out=(v, v))
    with pytest.raises(TypeError, match="argument 'out' must be tuple of Tensors"):
        numgrad.nanmedian(x, 0, out=v)
    with pytest.raises(TypeError, match="missing 1 required positional arguments"):
        numgrad.nanmedian(x, out=(v, i))


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_out_forms_match_torch():
    for mod in (numgrad, torch):
        x = mod.tensor(_NAN_ROWS)
        assert type(mod.aminmax(x, out=(mod.empty(0), mod.empty(0)))).__name__ == "aminmax_out"
        r = mod.nanmedian(x, 1, out=(mod.empty(0), mod.empty(0, dtype=mod.int64)))
        assert type(r).__name__ == "nanmedian_out" and r.values.tolist() == [1.0, 2.0]
