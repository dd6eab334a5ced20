"""Attention in numgrad beside PyTorch, forward and backward: scaled_dot_product_attention on
(2, 4, 1024, 64) and a 2-layer TransformerEncoder (d_model 128, 4 heads, feedforward 512,
sequence 64, batch 16, no dropout).

    python asv_bench/ratios.py attention     # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, StepCase, library_module


def make_sdpa_step(library: str, shape=(2, 4, 1024, 64)):
    """A function running scaled_dot_product_attention forward and backward in ``library``."""
    lib = library_module(library)
    rng = np.random.default_rng(0)
    q, k, v = (lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True) for _ in range(3))
    g = lib.tensor(rng.standard_normal(shape).astype(np.float32))

    def step():
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        out.backward(g)
        return out
    return step


def make_encoder_step(library: str):
    """A function running a 2-layer TransformerEncoder forward and backward in ``library``."""
    lib = library_module(library)
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(128, 4, dim_feedforward=512, dropout=0.0, batch_first=True)
    net = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((16, 64, 128)).astype(np.float32), requires_grad=True)

    def step():
        net.zero_grad()
        loss = net(x).square().mean()
        loss.backward()
        return loss
    return step


class ScaledDotProductAttention(StepCase):
    """Forward and backward of scaled_dot_product_attention at sequence length 1024."""

    params = (LIBRARIES,)
    param_names = ["library"]
    make_step = staticmethod(make_sdpa_step)

    def time_forward_backward(self, library):
        self.step()


class TransformerEncoder(StepCase):
    """Forward and backward of a small 2-layer TransformerEncoder."""

    params = (LIBRARIES,)
    param_names = ["library"]
    make_step = staticmethod(make_encoder_step)

    def time_forward_backward(self, library):
        self.step()
