"""Training steps of an MLP (784-256-10) and a small CNN (two conv layers on 28x28), batch 64,
in numgrad beside PyTorch: forward, cross-entropy, backward and an SGD step.

    python asv_bench/ratios.py training     # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, StepCase, library_module

BATCH = 64
MODELS = ["mlp", "cnn"]


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
    lib = library_module(library)
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


class Training(StepCase):
    """One optimisation step (forward, loss, backward, SGD update)."""

    params = (LIBRARIES, MODELS)
    param_names = ["library", "model"]
    make_step = staticmethod(make_step)

    def time_step(self, library, model):
        self.step()
