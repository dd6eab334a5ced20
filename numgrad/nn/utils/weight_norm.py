"""The hook-based weight normalisation: ``weight = g * v / ||v||`` recomputed before each forward."""
from __future__ import annotations

from ..parameter import Parameter
from .parametrizations import norm_except_dim

__all__ = ["weight_norm", "remove_weight_norm"]


class _WeightNormHook:
    def __init__(self, name: str, dim: int):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute(self, module):
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / norm_except_dim(v, 2, self.dim))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Replaces ``module.<name>`` by parameters ``<name>_g`` (magnitude) and ``<name>_v``
    (direction), recombined before every forward call."""
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    hook = _WeightNormHook(name, dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, hook.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Undoes :func:`weight_norm`: ``module.<name>`` becomes one parameter again."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, _WeightNormHook) and hook.name == name:
            weight = hook.compute(module).detach()
            delattr(module, name)
            del module._parameters[name + "_g"]
            del module._parameters[name + "_v"]
            module.register_parameter(name, Parameter(weight))
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
