"""scatter_reduce (and index_reduce, its form for whole slices): reduce ``src`` into ``input``
at ``index`` along a dim with sum, prod, mean, amax or amin, with or without ``input``'s own
values, and its derivatives.

Both rules rest on two local derivatives: of each result element by the input element at the
same place, and of the result element each ``src`` element lands in by that ``src`` element;
the rules scale cotangents (VJP) or tangents (JVP) by them.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, shapes
from ..tensor import Tensor
from ..autograd.tape import plain as _plain
from .functional_elementwise import where
from .gather import (_as_nd, _pad_to, _check_range, _check_vector_index, _copy, _fmt, _in_place, _kernels, _record,
                     check_no_overlap, _scatter_args, _zeros, gather, scatter, scatter_add)
from .registry import write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import ones, tensor, zeros
from ..autograd.profiler import op_event

__all__ = ["scatter_reduce", "index_reduce"]

_MODE = {"sum": 1, "mean": 1, "prod": 2, "amax": 3, "amin": 4}


def _identity(reduce, dtype):
    """The value a reduction starts from when ``input``'s own value is left out."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    high = reduce == "amin"
    if dtype is dtypes.bool:
        return high
    if dtype.is_floating_point:
        return float("inf") if high else float("-inf")
    info = np.iinfo(dtype.numpy)
    return int(info.max if high else info.min)


def _counts(shape, dtype, device, d, index, include_self):
    """How many values each element of the result reduces (at least 1)."""
    start = (ones if include_self else zeros)(shape, dtype=dtype, device=device)
    n = scatter_add(start, d, index, ones(index.shape, dtype=dtype, device=device))
    return n.clamp_min(1)


def _scatter_reduce_raw(self, dim, index, src, reduce, include_self):
    """Validate, then reduce ``src`` into ``self`` in place."""
    if reduce not in _MODE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if reduce == "mean" and self.dtype is dtypes.bool:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    args = _scatter_args(self, dim, index, src, "scatter")
    if args is None:
        return
    x, shape, out_strides, idx, idx_strides, s, src_strides, ds = args
    K = _kernels(x)
    if not include_self:
        fill = tensor([_identity(reduce, self.dtype)], dtype=self.dtype, device=self.device)
        K.run_scatter(x, shape, out_strides, idx, idx_strides, fill, (0,) * len(shape), ds, 0)
    K.run_scatter(x, shape, out_strides, idx, idx_strides, s, src_strides, ds, _MODE[reduce])
    if reduce == "mean":
        exact = self.dtype.is_floating_point
        n = _counts(x.shape, self.dtype if exact else dtypes.int64, x.device,
                    shapes.normalize_dim(dim, x.ndim), idx, include_self)
        x._write(x.div(n, rounding_mode=None if exact else "floor"))


# ----------------------------------------------------------------------------------- derivatives

def _narrow_to(src, shape):
    """``src``'s leading block of ``shape``: the elements an index of that shape scatters."""
    for k, n in enumerate(shape):
        if src._shape[k] != n:
            src = src.narrow(k, 0, n)
    return src


def _extreme_hits(a, xx, s, dim, idx, include_self):
    """Where x and src equal the extreme they reduce to (1 or 0), and how many share each."""
    x_hit = (xx == a).to(xx.dtype)
    if not include_self:
        x_hit = scatter(x_hit, dim, idx, 0)
    s_hit = (s == gather(a, dim, idx)).to(s.dtype)
    return x_hit, s_hit, scatter_add(x_hit, dim, idx, s_hit)


def _d_input(ans, x, src, dim, index, reduce, include_self):
    """d ans / d x elementwise, shaped like ``x`` as a vector (None where it is all ones)."""
    a, xx, idx = _as_nd(ans), _as_nd(x), _as_nd(index)
    s = _narrow_to(_as_nd(src), idx._shape)
    if reduce in ("amax", "amin"):
        # Ties share the gradient equally, as PyTorch does.
        x_hit, _, n = _extreme_hits(a, xx, s, dim, idx, include_self)
        return x_hit / n
    if reduce == "sum":
        d = None
    elif reduce == "mean":
        d = 1 / _counts(xx.shape, xx.dtype, xx.device, dim, idx, include_self)
    else:
        # The product of the other factors: x's own factor divided out, where it is not zero.
        x1 = xx.masked_fill(xx == 0, 1)
        d = scatter_reduce(x1, dim, idx, s, "prod") / x1
    if not include_self:
        d = scatter(d if d is not None else _ones_like(xx), dim, idx, 0)
    return d


def _d_src(ans, x, src, dim, index, reduce, include_self):
    """d ans[index] / d src elementwise, shaped like ``index`` (None where it is all ones)."""
    a, xx, idx = _as_nd(ans), _as_nd(x), _as_nd(index)
    s = _narrow_to(_as_nd(src), idx._shape)
    if reduce == "sum":
        return None
    if reduce == "mean":
        return gather(1 / _counts(xx.shape, xx.dtype, xx.device, dim, idx, include_self), dim, idx)
    if reduce == "prod":
        # The result divided by the factor where that is not zero; a lone zero's partial is the
        # product of the others, recomputed with that zero replaced by one.
        zero = s == 0
        n_zero = gather(scatter_add(_zeros(xx.shape, s), dim, idx, zero.to(s.dtype)), dim, idx)
        lone = zero & (n_zero == 1)
        others = gather(scatter_reduce(xx, dim, idx, s.masked_fill(lone, 1), "prod",
                                       include_self=include_self), dim, idx)
        return where(lone, others, gather(a, dim, idx) / s.masked_fill(zero, 1))
    _, s_hit, n = _extreme_hits(a, xx, s, dim, idx, include_self)
    return s_hit / gather(n, dim, idx)


