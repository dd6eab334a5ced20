"""Kernel-backed reductions (sum, prod, amax, any, ...), the index-returning ones (max/min over a
dim, argmax, median, mode) and scans (cumsum, cumprod), each with its VJP and JVP rules."""
from __future__ import annotations

import math

import numpy as np

from ..memo import Memo
from .. import dtypes, shapes
from ..devices import CPU
from ..autograd import profiler as _profiler
from ..autograd import tape
from ..autograd.tape import plain as _plain
from ..return_types import return_type as _return_type
from .registry import backend, primitive, reduction, torch_type_name, write_out as _write_out

__all__ = ["sum", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "any", "all", "cumsum",
           "cumprod", "cummax", "cummin", "median", "mode", "sum_to"]

_builtin_max, _builtin_min, _builtin_sum = max, min, sum


return_types = {n: _return_type(n) for n in ("max", "min", "median", "mode", "cummax", "cummin")}


# ------------------------------------------------------------------------------------ helpers

def _unreduce(g, shape, dims, keepdim):
    """Broadcast a reduction's cotangent (or tangent) back to the input's ``shape``."""
    shape = getattr(shape, "shape", shape)
    if not keepdim and g.ndim:
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(shape)


def _dims(dim, ndim):
    """Normalized dims to reduce; None or an empty tuple/list means all dims."""
    if dim is None or isinstance(dim, (tuple, list)) and len(dim) == 0:
        return tuple(range(ndim))
    return shapes.normalize_dims(dim, ndim)


def _reduced_shape(shape, dims, keepdim):
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in dims)


def _check_nonempty(name, x, dims, whole):
    """PyTorch's errors for a max-like reduction over nothing."""
    if whole and x.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if x._shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _where(c, a, b):
    from .functional_elementwise import where
    return where(c, a, b)


def _index_mask(indices, shape, dim, keepdim):
    """Bool mask of ``shape`` that is True where ``indices`` (one per row along ``dim``) point."""
    if not shape:
        return indices == 0
    from ..creation import arange
    idx = indices if keepdim else indices.unsqueeze(dim)
    pos = arange(shape[dim], device=indices.device).reshape((-1,) + (1,) * (len(shape) - dim - 1))
    return idx == pos


# ------------------------------------------------------------------------- combine reductions

def _sum_vjp(g, ans, x, dims, keepdim, dtype):
    return _unreduce(g, x.shape, dims, keepdim)


def _sum_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t, dims, keepdim)


def _nansum_vjp(g, ans, x, dims, keepdim, dtype):
    return _where(x != x, 0, _unreduce(g, x.shape, dims, keepdim))


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


def _prod_vjp(g, ans, x, dims, keepdim, dtype=None):
    return _unreduce(g, x.shape, dims, keepdim) * _prod_others(ans, x, dims)


def _prod_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t * _prod_others(ans, x, dims), dims, keepdim)


def _maxmin_vjp(g, ans, x, dims, keepdim, dtype):
    # Ties share the gradient evenly, as PyTorch's amax/amin do.
    mask = x == _unreduce(ans, x.shape, dims, keepdim)
    return _unreduce(g, x.shape, dims, keepdim) * mask / sum(mask, dims, True)


def _maxmin_jvp(t, ans, x, dims, keepdim, dtype):
    mask = x == _unreduce(ans, x.shape, dims, keepdim)
    return sum(t * mask, dims, keepdim) / sum(mask, dims, keepdim)


def _evenly_vjp(g, ans, x):
    # max(), min() and median() of all elements, as PyTorch's evenly_distribute_backward: the
    # elements equal to the result share the cotangent (the NaN ones for a NaN result, where
    # x == ans holds nowhere), the others get exactly 0.
    mask = (x == ans) | (x != x) & (ans != ans)
    return _where(mask, g / sum(mask), 0)


def _evenly_jvp(t, ans, x):
    return _maxmin_jvp(t, ans, x, (), False, None)


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


# Variants: "dim" for a reduction over given dims, the public name for max() and min().
_sum = reduction("sum", lambda acc, x: acc + x, reassoc=True, vjp=(_sum_vjp,), jvp=(_sum_jvp,),
                 variants={"dim": "SumBackward1"})
_nansum = reduction("nansum", lambda acc, x: acc + x if x == x else acc, reassoc=True, vjp=(_nansum_vjp,),
                    jvp=(_nansum_jvp,))
