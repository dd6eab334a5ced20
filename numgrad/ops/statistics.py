"""Reductions composed from the kernel-backed ones: mean, var/std (and with the mean),
dist, logsumexp, count_nonzero, nansum/nanmean. mean, var, std, var_mean, std_mean, dist and
logsumexp declare their own rules only to be recorded as one node each, as PyTorch's
MeanBackward0, VarBackward0, VarMeanBackward0, ... are; the others' derivatives follow from their
parts."""
from __future__ import annotations

import math

from .. import dtypes
from ..devices import CPU
from ..memo import Memo
from . import functional_elementwise as F
from ..autograd import profiler as _profiler
from ..autograd import tape as _tape
from ..autograd.tape import plain as _plain, record_result
from .reductions import (all_ints as _all_ints, reduction_dims as _dims, nansum_op as _nansum,
                         reduced_shape as _reduced_shape, sum_op as _sum, unreduce as _unreduce, amax,
                         run_reduction, sum)
from .registry import backend, write_out as _write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import ones
from .matrix_functions import _pnorm_jvp, _pnorm_vjp, vector_norm
from ..autograd.profiler import op_event

__all__ = ["mean", "var", "std", "var_mean", "std_mean", "dist", "logsumexp", "count_nonzero",
           "nansum", "nanmean"]

_builtin_max = max


def _numel(shape, dims) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _floating(name, x, dtype=None):
    d = dtypes.as_dtype(dtype) if dtype is not None else x.dtype
    if not d.is_floating_point:
        raise RuntimeError(
            f"{name}(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype must be "
            f"either a floating point or complex dtype. Got: {torch_type_name(d)}")
    return d



_mean_op = primitive(
    "mean", 1,
    # Dividing before broadcasting divides once per output element, not once per input element.
    # Only x's shape is read (so saved), as PyTorch's: x may change in place before backward.
    vjp=(lambda g, ans, x, dims, keepdim, dtype: _unreduce(g / _numel(x._shape, dims), x._shape, dims, keepdim),),
    jvp=(lambda t, ans, x, dims, keepdim, dtype: mean(t, dims, keepdim),),
    backward_name="MeanBackward0", variants={"dim": "MeanBackward1"})


# Plans of means of CPU tensors, keyed as reductions' plans are: one kernel call sums and
# divides. False marks calls for the general path.
_plans = Memo()


@op_event("aten::mean")
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Mean of all elements or over ``dim``; NaN for no elements. Requires a floating input (or
    ``dtype``)."""
    dc = dim.__class__
    if input._storage.device is CPU and not _profiler.enabled and (
            dim is None or dc is int or dc is tuple and _all_ints(dim)):
        key = (input.dtype, input._shape, input._strides, dim, keepdim, dtype)
        try:
            plan = _plans.get(key)
        except TypeError:  # an unhashable ``dtype``: validated below
            plan = False
        if plan is None:
            plan = _mean_plan(key, input, dim, keepdim, dtype)
        if plan:
            run, dims = plan
            r = record_result(_mean_op, (input,), run(input), {"dims": dims, "keepdim": keepdim, "dtype": dtype},
                              None if dim is None else "dim")
            return r if out is None else _write_out(r, out, "mean")
    return _mean(input, dim, keepdim, dtype, out)


def _mean_plan(key, x, dim, keepdim, dtype):
    d = _floating("mean", x, dtype)
    dims = _dims(dim, x.ndim)
    n = _numel(x._shape, dims)
    run = n and d not in dtypes.NARROW_FLOATING and _sum_div_plan(x, dims, keepdim, d, n)
    plan = _plans[key] = (run, dims) if run else False
    return plan


def _mean(input, dim, keepdim, dtype, out):
    d = _floating("mean", input, dtype)
    dims = _dims(dim, input.ndim)
    n = _numel(input._shape, dims)
    # As PyTorch's, a 16-bit float mean sums and divides in float32: a float16 sum overflows long
    # before the mean does, a bfloat16 one loses its digits.
    wide = d in dtypes.NARROW_FLOATING
    s = sum(_plain(input), dims, keepdim, dtype=dtypes.float32 if wide else dtype)
    s = s / n if n else s * math.nan
    params = {"dims": dims, "keepdim": keepdim, "dtype": dtype}
    r = record_result(_mean_op, (input,), s.to(d) if wide else s, params, None if dim is None else "dim")
    return _write_out(r, out, "mean")


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """nansum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Sum treating NaN as zero."""
    return _write_out(run_reduction(_nansum, input, dim, keepdim, dtype), out, "nansum")


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Mean of the non-NaN elements."""
    _floating("nanmean", input, dtype)
    count = sum(F.logical_not(F.isnan(input)), dim, keepdim)
    return _write_out(nansum(input, dim, keepdim, dtype=dtype) / count, out, "nanmean")


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
    """The variance of ``x`` (outside the graph) over ``dim``, its mean and the reduced dims."""
    dims = _dims(dim, x.ndim)
    m = mean(x, dims, keepdim)
    d = x - (m if keepdim else m.reshape(_reduced_shape(x._shape, dims, True)))
    # PyTorch clamps the degrees of freedom at 0: division then gives inf or NaN.
    dof = _builtin_max(0, _numel(x._shape, dims) - correction)
    return _sum_div(d * d, dims, keepdim, dof), m, dims


