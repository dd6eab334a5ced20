"""Module: the base class of layers and models (parameters, buffers, submodules, state dicts)."""
from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Iterator

from ...tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter
from . import hooks
from ...ops.copying import _parse_to

__all__ = ["Module"]

_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                "_load_state_dict_post_hooks")
_HOOK_FLAGS = ("_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks_with_kwargs")

class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        # Scripts print what load_state_dict returns; a clean load reads as a sentence.
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return lines[0] + "".join("\n" + " " * spaces + line for line in lines[1:])


class Module:
    """Base class for all neural network modules.

    Subclasses call ``super().__init__()`` and assign parameters, buffers and submodules as
    attributes; ``__call__`` runs the registered hooks around :meth:`forward`."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        for table in _HOOK_TABLES:
            d[table] = OrderedDict()
        for flags in _HOOK_FLAGS:
            d[flags] = set()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"]):
            return self.forward(*args, **kwargs)
        return hooks.call_with_hooks(self, args, kwargs)

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` runs before forward and may return new args; with
        ``with_kwargs``, ``hook(module, args, kwargs)`` may return ``(args, kwargs)``."""
        flags = {"kw": self._forward_pre_hooks_with_kwargs} if with_kwargs else None
        return hooks.register(self._forward_pre_hooks, hook, prepend, flags)

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
        ``with_kwargs``) runs after forward and may return a new output; with ``always_call``
        it also runs when forward raises."""
        flags = {}
        if with_kwargs:
            flags["kw"] = self._forward_hooks_with_kwargs
        if always_call:
            flags["always"] = self._forward_hooks_always_called
        return hooks.register(self._forward_hooks, hook, prepend, flags)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known and
        may return new ones."""
        return hooks.register(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the module's
        tensor inputs are known and may return new ``grad_input``."""
        return hooks.register(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated: registers ``hook`` as a full backward hook."""
        return self.register_full_backward_hook(hook)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before :meth:`state_dict` collects this module."""
        return hooks.register(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after :meth:`state_dict`
        collected this module; it may change ``state_dict`` in place."""
        return hooks.register(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module's entries are loaded."""
        return hooks.register(self._load_state_dict_pre_hooks, hook)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after :meth:`load_state_dict`; it may edit
        the missing and unexpected key lists in place."""
        return hooks.register(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param) -> None:
        """Adds a parameter (or ``None``) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Adds a buffer: state that is not a parameter (e.g. running statistics)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module) -> None:
        """Adds a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if "." in name or name == "":
            raise KeyError(f'module name can\'t contain ".", got: {name}' if name else
                           'module name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def _check_name(self, name, table):
        if not isinstance(name, str):
            raise TypeError(f"name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('name can\'t contain "."')
        if name == "":
            raise KeyError('name can\'t be empty string ""')
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def __setattr__(self, name, value):
        d = self.__dict__
        params, modules, buffers = d.get("_parameters"), d.get("_modules"), d.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name)
            plain = Tensor._make(value._storage, value._shape, value._strides, value._offset, value.dtype)
            self.register_buffer(name, plain, persistent=value.persistent)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            self.__dict__[table].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            t = d.get(table)
            if t is not None and name in t:
                return t[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, ()):
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._buffers) + \
            list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yields ``(name, module)`` for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:
                return
            memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        """Yields this module and every descendant."""
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """Yields ``(name, module)`` for the direct children."""
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self) -> Iterator["Module"]:
        """Yields the direct children."""
        for _, m in self.named_children():
            yield m

    def _named_members(self, table: str, prefix: str, recurse: bool, remove_duplicate: bool):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mod_prefix, m in mods:
            for name, v in m.__dict__[table].items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield mod_prefix + ("." if mod_prefix else "") + name, v

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yields ``(name, parameter)`` pairs, e.g. ``('layer1.weight', Parameter)``."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Yields the parameters of this module and (when ``recurse``) its descendants."""
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yields ``(name, buffer)`` pairs."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Yields the buffers of this module and (when ``recurse``) its descendants."""
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> "Module":
        """The descendant named by a dotted path such as ``'net.0'``."""
        m = self
        if target == "":
            return m
        for item in target.split("."):
            if item not in m._modules:
                raise AttributeError(f"{m._get_name()} has no attribute `{item}`")
            m = m._modules[item]
        return m

    def get_parameter(self, target: str) -> Parameter:
        """The parameter named by a dotted path such as ``'net.0.weight'``."""
        mod_path, _, name = target.rpartition(".")
        m = self.get_submodule(mod_path)
        if name not in m._parameters:
            raise AttributeError(f"{m._get_name()} has no parameter `{name}`")
        return m._parameters[name]

    # ------------------------------------------------------------------ state
    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ordered dict of every parameter and persistent buffer, keyed by dotted name.

        Values are detached (unless ``keep_vars``) and share memory with the module."""
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            if hook(self, destination, prefix, {"version": 1}) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copies parameters and buffers from ``state_dict`` into this module (in place).

        With ``strict``, missing or unexpected keys raise; returns ``(missing_keys,
        unexpected_keys)``."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        state_dict = OrderedDict(state_dict)  # pre-hooks may edit the copy they are given
        missing, unexpected, errors = [], [], []
        expected = set()
        with no_grad():
            for mod_prefix, m in self.named_modules():
                base = mod_prefix + ("." if mod_prefix else "")
                for hook in list(m._load_state_dict_pre_hooks.values()):
                    hook(m, state_dict, base, {"version": 1}, strict, missing, unexpected, errors)
                local = [(n, v) for n, v in m._parameters.items() if v is not None] + \
                    [(n, v) for n, v in m._buffers.items()
                     if v is not None and n not in m._non_persistent_buffers_set]
                for name, current in local:
                    key = base + name
                    expected.add(key)
                    if key not in state_dict:
                        missing.append(key)
                        continue
                    value = state_dict[key]
                    if not isinstance(value, Tensor):
                        errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(value)}")
                        continue
                    if tuple(value.shape) != tuple(current.shape):
                        errors.append(f"size mismatch for {key}: copying a param with shape {value.shape} "
                                      f"from checkpoint, the shape in current model is {current.shape}.")
                        continue
                    if assign:
                        if name in m._parameters:
                            m._parameters[name] = value if isinstance(value, Parameter) else \
                                Parameter(value, current._requires_grad)
                        else:
                            m._buffers[name] = value
                    else:
                        current.copy_(value)
        unexpected.extend(k for k in state_dict.keys() if k not in expected and k not in unexpected)
        incompatible = _IncompatibleKeys(missing, unexpected)
        for _, m in self.named_modules():
            for hook in list(m._load_state_dict_post_hooks.values()):
                if hook(m, incompatible) is not None:
                    raise RuntimeError("load_state_dict post-hook must return None")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        return incompatible

    # ------------------------------------------------------------------ modes and conversions
    def train(self, mode: bool = True) -> "Module":
        """Sets training mode (affects Dropout, BatchNorm) on this module and its descendants."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self) -> "Module":
        """Sets evaluation mode; the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Sets ``requires_grad`` on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all parameters: to ``None``, or zeroed in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad._grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def apply(self, fn) -> "Module":
        """Calls ``fn`` on every descendant (children first) and then on this module."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, convert, floats_only: bool = False) -> "Module":
        """Replaces each parameter's and buffer's data by ``convert(tensor)``, keeping the objects."""
        with no_grad():
            for m in self.modules():
                for table in (m._parameters, m._buffers):
                    for name, t in table.items():
                        if t is None or (floats_only and not t.is_floating_point()):
                            continue
                        new = convert(t.detach())
                        if isinstance(t, Parameter):
                            t.data = new
                            if t.grad is not None:
                                t.grad.data = convert(t.grad.detach())
                        else:
                            table[name] = new
        return self

    def to(self, *args, **kwargs) -> "Module":
        """to(device=None, dtype=None): moves and/or casts parameters and buffers in place.

        Only floating point tensors change dtype, as in PyTorch."""
        device, dtype, _ = _parse_to(args, dict(kwargs))
        if dtype is not None:
            from ... import dtypes
            dtype = dtypes.as_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got "
                                f"desired dtype={dtype}")

        def convert(t):
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            return t.to(device) if device is not None else t
        return self._apply(convert)

    def cpu(self) -> "Module":
        return self.to("cpu")

    def cuda(self, device=None) -> "Module":
        return self.to("cuda" if device is None else device)

    def type(self, dst_type) -> "Module":
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> "Module":
        return self._apply(lambda t: t.float(), floats_only=True)

    def double(self) -> "Module":
        return self._apply(lambda t: t.double(), floats_only=True)

    def half(self) -> "Module":
        return self._apply(lambda t: t.half(), floats_only=True)

    def bfloat16(self) -> "Module":
        return self._apply(lambda t: t.bfloat16(), floats_only=True)

    # ------------------------------------------------------------------ printing
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in its repr; layers override it."""
        return ""

    def _child_lines(self):
        return [f"({name}): {_indent(repr(m), 2)}" for name, m in self._modules.items()]

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = self._child_lines()
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


def _typename(obj) -> str:
    """PyTorch's ``torch.typename``: 'torch.FloatTensor' for tensors, the class name otherwise."""
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__
