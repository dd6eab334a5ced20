"""RMSprop, optionally centered and with momentum (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import zeros_like
from .optimizer import Optimizer, _advance, _check_flags, _scalar_tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, capturable=False, foreach=None, maximize=False, differentiable=False)

    ``v = alpha * v + (1 - alpha) * g * g``; the step divides ``g`` by ``sqrt(v) + eps`` (with
    ``v - mean(g)**2`` under the root when ``centered``)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)
        _check_flags(defaults)

    def _update(self, group, param, grad, state):
        alpha, wd, momentum = group["alpha"], group["weight_decay"], group["momentum"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["square_avg"] = zeros_like(param)
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        _advance(state)
        if wd != 0:
            grad = grad.add(param, alpha=wd)
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg.add_(group["eps"])
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, avg, value=-group["lr"])
