"""Kernel-backed reductions declared from a combine body (sum, nansum, prod, amax, amin, any,
all) with their VJP and JVP rules, the plan-caching runner they share, and ``sum_to``, which
undoes broadcasting."""
from __future__ import annotations

import math

import numpy as np

from ..memo import Memo
from .. import dtypes, shapes
from ..devices import CPU
from ..autograd.autocast_state import cast_policy
from ..autograd import profiler as _profiler
from ..autograd import tape
from ..creation import ones_like
from .registry import backend, write_out as _write_out
from .records import reduction
from .functional_elementwise import where

__all__ = ["sum", "prod", "amax", "amin", "any", "all", "sum_to"]


# ------------------------------------------------------------------------------------ helpers

def unreduce(g, shape, dims, keepdim):
    """Broadcast a reduction's cotangent (or tangent) back to the input's ``shape``."""
    shape = getattr(shape, "shape", shape)
    if not keepdim and g.ndim:
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


def reduction_dims(dim, ndim):
    """Normalized dims to reduce; None or an empty tuple/list means all dims."""
    if dim is None or isinstance(dim, (tuple, list)) and len(dim) == 0:
        return tuple(range(ndim))
    return shapes.normalize_dims(dim, ndim)


def reduced_shape(shape, dims, keepdim):
    """The shape left after reducing ``dims`` of ``shape`` (kept as size 1 with ``keepdim``)."""
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in dims)


def check_nonempty(name, x, dims, whole):
    """PyTorch's errors for a max-like reduction over nothing."""
    if whole and x.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if x._shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def all_ints(dims) -> bool:
    """Whether every entry of ``dims`` is exactly an int: plans are keyed by ``dims``, and (True,)
    must not find the plan of (1,) (bools are refused)."""
    for d in dims:
        if d.__class__ is not int:
            return False
    return True


def _where(c, a, b):
    return where(c, a, b)


# ------------------------------------------------------------------------- combine reductions

def _sum_vjp(g, ans, x, dims, keepdim, dtype):
    return unreduce(g, x.shape, dims, keepdim)


def _sum_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t, dims, keepdim)


def _nansum_vjp(g, ans, x, dims, keepdim, dtype):
    return _where(x != x, 0, unreduce(g, x.shape, dims, keepdim))


def _nansum_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(_where(x != x, 0, t), dims, keepdim)


def _prod_others(ans, x, dims):
    """The product of all other reduced elements, for each element of ``x``.

    Without zeros it is ``ans / x``. With one zero in a reduced block, only the zero's position
    gets a nonzero value (the product of the rest); with two or more zeros everything is 0.
    The zeros still enter as factors (``zprod``, ``zsum - x``), not as constants, so that the
    result's own derivatives in them (second derivatives of the product) are right.
    """
    zero = x == 0
    zeros = sum(zero, dims, True)
    x1 = _where(zero, 1, x)
    rest = prod(x1, dims, True)
    zprod = prod(_where(zero, x, 1), dims, True)
    # At a zero, the other factors hold no zero (rest) or exactly one (rest times it); with
    # more, every derivative below the third is 0.
    other_zero = sum(_where(zero, x, 0), dims, True) - x
    at_zero = _where(zeros == 1, rest, _where(zeros == 2, rest * other_zero, 0))
    return _where(zero, at_zero, rest / x1 * zprod)


def prod_vjp(g, ans, x, dims, keepdim, dtype=None):
    """prod's VJP: each element's cotangent times the product of the others."""
    return unreduce(g, x.shape, dims, keepdim) * _prod_others(ans, x, dims)


def _prod_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t * _prod_others(ans, x, dims), dims, keepdim)


def maxmin_vjp(g, ans, x, dims, keepdim, dtype):
    """amax's and amin's VJP: ties share the gradient evenly, as PyTorch's do."""
    mask = x == unreduce(ans, x.shape, dims, keepdim)
    return unreduce(g, x.shape, dims, keepdim) * mask / sum(mask, dims, True)


def maxmin_jvp(t, ans, x, dims, keepdim, dtype):
    """amax's and amin's JVP: the mean tangent of the elements equal to the result."""
    mask = x == unreduce(ans, x.shape, dims, keepdim)
    return sum(t * mask, dims, keepdim) / sum(mask, dims, keepdim)


def evenly_vjp(g, ans, x):
    """VJP of max(), min() and median() of all elements, as PyTorch's evenly_distribute_backward.

    The elements equal to the result share the cotangent (the NaN ones for a NaN result, where
    x == ans holds nowhere), the others get exactly 0."""
    mask = (x == ans) | (x != x) & (ans != ans)
    return _where(mask, g / sum(mask), 0)


def evenly_jvp(t, ans, x):
    """JVP of max(), min() and median() of all elements."""
    return maxmin_jvp(t, ans, x, (), False, None)


