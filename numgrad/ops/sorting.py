"""Sorting and selection: sort, argsort, topk, kthvalue, msort, unique, searchsorted, bucketize,
and the counting ops bincount and histc.

Sorting works on rows: the sorted dim is moved last and made contiguous, and the CPU sort kernels
sort each row into its values and their permutation. The values' VJP scatters the cotangent back
through that permutation; the indices are not differentiable.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes, shapes
from ..tensor import Tensor
from ..autograd import tape
from ..backends.cpu.memory import host_buffer
from ..return_types import return_type as _return_type
from .host_fallback import on_host
from .registry import check_out_grad
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import tensor, zeros
from ..autograd.profiler import op_event

__all__ = ["sort", "argsort", "topk", "kthvalue", "msort", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "bincount", "histc"]


sort_result = _return_type("sort")
topk_result = _return_type("topk")
kthvalue_result = _return_type("kthvalue")



def _sorter():
    from ..backends.cpu import sort
    return sort


def _scatter_back(g, shape, dim, indices):
    from .gather import scatter_add
    return scatter_add(zeros(shape, dtype=g.dtype, device=g.device), dim, indices, g)


def _gather(t, dim, indices):
    from .gather import gather
    return gather(t, dim, indices)


_sort_op = primitive("sort", 1,
                     vjp=(lambda g, ans, x, dim, indices: _scatter_back(g, x.shape, dim, indices),),
                     jvp=(lambda t, ans, x, dim, indices: _gather(t, dim, indices),))
_topk_op = primitive("topk", 1,
                     vjp=(lambda g, ans, x, dim, indices: _scatter_back(g, x.shape, dim, indices),),
                     jvp=(lambda t, ans, x, dim, indices: _gather(t, dim, indices),))


def _rows(x, d):
    """x with dim ``d`` moved last, as a C-contiguous (rows, n) NumPy array, and that shape."""
    moved = x.detach().movedim(d, -1).contiguous()
    n = moved._shape[-1] if moved.ndim else 1
    return moved._np_view().reshape(shapes.prod(moved._shape[:-1]), n), moved._shape


def _from_rows(arr, moved_shape, d, nd):
    """A tensor over ``arr`` (laid out with dim ``d`` last) shaped like the input, contiguous as
    PyTorch's results are (so ``.view`` works on them), without a tape entry."""
    t = Tensor._from_numpy_array(np.ascontiguousarray(arr).reshape(moved_shape))
    if nd <= 1:
        return t
    order = [k for k in range(nd) if k != d] + [d]
    shape, strides = [0] * nd, [0] * nd
    for pos, k in enumerate(order):
        shape[k] = t._shape[pos]
        strides[k] = t._strides[pos]
    return t._view(tuple(shape), tuple(strides)).contiguous()


def _sorted(input, dim, descending, k, op):
    """The first ``k`` values and indices of each row along ``dim`` in sorted order."""
    nd = input.ndim
    x = input.reshape(1) if nd == 0 else input
    d = shapes.normalize_dim(dim, x.ndim)
    rows, moved_shape = _rows(x, d)
    values, perm = _sorter().sort(rows, descending)
    if k != rows.shape[1]:
        values, perm = values[:, :k], perm[:, :k]
    out_shape = tuple(moved_shape[:-1]) + (k,)
    vals = _from_rows(values, out_shape, d, x.ndim)
    idx = _from_rows(perm, out_shape, d, x.ndim)
    if nd == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    tape.record_result(op, (input,), vals, {"dim": d if nd else 0, "indices": idx})
    return vals, idx


@on_host
@op_event("aten::sort")
def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """sort(input, dim=-1, descending=False, stable=False) -> (Tensor, LongTensor)

    The values sorted along ``dim`` and their original indices. NaN sorts after every number
    (first when descending). The sort is always stable: equal elements keep their order."""
    v, i = _sorted(input, dim, descending, input.shape[dim] if input.ndim else 1, _sort_op)
    return _write_out(sort_result(v, i), out)


def _write_out(result, out):
    if out is None:
        return result
    check_out_grad(type(result).__name__, out, *result)
    for dst, src in zip(out, result):
        if tuple(dst.shape) != tuple(src.shape):
            dst.resize_(src.shape)
        dst.copy_(src)
    return type(result)(*out)


