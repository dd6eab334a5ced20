"""Optimizer: parameter groups, per-parameter state, zero_grad and state dicts.

Subclasses implement ``_update(group, param, grad, state)``, the update of one parameter,
written as in-place numgrad ops in the order PyTorch's single-tensor implementation uses;
``step`` runs it for every parameter with a gradient under ``no_grad`` (with grad mode on
when the optimizer is ``differentiable``).
"""
from __future__ import annotations

import copy
from collections import defaultdict

from .. import dtypes
from ..autograd.grad_mode import enable_grad, set_grad_enabled
from ..creation import tensor
from ..tensor import Tensor

__all__ = ["Optimizer"]

_SET_ERROR = ("optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
              "in sets will change between runs. Please use a list instead.")


class Optimizer:
    """Base class of all optimizers.

    ``params`` is an iterable of tensors, or of dicts each holding a group's ``'params'`` and
    its own option values (e.g. ``lr``) that override ``defaults``."""

    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            f"dicts, but got {params.type()}")
        if isinstance(params, set):
            raise TypeError(_SET_ERROR)
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group: dict) -> None:
        """Adds a group of parameters (with optional per-group options) to optimize."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(_SET_ERROR)
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = params
        for key, default in self.defaults.items():
            group.setdefault(key, default)
        if len({id(p) for p in params}) != len(params):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Resets the gradients of all optimized tensors: to ``None``, or zeroed in place."""
        for group in self.param_groups:
            for p in group["params"]:
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

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad
                    if group.get("maximize", False):
                        grad = -grad
                    self._update(group, p, grad, self.state[p])
        return loss

    def _update(self, group: dict, param: Tensor, grad: Tensor, state: dict) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``.

        Parameters are referred to by their position across all groups; state tensors are
        references, not copies."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores state saved by :meth:`state_dict` (tensors are cast to each parameter's dtype
        and device)."""
        state_dict = copy.deepcopy(dict(state_dict))
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, sg in zip(self.param_groups, saved_groups):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                                 "of optimizer's group")
        id_map = {}
        for g, sg in zip(self.param_groups, saved_groups):
            for p, i in zip(g["params"], sg["params"]):
                id_map[i] = p
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            key = int(k)
            if key not in id_map:
                continue
            p = id_map[key]
            state[p] = {name: _cast_like(p, name, value) for name, value in v.items()}
        self.state = state
        new_groups = []
        for g, sg in zip(self.param_groups, saved_groups):
            sg = dict(sg)
            sg["params"] = g["params"]
            new_groups.append(sg)
        self.param_groups = new_groups


def _scalar_tensor(value: float) -> Tensor:
    """A 0-d state tensor (``step``, ``mu``, ``eta``...) in PyTorch's scalar dtype: float64
    under a float64 default dtype, float32 otherwise."""
    dtype = dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32
    return tensor(float(value), dtype=dtype)


def _advance(state: dict) -> float:
    """Adds one to ``state['step']`` and returns it as a Python float, as PyTorch reads it."""
    state["step"] += 1
    return state["step"].item()


def _check_flags(defaults: dict) -> None:
    """The combinations of ``foreach``/``fused``/``differentiable`` that PyTorch refuses.

    ``foreach`` and ``fused`` pick PyTorch's kernels; numgrad computes the same update either way."""
    if defaults.get("fused"):
        if defaults.get("differentiable"):
            raise RuntimeError("`fused` does not support `differentiable`")
        if defaults.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _check_range(name: str, value) -> None:
    """PyTorch's check of a non-negative option."""
    if not 0.0 <= value:
        raise ValueError(f"Invalid {name}: {value}")


def _cast_like(param, name: str, value):
    if not isinstance(value, Tensor) or name == "step":
        return value
    if value.is_floating_point():
        value = value.to(dtype=param.dtype)
    return value.to(device=param.device)