def _moments(x, dim, keepdim, correction, root=False):
    """:func:`_var` (its square root with ``root``) rounded as PyTorch's kernels round it: 16-bit
    floats accumulate in float32 (their squares overflow or lose digits early), float32 on the
    CPU in float64, and the results are rounded once."""
    wide = dtypes.float32 if x.dtype in dtypes.NARROW_FLOATING else (
        dtypes.float64 if x.dtype is dtypes.float32 and x.device.type == "cpu" else None)
    if wide is None:
        v, m, dims = _var(x, dim, keepdim, correction)
        return (F.sqrt(v) if root else v), m, dims
    v, m, dims = _var(x.to(wide), dim, keepdim, correction)
    return (F.sqrt(v) if root else v).to(x.dtype), m.to(x.dtype), dims


# Plans of sums divided in the same kernel call, keyed by the operand's geometry, the dims,
# the dtype and the divisor; False marks calls for the general path.
_sum_div_plans = Memo()


def _sum_div_plan(x, dims, keepdim, dtype, divisor):
    """A run of sum(x, dims) / divisor in ``dtype`` as one kernel call, or False."""
    key = (x.dtype, x._shape, x._strides, dims, keepdim, dtype, divisor)
    run = _sum_div_plans.get(key)
    if run is None:
        run = backend(x.device).reduce_plan(_sum, x, dims, dtype, 0, _reduced_shape(x._shape, dims, keepdim),
                                            dtype, divisor=divisor)
        run = _sum_div_plans[key] = run or False
    return run


def _sum_div(x, dims, keepdim, divisor):
    run = x._storage.device is CPU and not _profiler.enabled and _sum_div_plan(x, dims, keepdim, x.dtype, divisor)
    return run(x) if run else sum(x, dims, keepdim) / divisor


def _var_grad(v, x, dims, keepdim, correction):
    """The cotangent (or, summed, the tangent) of var at ``x`` for ``v``: 2 (x - mean) v / dof."""
    dof = _builtin_max(0, _numel(x._shape, dims) - correction)
    centered = x - x.mean(dims, keepdim=True)
    return _unreduce(v, x.shape, dims, keepdim) * centered * (2.0 / dof if dof else math.inf)


def _std_scale(g, ans):
    # d sqrt(v) = dv / (2 sqrt(v)); PyTorch gives 0 where the deviation is 0.
    return F.where(ans == 0, 0.0, g / (2.0 * ans))


_var_op = primitive(
    "var", 1,
    vjp=(lambda g, ans, x, dims, keepdim, correction: _var_grad(g, x, dims, keepdim, correction),),
    jvp=(lambda t, ans, x, dims, keepdim, correction: _var_tangent(t, x, dims, keepdim, correction),))
_std_op = primitive(
    "std", 1,
    vjp=(lambda g, ans, x, dims, keepdim, correction: _var_grad(_std_scale(g, ans), x, dims, keepdim,
                                                                correction),),
    jvp=(lambda t, ans, x, dims, keepdim, correction: _std_scale(_var_tangent(t, x, dims, keepdim, correction),
                                                                 ans),))


def _var_tangent(t, x, dims, keepdim, correction):
    one = ones((), dtype=x.dtype, device=x.device)
    return sum(_var_grad(one, x, dims, True, correction) * t, dims, keepdim)


@op_event("aten::var")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """var(input, dim=None, unbiased=True, keepdim=False, *, correction=1, out=None) -> Tensor

    Variance over ``dim``: the sum of squared deviations divided by ``N - correction``
    (``unbiased=False`` means ``correction=0``)."""
    dim, c = _correction("var", input, dim, unbiased, correction)
    v, _, dims = _moments(_plain(input), dim, keepdim, c)
    r = record_result(_var_op, (input,), v, {"dims": dims, "keepdim": keepdim, "correction": c})
    return _write_out(r, out, "var")


@op_event("aten::std")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
    """std(input, dim=None, unbiased=True, keepdim=False, *, correction=1, out=None) -> Tensor

    Standard deviation: the square root of :func:`var`."""
    dim, c = _correction("std", input, dim, unbiased, correction)
    s, _, dims = _moments(_plain(input), dim, keepdim, c, root=True)
    r = record_result(_std_op, (input,), s, {"dims": dims, "keepdim": keepdim, "correction": c})
    return _write_out(r, out, "std")


def _mean_vjp(g, x, dims, keepdim):
    return _mean_op.vjp[0](g, None, x, dims, keepdim, None)


# One node for both results (output 0 the variance or deviation, output 1 the mean): the rule
# receives both cotangents, None (not zeros) for an unused result: var's factor 2 / dof is inf for
# one element, and 0 * inf would make the mean's gradient NaN where PyTorch skips the undefined
# cotangent. Forward mode applies var's (std's) and mean's JVP rules, one per result.
def _plus_mean_vjp(v, gm, x, dims, keepdim):
    if gm is None:
        return v
    m = _mean_vjp(gm, x, dims, keepdim)
    return m if v is None else v + m


