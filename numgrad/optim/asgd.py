"""ASGD: averaged stochastic gradient descent (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from .optimizer import Optimizer, _advance, _check_range, _scalar_tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False, differentiable=False, capturable=False)

    ``p = p * (1 - lambd * eta) - eta * g``; the average ``ax`` follows ``p`` with weight ``mu``;
    then ``eta = lr / (1 + lambd * lr * t) ** alpha`` and ``mu = 1 / max(1, t - t0)``."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_range("learning rate", lr)
        _check_range("weight_decay value", weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, group, param, grad, state):
        lr, lambd = group["lr"], group["lambd"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["eta"] = _scalar_tensor(lr)
            state["mu"] = _scalar_tensor(1.0)
            state["ax"] = zeros_like(param)
        step = _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        # eta and mu are read back from their 0-d tensors, rounded to the state dtype as in PyTorch.
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        # New values pass through a default-dtype scalar even once loading made the state float64.
        eta.copy_(_scalar_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
        mu.copy_(_scalar_tensor(1 / max(1, step - group["t0"])))
