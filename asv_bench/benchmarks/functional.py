"""Jacobians and Hessians through ``numgrad.autograd.functional``, beside PyTorch's when it is
importable (vectorized: one batched pass per Jacobian)."""
import numpy as np

import numgrad

try:
    import torch
    import torch.autograd.functional as torch_functional
except ImportError:  # the comparison is optional
    torch = None

N = 256


def _data():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((N, N)) / np.sqrt(N)
    x = rng.standard_normal(N)
    return w, x


def _layer(lib, w):
    return lambda x: lib.tanh(w @ x)


def _scalar(lib, w):
    # A 256-parameter scalar function: a quadratic form through a smooth nonlinearity.
    return lambda x: (lib.tanh(w @ x) * x).sum() + (x * x).sin().sum()


class Jacobian:
    """Jacobian of tanh(W @ x) for x of 256 elements."""

    params = (["numgrad", "torch"], ["reverse-mode", "forward-mode"])
    param_names = ["library", "strategy"]

    def setup(self, library, strategy):
        w, x = _data()
        if library == "torch":
            if torch is None:
                raise NotImplementedError("torch is not installed")
            self.fn, self.x = _layer(torch, torch.tensor(w)), torch.tensor(x)
            self.jacobian = torch_functional.jacobian
        else:
            self.fn, self.x = _layer(numgrad, numgrad.tensor(w)), numgrad.tensor(x)
            self.jacobian = numgrad.autograd.functional.jacobian
        self.strategy = strategy
        self.time_jacobian(library, strategy)  # compile kernels outside the timed runs

    def time_jacobian(self, library, strategy):
        self.jacobian(self.fn, self.x, vectorize=True, strategy=self.strategy)


class Hessian:
    """Hessian of a 256-parameter scalar function."""

    params = (["numgrad", "torch"], ["reverse-mode", "forward-mode"])
    param_names = ["library", "outer_jacobian_strategy"]

    def setup(self, library, strategy):
        w, x = _data()
        if library == "torch":
            if torch is None:
                raise NotImplementedError("torch is not installed")
            self.fn, self.x = _scalar(torch, torch.tensor(w)), torch.tensor(x)
            self.hessian = torch_functional.hessian
        else:
            self.fn, self.x = _scalar(numgrad, numgrad.tensor(w)), numgrad.tensor(x)
            self.hessian = numgrad.autograd.functional.hessian
        self.strategy = strategy
        self.time_hessian(library, strategy)

    def time_hessian(self, library, strategy):
        self.hessian(self.fn, self.x, vectorize=True, outer_jacobian_strategy=self.strategy)


class HessianVectorProduct:
    """hvp (H v, by the double-backward construction) and vhp (v^T H, reverse over reverse) of
    the same function."""

    params = (["numgrad", "torch"], ["hvp", "vhp"])
    param_names = ["library", "product"]

    def setup(self, library, product):
        w, x = _data()
        lib = torch if library == "torch" else numgrad
        if lib is None:
            raise NotImplementedError("torch is not installed")
        self.fn, self.x = _scalar(lib, lib.tensor(w)), lib.tensor(x)
        self.v = lib.ones_like(self.x)
        self.product = getattr(torch_functional if library == "torch" else numgrad.autograd.functional, product)
        self.time_product(library, product)

    def time_product(self, library, product):
        self.product(self.fn, self.x, self.v)


def _mlp_loss(lib, F):
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = F.relu(F.linear(x, w1, b1))
        return F.cross_entropy(F.linear(h, w2, b2), y)
    return loss


class PerSampleGradients:
    """Per-sample gradients of a 784-128-10 MLP over a batch of 64: vmap(grad(loss))."""

    params = ["numgrad", "torch"]
    param_names = ["library"]

    def setup(self, library):
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal((128, 784)) * 0.03, np.zeros(128), rng.standard_normal((10, 128)) * 0.08,
                  np.zeros(10)]
        x = rng.standard_normal((64, 784))
        y = rng.integers(0, 10, 64)
        if library == "torch":
            if torch is None:
                raise NotImplementedError("torch is not installed")
            lib, func, F = torch, torch.func, torch.nn.functional
        else:
            lib, func, F = numgrad, numgrad.func, numgrad.nn.functional
        self.params = tuple(lib.tensor(a, dtype=lib.float32) for a in arrays)
        self.x, self.y = lib.tensor(x, dtype=lib.float32), lib.tensor(y)
        self.per_sample = func.vmap(func.grad(_mlp_loss(lib, F)), in_dims=(None, 0, 0))
        self.time_per_sample_gradients(library)

    def time_per_sample_gradients(self, library):
        self.per_sample(self.params, self.x, self.y)
