"""Transposed convolutions and pooling in numgrad beside PyTorch: a DCGAN generator's
ConvTranspose2d stack (nz=100, batch 16, 64x64 images) and a ResNet head's global average pooling
((32, 512, 7, 7) -> (1, 1)), each forward and backward.

    python asv_bench/ratios.py conv      # prints numgrad / PyTorch time ratios
"""
import numpy as np

from ._steps import LIBRARIES, StepCase, library_module

NZ, BATCH = 100, 16


def _generator(lib, ngf: int):
    """The standard DCGAN generator's transposed convolutions, without normalisation layers."""
    nn = lib.nn
    return nn.Sequential(
        nn.ConvTranspose2d(NZ, ngf * 8, 4, 1, 0, bias=False), nn.ReLU(),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.ReLU(),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.ReLU(),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.ReLU(),
        nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())


def make_generator_step(library: str, ngf: int):
    """A function running the DCGAN generator forward and backward (of the images' sum) in ``library``."""
    lib = library_module(library)
    lib.manual_seed(0)
    net = _generator(lib, ngf)
    z = lib.tensor(np.random.default_rng(0).standard_normal((BATCH, NZ, 1, 1)).astype(np.float32))

    def step():
        net.zero_grad()
        net(z).sum().backward()
    return step


def make_head_step(library: str):
    """A function running global average pooling forward and backward in ``library``."""
    lib = library_module(library)
    x = np.random.default_rng(0).standard_normal((32, 512, 7, 7)).astype(np.float32)
    x = lib.tensor(x, requires_grad=True)
    pool = lib.nn.functional.adaptive_avg_pool2d

    def step():
        x.grad = None
        pool(x, (1, 1)).sum().backward()
    return step


class DCGANGenerator(StepCase):
    """Forward and backward of the DCGAN generator's transposed convolutions."""

    params = (LIBRARIES, [32, 64])
    param_names = ["library", "ngf"]
    make_step = staticmethod(make_generator_step)

    def time_forward_backward(self, library, ngf):
        self.step()


class ResNetHead(StepCase):
    """Global average pooling of a ResNet's last feature maps, forward and backward."""

    params = (LIBRARIES,)
    param_names = ["library"]
    make_step = staticmethod(make_head_step)

    def time_forward_backward(self, library):
        self.step()
