"""Reverse mode: the tape's visible surface, backward/grad, views and in-place ops, errors."""
import threading

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


def _t(data, **kw):
    return ng.tensor(data, **kw)


def close(t, expected):
    np.testing.assert_allclose(np.asarray(t.detach()), np.asarray(expected, dtype=np.float64), rtol=1e-6)


# ----------------------------------------------------------------- requires_grad, leaves, names

def test_requires_grad_only_floating():
    with pytest.raises(RuntimeError, match="(?i)only Tensors of floating point"):
        ng.ones(2, dtype=ng.int64).requires_grad_()
    x = ng.ones(2, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None


def test_grad_fn_names_and_next_functions():
    x = ng.ones(3, 4, requires_grad=True)
    y = ng.ones(4)
    names = {
        "AddBackward0": x + y, "SubBackward0": x - y, "MulBackward0": x * y, "DivBackward0": x / y,
        "PowBackward0": x ** 2, "SumBackward0": x.sum(), "ViewBackward0": x.view(12),
        "SinBackward0": x.sin(), "ExpBackward0": x.exp(), "NegBackward0": -x,
        "TransposeBackward0": x.transpose(0, 1), "PermuteBackward0": x.permute(1, 0),
        "ExpandBackward0": x[:1].expand(3, 4), "SelectBackward0": x[0], "SliceBackward0": x[1:],
        "UnsqueezeBackward0": x.unsqueeze(0), "CloneBackward0": x.clone(), "TanhBackward0": x.tanh(),
        "AsStridedBackward0": x.as_strided((2,), (1,)),
    }
    for name, t in names.items():
        assert type(t.grad_fn).__name__ == name
        assert t.grad_fn.name() == name
    z = x * y
    (acc, idx), none = z.grad_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and idx == 0
    assert none == (None, 0)
    assert not z.is_leaf and z.requires_grad


def test_seed_next_functions_chain():
    a = ng.linspace(0.0, 1.0, 5, requires_grad=True)
    b = a.sin()
    c = 2 * b
    d = c + 1
    assert type(d.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    assert d.grad_fn.next_functions[1] == (None, 0)
    assert d.grad_fn.next_functions[0][0].next_functions[0][0] is b.grad_fn
    assert b.grad_fn.next_functions[0][0].variable is a


def test_positions_are_wengert_order():
    x = ng.ones(2, requires_grad=True)
    y = x * 2
    z = y + 1
    assert z.grad_fn.position > y.grad_fn.position


# ----------------------------------------------------------------- backward / grad

def test_accumulates_and_zero():
    x = ng.ones(2, 2, requires_grad=True)
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    close(x.grad, np.full((2, 2), 6.0))
    x.grad.zero_()
    x.sum().backward()
    close(x.grad, np.ones((2, 2)))
    x.grad = None
    x.sum().backward()
    close(x.grad, np.ones((2, 2)))


def test_broadcasting_reduced():
    x = ng.ones(3, 1, requires_grad=True)
    b = ng.ones(4, requires_grad=True)
    (x * b + 1.0).sum().backward()
    assert x.grad.shape == (3, 1) and b.grad.shape == (4,)
    close(x.grad, np.full((3, 1), 4.0))
    close(b.grad, np.full(4, 3.0))


def test_backward_gradient_argument_and_errors():
    x = _t([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(ng.ones(3))
    y.backward(_t([1.0, 0.5]))
    close(x.grad, [2.0, 1.0])


def test_backward_of_tensor_outside_graph():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        ng.ones(2).sum().backward()


def test_second_backward_needs_retain_graph():
    x = _t([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    close(x.grad, [4.0, 8.0])
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time.*retain_graph=True"):
        y.backward()
    # nodes that saved nothing can be replayed, as in PyTorch
    z = (x + 1).sum()
    z.backward()
    z.backward()


def test_graph_freed_after_backward():
    x = _t([1.0, 2.0], requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.sum().backward()
    assert node._saved == (None, None) and node._released


def test_autograd_grad_and_allow_unused():
    x = _t([1.0, 2.0], requires_grad=True)
    w = _t([3.0, 4.0], requires_grad=True)
    (gx,) = autograd.grad((x * x).sum(), x)
    close(gx, [2.0, 4.0])
    assert x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph. Set allow_unused=True"):
        autograd.grad((x * 2).sum(), [x, w])
    gx, gw = autograd.grad((x * 2).sum(), [x, w], allow_unused=True)
    assert gw is None
    gx, gw = autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
    close(gw, [0.0, 0.0])
    (g,) = autograd.grad(x * 3, x, grad_outputs=ng.ones(2))
    close(g, [3.0, 3.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        autograd.grad((x * 2).sum(), ng.ones(2))


def test_grad_wrt_intermediate():
    x = ng.ones(3, requires_grad=True)
    w = _t([1.0, 2.0, 3.0], requires_grad=True)
    y = x * w
    (gy,) = autograd.grad(y.sum(), y)
    close(gy, [1.0, 1.0, 1.0])


def test_backward_inputs():
    x = _t([1.0, 2.0], requires_grad=True)
    w = _t([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None
    close(w.grad, [1.0, 2.0])
    autograd.backward([(x * w).sum()], inputs=[x])
    close(x.grad, [3.0, 4.0])


def test_higher_order():
    x = _t(2.0, requires_grad=True)
    y = x ** 3
    (g,) = autograd.grad(y, x, create_graph=True)
    (gg,) = autograd.grad(g, x, create_graph=True)
    (ggg,) = autograd.grad(gg, x)
    assert (g.item(), gg.item(), ggg.item()) == (12.0, 12.0, 6.0)
    x = _t([1.0, 2.0], requires_grad=True)
    (x.sin().sum()).backward(create_graph=True)
    gsum = x.grad.sum()
    assert x.grad.requires_grad
    (h,) = autograd.grad(gsum, x)
    close(h, -np.sin([1.0, 2.0]))


def test_retain_grad_and_hooks():
    x = _t([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    seen = []
    h = y.register_hook(lambda g: seen.append(g) or g * 10)
    y.sum().backward()
    close(y.grad, [10.0, 10.0])  # retain_grad sees the gradient after the tensor's hooks
    close(x.grad, [20.0, 20.0])
    assert len(seen) == 1
    h.remove()
    x.grad = None
    (x * 2).sum().backward()
    close(x.grad, [2.0, 2.0])
    leaf_seen = []
    hl = x.register_hook(lambda g: leaf_seen.append(g) or g + 1)
    x.grad = None
    (x * 2).sum().backward()
    close(x.grad, [3.0, 3.0])
    hl.remove()
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ng.ones(2).register_hook(lambda g: g)


def test_node_hooks():
    x = _t([1.0, 2.0], requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_detach_data_and_detach_():
    x = ng.ones(2, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d[0] = 5.0
    assert x[0].item() == 5.0
    y = 2 * x
    x.data *= 100
    y.sum().backward()
    close(x.grad, [2.0, 2.0])
    assert not x.data.requires_grad
    z = x * 2
    z.detach_()
    assert z.grad_fn is None and not z.requires_grad


# ----------------------------------------------------------------- views and in-place

def test_add_saves_nothing_so_inplace_is_fine():
    x = ng.ones(3, requires_grad=True) * 1
    y = x + 1
    x.add_(1)
    y.sum().backward()


def test_version_counter_error():
    x = _t([1.0, 2.0], requires_grad=True)
    e = x.sin()
    v0 = e._version
    e.mul_(2)
    assert e._version == v0 + 1
    y = x * 2
    z = x * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been "
                                           "modified by an inplace operation"):
        z.sum().backward()
    w = x.exp()
    w.add_(1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0 instead"):
        w.sum().backward()


def test_versions_shared_by_views():
    x = ng.zeros(4)
    v = x[1:]
    x.add_(1)
    assert v._version == x._version == 1


def test_inplace_on_leaf_errors():
    x = ng.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.add_(1)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        x[0:1].mul_(2)
    with ng.no_grad():
        x.add_(1)
    close(x, [2.0, 2.0])


def test_inplace_through_history():
    x = _t([1.0, 2.0], requires_grad=True)
    y = _t([3.0, 4.0], requires_grad=True)
    b = x * 1
    b.add_(y)
    b.mul_(2)
    b.sum().backward()
    close(x.grad, [2.0, 2.0])
    close(y.grad, [2.0, 2.0])
    c = x * 1
    c.mul_(c)  # mul saved c, then overwrote it: PyTorch refuses this too
    with pytest.raises(RuntimeError, match="output 0 of Mul, is at version 1; expected version 0"):
        c.sum().backward()


def test_setitem_routes_gradients():
    x = _t([1.0, 2.0, 3.0], requires_grad=True)
    y = _t(5.0, requires_grad=True)
    b = x * 1
    b[0] = y * 2
    assert type(b.grad_fn).__name__ == "CopySlices"
    (b * _t([1.0, 10.0, 100.0])).sum().backward()
    close(x.grad, [0.0, 10.0, 100.0])
    assert y.grad.item() == 2.0


def test_write_into_view_then_read_other_view():
    x = _t([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = x.clone()
    other = b[2:]
    first = b[:2]
    first.mul_(3)
    (b.sum() + other.sum() * 10).backward()
    close(x.grad, [3.0, 3.0, 11.0, 11.0])


def test_view_ops_gradients():
    x = ng.arange(6.0).requires_grad_()
    x.view(2, 3).t().contiguous().reshape(6).mul(_t([1.0, 2, 3, 4, 5, 6])).sum().backward()
    close(x.grad, [1, 3, 5, 2, 4, 6])
    x.grad = None
    x[:2].view(2, 1).expand(2, 3).sum().backward()
    close(x.grad, [3, 3, 0, 0, 0, 0])
    x.grad = None
    x.as_strided((2, 2), (1, 1)).sum().backward()
    close(x.grad, [1, 2, 1, 0, 0, 0])


def test_zero_gradient_multi_use():
    x = _t([2.0], requires_grad=True)
    y = x * x * x
    y.backward()
    close(x.grad, [12.0])


# ----------------------------------------------------------------- grad modes

def test_grad_modes():
    x = ng.ones(1, requires_grad=True)
    with ng.no_grad():
        assert not ng.is_grad_enabled()
        assert not (x * 2).requires_grad
        with ng.enable_grad():
            assert (x * 2).requires_grad
    assert ng.is_grad_enabled()
    ng.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    ng.set_grad_enabled(True)
    with ng.set_grad_enabled(False):
        assert not ng.is_grad_enabled()
    assert ng.is_grad_enabled()
    with ng.inference_mode():
        assert not (x * 2).requires_grad and ng.is_inference_mode_enabled()
    assert not ng.is_inference_mode_enabled()


def test_grad_mode_decorators():
    x = ng.ones(1, requires_grad=True)

    @ng.no_grad()
    def f():
        return x * 2

    @ng.enable_grad()
    def g():
        return x * 2

    @ng.set_grad_enabled(False)
    def h():
        return x * 2

    assert not f().requires_grad and not h().requires_grad
    assert ng.is_grad_enabled()
    with ng.no_grad():
        assert g().requires_grad


def test_grad_mode_is_per_thread():
    seen = []
    with ng.no_grad():
        t = threading.Thread(target=lambda: seen.append(ng.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]
