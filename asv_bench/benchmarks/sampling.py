"""Resampling in numgrad beside PyTorch: bilinear and nearest upsampling of a (8, 64, 32, 32)
batch by 2, forward and forward + backward, and grid_sample of a (4, 16, 32, 32) batch.

    python asv_bench/ratios.py sampling     # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, library_module


class Upsample:
    """interpolate(x, scale_factor=2) of a (8, 64, 32, 32) float32 batch."""

    params = (LIBRARIES, ["bilinear", "nearest"])
    param_names = ["library", "mode"]

    def setup(self, library, mode):
        lib = library_module(library)
        data = np.random.default_rng(0).standard_normal((8, 64, 32, 32)).astype(np.float32)
        self.x = lib.tensor(data, requires_grad=True)
        self.g = lib.ones(8, 64, 64, 64)
        self.kwargs = {"scale_factor": 2, "mode": mode}
        if mode == "bilinear":
            self.kwargs["align_corners"] = False
        self.F = lib.nn.functional
        self.time_forward_backward(library, mode)

    def time_forward(self, library, mode):
        with library_module(library).no_grad():
            self.F.interpolate(self.x, **self.kwargs)

    def time_forward_backward(self, library, mode):
        self.x.grad = None
        self.F.interpolate(self.x, **self.kwargs).backward(self.g)


class GridSample:
    """grid_sample of a (4, 16, 32, 32) float32 batch at a (4, 32, 32) grid, bilinear, zeros."""

    params = LIBRARIES
    param_names = ["library"]

    def setup(self, library):
        lib = library_module(library)
        rng = np.random.default_rng(0)
        self.x = lib.tensor(rng.standard_normal((4, 16, 32, 32)).astype(np.float32), requires_grad=True)
        self.grid = lib.tensor(rng.uniform(-1.1, 1.1, (4, 32, 32, 2)).astype(np.float32), requires_grad=True)
        self.F = lib.nn.functional
        self.time_forward_backward(library)

    def time_forward_backward(self, library):
        self.x.grad = self.grid.grad = None
        self.F.grid_sample(self.x, self.grid, align_corners=False).sum().backward()
