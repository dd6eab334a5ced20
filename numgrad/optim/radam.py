"""RAdam: Adam with a rectified adaptive learning rate (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from .adam import _check_adam_args, decay_and_moments
from .optimizer import Optimizer, _advance, _scalar_tensor

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)

    The bias-corrected first moment is scaled by the rectified ``sqrt(1 - beta2**t) / (sqrt(v) + eps)``
    once the variance estimate is tractable (``rho_t > 5``), and used alone before."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, group, param, grad, state):
        lr = group["lr"]
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        step = _advance(state)
        grad, exp_avg, exp_avg_sq = decay_and_moments(group, param, grad, state)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        update = (exp_avg / bias_correction1) * lr
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            # ``number / tensor`` is a reciprocal then a product in PyTorch; kept for equal rounding.
            adaptive_lr = exp_avg_sq.sqrt().add_(group["eps"]).reciprocal_().mul_(bias_correction2 ** 0.5)
            update = update.mul_(adaptive_lr).mul_(rect)
        param.add_(update, alpha=-1.0)
