"""Conjugation and the identities it reduces to on real tensors (conj, real, resolve_*,
positive), the conjugate transpose ``adjoint``, and the phase ``angle``."""
from __future__ import annotations

import math

from .. import dtypes
from . import functional_elementwise as _E

__all__ = ["conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "real", "imag", "positive",
           "adjoint", "angle"]


def conj(input):
    """conj(input) -> Tensor: the complex conjugate; ``input`` itself for real tensors."""
    return input


def conj_physical(input, *, out=None):
    """conj_physical(input, *, out=None) -> Tensor: the conjugate in memory; ``input`` itself for real tensors."""
    if out is not None:
        return out.resize_(input.shape).copy_(input)
    return input


def conj_physical_(input):
    """conj_physical_(input) -> Tensor: conjugates in place; nothing to do on real tensors."""
    return input


def resolve_conj(input):
    """resolve_conj(input) -> Tensor: materialises a lazy conjugation; ``input`` itself for real tensors."""
    return input


def resolve_neg(input):
    """resolve_neg(input) -> Tensor: materialises a lazy negation; ``input`` itself for real tensors."""
    return input


def real(input):
    """real(input) -> Tensor: the real part; ``input`` itself for real tensors."""
    return input


def imag(input):
    """imag(input) -> Tensor: the imaginary part, which real tensors lack."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def angle(input, *, out=None):
    """angle(input, *, out=None) -> Tensor

    The phase of each element: pi for negative numbers, 0 otherwise (NaN stays NaN); integer
    inputs give the default float dtype. Its derivative is zero."""
    x = input if input.dtype.is_floating_point else input.to(dtypes.get_default_dtype())
    phase = _E.where(_E.isnan(x), math.nan, _E.where(x < 0, math.pi, 0.0)).to(x.dtype)
    # sign(x) * 0 adds nothing (NaN only where the phase is NaN already) but ties the result to x
    # with the zero derivative.
    result = phase + _E.sign(x) * 0
    return result if out is None else out.resize_(result.shape).copy_(result)


def positive(input):
    """positive(input) -> Tensor: ``input`` itself (the unary ``+``), refused on bool tensors."""
    if input.dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def adjoint(input):
    """adjoint(input) -> Tensor: the (conjugate) transpose of the last two dims, as a view."""
    if input.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    return input.transpose(-2, -1)
