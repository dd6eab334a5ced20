"""Adagrad with learning-rate decay and weight decay (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import full_like
from .optimizer import Optimizer, _advance, _check_flags, _scalar_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None)

    ``s += g * g`` and ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps)``."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_flags(defaults)
        # PyTorch creates the accumulators eagerly, so they appear in state_dict before any step.
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = _scalar_tensor(0.0)
                self.state[p]["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update(self, group, param, grad, state):
        step = _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        state["sum"].addcmul_(grad, grad, value=1)
        std = state["sum"].sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
