"""numgrad.autograd.graph: saved_tensors_hooks (pack when a node saves, unpack when backward
reads; nesting; threads; create_graph; custom Functions), save_on_cpu and
disable_saved_tensors_hooks, against PyTorch."""
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numgrad  # noqa: E402
from numgrad.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: E402


def _np(t):
    return t.detach().numpy()


def _f(lib, a, b):
    return ((a * b).exp() + a.sin()).tanh().sum()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hooks_run_and_gradients_match_torch(dtype):
    data = np.random.default_rng(0).standard_normal((2, 3))
    grads = []
    for lib in (numgrad, torch):
        a = lib.tensor(data).to(getattr(lib, dtype)).requires_grad_()
        b = lib.tensor(data[::-1].copy()).to(getattr(lib, dtype))
        packed, unpacked = [], []

        def pack(t):
            packed.append(t.shape)
            return t * 1  # a copy: backward must read only what unpack returns

        def unpack(t):
            unpacked.append(t.shape)
            return t
        with saved_tensors_hooks(pack, unpack) if lib is numgrad else \
                torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = _f(lib, a, b)
        assert packed and not unpacked
        y.backward()
        assert len(unpacked) == len(packed)
        grads.append(_np(a.grad))
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(grads[0], grads[1], rtol=tol, atol=tol)


def test_unpack_value_is_what_backward_reads():
    a = numgrad.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t * 0 + 3):
        y = (a * a).sum()
    y.backward()
    assert a.grad.tolist() == [6.0, 6.0]  # d(a*a)/da = x + y with both read back as 3


def test_nesting_innermost_wins_and_restores():
    outer, inner = [], []
    a = numgrad.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: outer.append(1) or t, lambda t: t):
        with saved_tensors_hooks(lambda t: inner.append(1) or t, lambda t: t):
            a.exp()
        assert inner and not outer
        a.sin()
    assert outer
    n = len(outer)
    a.cos()
    assert len(outer) == n


def test_hooks_are_thread_local():
    seen = []
    a = numgrad.ones(2, requires_grad=True)

    def other():
        a.exp()
    with saved_tensors_hooks(lambda t: seen.append(1) or t, lambda t: t):
        th = threading.Thread(target=other)
        th.start()
        th.join()
    assert seen == []


def test_create_graph_through_hooks_and_save_on_cpu():
    x = np.array([0.3, -1.2, 2.0])
    a = numgrad.tensor(x, requires_grad=True)
    ta = torch.tensor(x, requires_grad=True)
    with save_on_cpu():
        y = (a.sin() * a).sum()
    with torch.autograd.graph.save_on_cpu():
        ty = (ta.sin() * ta).sum()
    g, = numgrad.autograd.grad(y, a, create_graph=True)
    tg, = torch.autograd.grad(ty, ta, create_graph=True)
    np.testing.assert_allclose(_np(g), _np(tg))
    np.testing.assert_allclose(_np(numgrad.autograd.grad(g.sum(), a)[0]), _np(torch.autograd.grad(tg.sum(), ta)[0]))
    assert numgrad.autograd.gradgradcheck(lambda t: _with_cpu(lambda: (t * t).exp()), (a,))


def _with_cpu(fn):
    with save_on_cpu():
        return fn()


def test_custom_function_saves_through_hooks():
    class Square(numgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    packed, unpacked = [], []
    a = numgrad.tensor([1.0, -3.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: unpacked.append(1) or t):
        y = Square.apply(a)
    assert len(packed) == 1
    y.sum().backward()
    assert len(unpacked) == 1 and a.grad.tolist() == [2.0, -6.0]


def test_second_backward_without_retain_graph_raises():
    a = numgrad.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = a.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    assert a.grad.tolist() == pytest.approx([2 * np.e] * 2)


def test_non_contiguous_and_empty():
    a = numgrad.randn(4, 6, dtype=numgrad.float64)[:, ::2].requires_grad_()
    with save_on_cpu():
        y = (a.exp() * a).sum()
    y.backward()
    np.testing.assert_allclose(_np(a.grad), _np(a.exp() * (a + 1)))
    e = numgrad.zeros(0, 3, requires_grad=True)
    with save_on_cpu():
        e.exp().sum().backward()
    assert tuple(e.grad.shape) == (0, 3)


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with disable_saved_tensors_hooks("no hooks here"):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # enabled again
        pass


def test_unpack_must_return_a_tensor():
    a = numgrad.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = a.exp().sum()
    with pytest.raises(TypeError, match="unpack_hook"):
        y.backward()


def test_node_is_reexported():
    a = numgrad.ones(2, requires_grad=True)
    assert isinstance((a * 2).grad_fn, numgrad.autograd.graph.Node)