def _ones_like(x):
    return ones(x.shape, dtype=x.dtype, device=x.device)


def _vjp_input(g, ans, x, src, dim, index, reduce, include_self):
    d = _d_input(ans, x, src, dim, index, reduce, include_self)
    return g if d is None else g * d.reshape(x.shape)


def _vjp_src(g, ans, x, src, dim, index, reduce, include_self):
    d = _d_src(ans, x, src, dim, index, reduce, include_self)
    gs = gather(_as_nd(g), dim, _as_nd(index))
    gs = gs if d is None else gs * d
    return _pad_to(gs, _as_nd(src)._shape).reshape(src.shape)


def _jvp_input(t, ans, x, src, dim, index, reduce, include_self):
    d = _d_input(ans, x, src, dim, index, reduce, include_self)
    return t if d is None else t * d.reshape(x.shape)


def _jvp_src(t, ans, x, src, dim, index, reduce, include_self):
    d = _d_src(ans, x, src, dim, index, reduce, include_self)
    idx = _as_nd(index)
    ts = _narrow_to(_as_nd(t), idx._shape)
    ts = ts if d is None else ts * d
    return scatter_add(_zeros(_as_nd(ans).shape, t), dim, idx, ts).reshape(ans.shape)


_scatter_reduce_op = primitive("scatter_reduce", 2, vjp=(_vjp_input, _vjp_src), jvp=(_jvp_input, _jvp_src))


@op_event("aten::scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """scatter_reduce(input, dim, index, src, reduce, *, include_self=True) -> Tensor

    A copy of ``input`` where each element ``src[i][j]`` is reduced into ``out[index[i][j]][j]``
    (for ``dim == 0``) with ``reduce``: 'sum', 'prod', 'mean', 'amax' or 'amin'. With
    ``include_self=False`` the elements of ``input`` that receive a value are left out of their
    reduction. Integer means round down; amax and amin propagate NaN."""
    result = _copy(input)
    _scatter_reduce_raw(result, dim, index, src, reduce, include_self)
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    result = _record(_scatter_reduce_op, (input, src), result,
                     {"dim": d, "index": index, "reduce": reduce, "include_self": include_self})
    return write_out(result, out, "scatter_reduce")


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """In-place version of :func:`scatter_reduce`."""
    # The derivatives read the input's old values, which the write into it would overwrite.
    return _in_place(lambda s: _scatter_reduce_raw(s, dim, index, src, reduce, include_self),
                     lambda s: scatter_reduce(s.clone(), dim, index, src, reduce, include_self=include_self),
                     input, (), (src,), index=index)


# ----------------------------------------------------------------------------------- index_reduce

def _index_as_scatter(input, dim, index, source, reduce):
    """Validate an index_reduce; the dim and ``index`` spread over ``source``'s shape."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    idx = _check_vector_index(index, "index_reduce_")
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"index_reduce\" not implemented for 'Bool'")
    x, src = _as_nd(input), _as_nd(source)
    d = shapes.normalize_dim(dim, x.ndim)
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({torch_type_name(input.dtype)}) and source "
                           f"({torch_type_name(source.dtype)}) must have the same scalar type")
    if source.ndim != input.ndim or any(src._shape[k] != x._shape[k] for k in range(x.ndim) if k != d):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {_fmt(input.shape)} source.shape = {_fmt(source.shape)}")
    if src._shape[d] != idx._shape[0]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx._shape[0]}) should be equal to "
                           f"source.size(dim): ({src._shape[d]}), for dim: {d}")
    _check_range(idx, d, x._shape[d], IndexError)
    return d, idx.reshape([-1 if k == d else 1 for k in range(x.ndim)]).expand(src._shape)


@op_event("aten::index_reduce")
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None) -> Tensor

    A copy of ``input`` where slice ``i`` of ``source`` along ``dim`` is reduced into slice
    ``index[i]`` with ``reduce``: 'prod', 'mean', 'amax' or 'amin' (see :func:`scatter_reduce`)."""
    d, idx = _index_as_scatter(input, dim, index, source, reduce)
    result = scatter_reduce(_plain(input), d, idx, _plain(source), reduce, include_self=include_self)
    result = _record(_index_reduce_op, (input, source), result,
                     {"dim": d, "index": idx, "reduce": reduce, "include_self": include_self})
    return write_out(result, out, "index_reduce")


# scatter_reduce's rules under PyTorch's name for this op (IndexReduceBackward0).
_index_reduce_op = primitive("index_reduce", 2, vjp=(_vjp_input, _vjp_src), jvp=(_jvp_input, _jvp_src))


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place version of :func:`index_reduce`."""
    check_no_overlap(input, (index, source))
    d, idx = _index_as_scatter(input, dim, index, source, reduce)
    return scatter_reduce_(input, d, idx, source, reduce, include_self=include_self)


TENSOR_METHODS = {"scatter_reduce_": scatter_reduce_, "index_reduce_": index_reduce_}
