"""Fit y = 2x + 3 (plus noise) three ways, as the tutorial does: hand-written gradients,
autograd with manual updates, and optim.SGD with nn.MSELoss. Prints the learned w and b and,
when matplotlib is installed, saves a plot of the fits.

Run: python examples/linear_regression.py [--steps 500] [--png linear_regression.png]
"""
import argparse

import numgrad as ng
from numgrad import nn, optim


def get_fake_data(batch_size=8):
    """Random points on y = 2x + 3 with unit Gaussian noise, x in [0, 5)."""
    x = ng.rand(batch_size, 1) * 5
    y = x * 2 + 3 + ng.randn(batch_size, 1)
    return x, y


def by_hand(steps, lr=0.02):
    """Gradients of 0.5 * (x w + b - y)^2 written out by hand."""
    w = ng.rand(1, 1)
    b = ng.zeros(1, 1)
    for _ in range(steps):
        x, y = get_fake_data(batch_size=4)
        y_pred = x.mm(w) + b.expand_as(y)
        dy_pred = y_pred - y
        w.sub_(lr * x.t().mm(dy_pred))
        b.sub_(lr * dy_pred.sum())
    return w, b


def with_autograd(steps, lr=0.001):
    """The same loss, differentiated by autograd; updates through ``.data``."""
    w = ng.rand(1, 1, requires_grad=True)
    b = ng.zeros(1, 1, requires_grad=True)
    for _ in range(steps):
        x, y = get_fake_data(batch_size=32)
        y_pred = x.mm(w) + b.expand_as(y)
        loss = (0.5 * (y_pred - y) ** 2).sum()
        loss.backward()
        w.data.sub_(lr * w.grad.data)
        b.data.sub_(lr * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
    return w, b


def with_optimizer(steps, lr=0.02):
    """optim.SGD on nn.MSELoss."""
    w = ng.rand(1, 1, requires_grad=True)
    b = ng.zeros(1, 1, requires_grad=True)
    opt = optim.SGD([w, b], lr=lr)
    loss_fn = nn.MSELoss()
    for _ in range(steps):
        x, y = get_fake_data(batch_size=32)
        loss = loss_fn(x.mm(w) + b.expand_as(y), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return w, b


def save_plot(fits, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot saved")
        return
    x, y = get_fake_data(batch_size=64)
    plt.scatter(x.numpy().ravel(), y.numpy().ravel(), s=8, c="gray", label="data")
    grid = ng.arange(0, 6).view(-1, 1).float()
    for name, (w, b) in fits.items():
        plt.plot(grid.numpy().ravel(), (grid.mm(w.detach()) + b.detach()).numpy().ravel(), label=name)
    plt.xlim(0, 5)
    plt.ylim(0, 13)
    plt.legend()
    plt.savefig(path)
    plt.close()
    print(f"plot saved to {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--png", default="linear_regression.png")
    args = parser.parse_args(argv)
    ng.manual_seed(1000)
    fits = {}
    for name, fit in (("by hand", by_hand), ("autograd", with_autograd), ("optim.SGD", with_optimizer)):
        w, b = fit(args.steps)
        fits[name] = (w, b)
        print(f"{name:10s} w: {w.item():.4f} b: {b.item():.4f}")
    save_plot(fits, args.png)
    return fits


if __name__ == "__main__":
    main()
