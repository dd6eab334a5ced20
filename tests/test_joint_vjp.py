"""Ops whose backward yields every input's cotangent from one call (a joint VJP rule): one call
per node, cotangents routed to each input's edge, ``needs`` honoured, saving, create_graph,
forward mode, and the fused attention built on it."""
import pytest

import numgrad
from numgrad.autograd import tape
from numgrad.ops.records import primitive

torch = pytest.importorskip("torch")

calls = []


def _joint_rule(g, ans, x, y, *, needs):
    calls.append(needs)
    return (g * y if needs[0] else None), (g * x if needs[1] else None)


# x * y declared with one joint rule, and per-input forward rules.
_joint_mul = primitive("_test_joint_mul", 2, vjp_all=_joint_rule,
                       jvp=(lambda t, ans, x, y: t * y, lambda t, ans, x, y: x * t))


def joint_mul(x, y):
    return tape.record_result(_joint_mul, (x, y), tape.plain(x) * tape.plain(y))


def _pair(dtype=numgrad.float64):
    numgrad.manual_seed(0)
    return (numgrad.randn(3, 4, dtype=dtype, requires_grad=True),
            numgrad.randn(3, 4, dtype=dtype, requires_grad=True))


def test_one_call_routes_each_cotangent():
    x, y = _pair()
    calls.clear()
    out = joint_mul(x, y)
    assert out.grad_fn.name() == "TestJointMulBackward0"
    (out * 2).sum().backward()
    assert calls == [(True, True)]
    assert numgrad.allclose(x.grad, 2 * y.detach()) and numgrad.allclose(y.grad, 2 * x.detach())


def test_needs_marks_inputs_without_edges():
    x, y = _pair()
    calls.clear()
    joint_mul(x, y.detach()).sum().backward()
    assert calls == [(True, False)]
    assert numgrad.allclose(x.grad, y.detach())


def test_per_input_rule_from_joint():
    x, y = _pair()
    g = numgrad.ones(3, 4, dtype=numgrad.float64)
    assert numgrad.allclose(_joint_mul.vjp[1](g, None, x.detach(), y.detach()), x.detach())


def test_gradcheck_and_double_backward():
    x, y = _pair()
    assert numgrad.autograd.gradcheck(joint_mul, (x, y))
    assert numgrad.autograd.gradgradcheck(joint_mul, (x, y))
    gx, = numgrad.autograd.grad((joint_mul(x, y) ** 2).sum(), x, create_graph=True)
    gx.sum().backward()
    tx, ty = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, y))
    tgx, = torch.autograd.grad(((tx * ty) ** 2).sum(), tx, create_graph=True)
    tgx.sum().backward()
    assert numgrad.allclose(y.grad, numgrad.tensor(ty.grad.numpy()))


def test_saved_input_written_in_place_is_refused():
    x, y = _pair()
    a, b = x * 1, y * 1
    out = joint_mul(a, b)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_retain_graph_and_release():
    x, y = _pair()
    out = joint_mul(x, y).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert numgrad.allclose(x.grad, 2 * y.detach())
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()


def test_forward_mode_uses_jvp_rules():
    import numgrad.autograd.forward_ad as fwAD
    x, y = (t.detach() for t in _pair())
    with fwAD.dual_level():
        out = joint_mul(fwAD.make_dual(x, numgrad.ones_like(x)), y)
        assert numgrad.allclose(fwAD.unpack_dual(out).tangent, y)


