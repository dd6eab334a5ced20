"""The autograd tutorial, step by step: grad_fn chains, backward with a gradient, no_grad,
detach and .data, hooks, higher-order derivatives, and the Jacobian/Hessian helpers.

Run: python examples/autograd_tour.py
"""
import math

import numgrad as ng
from numgrad.autograd.functional import hessian, jacobian, vjp


def section(title):
    print(f"\n== {title}")


def main():
    ng.manual_seed(0)
    section("requires_grad and grad_fn")
    x = ng.ones(2, 2, requires_grad=True)
    print(x)
    print(x.grad_fn)
    y = x + 2
    print(y)
    print(y.grad_fn)
    print(x.is_leaf, y.is_leaf)
    z = y * y * 3
    out = z.mean()
    print(z, out)

    section("gradients accumulate")
    out.backward()
    print(x.grad)
    out2 = x.sum()
    out2.backward()
    print(x.grad)
    out3 = x.sum()
    x.grad.data.zero_()
    out3.backward()
    print(x.grad)

    section("backward of a non-scalar needs a gradient")
    x = ng.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    z = (2 * x).view(2, 2)
    print(z)
    z.backward(ng.tensor([[1.0, 0.1], [0.01, 0.001]]))
    print(x.grad)

    section("no_grad stops tracking")
    x = ng.tensor(1.0, requires_grad=True)
    y1 = x ** 2
    with ng.no_grad():
        y2 = x ** 3
    y3 = y1 + y2
    print(x.requires_grad)
    print(y1, y1.requires_grad)
    print(y2, y2.requires_grad)
    print(y3, y3.requires_grad)
    y3.backward()
    print(x.grad)

    section(".data and detach")
    x = ng.ones(1, requires_grad=True)
    print(x.data)
    print(x.data.requires_grad)
    y = 2 * x
    x.data *= 100
    y.backward()
    print(x)
    print(x.grad)
    x = ng.arange(4.0, requires_grad=True)
    y = x * x
    u = y.detach()
    (u * x).sum().backward()
    print(x.grad == u)

    section("walking the graph with next_functions")
    a = ng.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
    b = ng.sin(a)
    c = 2 * b
    d = c + 1
    out = d.sum()
    print(out)
    print(d.grad_fn)
    print(d.grad_fn.next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions)
    print(d.grad_fn.next_functions[0][0].next_functions[0][0].next_functions)
    out.backward()
    print("max |a.grad - 2 cos(a)| =", float((a.grad - 2 * ng.cos(a.detach())).abs().max()))

    section("hooks see intermediate gradients")
    x = ng.ones(3, requires_grad=True)
    w = ng.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x * w
    handle = y.register_hook(lambda grad: print("gradient of y:", grad))
    y.sum().backward()
    handle.remove()
    print(x.grad, w.grad)

    section("higher-order derivatives")
    x = ng.tensor(2.0, requires_grad=True)
    y = x ** 3
    (dy,) = ng.autograd.grad(y, x, create_graph=True)
    (d2y,) = ng.autograd.grad(dy, x)
    print("dy/dx =", dy.item(), " d2y/dx2 =", d2y.item())

    section("Jacobian, Hessian and vector-Jacobian products")

    def exp_adder(x, y):
        return 2 * x.exp() + 3 * y

    inputs = (ng.tensor([0.5, 1.0]), ng.tensor([0.25, 2.0]))
    print(jacobian(exp_adder, inputs))
    print(hessian(lambda x: (x ** 3).sum(), ng.tensor([1.0, 2.0])))

    def do_some_doubling(x):
        y = x * 2
        while y.data.norm() < 1000:
            y = y * 2
        return y

    print(vjp(do_some_doubling, ng.tensor([0.1, 0.2, 0.3]), v=ng.tensor([0.1, 1.0, 0.0001])))


if __name__ == "__main__":
    main()