_prod = reduction("prod", lambda acc, x: acc * x, vjp=(_prod_vjp,), jvp=(_prod_jvp,),
                  variants={"dim": "ProdBackward1"})
_amax = reduction("amax", _max_combine, vjp=(_maxmin_vjp,), jvp=(_maxmin_jvp,))
_amin = reduction("amin", _min_combine, vjp=(_maxmin_vjp,), jvp=(_maxmin_jvp,))
# max() and min() of all elements run amax's and amin's kernels; their rules differ at NaN.
_max_all = primitive("max_all", 1, vjp=(_evenly_vjp,), jvp=(_evenly_jvp,), backward_name="MaxBackward1")
_min_all = primitive("min_all", 1, vjp=(_evenly_vjp,), jvp=(_evenly_jvp,), backward_name="MinBackward1")
_any = reduction("any", lambda acc, x: acc or x != 0, differentiable=False)
_all = reduction("all", lambda acc, x: acc and x != 0, differentiable=False)


def _identity(op, d: dtypes.dtype):
    if op is _sum or op is _nansum or op is _any:
        return 0
    if op is _prod or op is _all:
        return 1
    if d.is_floating_point:
        return -math.inf if op is _amax else math.inf
    if d is dtypes.bool:
        return 0 if op is _amax else 1
    info = np.iinfo(d.numpy)
    return info.min if op is _amax else info.max


def _acc_dtype(op, x, dtype):
    if op is _any or op is _all:
        return dtypes.uint8 if x.dtype is dtypes.uint8 else dtypes.bool
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    if op in (_sum, _nansum, _prod) and not x.dtype.is_floating_point:
        return dtypes.int64
    return x.dtype


# Plans of calls on CPU tensors, keyed by everything that fixes the validation and the kernel
# (as ``registry.run_elementwise`` keeps them); False marks calls for the general path.
_plans = Memo()


def run_reduction(op, x, dim=None, keepdim=False, dtype=None, name=None):
    """Reduce ``x`` over ``dim`` (None or (): all dims) with ``op``; records the tape entry."""
    if _profiler.enabled:
        return _profiler.timed("aten::" + (name or op.name), _run_reduction, op, x, dim, keepdim, dtype, name)
    dc = dim.__class__
    if x._storage.device is CPU and not tape._dual_levels[0] and (
            dim is None or dc is int or (dc is tuple or dc is list) and _all_ints(dim)):
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


def _all_ints(dims) -> bool:
    # Plans are keyed by ``dims``: (True,) must not find the plan of (1,) (bools are refused).
    for d in dims:
        if d.__class__ is not int:
            return False
    return True


def _new_plan(key, op, x, dim, keepdim, dtype, name):
    dims = _dims(dim, x.ndim)
    if op is _amax or op is _amin:
        _check_nonempty(name or op.name, x, dims, dim is None or dim == ())
    plan = False
    acc = _acc_dtype(op, x, dtype)
    if acc is not dtypes.float16:
        compute = dtypes.bool if op in (_any, _all) else acc
        run = backend(x.device).reduce_plan(op, x, dims, compute, _identity(op, acc),
                                            _reduced_shape(x._shape, dims, keepdim), acc)
        plan = (run, dims) if run is not None else False
    _plans[key] = plan
    return plan


def _run_reduction(op, x, dim, keepdim, dtype, name):
    dims = _dims(dim, x.ndim)
    if op is _amax or op is _amin:
        _check_nonempty(name or op.name, x, dims, dim is None or dim == ())
    acc = _acc_dtype(op, x, dtype)
    # float16 is a storage format: accumulate in float32 (and bool as itself for any/all).
    compute = dtypes.float32 if acc is dtypes.float16 else dtypes.bool if op in (_any, _all) else acc
    result = backend(x.device).reduce(op, x, dims, compute, _identity(op, acc),
                                      _reduced_shape(x._shape, dims, keepdim), acc)
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
    return _write_out(run_reduction(_sum, input, dim, keepdim, dtype), out)


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """prod(input, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor

    Product of all elements, or over ``dim``. Integer and bool inputs multiply to int64."""
    return _write_out(run_reduction(_prod, input, dim, keepdim, dtype), out)


