"""Forward and backward of two-layer recurrent layers (input and hidden size 256, 35 steps,
batch 20) in numgrad beside PyTorch.

    python asv_bench/ratios.py recurrent     # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, StepCase, library_module

SIZE, STEPS, BATCH, LAYERS = 256, 35, 20, 2
MODELS = ["lstm", "gru", "rnn"]


def make_step(library: str, model: str):
    """A function running forward and backward (of the output's sum) of ``model`` in ``library``."""
    lib = library_module(library)
    lib.manual_seed(0)
    layer = {"lstm": lib.nn.LSTM, "gru": lib.nn.GRU, "rnn": lib.nn.RNN}[model](SIZE, SIZE, LAYERS)
    data = np.random.default_rng(0).standard_normal((STEPS, BATCH, SIZE)).astype(np.float32)
    x = lib.tensor(data, requires_grad=True)

    def step():
        layer.zero_grad()
        x.grad = None
        output, _ = layer(x)
        output.sum().backward()
    return step


class Recurrent(StepCase):
    """Forward and backward of a two-layer recurrent layer over a padded batch."""

    params = (LIBRARIES, MODELS)
    param_names = ["library", "model"]
    make_step = staticmethod(make_step)

    def time_forward_backward(self, library, model):
        self.step()
