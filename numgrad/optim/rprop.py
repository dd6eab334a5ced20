"""Rprop: resilient backpropagation with per-element step sizes (PyTorch's formulas)."""
from __future__ import annotations

from ..creation import full_like, zeros_like
from .optimizer import Optimizer, _advance, _check_range, _scalar_tensor

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None, maximize=False, differentiable=False)

    Each element's step size grows by ``etaplus`` while its gradient keeps its sign and shrinks by
    ``etaminus`` (skipping that update) when the sign flips; ``p -= sign(g) * step_size``."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        _check_range("learning rate", lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, capturable=capturable))

    def _update(self, group, param, grad, state):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        if not state:
            state["step"] = _scalar_tensor(0.0)
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, group["lr"])
        _advance(state)
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev).sign()
        grew, flipped, still = sign.gt(0), sign.lt(0), sign.eq(0)
        factor = sign.masked_fill(grew, etaplus).masked_fill_(flipped, etaminus).masked_fill_(still, 1)
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = grad.masked_fill(flipped, 0)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