def amax(input, dim=(), keepdim=False, *, out=None):
    """amax(input, dim=(), keepdim=False, *, out=None) -> Tensor

    Maximum over ``dim`` (all dims when empty); NaN propagates and ties share the gradient."""
    return _write_out(run_reduction(_amax, input, dim, keepdim), out)


def amin(input, dim=(), keepdim=False, *, out=None):
    """amin(input, dim=(), keepdim=False, *, out=None) -> Tensor

    Minimum over ``dim`` (all dims when empty); NaN propagates and ties share the gradient."""
    return _write_out(run_reduction(_amin, input, dim, keepdim), out)


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
        return _write_out(_nonzero_elementwise(input), out)
    return _write_out(run_reduction(_any, input, dim, keepdim), out)


def all(input, dim=None, keepdim=False, *, out=None):
    """all(input, dim=None, keepdim=False, *, out=None) -> Tensor: True where every element is nonzero.

    Unlike sum's, an empty ``dim`` reduces nothing: the result is elementwise."""
    if _no_dims(dim):
        return _write_out(_nonzero_elementwise(input), out)
    return _write_out(run_reduction(_all, input, dim, keepdim), out)


# --------------------------------------------------------------- value-selecting reductions

def _select_vjp(g, ans, x, dim, keepdim, indices):
    # The cotangent flows to the selected element of each row only.
    dims = (dim,) if len(x.shape) else ()
    return _unreduce(g, x.shape, dims, keepdim) * _index_mask(indices, x.shape, dim, keepdim)


def _select_jvp(t, ans, x, dim, keepdim, indices):
    return sum(t * _index_mask(indices, x.shape, dim, keepdim), (dim,) if len(x.shape) else (), keepdim)


_max_dim = primitive("max_dim", 1, vjp=(_select_vjp,), jvp=(_select_jvp,), backward_name="MaxBackward0")
_min_dim = primitive("min_dim", 1, vjp=(_select_vjp,), jvp=(_select_jvp,), backward_name="MinBackward0")
_median = primitive("median", 1, vjp=(_evenly_vjp,), jvp=(_evenly_jvp,), backward_name="MedianBackward0")
_median_dim = primitive("median_dim", 1, vjp=(_select_vjp,), jvp=(_select_jvp,),
                        backward_name="MedianBackward1")
_mode_dim = primitive("mode", 1, vjp=(_select_vjp,), jvp=(_select_jvp,), backward_name="ModeBackward0")


def _select(op, kind, name, x, dim, keepdim, *args):
    """Run an index-returning kernel along ``dim``; values carry ``op``'s tape entry."""
    if x.dtype is dtypes.bool and kind == "argext" and name.startswith("arg"):
        raise RuntimeError(f"{name}(): does not support bool input")
    d = shapes.normalize_dim(dim, x.ndim)
    if x.ndim:
        _check_nonempty(name, x, (d,), False)
    out_shape = _reduced_shape(x._shape, (d,) if x.ndim else (), keepdim)
    values, indices = backend(x.device).select(kind, x, d, out_shape, *args)
    if op is not None:
        params = {"dim": d, "keepdim": keepdim, "indices": indices}
        if tape.should_record((x,)):
            tape.record(op, (x,), values, params)
        if tape.has_tangents((x,)):
            tape.forward_jvp(op, (x,), values, params)
    return values, indices


def max(input, dim=None, keepdim=False, *, out=None):
    """max(input) -> Tensor; max(input, dim, keepdim=False) -> (values, indices); max(input, other)

    The largest element; over ``dim``, the largest of each row and its (first) index; with a
    tensor ``other``, the elementwise maximum. NaN propagates."""
    return _max_or_min(input, dim, keepdim, out, True)


def min(input, dim=None, keepdim=False, *, out=None):
    """min(input) -> Tensor; min(input, dim, keepdim=False) -> (values, indices); min(input, other)

    The smallest element; over ``dim``, the smallest of each row and its (first) index; with a
    tensor ``other``, the elementwise minimum. NaN propagates."""
    return _max_or_min(input, dim, keepdim, out, False)