@on_host
@op_event("aten::argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    """argsort(input, dim=-1, descending=False, stable=False) -> LongTensor: the indices that
    sort ``input`` along ``dim``."""
    return sort(input.detach(), dim, descending, stable).indices


@on_host
@op_event("aten::msort")
def msort(input):
    """msort(input) -> Tensor: ``input`` sorted along dim 0."""
    return sort(input, 0).values


@on_host
@op_event("aten::topk")
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """topk(input, k, dim=-1, largest=True, sorted=True) -> (Tensor, LongTensor)

    The ``k`` largest (smallest with ``largest=False``) elements along ``dim``, in sorted order,
    and their indices."""
    if input.dtype is dtypes.bool and input.device.type == "cpu":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    n = (input.shape[dim] if input.ndim else 1)
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if not input.ndim:
        # PyTorch returns the one element of a 0-d input even for k = 0.
        k = 1
    v, i = _sorted(input, dim, largest, k, _topk_op)
    return _write_out(topk_result(v, i), out)


@on_host
@op_event("aten::kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """kthvalue(input, k, dim=-1, keepdim=False) -> (Tensor, LongTensor): the ``k``-th smallest
    element along ``dim`` and its index."""
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    d = shapes.normalize_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    v, i = _sorted(tape.plain(input), d, False, k, _topk_op)
    picked = i
    if input.ndim:
        v, i = v.narrow(d, k - 1, 1).contiguous(), i.narrow(d, k - 1, 1).contiguous()
        picked = i
        if not keepdim:
            v, i = v.squeeze(d), i.squeeze(d)
    tape.record_result(_kthvalue_op, (input,), v, {"dim": d, "keepdim": keepdim, "indices": picked})
    return _write_out(kthvalue_result(v, i), out)


def _kth_vjp(g, ans, x, dim, keepdim, indices):
    if not x.ndim:
        return g
    return _scatter_back(g if keepdim else g.unsqueeze(dim), x.shape, dim, indices)


def _kth_jvp(t, ans, x, dim, keepdim, indices):
    if not x.ndim:
        return t
    picked = _gather(t, dim, indices)
    return picked if keepdim else picked.squeeze(dim)


# ``indices`` are the picked positions, with ``dim`` kept.
_kthvalue_op = primitive("kthvalue", 1, vjp=(_kth_vjp,), jvp=(_kth_jvp,))


def _unique_slices(input, dim, sort, return_inverse, return_counts):
    """The distinct slices of ``input`` along ``dim`` (sorted lexicographically, or only merged
    where they are neighbours), with the inverse map and the counts as asked."""
    from ..backends.cpu.unique import unique_rows
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = shapes.normalize_dim(dim, input.ndim)
    moved = input.detach().movedim(d, 0).contiguous()
    n = moved._shape[0]
    if input.numel() == 0 and n:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    rows = moved._np_view().reshape(n, -1) if n else np.empty((0, 1), dtype=moved.dtype.numpy)
    uniq, inverse, counts = unique_rows(rows, sort)
    values = Tensor._from_numpy_array(uniq).reshape((uniq.shape[0],) + moved._shape[1:])
    out = [values.movedim(0, d).contiguous()]
    if return_inverse:
        out.append(Tensor._from_numpy_array(inverse))
    if return_counts:
        out.append(Tensor._from_numpy_array(counts))
    return out[0] if len(out) == 1 else tuple(out)


@on_host
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None)

    The distinct elements in ascending order; optionally the index of each input element in
    them (shaped like the input) and how often each occurs. NaNs are each distinct. With
    ``dim``, the distinct slices along ``dim`` in lexicographic order; the inverse then maps
    each slice."""
    if dim is not None:
        return _unique_slices(input, dim, True, return_inverse, return_counts)
    flat = input.detach().reshape(-1).contiguous()
    vals = flat._np_view().reshape(1, -1)
    S = _sorter()
    n = vals.shape[1]
    narrow = vals.dtype in dtypes.NARROW_NUMPY
    wide = vals.astype(np.float32) if narrow else vals
    sorted_vals, perm = S.sort(wide, False)
    sorted_vals = sorted_vals[0]
    group = np.empty(n, dtype=np.int64)
    g = S.group_runs(sorted_vals, group)
    uniq = np.empty(g, dtype=vals.dtype)
    inverse = np.empty(n, dtype=np.int64)
    counts = np.empty(g, dtype=np.int64)
    move = (lambda a: a.view(np.uint16)) if narrow else (lambda a: a)
    if n:
        S.unique_scatter(perm[0], group, move(vals[0]), g, move(uniq), inverse, counts)
    out = [Tensor._from_numpy_array(uniq)]
    if return_inverse:
        out.append(Tensor._from_numpy_array(inverse).reshape(input.shape))
    if return_counts:
        out.append(Tensor._from_numpy_array(counts))
    return out[0] if len(out) == 1 else tuple(out)


@on_host
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """unique_consecutive(input, return_inverse=False, return_counts=False, dim=None)

    ``input`` with each run of equal consecutive elements (of equal slices along ``dim``) kept
    once; optionally the run of each element (slice) and the length of each run."""
    if dim is not None:
        return _unique_slices(input, dim, False, return_inverse, return_counts)
    result = _unique_slices(input.reshape(-1, 1), 0, False, True, return_counts)
    values, inverse = result[0].reshape(-1), result[1].reshape(input.shape)
    out = (values,) + ((inverse,) if return_inverse else ()) + tuple(result[2:])
    return out[0] if len(out) == 1 else out


@on_host
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None)

    For each value, the index at which it would be inserted into the innermost dim of
    ``sorted_sequence`` to keep it sorted (after equal elements with ``right=True``)."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    seq = sorted_sequence.detach()
    if sorter is not None:
        if sorter.dtype is not dtypes.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                               f"{torch_type_name(sorter.dtype)}")
        if tuple(sorter.shape) != tuple(seq.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor [{', '.join(map(str, seq.shape))}] and got sorter tensor "
                               f"[{', '.join(map(str, sorter.shape))}]")
        seq = seq.gather(-1, sorter)
    if scalar:
        if seq.ndim != 1:
            raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                               f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
                               "dim(0) numel(1)")
        input = tensor(input)
    vals = input.detach()
    if seq.ndim != 1 and (seq.ndim != vals.ndim or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"[{', '.join(map(str, seq.shape))}] and input value tensor [{', '.join(map(str, vals.shape))}]")
    ct = dtypes.promote_types(seq.dtype, vals.dtype)
    np_ct = np.float32 if ct in dtypes.NARROW_FLOATING else ct.numpy
    # Rows are counted explicitly: reshape(-1, 0) is ambiguous for an empty innermost dim.
    s2 = np.ascontiguousarray(seq._np_view(), dtype=np_ct).reshape(
        shapes.prod(seq.shape[:-1]), seq.shape[-1] if seq.ndim else 1)
    inner = vals.shape[-1] if (vals.ndim and seq.ndim > 1) else max(vals.numel(), 1) if vals.ndim else 1
    v2 = np.ascontiguousarray(vals._np_view(), dtype=np_ct).reshape(-1, inner) if vals.numel() else \
        np.empty((0, 1), dtype=np_ct)
    res = np.empty(v2.shape, dtype=np.int64)
    if v2.size and s2.shape[1]:
        _sorter().searchsorted(s2, v2, right, res)
    elif v2.size:
        res[...] = 0
    result = Tensor._from_numpy_array(res.reshape(vals.shape))
    if out_int32:
        result = result.to(dtypes.int32)
    if out is not None:
        if tuple(out.shape) != tuple(result.shape):
            out.resize_(result.shape)
        out.copy_(result)
        return out
    return result


