"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from .adam import _check_adam_args, decay_and_moments
from .optimizer import Optimizer, _advance, _check_range, _scalar_tensor

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False, differentiable=False)

    With ``mu_t = beta1 * (1 - 0.96 ** (t * momentum_decay) / 2)``, the step mixes the gradient and
    the first moment, each divided by ``sqrt(v / (1 - beta2**t)) + eps`` and weighted by the
    running product of the ``mu``."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_range("momentum_decay value", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, group, param, grad, state):
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["mu_product"] = _scalar_tensor(1.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        step = _advance(state)
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        # The product lives in a 0-d tensor, so it is rounded to its dtype as PyTorch's is.
        mu_product = state["mu_product"]
        mu_product.mul_(mu)
        mu_product = mu_product.item()
        grad, exp_avg, exp_avg_sq = decay_and_moments(group, param, grad, state)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product * mu_next))