def _max_combine(acc, x):
    if acc != acc:
        return acc
    if x != x or x > acc:
        return x
    return acc


def _min_combine(acc, x):
    if acc != acc:
        return acc
    if x != x or x < acc:
        return x
    return acc


def _batched_maxmin_jvp(t, ans, x, dims, keepdim, dtype):
    # The tangents of the elements equal to the extreme, averaged over ties.
    mask = x == unreduce(ans, x, dims, keepdim)
    return sum(t * mask, shapes.shift_dims(dims), keepdim) / sum(mask, dims, keepdim)


def _batched_prod_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t * prod_vjp(ones_like(ans), ans, x, dims, keepdim), shapes.shift_dims(dims), keepdim)


# Variants: "dim" for a reduction over given dims, the public name for max() and min(). The
# batched_jvp rules take tangents with a leading batch dim (vectorized forward mode).
sum_op = reduction("sum", lambda acc, x: acc + x, reassoc=True, vjp=(_sum_vjp,), jvp=(_sum_jvp,),
                   batched_jvp=(lambda t, ans, x, dims, keepdim, dtype:
                                t.sum(shapes.shift_dims(dims), keepdim, dtype=dtype),),
                   variants={"dim": "SumBackward1"})
nansum_op = reduction("nansum", lambda acc, x: acc + x if x == x else acc, reassoc=True, vjp=(_nansum_vjp,),
                      jvp=(_nansum_jvp,))
prod_op = reduction("prod", lambda acc, x: acc * x, vjp=(prod_vjp,), jvp=(_prod_jvp,),
                    batched_jvp=(_batched_prod_jvp,), variants={"dim": "ProdBackward1"})
amax_op = reduction("amax", _max_combine, ieee="maximum", vjp=(maxmin_vjp,), jvp=(maxmin_jvp,),
                    batched_jvp=(_batched_maxmin_jvp,))
amin_op = reduction("amin", _min_combine, ieee="minimum", vjp=(maxmin_vjp,), jvp=(maxmin_jvp,),
                    batched_jvp=(_batched_maxmin_jvp,))
_any_op = reduction("any", lambda acc, x: acc or x != 0, differentiable=False)
_all_op = reduction("all", lambda acc, x: acc and x != 0, differentiable=False)


def _identity(op, d: dtypes.dtype):
    if op is sum_op or op is nansum_op or op is _any_op:
        return 0
    if op is prod_op or op is _all_op:
        return 1
    if d.is_floating_point:
        return -math.inf if op is amax_op else math.inf
    if d is dtypes.bool:
        return 0 if op is amax_op else 1
    info = np.iinfo(d.numpy)
    return info.min if op is amax_op else info.max


def _acc_dtype(op, x, dtype):
    if op is _any_op or op is _all_op:
        return dtypes.uint8 if x.dtype is dtypes.uint8 else dtypes.bool
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    if op in (sum_op, nansum_op, prod_op) and not x.dtype.is_floating_point:
        return dtypes.int64
    return x.dtype


# Plans of calls on CPU tensors, keyed by everything that fixes the validation and the kernel
# (as ``registry.run_elementwise`` keeps them); False marks calls for the general path.
_plans = Memo()


def run_reduction(op, x, dim=None, keepdim=False, dtype=None, name=None):
    """Reduce ``x`` over ``dim`` (None or (): all dims) with ``op``; records the tape entry."""
    if _profiler.enabled:
        return _profiler.timed("aten::" + name if name else op.event, _run_reduction, op, x, dim, keepdim, dtype, name)
    dc = dim.__class__
    if x._storage.device is CPU and not tape._dual_levels[0] and (
            dim is None or dc is int or (dc is tuple or dc is list) and all_ints(dim)):
        key = (op, x.dtype, x._shape, x._strides, tuple(dim) if dc is list else dim, keepdim, dtype)
        try:
            plan = _plans.get(key)
        except TypeError:  # unhashable entries in ``dim`` or ``dtype``: validated below
            plan = False
        if plan is None:
            plan = _new_plan(key, op, x, dim, keepdim, dtype, name)
        if plan:
            run, dims = plan
            result = run(x)
            if op.differentiable and tape.should_record((x,)):
                tape.record(op, (x,), result, {"dims": dims, "keepdim": keepdim, "dtype": dtype},
                            variant="dim" if dim is not None else name)
            return result
    return _run_reduction(op, x, dim, keepdim, dtype, name)


def _new_plan(key, op, x, dim, keepdim, dtype, name):
    dims = reduction_dims(dim, x.ndim)
    if op is amax_op or op is amin_op:
        check_nonempty(name or op.name, x, dims, dim is None or dim == ())
    plan = False
    acc = _acc_dtype(op, x, dtype)
    if acc not in dtypes.NARROW_FLOATING:
        compute = dtypes.bool if op in (_any_op, _all_op) else acc
        run = backend(x.device).reduce_plan(op, x, dims, compute, _identity(op, acc),
                                            reduced_shape(x._shape, dims, keepdim), acc)
        plan = (run, dims) if run is not None else False
    _plans[key] = plan
    return plan


