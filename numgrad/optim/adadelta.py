"""Adadelta (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from .optimizer import Optimizer, _advance, _check_range, _scalar_tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False, maximize=False, differentiable=False)

    ``v = rho * v + (1 - rho) * g * g``, ``delta = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho * u + (1 - rho) * delta * delta`` and ``p -= lr * delta``."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_range("learning rate", lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_range("epsilon value", eps)
        _check_range("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _update(self, group, param, grad, state):
        rho, eps = group["rho"], group["eps"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-group["lr"])
