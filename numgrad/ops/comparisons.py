"""Whole-tensor comparisons composed from elementwise ops: equal, isclose, allclose."""
from __future__ import annotations

from .. import dtypes
from . import functional_elementwise as E
from ..dtypes import torch_type_name

__all__ = ["equal", "isclose", "allclose"]


def equal(input, other) -> bool:
    """equal(input, other) -> bool

    True if the two tensors have the same size and the same elements (NaN equals nothing)."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool(E.eq(input, other).all())


def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor

    Elementwise ``|input - other| <= atol + rtol * |other|``; equal values (infinities
    included) are close, and NaNs are close to each other only with ``equal_nan``."""
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{torch_type_name(input.dtype)} did not match {torch_type_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = E.eq(input, other)
    if equal_nan and input.dtype.is_floating_point:
        close = E.logical_or(close, E.logical_and(E.isnan(input), E.isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    if not input.dtype.is_floating_point:
        input, other = input.to(dtypes.get_default_dtype()), other.to(dtypes.get_default_dtype())
    actual = E.abs(input - other)
    within = E.logical_and(E.isfinite(actual), E.le(actual, atol + E.abs(rtol * other)))
    return E.logical_or(close, within)


def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool

    True if :func:`isclose` holds for every element."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all())
