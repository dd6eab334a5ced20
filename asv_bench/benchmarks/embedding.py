"""Embedding bags in numgrad beside PyTorch: EmbeddingBag(10000, 64) on 512 bags of about 20
indices each, forward alone and forward with backward.

    python asv_bench/ratios.py embedding      # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, library_module

NUM_EMBEDDINGS, DIM, BAGS, BAG_SIZE = 10000, 64, 512, 20
MODES = ["mean", "sum", "max"]


def _inputs(lib):
    """Flat indices and offsets of bags whose sizes vary around BAG_SIZE."""
    rng = np.random.default_rng(0)
    sizes = rng.integers(BAG_SIZE - 5, BAG_SIZE + 6, BAGS)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    indices = rng.integers(0, NUM_EMBEDDINGS, int(sizes.sum()))
    return lib.tensor(indices), lib.tensor(offsets)


class EmbeddingBag:
    """nn.EmbeddingBag forward, and forward with backward into the weight."""

    params = (LIBRARIES, MODES)
    param_names = ["library", "mode"]

    def setup(self, library, mode):
        lib = library_module(library)
        lib.manual_seed(0)
        self.bag = lib.nn.EmbeddingBag(NUM_EMBEDDINGS, DIM, mode=mode)
        self.indices, self.offsets = _inputs(lib)
        self.time_forward_backward(library, mode)  # compile kernels outside the timed runs

    def time_forward(self, library, mode):
        self.bag(self.indices, self.offsets)

    def time_forward_backward(self, library, mode):
        self.bag.weight.grad = None
        self.bag(self.indices, self.offsets).sum().backward()
