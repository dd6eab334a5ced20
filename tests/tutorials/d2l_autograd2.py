"""Dive into DL (2nd ed.) 2.4: dot, backward, grad.zero_, detach, control flow."""
import numpy as np
import torch

x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.sum().backward()
print(x.grad)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)
print(x.grad)


def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


a = torch.tensor(-0.7648, requires_grad=True)
print(a)
d = f(a)
d.backward()
print(a.grad)
print(a.grad == d / a)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a.shape, a.grad.shape, bool(a.grad == d / a))

X = torch.tensor(np.array([[3.0, 1, 0], [2, 0, 1], [4, 0, 1], [3, 0, 1]]))
y = torch.tensor(np.array([127500.0, 106000, 178100, 140000]))
print(X, y)
