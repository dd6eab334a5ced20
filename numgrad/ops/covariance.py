"""Covariance and correlation matrices of observations (cov, corrcoef), composed from numgrad
ops so that gradients reach the input and the observation weights."""
from __future__ import annotations

import warnings

from .. import dtypes
from ..autograd.tape import plain
from . import functional_elementwise as F
from ..dtypes import torch_type_name
from ..autograd.profiler import op_event

__all__ = ["cov", "corrcoef"]

TENSOR_METHODS = __all__


def _check_weights(kind, w, observations):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with "
                           f"{w.ndim} dimensions")
    integral = not w.dtype.is_floating_point and w.dtype is not dtypes.bool
    if kind == "fweights" and not integral:
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                           f"{torch_type_name(w.dtype)} dtype")
    if kind == "aweights" and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                           f"{torch_type_name(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are observations in the "
                           f"input but got {w.numel()} != {observations}")
    if observations and bool((plain(w) < 0).any()):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


@op_event("aten::cov")
def cov(input, *, correction: int = 1, fweights=None, aweights=None):
    """cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor

    The covariance matrix of the variables in the rows of ``input`` (a 1-D input is one
    variable), observed in its columns. ``fweights`` (integer repeat counts) and ``aweights``
    (floating importance weights) weigh the observations; ``correction`` is subtracted from the
    number of observations (Bessel's correction by default)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations)
        w = aweights if w is None else w * aweights
    if w is None:
        total = observations
        factor = observations - correction
        avg = x.sum(1) / total
    else:
        total = w.sum()
        avg = (x * w).sum(1) / total
        if correction == 0:
            factor = total
        elif aweights is None:
            factor = total - correction
        else:
            factor = total - correction * (w * aweights).sum() / total
    if bool(plain(factor) <= 0 if hasattr(factor, "_storage") else factor <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number "
                      "of observations.", UserWarning, stacklevel=2)
        factor = factor * 0
    centered = x - avg.unsqueeze(1)
    c = centered.matmul((centered if w is None else centered * w).t())
    return (c / factor).squeeze()


@op_event("aten::corrcoef")
def corrcoef(input):
    """corrcoef(input) -> Tensor

    The Pearson correlation coefficients of the variables in the rows of ``input``: the
    covariance matrix normalized by the standard deviations, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = F.sqrt(c.diagonal())
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return F.clamp(c, -1, 1)
