"""Forward + backward: a 40-op chain on 16 elements (per-op overhead of the tape and engine)
and one MLP training step (batch 64, 784-256-10, ReLU, MSE), beside PyTorch and hand-written
NumPy gradients.

    python -m asv_bench.benchmarks.autograd    # prints the ratios
"""
import numpy as np

LIBRARIES = ["numgrad", "numpy", "torch"]


def _torch():
    try:
        import torch
    except ImportError:
        raise NotImplementedError("torch is not installed") from None
    torch.set_num_threads(1)
    return torch


def chain_case(library):
    """``run()`` doing forward+backward of 40 elementwise ops on a 16-element float32 tensor."""
    x0 = np.linspace(0.1, 1.0, 16, dtype=np.float32)
    if library == "numpy":
        def run():
            y = x0
            ys = []
            for _ in range(10):
                ys.append(y)
                y = np.tanh(y * 1.5 + 0.1) - 0.2
            g = np.ones_like(y)
            for y in reversed(ys):
                g = g * 1.5 * (1 - np.tanh(y * 1.5 + 0.1) ** 2)
            return g
        return run
    lib = _torch() if library == "torch" else __import__("numgrad")
    x = lib.tensor(x0, requires_grad=True)

    def run():
        y = x
        for _ in range(10):
            y = (y * 1.5 + 0.1).tanh() - 0.2
        y.sum().backward()
        x.grad = None
    return run


def mlp_case(library, batch=64, sizes=(784, 256, 10)):
    """``run()`` doing one SGD step of a ReLU MLP with MSE loss."""
    rng = np.random.default_rng(0)
    xa = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    ya = rng.standard_normal((batch, sizes[2])).astype(np.float32)
    w1a = (rng.standard_normal((sizes[0], sizes[1])) * 0.05).astype(np.float32)
    b1a = np.zeros(sizes[1], np.float32)
    w2a = (rng.standard_normal((sizes[1], sizes[2])) * 0.05).astype(np.float32)
    b2a = np.zeros(sizes[2], np.float32)
    lr = 1e-3
    if library == "numpy":
        w1, b1, w2, b2 = w1a.copy(), b1a.copy(), w2a.copy(), b2a.copy()

        def run():
            h = xa @ w1 + b1
            a = np.maximum(h, 0)
            out = a @ w2 + b2
            diff = out - ya
            loss = (diff * diff).mean()
            gout = diff * (2.0 / diff.size)
            gw2 = a.T @ gout
            gb2 = gout.sum(0)
            ga = gout @ w2.T
            gh = ga * (h > 0)
            gw1 = xa.T @ gh
            gb1 = gh.sum(0)
            w1[...] -= lr * gw1
            b1[...] -= lr * gb1
            w2[...] -= lr * gw2
            b2[...] -= lr * gb2
            return loss
        return run
    lib = _torch() if library == "torch" else __import__("numgrad")
    x, y = lib.tensor(xa), lib.tensor(ya)
    params = [lib.tensor(a, requires_grad=True) for a in (w1a, b1a, w2a, b2a)]

    def run():
        w1, b1, w2, b2 = params
        out = (x @ w1 + b1).relu() @ w2 + b2
        loss = ((out - y) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * lr)
                p.grad = None
        return loss
    return run


class Chain:
    params = (LIBRARIES,)
    param_names = ["library"]

    def setup(self, library):
        self.run = chain_case(library)
        self.run()

    def time_chain(self, library):
        self.run()


class MLPStep:
    params = (LIBRARIES,)
    param_names = ["library"]

    def setup(self, library):
        self.run = mlp_case(library)
        self.run()

    def time_step(self, library):
        self.run()


def _best(run, n=200):
    import timeit
    run()
    return min(timeit.repeat(run, number=n // 10 or 1, repeat=10)) / (n // 10 or 1)


if __name__ == "__main__":
    for name, make in (("chain", chain_case), ("mlp", mlp_case)):
        t = {}
        for lib in LIBRARIES:
            try:
                t[lib] = _best(make(lib))
            except NotImplementedError:
                continue
        line = ", ".join(f"{k} {v * 1e6:.0f} us" for k, v in t.items())
        ratios = ", ".join(f"numgrad/{k} {t['numgrad'] / v:.2f}x" for k, v in t.items() if k != "numgrad")
        print(f"{name}: {line}; {ratios}")
