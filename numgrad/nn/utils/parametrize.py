"""Parametrizations: a module's tensor computed on access from stored originals.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` and makes ``module.weight`` a property returning
``P(original)``; every access recomputes it (or reads the cache inside :func:`cached`), so
gradients reach the original through ``P``.
"""
from __future__ import annotations

import contextlib

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "transfer_parametrizations_and_params", "ParametrizationList"]

_cache: dict | None = None


@contextlib.contextmanager
def cached():
    """Within this context a parametrized tensor is computed once per module and name."""
    global _cache
    outer = _cache
    if outer is None:
        _cache = {}
    try:
        yield
    finally:
        _cache = outer


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor of a module, applied in order, with the unconstrained
    ``original`` (or ``original0``, ``original1``, ... when the first one's ``right_inverse``
    returns several tensors)."""

    def __init__(self, modules, original, unsafe: bool = False):
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            value = original
            for m in reversed(list(modules)):
                if hasattr(m, "right_inverse"):
                    value = m.right_inverse(value)
        self.is_tensor = isinstance(value, Tensor)
        self.ntensors = 1 if self.is_tensor else len(value)
        if self.is_tensor:
            if value.dtype != original.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {value.dtype}")
            with no_grad():
                _set_original(original, value)
            self.original = original
        else:
            for i, v in enumerate(value):
                stored = Parameter(v, original.requires_grad) if isinstance(original, Parameter) else v
                setattr(self, f"original{i}", stored)

    def right_inverse(self, value) -> None:
        """Sets the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for m in reversed(list(self)):
                if hasattr(m, "right_inverse"):
                    value = m.right_inverse(value)
            if self.is_tensor:
                _set_original(self.original, value)
            else:
                for i, v in enumerate(value):
                    _set_original(getattr(self, f"original{i}"), v)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in list(self)[1:]:
            x = m(x)
        return x


def _set_original(original, value):
    if tuple(value.shape) == tuple(original.shape) and value.dtype == original.dtype:
        original.copy_(value)
    else:
        original.set_(value.detach().clone())


def _parametrized_class(module):
    cls = module.__class__
    if getattr(cls, "_is_parametrized_class", False):
        return
    new = type(f"Parametrized{cls.__name__}", (cls,), {"_is_parametrized_class": True,
                                                      "_class_before_parametrizations": cls})
    module.__class__ = new


def _property(name):
    def get(self):
        plist = self.parametrizations[name]
        if _cache is not None:
            key = (id(self), name)
            if key not in _cache:
                _cache[key] = plist()
            return _cache[key]
        return plist()

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)
    return property(get, set_)


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` applied to the stored
    original; registering again on the same name appends to its list."""
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            current = getattr(module, tensor_name)
            new = parametrization(current)
            if not isinstance(new, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(new).__name__}.")
            if tuple(new.shape) != tuple(current.shape) or new.dtype != current.dtype:
                raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor")
        plist.append(parametrization)
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element "
                         f"with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    if not unsafe:
        new = parametrization(original) if not hasattr(parametrization, "right_inverse") else None
        if new is not None and (tuple(new.shape) != tuple(original.shape) or new.dtype != original.dtype):
            raise ValueError("Registering a parametrization may not change the shape or dtype of the tensor, "
                             "unless `unsafe` flag is enabled.")
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _parametrized_class(module)
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(module.__class__, tensor_name, _property(tensor_name))
    return module


def is_parametrized(module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` (or its tensor ``tensor_name``) has a parametrization."""
    plists = module._modules.get("parametrizations")
    if plists is None or not isinstance(plists, ModuleDict):
        return False
    return len(plists) > 0 if tensor_name is None else tensor_name in plists


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Removes the parametrizations of ``tensor_name``: the tensor becomes a plain parameter
    holding the parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if leave_parametrized:
        with no_grad():
            value = getattr(module, tensor_name)
        if plist.is_tensor:
            original = plist.original
            with no_grad():
                if tuple(value.shape) == tuple(original.shape) and value.dtype == original.dtype:
                    original.copy_(value)
                    kept = original
                else:
                    kept = Parameter(value.detach(), original.requires_grad)
        else:
            kept = Parameter(value.detach(), plist.original0.requires_grad)
    else:
        if not plist.is_tensor:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        kept = plist.original
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(kept, Parameter):
        module.register_parameter(tensor_name, kept)
    else:
        module.register_buffer(tensor_name, kept)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = module.__class__._class_before_parametrizations
    return module


def type_before_parametrizations(module) -> type:
    """The module's class as it was before any parametrization was registered."""
    return getattr(module.__class__, "_class_before_parametrizations", type(module))


def transfer_parametrizations_and_params(from_module, to_module, tensor_name: str | None = None):
    """Registers ``from_module``'s parametrizations (of ``tensor_name``, or all) on ``to_module``
    and copies their originals."""
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        plist = from_module.parametrizations[name]
        if not is_parametrized(to_module, name):
            if name not in to_module._parameters:
                setattr(to_module, name, Parameter(getattr(from_module, name).detach().clone()))
            for p in plist:
                register_parametrization(to_module, name, p)
        target = to_module.parametrizations[name]
        with no_grad():
            if plist.is_tensor:
                target.original.copy_(plist.original)
            else:
                for i in range(plist.ntensors):
                    getattr(target, f"original{i}").copy_(getattr(plist, f"original{i}"))
    return to_module

