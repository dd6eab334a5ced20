"""Adam and AdamW (decoupled weight decay), with optional AMSGrad (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from ..ops.functional_elementwise import maximum
from .optimizer import Optimizer, _advance, _check_flags, _scalar_tensor

__all__ = ["Adam", "AdamW"]


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def decay_and_moments(group, param, grad, state):
    """The step Adam, AdamW, NAdam and RAdam share: weight decay (into the gradient, or
    decoupled into the parameter) and the two moment estimates; returns the decayed gradient
    and the moments."""
    lr, wd = group["lr"], group["weight_decay"]
    beta1, beta2 = group["betas"]
    if wd != 0:
        if group["decoupled_weight_decay"]:
            param.mul_(1 - lr * wd)
        else:
            grad = grad.add(param, alpha=wd)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    return grad, exp_avg, exp_avg_sq


class Adam(Optimizer):
    """Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *, foreach=None, maximize=False, capturable=False, differentiable=False, fused=None, decoupled_weight_decay=False)

    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``, then
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``; with
    ``decoupled_weight_decay`` the decay is ``p *= 1 - lr * weight_decay`` (AdamW)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_flags(defaults)

    def _update(self, group, param, grad, state):
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        step = _advance(state)
        grad, exp_avg, exp_avg_sq = decay_and_moments(group, param, grad, state)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"]
            maximum(second, exp_avg_sq, out=second)
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *, maximize=False, foreach=None, capturable=False, differentiable=False, fused=None)

    Adam with decoupled weight decay: ``p *= 1 - lr * weight_decay`` before the Adam update."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