def _var_mean_vjp(g, ans, x, dims, keepdim, correction):
    gv, gm = g
    v = None if gv is None else _var_grad(gv, x, dims, keepdim, correction)
    return _plus_mean_vjp(v, gm, x, dims, keepdim)


def _std_mean_vjp(g, ans, x, dims, keepdim, correction):
    gv, gm = g
    v = None if gv is None else _var_grad(_std_scale(gv, ans), x, dims, keepdim, correction)
    return _plus_mean_vjp(v, gm, x, dims, keepdim)


_var_mean_op = primitive("var_mean", 1, vjp=(_var_mean_vjp,))
_std_mean_op = primitive("std_mean", 1, vjp=(_std_mean_vjp,))


def _record_with_mean(op, first_op, x, first, m, dims, keepdim, c):
    params = {"dims": dims, "keepdim": keepdim, "correction": c}
    if _tape.should_record((x,)):
        _tape.record(op, (x,), first, params, outputs=(first, m)).materialize_grads = False
    if _tape.has_tangents((x,)):
        _tape.forward_jvp(first_op, (x,), first, params)
        _tape.forward_jvp(_mean_op, (x,), m, {"dims": dims, "keepdim": keepdim, "dtype": None})
    return first, m


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=1) -> (Tensor, Tensor)

    The variance and the mean over ``dim``, sharing one mean computation."""
    dim, c = _correction("var_mean", input, dim, unbiased, correction)
    v, m, dims = _moments(_plain(input), dim, keepdim, c)
    return _record_with_mean(_var_mean_op, _var_op, input, v, m, dims, keepdim, c)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=1) -> (Tensor, Tensor)

    The standard deviation and the mean over ``dim``, sharing one mean computation."""
    dim, c = _correction("std_mean", input, dim, unbiased, correction)
    s, m, dims = _moments(_plain(input), dim, keepdim, c, root=True)
    return _record_with_mean(_std_mean_op, _std_op, input, s, m, dims, keepdim, c)


def _dist_vjp(g, ans, x, y, p):
    d = x - y
    return _pnorm_vjp(g, ans, d, p, tuple(range(d.ndim)), False)


def _dist_jvp(t, ans, x, y, p):
    d = x - y
    return _pnorm_jvp(t.expand(d.shape), ans, d, p, tuple(range(d.ndim)), False)


_dist_op = primitive("dist", 2, vjp=(_dist_vjp, lambda g, ans, x, y, p: -_dist_vjp(g, ans, x, y, p)),
                     jvp=(_dist_jvp, lambda t, ans, x, y, p: -_dist_jvp(t, ans, x, y, p)))


@op_event("aten::dist")
def dist(input, other, p=2):
    """dist(input, other, p=2) -> Tensor: the p-norm of ``input - other`` (broadcast)."""
    p = float(p)
    if p == 0 or math.isinf(p):
        # The 0- and inf-norms' rules are the vector norm's own (counts and ties).
        return vector_norm(input - other, p)
    r = vector_norm(_plain(input) - _plain(other), p)
    return record_result(_dist_op, (input, other), r, {"p": p})


@op_event("aten::logsumexp")
def logsumexp(input, dim, keepdim=False, *, out=None):
    """logsumexp(input, dim, keepdim=False, *, out=None) -> Tensor

    log(sum(exp(x))) over ``dim``, computed stably by shifting by the maximum."""
    x = input if input.dtype.is_floating_point else input.to(dtypes.get_default_dtype())
    dims = _dims(dim, x.ndim)
    if x.numel() == 0:
        return _write_out(F.log(sum(F.exp(x), dims, keepdim)), out, "logsumexp")
    plain = _plain(x)
    m = amax(plain, dims, True)
    # An infinite maximum would turn x - m into NaN: shift by 0 there instead.
    m = F.where(F.isinf(m), 0, m)
    r = F.log(sum(F.exp(plain - m), dims, True)) + m
    r = r if keepdim else r.reshape(_reduced_shape(x._shape, dims, False))
    return _write_out(record_result(_logsumexp_op, (x,), r, {"dims": dims, "keepdim": keepdim}), out, "logsumexp")


def _softmax_of(x, ans, dims, keepdim):
    # exp(x - logsumexp(x)): the weights of both rules.
    return F.exp(x - _unreduce(ans, x.shape, dims, keepdim))


_logsumexp_op = primitive(
    "logsumexp", 1,
    vjp=(lambda g, ans, x, dims, keepdim: _unreduce(g, x.shape, dims, keepdim) * _softmax_of(x, ans, dims, keepdim),),
    jvp=(lambda t, ans, x, dims, keepdim: sum(t * _softmax_of(x, ans, dims, keepdim), dims, keepdim),))


def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> LongTensor: the number of nonzero elements over ``dim``."""
    return sum(input != 0, dim)