def test_fused_attention_is_one_node():
    q, k, v = (numgrad.randn(2, 3, 5, 4, requires_grad=True) for _ in range(3))
    out = numgrad.nn.functional.scaled_dot_product_attention(q, k, v)
    ref = torch.nn.functional.scaled_dot_product_attention(*(torch.randn(2, 3, 5, 4, requires_grad=True)
                                                             for _ in range(3)))
    assert out.grad_fn.name() == ref.grad_fn.name()
    assert [type(n).__name__ for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad"] * 3


@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.float64])
def test_fused_attention_gradients(dtype):
    numgrad.manual_seed(0)
    q, k, v = (numgrad.randn(2, 3, 5, 4, dtype=dtype).transpose(-1, -2).requires_grad_() for _ in range(3))
    out = numgrad.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    tq, tk, tv = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (q, k, v))
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    g = numgrad.randn(*out.shape, dtype=dtype)
    out.backward(g)
    ref.backward(torch.tensor(g.numpy()))
    tol = 1e-5 if dtype is numgrad.float32 else 1e-12
    for a, b in ((out.detach(), ref.detach()), (q.grad, tq.grad), (k.grad, tk.grad), (v.grad, tv.grad)):
        assert numgrad.allclose(a, numgrad.tensor(b.numpy()), atol=tol, rtol=tol)


def test_fused_attention_needs_one_input():
    numgrad.manual_seed(1)
    q = numgrad.randn(2, 4, 3, dtype=numgrad.float64, requires_grad=True)
    k, v = numgrad.randn(2, 5, 3, dtype=numgrad.float64), numgrad.randn(2, 5, 3, dtype=numgrad.float64)
    numgrad.nn.functional.scaled_dot_product_attention(q, k, v).sum().backward()
    assert k.grad is None and q.grad.shape == q.shape
    assert numgrad.autograd.gradcheck(lambda a: numgrad.nn.functional.scaled_dot_product_attention(a, k, v), (q,))


def test_fused_attention_double_backward_not_implemented():
    q = numgrad.randn(2, 3, 4, dtype=numgrad.float64, requires_grad=True)
    gq, = numgrad.autograd.grad(numgrad.nn.functional.scaled_dot_product_attention(q, q, q).sum(), q,
                                create_graph=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        gq.sum().backward()


def _layers(mode, dtype):
    numgrad.manual_seed(0)
    ours = getattr(numgrad.nn, mode)(3, 4, dtype=dtype)
    theirs = getattr(torch.nn, mode)(3, 4, dtype=getattr(torch, str(dtype).split(".")[-1]))
    theirs.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in ours.state_dict().items()})
    return ours, theirs


def test_lstm_layer_is_one_node():
    ours, theirs = _layers("LSTM", numgrad.float32)
    out = ours(numgrad.randn(5, 2, 3))[0]
    assert out.grad_fn.name() == theirs(torch.randn(5, 2, 3))[0].grad_fn.name()


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype", [numgrad.float32, numgrad.float64])
def test_recurrent_layer_gradients(mode, dtype):
    ours, theirs = _layers(mode, dtype)
    x = numgrad.randn(6, 4, 3, dtype=dtype).transpose(0, 1).requires_grad_()
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    out, state = ours(x)
    tout, tstate = theirs(tx)
    h = state[0] if mode == "LSTM" else state
    th = tstate[0] if mode == "LSTM" else tstate
    ((out ** 2).sum() + h.sum()).backward()
    ((tout ** 2).sum() + th.sum()).backward()
    tol = 1e-4 if dtype is numgrad.float32 else 1e-10
    pairs = [(x.grad, tx.grad)] + [(p.grad, tp.grad) for p, tp in zip(ours.parameters(), theirs.parameters())]
    for a, b in pairs:
        assert numgrad.allclose(a, numgrad.tensor(b.numpy()), atol=tol, rtol=tol)


def test_recurrent_layer_double_backward():
    numgrad.manual_seed(2)
    layer = numgrad.nn.GRU(2, 2, dtype=numgrad.float64)
    x = numgrad.randn(3, 1, 2, dtype=numgrad.float64, requires_grad=True)
    assert numgrad.autograd.gradgradcheck(lambda a: layer(a)[0], (x,))


def test_recurrent_layer_empty_batch():
    layer = numgrad.nn.LSTM(3, 4)
    x = numgrad.randn(5, 0, 3, requires_grad=True)
    out, _ = layer(x)
    out.sum().backward()
    assert out.shape == (5, 0, 4) and x.grad.shape == x.shape
