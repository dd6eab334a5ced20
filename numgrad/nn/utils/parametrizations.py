"""Weight normalisation and spectral normalisation as parametrizations."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...ops.linalg import mv, vdot
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (all dims when ``dim`` is -1), shaped
    to broadcast against ``v``."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(pow, dim=others, keepdim=True)


class _WeightNorm(Module):
    def __init__(self, dim: int = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Reparametrizes ``module.<name>`` as ``g * v / ||v||`` (the norm over every dim but
    ``dim``), with ``g`` and ``v`` stored as ``parametrizations.<name>.original0`` and ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._as_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start from a converged estimate of the top singular vectors.
            self._power_method(weight_mat, 15)

    def _as_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.flatten(1)

    def _power_method(self, weight_mat, n: int) -> None:
        with no_grad():
            for _ in range(n):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._as_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None):
    """Reparametrizes ``module.<name>`` as the weight divided by its largest singular value,
    estimated by ``n_power_iterations`` steps of power iteration per training forward."""
    weight = getattr(module, name, None)
    if weight is None:
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
