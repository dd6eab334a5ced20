"""Adamax: Adam with the infinity norm (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from ..ops.functional_elementwise import maximum
from .adam import _check_adam_args
from .optimizer import Optimizer, _advance, _scalar_tensor

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *, maximize=False, differentiable=False, capturable=False)

    ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 * u, |g| + eps)`` and
    ``p -= lr / (1 - beta1**t) * m / u``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, group, param, grad, state):
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        step = _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
        clr = group["lr"] / (1 - beta1 ** step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
