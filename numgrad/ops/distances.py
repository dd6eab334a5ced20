"""Pairwise distances: ``cdist``, one op with PyTorch's backward node (CdistBackward0).

The forward is composed from numgrad ops; the rules give d dist / d (x1 - x2) per p, written in
numgrad ops so that higher derivatives work. Euclidean distances go through matrix products.
"""
from __future__ import annotations

import math

from .. import dtypes, shapes
from ..autograd import grad_mode, tape
from .functional_elementwise import where
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import zeros, zeros_like
from .matrix_functions import vector_norm
from ..autograd.profiler import op_event

__all__ = ["cdist"]

_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _diff(x1, x2):
    """All pairwise differences: shape (..., P, R, M)."""
    return x1.unsqueeze(-2) - x2.unsqueeze(-3)


def _safe(a):
    """``a`` with zeros replaced by ones: a divisor whose masked-out quotients stay finite, so
    that differentiating the rule again gives no 0 * inf."""
    return where(a == 0, 1.0, a)


def _dnorm(x1, x2, ans, p):
    """d ||x1_i - x2_j||_p / d (x1_i - x2_j), shape (..., P, R, M); 0 where the distance is 0."""
    d = _diff(x1, x2)
    a = ans.unsqueeze(-1)
    if p == 0:
        return zeros_like(d)
    if p == 1:
        return d.sign()
    if math.isinf(p):
        # Every coordinate that attains the maximum gets the full gradient, as in PyTorch.
        return d.sign() * (d.abs() == a).to(d.dtype)
    r = d.sign() * (_safe(d).abs() / _safe(a)) ** (p - 1)
    return where(a == 0, 0.0, r)


def _w(g, ans):
    """g / dist, 0 where the distance is 0 (PyTorch's subgradient there)."""
    return where(ans == 0, 0.0, g / _safe(ans))


def _vjp_x1(g, ans, x1, x2, p):
    if not ans.numel():
        # No distance: no gradient, even where the other input holds NaN.
        return zeros_like(x1)
    if p == 2:
        w = _w(g, ans)
        return x1 * w.sum(-1, keepdim=True) - w.matmul(x2)
    return (_dnorm(x1, x2, ans, p) * g.unsqueeze(-1)).sum(-2)


def _vjp_x2(g, ans, x1, x2, p):
    if not ans.numel():
        return zeros_like(x2)
    if p == 2:
        w = _w(g, ans)
        return x2 * w.sum(-2).unsqueeze(-1) - w.transpose(-1, -2).matmul(x1)
    return -(_dnorm(x1, x2, ans, p) * g.unsqueeze(-1)).sum(-3)


def _jvp_x1(t, ans, x1, x2, p):
    if p == 2:
        return ((x1 * t).sum(-1, keepdim=True) - t.matmul(x2.transpose(-1, -2))) * _w(1.0, ans)
    return (_dnorm(x1, x2, ans, p) * t.unsqueeze(-2)).sum(-1)


def _jvp_x2(t, ans, x1, x2, p):
    if p == 2:
        return ((x2 * t).sum(-1).unsqueeze(-2) - x1.matmul(t.transpose(-1, -2))) * _w(1.0, ans)
    return -(_dnorm(x1, x2, ans, p) * t.unsqueeze(-3)).sum(-1)


_cdist_op = primitive("cdist", 2, backward_name="CdistBackward0",
                      vjp=(_vjp_x1, _vjp_x2), jvp=(_jvp_x1, _jvp_x2))


def _euclid_mm(x1, x2):
    """sqrt(|a|^2 + |b|^2 - 2 a.b): P x R products instead of P x R x M differences; rounding
    can push the sum below zero, hence the clamp."""
    n1 = (x1 * x1).sum(-1, keepdim=True)
    n2 = (x2 * x2).sum(-1).unsqueeze(-2)
    return (n1 + n2 - 2.0 * x1.matmul(x2.transpose(-1, -2))).clamp_min(0.0).sqrt()


def _check(x1, x2, p, compute_mode):
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{torch_type_name(x.dtype)}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {torch_type_name(x1.dtype)} but found "
                           f"{torch_type_name(x2.dtype)}")
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode is not None and compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


@op_event("aten::cdist", autocast="float32")
def cdist(x1, x2, p: float = 2.0, compute_mode=None):
    """cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor

    The p-norm distance between each row of ``x1`` (``(*, P, M)``) and each row of ``x2``
    (``(*, R, M)``): shape ``(*, P, R)``, batch dims broadcast. ``p`` may be 0 (number of
    differing coordinates), inf, or any non-negative number. Euclidean distances (p=2) use
    matrix products when P or R exceeds 25 (or always, with ``compute_mode='use_mm_for_euclid_dist'``),
    as PyTorch does: faster, less exact for close points."""
    _check(x1, x2, p, compute_mode)
    p = float(p)
    batch = shapes.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    out_shape = tuple(batch) + (x1.shape[-2], x2.shape[-2])
    mode = compute_mode or _MODES[0]
    use_mm = p == 2 and (mode == _MODES[1] or (mode == _MODES[0] and max(out_shape[-2:]) > 25))
    narrow = x1.dtype in dtypes.NARROW_FLOATING and x1.device.type == "cpu"
    if narrow and not use_mm and shapes.prod(out_shape + (x1.shape[-1],)):
        # PyTorch's CPU kernel of differences has no 16-bit floats (its matrix-product path has).
        raise NotImplementedError(f"\"cdist\" not implemented for '{torch_type_name(x1.dtype)}'")
    with grad_mode.no_grad():
        if x1.shape[-1] == 0:
            r = zeros(out_shape, dtype=x1.dtype, device=x1.device)
        elif use_mm:
            r = _euclid_mm(x1, x2).expand(out_shape).contiguous()
        else:
            d = _diff(x1, x2)
            r = vector_norm(d, p, -1)
            if p == 0:
                # PyTorch's cdist counts min(ceil(|d|), 1), which a NaN difference makes NaN
                r = r.masked_fill(d.isnan().any(-1), math.nan)
    return tape.record_result(_cdist_op, (x1, x2), r, {"p": p})
