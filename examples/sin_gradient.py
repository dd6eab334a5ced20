"""The sin/cos example of the autograd tutorial: d/da sum(2 sin(a) + 1) is 2 cos(a).
Prints a, sin(a), the gradient and its largest deviation from 2 cos(a); when matplotlib is
installed, saves both curves to a PNG.

Run: python examples/sin_gradient.py [--png sin_gradient.png]
"""
import argparse
import math

import numgrad as ng


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--png", default="sin_gradient.png")
    args = parser.parse_args(argv)

    a = ng.linspace(0.0, 2.0 * math.pi, steps=args.steps, requires_grad=True)
    print(a)
    b = ng.sin(a)
    print(b)
    c = 2 * b
    d = c + 1
    out = d.sum()
    print(out)
    out.backward()
    print(a.grad)
    error = float((a.grad - 2 * ng.cos(a.detach())).abs().max())
    print(f"max |grad - 2 cos(a)| = {error:.3g}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot saved")
        return a, error
    plt.plot(a.detach().numpy(), b.detach().numpy(), label="sin(a)")
    plt.plot(a.detach().numpy(), a.grad.numpy(), label="d/da sum(2 sin(a) + 1)")
    plt.legend()
    plt.savefig(args.png)
    plt.close()
    print(f"plot saved to {args.png}")
    return a, error


if __name__ == "__main__":
    main()