def _max_or_min(x, dim, keepdim, out, is_max):
    name = "max" if is_max else "min"
    if hasattr(dim, "_storage"):
        from . import functional_elementwise as F
        return (F.maximum if is_max else F.minimum)(x, dim, out=out)
    if dim is None:
        values = run_reduction(_amax if is_max else _amin, _plain(x), None, False, name=name)
        return _write_out(tape.record_result(_max_all if is_max else _min_all, (x,), values), out)
    values, indices = _select(_max_dim if is_max else _min_dim, "argext", name, x, dim, keepdim, is_max)
    if out is not None:
        _write_out(values, out[0])
        _write_out(indices, out[1])
        values, indices = out
    return return_types[name](values, indices)


def _arg(x, dim, keepdim, is_max, out):
    name = "argmax" if is_max else "argmin"
    if dim is None:
        if x.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        idx = _select(None, "argext", name, x.reshape(-1), 0, False, is_max)[1]
        idx = idx.reshape((1,) * x.ndim) if keepdim else idx
    else:
        idx = _select(None, "argext", name, x, dim, keepdim, is_max)[1]
    if out is None:
        return idx
    # PyTorch checks the input first, then wants exactly int64 (no casting) in ``out``.
    if out.dtype is not dtypes.int64:
        raise RuntimeError(f"Expected out tensor to have dtype long int, but got {dtypes.C_NAMES[out.dtype]} "
                           "instead")
    return _write_out(idx, out, name)


def argmax(input, dim=None, keepdim=False, *, out=None):
    """argmax(input, dim=None, keepdim=False, *, out=None) -> LongTensor

    Index of the first maximum (of the flattened input when ``dim`` is None); NaN counts as the
    maximum."""
    return _arg(input, dim, keepdim, True, out)


def argmin(input, dim=None, keepdim=False, *, out=None):
    """argmin(input, dim=None, keepdim=False, *, out=None) -> LongTensor

    Index of the first minimum (of the flattened input when ``dim`` is None); NaN counts as the
    minimum."""
    return _arg(input, dim, keepdim, False, out)


def median(input, dim=None, keepdim=False):
    """median(input) -> Tensor; median(input, dim, keepdim=False) -> (values, indices)

    The lower median (no averaging of the two middle values); NaN if the row holds a NaN."""
    if dim is None:
        x = input
        if x.numel() == 0:
            from ..creation import full
            values = full((), dtypes.nan_or_min(x.dtype), dtype=x.dtype, device=x.device)
        else:
            values = _select(None, "median", "median", _plain(x).reshape(-1), 0, False)[0]
        if tape.should_record((x,)):
            tape.record(_median, (x,), values)
        if tape.has_tangents((x,)):
            tape.forward_jvp(_median, (x,), values)
        return values
    return return_types["median"](*_select(_median_dim, "median", "median", input, dim, keepdim))


def mode(input, dim=-1, keepdim=False):
    """mode(input, dim=-1, keepdim=False) -> (values, indices)

    The most frequent value of each row along ``dim`` (the smallest one on ties) and the last
    index where it occurs."""
    return return_types["mode"](*_select(_mode_dim, "mode", "mode", input, dim, keepdim))


# --------------------------------------------------------------------------------------- scans

def _cumsum_vjp(g, ans, x, dim, dtype):
    # Reverse cumulative sum: element k receives the cotangents of outputs k, k+1, ...
    return sum(g, dim, True) - cumsum(g, dim) + g


def _cumprod_grad(g, ans, x, dim):
    """d/dx of sum(g * cumprod(x)), zeros included.

    Before the first zero of a row, each x is nonzero and the gradient is the reverse
    cumulative sum of g * ans divided by x. At the first zero it is the reverse cumulative sum
    of g * cumprod(x with that zero set to 1). After it, every product holds that zero twice
    over (or the gradient would need a later one): 0.
    """
    zero = x == 0
    seen = cumsum(zero, dim)
    before = seen == 0
    first = zero & (seen == 1)
    rc = _cumsum_vjp(g * ans, ans, x, dim, None)
    rc_first = _cumsum_vjp(g * cumprod(_where(first, 1, x), dim), ans, x, dim, None)
    return _where(before, rc / _where(before, x, 1), _where(first, rc_first, 0))


def _cumprod_vjp(g, ans, x, dim, dtype):
    return _cumprod_grad(g, ans, x, dim)


