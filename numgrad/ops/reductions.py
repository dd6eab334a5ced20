"""Reductions: declared by their combine body, run by the reduction kernels, differentiated
by broadcasting the cotangent back over the reduced dims."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, shapes
from ..autograd import tape
from .registry import backend, check_devices, reduction, torch_type_name

__all__ = ["sum", "mean", "prod", "amax", "amin", "any", "all", "sum_to"]

_builtin_any, _builtin_all, _builtin_sum = any, all, sum


def _unreduce(g, x, dims, keepdim):
    """Broadcast a reduction's cotangent (or tangent) back to the input's shape."""
    if not keepdim:
        for d in dims:
            g = g.unsqueeze(d)
    return g.expand(x.shape)


def _sum_vjp(g, ans, x, dims, keepdim, dtype):
    return _unreduce(g, x, dims, keepdim)


def _sum_jvp(t, ans, x, dims, keepdim, dtype):
    return sum(t, dims, keepdim)


_sum = reduction("sum", lambda acc, x: acc + x, reassoc=True, vjp=(_sum_vjp,), jvp=(_sum_jvp,))
_prod = reduction("prod", lambda acc, x: acc * x,
                  vjp=(lambda g, ans, x, dims, keepdim, dtype: _prod_vjp(g, ans, x, dims, keepdim),),
                  jvp=(lambda t, ans, x, dims, keepdim, dtype: sum(
                      t * _prod_vjp(_ones_like(ans), ans, x, dims, keepdim), dims, keepdim),))


def _ones_like(t):
    from ..creation import ones_like
    return ones_like(t)


def _prod_vjp(g, ans, x, dims, keepdim):
    # Product of all other elements; written without division so zeros are handled exactly.
    from .. import creation
    if len(dims) == 1 and x.ndim > 0:
        d = dims[0]
        xm = x.movedim(d, -1)
        ones = creation.ones(xm.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
        left = creation.cat([ones, xm[..., :-1]], -1).cumprod(-1)
        right = creation.cat([ones, xm.flip(-1)[..., :-1]], -1).cumprod(-1).flip(-1)
        return _unreduce(g, x, dims, keepdim) * (left * right).movedim(-1, d)
    flat = x.reshape(-1)
    return _prod_vjp(g.reshape(-1).sum() if not keepdim else g.reshape(-1).sum(), ans, flat, (0,), False
                     ).reshape(x.shape) if False else _unreduce(g, x, dims, keepdim) * _prod_vjp(
        _ones_like(ans.reshape(())), ans.reshape(()), flat, (0,), False).reshape(x.shape)


def _maxmin_vjp(g, ans, x, dims, keepdim, dtype):
    # Ties share the gradient evenly, as PyTorch's amax/amin do.
    a = _unreduce(ans, x, dims, keepdim)
    mask = (x == a)
    count = sum(mask, dims, True)
    return _unreduce(g, x, dims, keepdim) * mask / count


def _maxmin_jvp(t, ans, x, dims, keepdim, dtype):
    a = _unreduce(ans, x, dims, keepdim)
    mask = (x == a)
    return sum(t * mask, dims, keepdim) / sum(mask, dims, keepdim)


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


_amax = reduction("amax", _max_combine, vjp=(_maxmin_vjp,), jvp=(_maxmin_jvp,))
_amin = reduction("amin", _min_combine, vjp=(_maxmin_vjp,), jvp=(_maxmin_jvp,))
_any = reduction("any", lambda acc, x: acc or x != 0, differentiable=False)
_all = reduction("all", lambda acc, x: acc and x != 0, differentiable=False)


def _identity(op, d: dtypes.dtype):
    if op is _sum or op is _any:
        return 0
    if op is _prod or op is _all:
        return 1
    if d.is_floating_point:
        return -math.inf if op is _amax else math.inf
    info = np.iinfo(d.numpy) if d is not dtypes.bool else None
    if info is None:
        return 0 if op is _amax else 1
    return info.min if op is _amax else info.max


def _acc_dtype(op, x, dtype):
    if op is _any or op is _all:
        return dtypes.bool
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    if op in (_sum, _prod) and not x.dtype.is_floating_point:
        return dtypes.int64
    return x.dtype


def run_reduction(op, x, dim=None, keepdim=False, dtype=None, name=None):
    """Reduce ``x`` over ``dim`` (None: all dims) with ``op``; records the tape entry."""
    from ..tensor import Tensor
    dims = shapes.normalize_dims(dim, x.ndim) if not (isinstance(dim, (tuple, list)) and len(dim) == 0) \
        else tuple(range(x.ndim))
    acc = _acc_dtype(op, x, dtype)
    n_red = shapes.prod(x._shape[d] for d in dims)
    if n_red == 0 and op in (_amax, _amin):
        nm = name or op.name
        if not dims or x.numel() == 0 and dim is None:
            raise RuntimeError(
                f"{nm}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                "reduction dim with the 'dim' argument.")
        raise IndexError(
            f"{nm}(): Expected reduction dim {dims[0]} to have non-zero size.")
    out_shape = tuple(1 if d in dims else s for d, s in enumerate(x._shape)) if keepdim else \
        tuple(s for d, s in enumerate(x._shape) if d not in dims)
    compute = acc if acc is not dtypes.float16 else dtypes.float32
    result = backend(x.device).reduce(op, x, dims, compute, _identity(op, acc), out_shape, acc)
    params = {"dims": dims, "keepdim": keepdim, "dtype": dtype}
    if op.differentiable and tape.should_record((x,)):
        tape.record(op, (x,), result, params)
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), result, params)
    return result


def _check_dtype_arg(x, dtype):
    if dtype is not None:
        return x.to(dtype)
    return x


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """sum(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    Sum of all elements, or over ``dim`` (an int or a tuple of ints). Integer and bool inputs
    sum to int64."""
    r = run_reduction(_sum, input, dim, keepdim, dtype)
    return _write_out(r, out)


def _write_out(r, out):
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        out.resize_(r.shape)
    out.copy_(r)
    return out


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """mean(input, dim=None, keepdim=False, *, dtype=None) -> Tensor

    Mean of all elements or over ``dim``. Requires a floating input (or ``dtype``)."""
    d = dtypes.as_dtype(dtype) if dtype is not None else input.dtype
    if not d.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {torch_type_name(d)}")
    dims = shapes.normalize_dims(dim, input.ndim) if not (isinstance(dim, (tuple, list)) and len(dim) == 0) \
        else tuple(range(input.ndim))
    n = shapes.prod(input._shape[k] for k in dims)
    s = sum(input, dim, keepdim, dtype=dtype)
    return _write_out(s / n if n else s * math.nan, out)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """prod(input, dim=None, keepdim=False, *, dtype=None) -> Tensor: product of elements."""
    return run_reduction(_prod, input, dim, keepdim, dtype)


def amax(input, dim=(), keepdim=False):
    """amax(input, dim=(), keepdim=False) -> Tensor: maximum over dims (all when empty); NaN propagates."""
    return run_reduction(_amax, input, None if dim == () else dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """amin(input, dim=(), keepdim=False) -> Tensor: minimum over dims (all when empty); NaN propagates."""
    return run_reduction(_amin, input, None if dim == () else dim, keepdim)


def any(input, dim=None, keepdim=False):
    """any(input, dim=None, keepdim=False) -> Tensor: True if any element is nonzero."""
    return run_reduction(_any, input, dim, keepdim)


def all(input, dim=None, keepdim=False):
    """all(input, dim=None, keepdim=False) -> Tensor: True if every element is nonzero."""
    return run_reduction(_all, input, dim, keepdim)


def sum_to(g, shape):
    """Sum a broadcast cotangent back down to ``shape`` (undoes broadcasting)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    r = sum(g, dims, keepdim=True) if dims else g
    if lead:
        r = r.reshape(shape)
    return r
