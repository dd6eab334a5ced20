"""The autograd tutorial examples, with the numbers the tutorials print."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd
from numgrad.autograd import Function, once_differentiable


def close(t, expected):
    np.testing.assert_allclose(np.asarray(t.detach()), np.asarray(expected, dtype=np.float64), rtol=1e-6)


def test_mean_of_squares():
    x = ng.ones(2, 2, requires_grad=True)
    y = x + 2
    assert type(y.grad_fn).__name__ == "AddBackward0"
    assert x.is_leaf and not y.is_leaf
    z = y * y * 3
    out = z.mean()
    assert out.item() == 27.0
    out.backward()
    close(x.grad, np.full((2, 2), 4.5))
    out2 = x.sum()
    out2.backward()
    close(x.grad, np.full((2, 2), 5.5))
    out3 = x.sum()
    x.grad.data.zero_()
    out3.backward()
    close(x.grad, np.ones((2, 2)))


def test_out_expression():
    x = ng.ones(2, 2, requires_grad=True)
    out = (3 * (x + 2) ** 2).mean()
    out.backward()
    close(x.grad, np.full((2, 2), 4.5))


def test_requires_grad_inplace_flag():
    a = ng.tensor([[2.0, 3.0], [4.0, 5.0]])
    a = (a * 3) / (a - 1)
    assert not a.requires_grad
    a.requires_grad_(True)
    b = (a * a).sum()
    assert type(b.grad_fn).__name__ == "SumBackward0"


def test_vector_jacobian_product():
    x = ng.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = 2 * x
    z = y.view(2, 2)
    assert type(z.grad_fn).__name__ == "ViewBackward0"
    v = ng.tensor([[1.0, 0.1], [0.01, 0.001]])
    z.backward(v)
    close(x.grad, [2.0, 0.2, 0.02, 0.002])


def test_no_grad_block():
    x = ng.tensor(1.0, requires_grad=True)
    y1 = x ** 2
    with ng.no_grad():
        y2 = x ** 3
    y3 = y1 + y2
    assert type(y1.grad_fn).__name__ == "PowBackward0" and y1.requires_grad
    assert not y2.requires_grad and y2.grad_fn is None
    assert type(y3.grad_fn).__name__ == "AddBackward0"
    y3.backward()
    assert x.grad.item() == 2.0
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        y2.backward()


def test_data_writes():
    x = ng.ones(1, requires_grad=True)
    assert not x.data.requires_grad
    y = 2 * x
    x.data *= 100
    y.backward()
    close(x, [100.0])
    close(x.grad, [2.0])


def test_control_flow():
    a = ng.tensor(-0.7648, requires_grad=True)

    def f(a):
        b = a * 2
        while b.norm() < 1000 if hasattr(b, "norm") else b.abs() < 1000:
            b = b * 2
        if b.sum() > 0:
            c = b
        else:
            c = 100 * b
        return c

    d = f(a)
    d.backward()
    close(a.grad, (d / a).detach())


def test_hook_and_grad_on_intermediate():
    x = ng.ones(3, requires_grad=True)
    w = ng.tensor([0.3, 0.6, 0.9], requires_grad=True)
    y = x * w
    z = y.sum()
    (gy,) = autograd.grad(z, y)
    close(gy, [1.0, 1.0, 1.0])
    seen = []
    y = x * w
    handle = y.register_hook(lambda grad: seen.append(grad))
    y.sum().backward()
    handle.remove()
    close(seen[0], [1.0, 1.0, 1.0])
    close(x.grad, [0.3, 0.6, 0.9])
    close(w.grad, [1.0, 1.0, 1.0])


def test_sum_of_polynomial():
    x = ng.arange(0.0, 3.0).requires_grad_()
    y = x ** 2 + x * 2
    y.sum().backward()
    close(x.grad, [2.0, 4.0, 6.0])
    x.grad = None
    y = x ** 2 + x * 2
    y.backward(ng.ones(3))
    close(x.grad, [2.0, 4.0, 6.0])


class MultiplyAdd(Function):
    @staticmethod
    def forward(ctx, w, x, b):
        ctx.save_for_backward(w, x)
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        return grad_output * x, grad_output * w, grad_output * 1


def test_multiply_add_function():
    x = ng.ones(1)
    w = ng.tensor([0.25], requires_grad=True)
    b = ng.tensor([0.5], requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    assert type(z.grad_fn).__name__ == "MultiplyAddBackward"
    assert z.grad_fn.next_functions[1] == (None, 0)
    z.backward()
    assert x.grad is None
    close(w.grad, [1.0])
    close(b.grad, [1.0])


def test_function_ctx_features():
    class Sq(Function):
        @staticmethod
        def forward(ctx, x, flag):
            assert ctx.needs_input_grad == (True, False)
            y = x * x
            idx = (x > 0)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, y)
            return y, idx

        @staticmethod
        def backward(ctx, g, gidx):
            x, y = ctx.saved_tensors
            return 2 * x * g, None

    x = ng.tensor([1.0, -2.0], dtype=ng.float64, requires_grad=True)
    y, idx = Sq.apply(x, 3)
    assert not idx.requires_grad and y.requires_grad
    (g,) = autograd.grad(y.sum(), x, create_graph=True)
    close(g, [2.0, -4.0])
    (gg,) = autograd.grad(g.sum(), x)
    close(gg, [2.0, 2.0])
    assert autograd.gradcheck(lambda t: Sq.apply(t, 0)[0], (x,))


def test_mark_dirty_and_wrong_count():
    class AddOneInplace(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = ng.ones(2, requires_grad=True)
    b = a * 1
    c = AddOneInplace.apply(b)
    assert c is b and type(b.grad_fn).__name__ == "AddOneInplaceBackward"
    c.sum().backward()
    close(a.grad, [1.0, 1.0])

    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(a, a).sum().backward()


def test_once_differentiable():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    x = ng.tensor([0.0, 1.0], requires_grad=True)
    (g,) = autograd.grad(Exp.apply(x).sum(), x)
    close(g, np.exp([0.0, 1.0]))
    v = ng.ones(2, requires_grad=True)
    (g,) = autograd.grad(Exp.apply(x), x, grad_outputs=v, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()
