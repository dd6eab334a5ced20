"""The hook-based spectral normalisation: the weight divided by its largest singular value,
re-estimated by power iteration before each training forward."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...ops.linalg import dot, mv
from .. import functional as F
from ..parameter import Parameter

__all__ = ["spectral_norm", "remove_spectral_norm"]


class _SpectralNormHook:
    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def as_matrix(self, weight):
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def compute(self, module, power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.as_matrix(weight)
        if power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute(module, power_iteration=module.training))


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None):
    """Divides ``module.<name>`` by its spectral norm before every forward call; the weight
    is kept as ``<name>_orig`` and the singular-vector estimates as buffers ``<name>_u``, ``<name>_v``."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with no_grad():
        weight_mat = hook.as_matrix(weight)
        h, w = weight_mat.shape
        u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undoes :func:`spectral_norm`: ``module.<name>`` becomes the normalised weight as one parameter."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _SpectralNormHook) and hook.name == name:
            with no_grad():
                weight = hook.compute(module, power_iteration=False)
            delattr(module, name)
            del module._parameters[name + "_orig"]
            del module._buffers[name + "_u"]
            del module._buffers[name + "_v"]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
