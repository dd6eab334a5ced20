"""Chen Yun's book, ch. 3: autograd basics, the graph, no_grad/set_grad_enabled, autograd.grad,
hooks, backward with a gradient, a custom Function."""
import torch as t
from torch.autograd import Function

x = t.ones(2, 2, requires_grad=True)
print(x)
y = x.sum()
print(y)
print(y.grad_fn)
y.backward()
print(x.grad)
y.backward()
print(x.grad)
y.backward()
print(x.grad)
x.grad.data.zero_()
y.backward()
print(x.grad)

x = t.ones(1)
b = t.tensor([0.25], requires_grad=True)
w = t.tensor([0.75], requires_grad=True)
y = w * x
z = y + b
print(x.requires_grad, b.requires_grad, w.requires_grad)
print(y.requires_grad)
print(x.is_leaf, w.is_leaf, b.is_leaf)
print(y.is_leaf, z.is_leaf)
print(z.grad_fn)
print(z.grad_fn.next_functions)
print(z.grad_fn.next_functions[0][0] == y.grad_fn)
print(y.grad_fn.next_functions)
print(w.grad_fn, x.grad_fn)

x = t.ones(1, requires_grad=True)
w = t.rand(1, requires_grad=True)
y = x * w
print(x.requires_grad, w.requires_grad, y.requires_grad)
with t.no_grad():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    y = x * w
print(x.requires_grad, w.requires_grad, y.requires_grad)
t.set_grad_enabled(False)
x = t.ones(1)
w = t.rand(1, requires_grad=True)
y = x * w
print(x.requires_grad, w.requires_grad, y.requires_grad)
t.set_grad_enabled(True)
print(t.is_grad_enabled())

x = t.ones(3, requires_grad=True)
w = t.tensor([0.2709, 0.0473, 0.5052], requires_grad=True)
y = x * w
z = y.sum()
print(x.requires_grad, w.requires_grad, y.requires_grad)
z.backward()
print((x.grad, w.grad, y.grad))
x = t.ones(3, requires_grad=True)
w = t.rand(3, requires_grad=True)
y = x * w
z = y.sum()
print(t.autograd.grad(z, y))


def variable_hook(grad):
    print('y的梯度：', grad)


x = t.ones(3, requires_grad=True)
w = t.rand(3, requires_grad=True)
y = x * w
hook_handle = y.register_hook(variable_hook)
z = y.sum()
z.backward()
hook_handle.remove()

x = t.arange(0, 3, dtype=t.float, requires_grad=True)
y = x**2 + x*2
z = y.sum()
z.backward()
print(x.grad)
x = t.arange(0, 3, dtype=t.float, requires_grad=True)
y = x**2 + x*2
z = y.sum()
y_gradient = t.Tensor([1, 1, 1])
y.backward(y_gradient)
print(x.grad)
try:
    t.arange(0, 3, requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)


def f(x):
    y = x**2 * t.exp(x)
    return y


def gradf(x):
    dx = 2*x*t.exp(x) + x**2*t.exp(x)
    return dx


x = t.linspace(-2, 2, 12).view(3, 4).requires_grad_()
y = f(x)
print(y)
y.backward(t.ones(y.size()))
print(x.grad)
print(gradf(x))
t.autograd.backward([f(x).sum()], retain_graph=False)
print(x.grad)


class MultiplyAdd(Function):

    @staticmethod
    def forward(ctx, w, x, b):
        ctx.save_for_backward(w, x)
        output = w * x + b
        return output

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        grad_w = grad_output * x
        grad_x = grad_output * w
        grad_b = grad_output * 1
        return grad_w, grad_x, grad_b


x = t.ones(1)
w = t.rand(1, requires_grad=True)
b = t.rand(1, requires_grad=True)
z = MultiplyAdd.apply(w, x, b)
print(z.grad_fn)
z.backward()
print(x.grad, w.grad, b.grad)
