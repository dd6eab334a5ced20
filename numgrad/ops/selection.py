"""Reductions that select elements and return their indices: max and min (of all elements, over
a dim, or elementwise against another tensor), argmax, argmin, median and mode, with their VJP
and JVP rules."""
from __future__ import annotations

from .. import dtypes, shapes
from ..autograd import tape
from ..autograd.tape import plain as _plain
from ..return_types import return_type as _return_type
from .reductions import (amax_op, amin_op, check_nonempty, evenly_jvp, evenly_vjp, reduced_shape, run_reduction,
                         sum, unreduce)
from .registry import backend, write_out as _write_out
from .records import primitive
from ..creation import arange, full
from ..autograd import profiler as _profiler
from ..autograd.profiler import op_event

__all__ = ["max", "min", "argmax", "argmin", "median", "mode"]


return_types = {n: _return_type(n) for n in ("max", "min", "median", "mode")}


def _index_mask(indices, shape, dim, keepdim):
    """Bool mask of ``shape`` that is True where ``indices`` (one per row along ``dim``) point."""
    if not shape:
        return indices == 0
    idx = indices if keepdim else indices.unsqueeze(dim)
    pos = arange(shape[dim], device=indices.device).reshape((-1,) + (1,) * (len(shape) - dim - 1))
    return idx == pos


def select_vjp(g, ans, x, dim, keepdim, indices):
    """VJP of a selection along ``dim``: the cotangent flows to the selected element of each row only."""
    dims = (dim,) if len(x.shape) else ()
    return unreduce(g, x.shape, dims, keepdim) * _index_mask(indices, x.shape, dim, keepdim)


def select_jvp(t, ans, x, dim, keepdim, indices):
    """JVP of a selection along ``dim``: the tangent of the selected element of each row."""
    return sum(t * _index_mask(indices, x.shape, dim, keepdim), (dim,) if len(x.shape) else (), keepdim)


# max() and min() of all elements run amax's and amin's kernels; their rules differ at NaN.
_max_all = primitive("max_all", 1, vjp=(evenly_vjp,), jvp=(evenly_jvp,), backward_name="MaxBackward1")
_min_all = primitive("min_all", 1, vjp=(evenly_vjp,), jvp=(evenly_jvp,), backward_name="MinBackward1")
_max_dim = primitive("max_dim", 1, vjp=(select_vjp,), jvp=(select_jvp,), backward_name="MaxBackward0")
_min_dim = primitive("min_dim", 1, vjp=(select_vjp,), jvp=(select_jvp,), backward_name="MinBackward0")
_median = primitive("median", 1, vjp=(evenly_vjp,), jvp=(evenly_jvp,), backward_name="MedianBackward0")
_median_dim = primitive("median_dim", 1, vjp=(select_vjp,), jvp=(select_jvp,),
                        backward_name="MedianBackward1")
_mode_dim = primitive("mode", 1, vjp=(select_vjp,), jvp=(select_jvp,), backward_name="ModeBackward0")


def _select(op, kind, name, x, dim, keepdim, *args):
    """Run an index-returning kernel along ``dim``; values carry ``op``'s tape entry."""
    if x.dtype is dtypes.bool and kind == "argext" and name.startswith("arg"):
        raise RuntimeError(f"{name}(): does not support bool input")
    d = shapes.normalize_dim(dim, x.ndim)
    if x.ndim:
        check_nonempty(name, x, (d,), False)
    out_shape = reduced_shape(x._shape, (d,) if x.ndim else (), keepdim)
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
        values = run_reduction(amax_op if is_max else amin_op, _plain(x), None, False, name=name)
        return _write_out(tape.record_result(_max_all if is_max else _min_all, (x,), values), out, name)
    values, indices = _profiler.timed("aten::" + name, _select, _max_dim if is_max else _min_dim, "argext", name, x,
                                      dim, keepdim, is_max)
    if out is not None:
        _write_out(values, out[0], name)
        _write_out(indices, out[1], name)
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


@op_event("aten::argmax")
def argmax(input, dim=None, keepdim=False, *, out=None):
    """argmax(input, dim=None, keepdim=False, *, out=None) -> LongTensor

    Index of the first maximum (of the flattened input when ``dim`` is None); NaN counts as the
    maximum."""
    return _arg(input, dim, keepdim, True, out)


@op_event("aten::argmin")
def argmin(input, dim=None, keepdim=False, *, out=None):
    """argmin(input, dim=None, keepdim=False, *, out=None) -> LongTensor

    Index of the first minimum (of the flattened input when ``dim`` is None); NaN counts as the
    minimum."""
    return _arg(input, dim, keepdim, False, out)


@op_event("aten::median")
def median(input, dim=None, keepdim=False):
    """median(input) -> Tensor; median(input, dim, keepdim=False) -> (values, indices)

    The lower median (no averaging of the two middle values); NaN if the row holds a NaN."""
    if input.dtype is dtypes.bool and input.device.type == "cpu" and (dim is not None or input.numel()):
        raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
    if dim is None:
        x = input
        if x.numel() == 0:
            values = full((), dtypes.nan_or_min(x.dtype), dtype=x.dtype, device=x.device)
        else:
            values = _select(None, "median", "median", _plain(x).reshape(-1), 0, False)[0]
        if tape.should_record((x,)):
            tape.record(_median, (x,), values)
        if tape.has_tangents((x,)):
            tape.forward_jvp(_median, (x,), values)
        return values
    return return_types["median"](*_select(_median_dim, "median", "median", input, dim, keepdim))


@op_event("aten::mode")
def mode(input, dim=-1, keepdim=False):
    """mode(input, dim=-1, keepdim=False) -> (values, indices)

    The most frequent value of each row along ``dim`` (the smallest one on ties) and the last
    index where it occurs."""
    return return_types["mode"](*_select(_mode_dim, "mode", "mode", input, dim, keepdim))
