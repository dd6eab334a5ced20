"""Gradient utilities: clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters."""
from __future__ import annotations

import math

from ...autograd.grad_mode import no_grad
from ...ops.movement import cat
from ...tensor import Tensor
from ...creation import tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _as_list(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None):
    """Scales the gradients of ``parameters`` in place so that their joint ``norm_type`` norm is at
    most ``max_norm``; returns the norm before clipping (a 0-d tensor)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return tensor(0.0)
    norm_type = float(norm_type)
    with no_grad():
        if norm_type == math.inf:
            per = [g.abs().amax() for g in grads]
            total = per[0]
            for n in per[1:]:
                total = total.maximum(n)
        else:
            acc = None
            for g in grads:
                s = (g.abs() ** norm_type).sum() if norm_type != 2.0 else (g * g).sum()
                acc = s if acc is None else acc + s
            total = acc ** (1.0 / norm_type)
        if error_if_nonfinite and not total.isfinite().item():
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. To disable this error and scale the "
                               "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp_max(1.0)
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamps every gradient of ``parameters`` to [-clip_value, clip_value] in place."""
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters) -> Tensor:
    """All parameters flattened and concatenated into one 1-D tensor."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copies consecutive slices of ``vec`` into ``parameters`` (the inverse of parameters_to_vector)."""
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[offset:offset + n].view_as(p))
            offset += n
