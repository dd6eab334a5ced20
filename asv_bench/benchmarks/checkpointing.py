"""Peak memory of a deep MLP's forward and backward, with and without activation
checkpointing, in numgrad beside PyTorch.

    python asv_bench/ratios.py checkpointing     # prints numgrad / PyTorch ratios
"""
import tracemalloc

import numpy as np

from ._steps import LIBRARIES, library_module

DEPTH = 32
WIDTH = 1024
BATCH = 256


def _net(lib):
    nn = lib.nn
    layers = []
    for _ in range(DEPTH):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    return nn.Sequential(*layers)


def peak_bytes(library: str, segments: int) -> int:
    """Peak bytes allocated (tracemalloc) by one forward and backward of the MLP, run through
    ``checkpoint_sequential`` in ``segments`` segments (0: not checkpointed); parameters, their
    gradients and the input are allocated before the measurement."""
    lib = library_module(library)
    lib.manual_seed(0)
    net = _net(lib)
    x = lib.tensor(np.random.default_rng(0).standard_normal((BATCH, WIDTH)).astype(np.float32))
    for p in net.parameters():
        p.grad = lib.zeros_like(p)
    tracemalloc.start()
    try:
        if segments:
            y = lib.utils.checkpoint.checkpoint_sequential(net, segments, x, use_reentrant=False)
        else:
            y = net(x)
        y.sum().backward()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class PeakMemory:
    """numgrad's peak bytes; PyTorch's allocator is invisible to tracemalloc, so it is skipped."""

    params = (["numgrad"], [0, 8])
    param_names = ["library", "segments"]
    unit = "bytes"

    def track_forward_backward(self, library, segments):
        return peak_bytes(library, segments)


class CheckpointedStep:
    """Time of a forward and backward of a smaller MLP (8 x Linear(256, 256) + ReLU, batch 64),
    plain and in 4 checkpointed segments: the recomputation's cost."""

    params = (LIBRARIES, [0, 4])
    param_names = ["library", "segments"]

    def setup(self, library, segments):
        lib = library_module(library)
        lib.manual_seed(0)
        nn = lib.nn
        layers = []
        for _ in range(8):
            layers += [nn.Linear(256, 256), nn.ReLU()]
        net = nn.Sequential(*layers)
        x = lib.tensor(np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32))
        run = lib.utils.checkpoint.checkpoint_sequential

        def step():
            y = run(net, segments, x, use_reentrant=False) if segments else net(x)
            y.sum().backward()
        self.step = step
        step()

    def time_forward_backward(self, library, segments):
        self.step()