def _cumprod_jvp(t, ans, x, dim, dtype):
    # Output j gets sum_{k<=j} t_k * prod_{i<=j, i!=k} x_i: ans_j * cumsum(t / x)_j before the
    # first zero, t at that zero times the product of the others while it is the only zero, 0
    # after a second one.
    zero = x == 0
    seen = cumsum(zero, dim)
    before = seen == 0
    first = zero & (seen == 1)
    t_first = sum(t * first, dim, True)
    return _where(before, ans * cumsum(t / _where(before, x, 1), dim),
                  _where(seen == 1, t_first * cumprod(_where(first, 1, x), dim), 0))


_cumsum = primitive("cumsum", 1, vjp=(_cumsum_vjp,), jvp=(lambda t, ans, x, dim, dtype: cumsum(t, dim),),
                    backward_name="CumsumBackward0")
_cumprod = primitive("cumprod", 1, vjp=(_cumprod_vjp,), jvp=(_cumprod_jvp,), backward_name="CumprodBackward0")
_cumsum.combine = _sum.combine
_cumprod.combine = _prod.combine


def _scan(op, x, dim, dtype, out):
    d = shapes.normalize_dim(dim, x.ndim)
    if dtype is not None:
        acc = dtypes.as_dtype(dtype)
    else:
        acc = x.dtype if x.dtype.is_floating_point else dtypes.int64
    # Running totals accumulate as PyTorch's do: float16 in float32, and on the CPU float32 in
    # float64, each output rounded once.
    compute = dtypes.float32 if acc is dtypes.float16 else acc
    if acc is dtypes.float32 and x.device.type == "cpu":
        compute = dtypes.float64
    result = backend(x.device).scan(op, x, d, compute, 0 if op is _cumsum else 1, acc)
    params = {"dim": d, "dtype": dtype}
    if tape.should_record((x,)):
        tape.record(op, (x,), result, params)
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), result, params)
    return _write_out(result, out)


def cumsum(input, dim, *, dtype=None, out=None):
    """cumsum(input, dim, *, dtype=None, out=None) -> Tensor

    Cumulative sum along ``dim``: ``y[i] = x[0] + ... + x[i]``. Integer inputs give int64."""
    return _scan(_cumsum, input, dim, dtype, out)


def cumprod(input, dim, *, dtype=None, out=None):
    """cumprod(input, dim, *, dtype=None, out=None) -> Tensor

    Cumulative product along ``dim``: ``y[i] = x[0] * ... * x[i]``. Integer inputs give int64."""
    return _scan(_cumprod, input, dim, dtype, out)


def _cumext_vjp(g, ans, x, dim, indices):
    # Each running extreme came from one element: its cotangent goes back there.
    from ..creation import zeros
    return zeros(x.shape, dtype=g.dtype, device=g.device).scatter_add(dim, indices, g)


_cummax = primitive("cummax", 1, vjp=(_cumext_vjp,), jvp=(lambda t, ans, x, dim, indices: t.gather(dim, indices),),
                    backward_name="CummaxBackward0")
_cummin = primitive("cummin", 1, vjp=(_cumext_vjp,), jvp=(lambda t, ans, x, dim, indices: t.gather(dim, indices),),
                    backward_name="CumminBackward0")


def _cumulative_extreme(x, dim, out, want_max):
    name = "cummax" if want_max else "cummin"
    d = shapes.normalize_dim(dim, x.ndim)
    values, indices = backend(x.device).cumulative_extreme(x, d, want_max)
    tape.record_result(_cummax if want_max else _cummin, (x,), values, {"dim": d, "indices": indices})
    if out is not None:
        _write_out(values, out[0])
        _write_out(indices, out[1])
        values, indices = out
    return return_types[name](values, indices)


def cummax(input, dim, *, out=None):
    """cummax(input, dim, *, out=None) -> (values, indices)

    Running maximum along ``dim`` and the index where it was (last) reached; NaN propagates."""
    return _cumulative_extreme(input, dim, out, True)


def cummin(input, dim, *, out=None):
    """cummin(input, dim, *, out=None) -> (values, indices)

    Running minimum along ``dim`` and the index where it was (last) reached; NaN propagates."""
    return _cumulative_extreme(input, dim, out, False)


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
    r = run_reduction(_sum, g, dims, keepdim) if dims else g
    return r.reshape(shape) if reshape else r


def _sum_to_dims(gshape, shape):
    """(dims to sum, keepdim, reshape after): leading dims go, size-1 dims are kept as 1."""
    lead = len(gshape) - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
    if dims and dims[-1] < lead:
        return dims, False, False
    return dims, True, bool(lead)


del torch_type_name