@on_host
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor: the index of the
    bucket of each element given 1-D sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


@on_host
def bincount(input, weights=None, minlength=0):
    """bincount(input, weights=None, minlength=0) -> Tensor: the number of occurrences of each
    value in a 1-D non-negative integer tensor (or the sum of ``weights`` at them)."""
    from ..backends.cpu import index as K
    if input.dtype.is_floating_point or input.dtype is dtypes.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if not isinstance(minlength, numbers.Integral) or isinstance(minlength, (bool, np.bool_)):
        raise TypeError(f"bincount(): argument 'minlength' must be int, not {type(minlength).__name__}")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if K.first_out_of_range(input, 0, np.iinfo(np.int64).max) is not None:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    x = np.ascontiguousarray(input._np_view(), dtype=np.int64)
    n = max(int(input.amax().item()) + 1 if x.size else 0, minlength)
    if weights is None:
        out = host_buffer(np.zeros, n, np.int64)
        K.bincount(x, x, False, out)
    else:
        wt = np.float32 if weights.dtype is dtypes.float32 else np.float64
        w = np.ascontiguousarray(weights.detach()._np_view(), dtype=wt)
        out = host_buffer(np.zeros, n, wt)
        K.bincount(x, w, True, out)
    return Tensor._from_numpy_array(out)


@on_host
def histc(input, bins=100, min=0, max=0, *, out=None):
    """histc(input, bins=100, min=0, max=0) -> Tensor: a histogram of ``bins`` equal-width bins
    over [min, max] (the data's range when both are 0); elements outside are ignored."""
    from ..backends.cpu import index as K
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    x = np.ascontiguousarray(input.detach()._np_view(), dtype=np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = (float(v) for v in K.minmax(x))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogram(): max must be larger than min, but got min {lo} max {hi}")
    counts = host_buffer(np.zeros, bins, np.float64)
    if x.size:
        K.histc(x, lo, hi, counts)
    result = Tensor._from_numpy_array(counts.astype(input.dtype.numpy))
    if out is not None:
        out.copy_(result)
        return out
    return result


TENSOR_METHODS = {}
