"""Training steps of an MLP (784-256-10) and a small CNN (two conv layers on 28x28), batch 64,
in numgrad beside PyTorch: forward, cross-entropy, backward and an SGD step.

    python asv_bench/benchmarks/training.py     # prints numgrad / PyTorch time ratios
"""
import numpy as np

import numgrad

try:
    import torch
except ImportError:  # PyTorch is an optional comparison
    torch = None

BATCH = 64
MODELS = ["mlp", "cnn"]
LIBRARIES = ["numgrad", "torch"]


def _build(lib, model):
    nn = lib.nn
    if model == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)), (BATCH, 784)
    net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Flatten(), nn.Linear(16 * 7 * 7, 10))
    return net, (BATCH, 1, 28, 28)


def make_step(library: str, model: str):
    """A function running one training step of ``model`` in ``library`` on fixed random data."""
    if library == "torch" and torch is None:
        raise NotImplementedError("torch is not installed")
    lib = numgrad if library == "numgrad" else torch
    lib.manual_seed(0)
    net, shape = _build(lib, model)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(shape).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, BATCH))
    loss_fn = lib.nn.CrossEntropyLoss()
    opt = lib.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


class Training:
    """One optimisation step (forward, loss, backward, SGD update)."""

    params = (LIBRARIES, MODELS)
    param_names = ["library", "model"]

    def setup(self, library, model):
        self.step = make_step(library, model)
        self.step()  # compile kernels outside the timed runs

    def time_step(self, library, model):
        self.step()


def _best(step, repeats=5, number=10):
    import timeit
    step()
    return min(timeit.repeat(step, repeat=repeats, number=number)) / number


if __name__ == "__main__":
    for model in MODELS:
        ours = _best(make_step("numgrad", model))
        line = f"{model}: numgrad {ours * 1e3:.2f} ms/step"
        if torch is not None:
            theirs = _best(make_step("torch", model))
            line += f", torch {theirs * 1e3:.2f} ms/step, ratio {ours / theirs:.2f}"
        print(line)