def _run_reduction(op, x, dim, keepdim, dtype, name):
    dims = reduction_dims(dim, x.ndim)
    if op is amax_op or op is amin_op:
        check_nonempty(name or op.name, x, dims, dim is None or dim == ())
    acc = _acc_dtype(op, x, dtype)
    # 16-bit floats are storage formats: accumulate in float32 (and bool as itself for any/all).
    compute = dtypes.float32 if acc in dtypes.NARROW_FLOATING else dtypes.bool if op in (_any_op, _all_op) else acc
    result = backend(x.device).reduce(op, x, dims, compute, _identity(op, acc),
                                      reduced_shape(x._shape, dims, keepdim), acc)
    params = {"dims": dims, "keepdim": keepdim, "dtype": dtype}
    if op.differentiable and tape.should_record((x,)):
        tape.record(op, (x,), result, params, variant="dim" if dim is not None else name)
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), result, params)
    return result


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """sum(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Sum of all elements, or over ``dim`` (an int or a tuple of ints). Integer and bool inputs
    sum to int64; the sum of no elements is 0."""
    return _write_out(run_reduction(sum_op, input, dim, keepdim, dtype), out, "sum")


@cast_policy("float32")
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Product of all elements, or over ``dim``. Integer and bool inputs multiply to int64."""
    return _write_out(run_reduction(prod_op, input, dim, keepdim, dtype), out, "prod")


def amax(input, dim=(), keepdim=False, *, out=None):
    """amax(input, dim=(), keepdim=False, *, out=None) -> Tensor

    Maximum over ``dim`` (all dims when empty); NaN propagates and ties share the gradient."""
    return _write_out(run_reduction(amax_op, input, dim, keepdim), out, "amax")


def amin(input, dim=(), keepdim=False, *, out=None):
    """amin(input, dim=(), keepdim=False, *, out=None) -> Tensor

    Minimum over ``dim`` (all dims when empty); NaN propagates and ties share the gradient."""
    return _write_out(run_reduction(amin_op, input, dim, keepdim), out, "amin")


def _no_dims(dim) -> bool:
    return (dim.__class__ is tuple or dim.__class__ is list) and len(dim) == 0


def _nonzero_elementwise(input):
    """any/all over no dims: each element tested on its own (uint8 stays uint8, as in PyTorch)."""
    result = input != 0
    return result.to(dtypes.uint8) if input.dtype is dtypes.uint8 else result


def any(input, dim=None, keepdim=False, *, out=None):
    """any(input, dim=None, keepdim=False, *, out=None) -> Tensor: True where any element is nonzero.

    Unlike sum's, an empty ``dim`` reduces nothing: the result is elementwise."""
    if _no_dims(dim):
        return _write_out(_nonzero_elementwise(input), out, "any")
    return _write_out(run_reduction(_any_op, input, dim, keepdim), out, "any")


def all(input, dim=None, keepdim=False, *, out=None):
    """all(input, dim=None, keepdim=False, *, out=None) -> Tensor: True where every element is nonzero.

    Unlike sum's, an empty ``dim`` reduces nothing: the result is elementwise."""
    if _no_dims(dim):
        return _write_out(_nonzero_elementwise(input), out, "all")
    return _write_out(run_reduction(_all_op, input, dim, keepdim), out, "all")


# ------------------------------------------------------------------------ broadcasting support

# How sum_to reduces, keyed by (cotangent shape, target shape): the engine asks every step.
_sum_to_plans = Memo()


def sum_to(g, shape):
    """Sum a broadcast cotangent back down to ``shape`` (undoes broadcasting)."""
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    gshape = g._shape
    if gshape == shape:
        return g
    key = (gshape, shape)
    how = _sum_to_plans.get(key)
    if how is None:
        how = _sum_to_plans[key] = _sum_to_dims(gshape, shape)
    dims, keepdim, reshape = how
    r = run_reduction(sum_op, g, dims, keepdim) if dims else g
    return r.reshape(shape) if reshape else r


def _sum_to_dims(gshape, shape):
    """(dims to sum, keepdim, reshape after): leading dims go, size-1 dims are kept as 1.
    ValueError if ``shape`` does not broadcast to ``gshape``."""
    lead = len(gshape) - len(shape)
    # a list, not any(): this module's any is the tensor reduction
    if lead < 0 or [s for s, gs in zip(shape, gshape[lead:]) if s != 1 and s != gs]:
        raise ValueError(f"a cotangent of shape {list(gshape)} does not sum to {list(shape)}")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if dims and dims[-1] < lead:
        return dims, False, False
    return dims, True, bool(lead)
