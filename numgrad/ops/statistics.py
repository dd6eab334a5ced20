"""Reductions composed from the kernel-backed ones: mean, var/std, dist, logsumexp,
count_nonzero, nansum/nanmean. Their derivatives follow from their parts (mean declares its own
rule only to be recorded as one node, as PyTorch's MeanBackward0 is)."""
from __future__ import annotations

import math

from .. import dtypes
from ..autograd import tape
from . import functional_elementwise as F
from .reductions import _dims, _plain, _reduced_shape, _unreduce, _write_out, amax, sum
from .registry import primitive, torch_type_name

__all__ = ["mean", "var", "std", "var_mean", "std_mean", "dist", "logsumexp", "count_nonzero",
           "nansum", "nanmean"]

_builtin_max = max


def _numel(x, dims) -> int:
    n = 1
    shape = x._shape
    for d in dims:
        n *= shape[d]
    return n


def _floating(name, x, dtype=None):
    d = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if not d.is_floating_point:
        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {torch_type_name(d)}")
    return d


def _record(op, x, result, params, variant=None):
    """Give ``result`` (computed from a plain alias of ``x``) the tape entry and tangent of ``op``."""
    if tape.should_record((x,)):
        tape.record(op, (x,), result, params, variant=variant)
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), result, params)
    return result


_mean = primitive(
    "mean", 1,
    # Dividing before broadcasting divides once per output element, not once per input element.
    vjp=(lambda g, ans, x, dims, keepdim, dtype: _unreduce(g / _numel(x, dims), x.shape, dims, keepdim),),
    jvp=(lambda t, ans, x, dims, keepdim, dtype: mean(t, dims, keepdim),),
    backward_name="MeanBackward0", variants={"dim": "MeanBackward1"})


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Mean of all elements or over ``dim``; NaN for no elements. Requires a floating input (or
    ``dtype``)."""
    _floating("mean", input, dtype)
    dims = _dims(dim, input.ndim)
    n = _numel(input, dims)
    s = sum(_plain(input), dims, keepdim, dtype=dtype)
    r = _record(_mean, input, s / n if n else s * math.nan, {"dims": dims, "keepdim": keepdim, "dtype": dtype},
                None if dim is None else "dim")
    return _write_out(r, out)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """nansum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Sum treating NaN as zero."""
    x = F.where(F.isnan(input), 0, input) if input.dtype.is_floating_point else input
    return _write_out(sum(x, dim, keepdim, dtype=dtype), out)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Mean of the non-NaN elements."""
    _floating("nanmean", input, dtype)
    count = sum(F.logical_not(F.isnan(input)), dim, keepdim)
    return _write_out(nansum(input, dim, keepdim, dtype=dtype) / count, out)


def _correction(name, x, dim, unbiased, correction):
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{name}(): input dtype should be either floating point or complex. "
                           f"Got {torch_type_name(x.dtype)} instead.")
    if isinstance(dim, bool):
        # The legacy overload var(input, unbiased).
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    return dim, correction


def _var(x, dim, keepdim, correction):
    dims = _dims(dim, x.ndim)
    n = _numel(x, dims)
    m = sum(x, dims, True) / n if n else sum(x, dims, True) * math.nan
    d = x - m
    # PyTorch clamps the degrees of freedom at 0: division then gives inf or NaN.
    return sum(d * d, dims, keepdim) / _builtin_max(0, n - correction), m, dims


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """var(input, dim=None, unbiased=True, keepdim=False, *, correction=1, out=None) -> Tensor

    Variance over ``dim``: the sum of squared deviations divided by ``N - correction``
    (``unbiased=False`` means ``correction=0``)."""
    dim, c = _correction("var", input, dim, unbiased, correction)
    return _write_out(_var(input, dim, keepdim, c)[0], out)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """std(input, dim=None, unbiased=True, keepdim=False, *, correction=1, out=None) -> Tensor

    Standard deviation: the square root of :func:`var`."""
    dim, c = _correction("std", input, dim, unbiased, correction)
    return _write_out(F.sqrt(_var(input, dim, keepdim, c)[0]), out)


def _with_mean(x, v, m, dims, keepdim):
    return v, (m if keepdim else m.reshape(_reduced_shape(x._shape, dims, False)))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=1) -> (Tensor, Tensor)

    The variance and the mean over ``dim``."""
    dim, c = _correction("var_mean", input, dim, unbiased, correction)
    v, m, dims = _var(input, dim, keepdim, c)
    return _with_mean(input, v, m, dims, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=1) -> (Tensor, Tensor)

    The standard deviation and the mean over ``dim``."""
    dim, c = _correction("std_mean", input, dim, unbiased, correction)
    v, m, dims = _var(input, dim, keepdim, c)
    return _with_mean(input, F.sqrt(v), m, dims, keepdim)


def dist(input, other, p=2):
    """dist(input, other, p=2) -> Tensor: the p-norm of ``input - other`` (broadcast)."""
    from .matrix_functions import vector_norm
    return vector_norm(input - other, p)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """logsumexp(input, dim, keepdim=False, *, out=None) -> Tensor

    log(sum(exp(x))) over ``dim``, computed stably by shifting by the maximum."""
    x = input if input.dtype.is_floating_point else input.to(dtypes.get_default_dtype())
    dims = _dims(dim, x.ndim)
    if x.numel() == 0:
        return _write_out(F.log(sum(F.exp(x), dims, keepdim)), out)
    m = amax(_plain(x), dims, True)
    # An infinite maximum would turn x - m into NaN: shift by 0 there instead.
    m = F.where(F.isinf(m), 0, m)
    r = F.log(sum(F.exp(x - m), dims, True)) + m
    return _write_out(r if keepdim else r.reshape(_reduced_shape(x._shape, dims, False)), out)


def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> LongTensor: the number of nonzero elements over ``dim``."""
    return sum(input != 0, dim)

