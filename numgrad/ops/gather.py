"""Index-driven data movement along one dim: gather/scatter, index_select/add/copy/fill, take/put.

Each op validates its indices (dtype, range, shapes) before its kernel runs, and declares its
VJP and JVP rules, written in these same ops, next to it.
"""
from __future__ import annotations

from .. import dtypes, shapes
from ..tensor import Tensor
from ..autograd import tape
from ..autograd.inplace import check_inplace
from ..autograd.tape import record_result as _record
from .registry import write_out as _write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import tensor, zeros
from .movement import cat
from ..autograd.profiler import op_event

__all__ = ["gather", "scatter", "scatter_add", "index_select", "index_add", "index_copy", "index_fill", "take",
           "put", "take_along_dim"]

_INT_INDEX = (dtypes.int64, dtypes.int32)


def _kernels(t=None):
    """The index kernels of ``t``'s device (the CPU's without ``t``)."""
    if t is not None and t.device.type == "cuda":
        from ..backends.cuda import index
        return index
    from ..backends.cpu import index
    return index



def _copy(x):
    """A contiguous copy of ``x`` with no history, to be written into in place."""
    out = Tensor._empty(x._shape, x.dtype, x.device)
    out._write(x)
    return out


def _zeros(shape, like):
    return zeros(shape, dtype=like.dtype, device=like.device)


def check_no_overlap(self, reads) -> None:
    """Refuse to write into ``self`` while reading an index or a source that shares its memory,
    as PyTorch does for its index-driven writes."""
    for t in reads:
        if getattr(t, "_storage", None) is self._storage:
            shapes.check_no_partial_overlap(self, t, full=True)


def _in_place(raw, out_of_place, self, args, others=(), may_overlap=False, index=None):
    """Run an in-place op: directly when nothing is differentiated, else through the
    differentiable out-of-place op written back into ``self``. Only fills (``may_overlap``)
    accept a ``self`` whose elements share memory, as in PyTorch. Nor may ``index`` or the
    tensors in ``others`` share memory with ``self``."""
    from .inplace_forms import inplace_apply
    if not may_overlap:
        shapes.check_no_internal_overlap(self._shape, self._strides)
    check_no_overlap(self, (index,) + others)
    if tape.should_record((self,) + others) or tape.has_tangents((self,) + others):
        check_inplace(self, others)
        return inplace_apply(self, out_of_place, args, {})
    check_inplace(self)
    raw(self, *args)
    self._bump_version()
    return self


def _check_index(index, opname, allowed=_INT_INDEX, exc=RuntimeError):
    if not hasattr(index, "_storage"):
        raise TypeError(f"{opname}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in allowed:
        names = " or ".join(d.name for d in allowed)
        raise exc(f"{opname}(): Expected dtype {names} for index, but got {index.dtype.name}")


def _check_range(index, dim, size, exc=RuntimeError, lo=0):
    bad = _kernels(index).first_out_of_range(index, lo, size)
    if bad is not None:
        raise exc(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _fmt(shape):
    return f"[{', '.join(map(str, shape))}]"


def _as_nd(x):
    """0-d tensors act as 1-element vectors in dim-wise index ops."""
    return x.reshape(1) if x.ndim == 0 else x


def _dim_strides(x, dim):
    """x's strides with ``dim`` zeroed (the kernel adds index * stride there) and that stride."""
    st = list(x._strides)
    ds = st[dim]
    st[dim] = 0
    return tuple(st), ds


# ----------------------------------------------------------------------------------- gather

_gather_op = primitive(
    "gather", 1,
    vjp=(lambda g, ans, x, dim, index: scatter_add(_zeros(x.shape, g), dim, index, g),),
    jvp=(lambda t, ans, x, dim, index: gather(t, dim, index),))


def _check_gather_shapes(x, dim, index, opname):
    if index.ndim != x.ndim:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {'input' if opname == 'gather' else 'self'} tensor")
    for d in range(x.ndim):
        if d != dim and index._shape[d] > x._shape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {_fmt(index._shape)} to be no larger "
                f"than {'self' if opname != 'gather' else 'input'} {_fmt(x._shape)} apart from dimension {dim}")


@op_event("aten::gather")
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """gather(input, dim, index) -> Tensor

    ``out[i][j][k] = input[index[i][j][k]][j][k]`` for ``dim == 0`` (and likewise for other dims);
    the result has ``index``'s shape."""
    _check_index(index, "gather")
    x, idx = _as_nd(input), _as_nd(index)
    d = shapes.normalize_dim(dim, x.ndim)
    _check_gather_shapes(x, d, idx, "gather")
    if idx.numel():
        _check_range(idx, d, x._shape[d])
    result = Tensor._empty(index._shape, input.dtype, input.device)
    src_strides, ds = _dim_strides(x, d)
    r = result.reshape(idx._shape)
    _kernels(r).run_gather(r, r._strides, idx, idx._strides, x, src_strides, ds)
    return _write_out(_record(_gather_op, (input,), result, {"dim": d, "index": index}), out, "gather")



def take_along_dim(input, indices, dim=None):
    """take_along_dim(input, indices, dim=None) -> Tensor: gather with broadcasting of the other
    dims (on the flattened input when ``dim`` is None)."""
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{torch_type_name(indices.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = shapes.normalize_dim(dim, input.ndim)
    shp_x = list(input.shape)
    shp_i = list(indices.shape)
    shp_x[d] = shp_i[d] = 1
    b = shapes.broadcast_shapes(tuple(shp_x), tuple(shp_i))
    xs, is_ = list(b), list(b)
    xs[d], is_[d] = input.shape[d], indices.shape[d]
    return gather(input.expand(xs), d, indices.expand(is_))


# ----------------------------------------------------------------------------------- scatter

def _pad_to(g, shape):
    """``g`` zero-padded at the end of each dim up to ``shape``: the cotangent of a ``src``
    larger than its index, whose elements past the index are never read."""
    for k, n in enumerate(shape):
        if g._shape[k] != n:
            pad = list(g._shape)
            pad[k] = n - g._shape[k]
            g = cat([g, _zeros(tuple(pad), g)], k)
    return g


_scatter_op = primitive(
    "scatter", 2,
    vjp=(lambda g, ans, x, src, dim, index: scatter(g, dim, index, 0),
         lambda g, ans, x, src, dim, index: _pad_to(gather(g, dim, index), src.shape)),
    jvp=(lambda t, ans, x, src, dim, index: scatter(t, dim, index, 0),
         lambda t, ans, x, src, dim, index: scatter(_zeros(ans.shape, t), dim, index, t)),
    backward_name="ScatterBackward0")
_scatter_value_op = primitive(
    "scatter_value", 1,
    vjp=(lambda g, ans, x, dim, index: scatter(g, dim, index, 0),),
    jvp=(lambda t, ans, x, dim, index: scatter(t, dim, index, 0),),
    backward_name="ScatterBackward1")
_scatter_add_op = primitive(
    "scatter_add", 2,
    vjp=(lambda g, ans, x, src, dim, index: g,
         lambda g, ans, x, src, dim, index: _pad_to(gather(g, dim, index), src.shape)),
    jvp=(lambda t, ans, x, src, dim, index: t,
         lambda t, ans, x, src, dim, index: scatter_add(_zeros(ans.shape, t), dim, index, t)))

_REDUCE_MODE = {None: 0, "add": 1, "sum": 1, "multiply": 2, "prod": 2}


def _scatter_raw(self, dim, index, src, mode, opname="scatter"):
    """Validate, then scatter ``src`` (a tensor or a number) into ``self`` in place."""
    args = _scatter_args(self, dim, index, src, opname)
    if args is not None:
        _kernels(args[0]).run_scatter(*args, mode)


def _scatter_args(self, dim, index, src, opname):
    """Validate a scatter of ``src`` into ``self``: the kernel's arguments but its mode, or None
    when there is nothing to scatter."""
    _check_index(index, opname)
    x, idx = _as_nd(self), _as_nd(index)
    d = shapes.normalize_dim(dim, x.ndim)
    if idx.numel() == 0:
        return None
    _check_gather_shapes(x, d, idx, opname)
    if isinstance(src, Tensor):
        if src.dtype is not self.dtype:
            raise RuntimeError(f"{opname}(): Expected self.dtype to be equal to src.dtype")
        s = _as_nd(src)
        if s.ndim != idx.ndim or any(i > n for i, n in zip(idx._shape, s._shape)):
            raise RuntimeError(
                f"Expected index {_fmt(idx._shape)} to be no larger than self {_fmt(x._shape)} apart from "
                f"dimension {d} and to be no larger size than src {_fmt(s._shape)}")
        src_strides = s._strides
    else:
        s = tensor([src], dtype=self.dtype, device=self.device)
        src_strides = (0,) * idx.ndim
    _check_range(idx, d, x._shape[d])
    out_strides, ds = _dim_strides(x, d)
    return x, idx._shape, out_strides, idx, idx._strides, s, src_strides, ds


def _reduce_mode(reduce):
    if reduce not in _REDUCE_MODE:
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    return _REDUCE_MODE[reduce]


@op_event("aten::scatter")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """scatter(input, dim, index, src) -> Tensor

    A copy of ``input`` with ``src`` (a tensor, or a number) written at ``index`` along ``dim``:
    ``out[index[i][j]][j] = src[i][j]`` for ``dim == 0``. ``reduce='add'`` or ``'multiply'``
    combines instead of assigning."""
    if src is None:
        src = value
    mode = _reduce_mode(reduce)
    is_tensor = isinstance(src, Tensor)
    inputs = (input, src) if is_tensor else (input,)
    if mode and (tape.should_record(inputs) or tape.has_tangents(inputs)):
        raise RuntimeError("the derivative for 'scatter' with the reduce argument is not implemented")
    out = _copy(input)
    _scatter_raw(out, dim, index, src, mode)
    if mode:
        return out
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    return _record(_scatter_op if is_tensor else _scatter_value_op, inputs, out, {"dim": d, "index": index})


def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    """In-place version of :func:`scatter`."""
    if src is None:
        src = value
    others = (src,) if isinstance(src, Tensor) else ()
    return _in_place(lambda s: _scatter_raw(s, dim, index, src, _reduce_mode(reduce)),
                     lambda s: scatter(s, dim, index, src, reduce=reduce), input, (), others, index=index)


@op_event("aten::scatter_add")
def scatter_add(input, dim, index, src):
    """scatter_add(input, dim, index, src) -> Tensor: a copy of ``input`` with ``src`` summed in
    at ``index`` along ``dim`` (repeated indices accumulate)."""
    out = _copy(input)
    _scatter_raw(out, dim, index, src, 1, "scatter_add")
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    return _record(_scatter_add_op, (input, src), out, {"dim": d, "index": index})


def scatter_add_(input, dim, index, src):
    """In-place version of :func:`scatter_add`."""
    return _in_place(lambda s: _scatter_raw(s, dim, index, src, 1, "scatter_add"),
                     lambda s: scatter_add(s, dim, index, src), input, (), (src,), index=index)


# ----------------------------------------------------------------------------------- index_*

_index_select_op = primitive(
    "index_select", 1,
    vjp=(lambda g, ans, x, dim, index: index_add(_zeros(x.shape, g), dim, index, g),),
    jvp=(lambda t, ans, x, dim, index: index_select(t, dim, index),))
_index_add_op = primitive(
    "index_add", 2,
    vjp=(lambda g, ans, x, src, dim, index, alpha: g,
         lambda g, ans, x, src, dim, index, alpha: _scale(index_select(g, dim, index), alpha).reshape(src.shape)),
    jvp=(lambda t, ans, x, src, dim, index, alpha: t,
         lambda t, ans, x, src, dim, index, alpha: index_add(_zeros(ans.shape, t), dim, index, t, alpha=alpha)))
_index_copy_op = primitive(
    "index_copy", 2,
    vjp=(lambda g, ans, x, src, dim, index: index_fill(g, dim, index, 0),
         lambda g, ans, x, src, dim, index: index_select(g, dim, index).reshape(src.shape)),
    jvp=(lambda t, ans, x, src, dim, index: index_fill(t, dim, index, 0),
         lambda t, ans, x, src, dim, index: index_copy(_zeros(ans.shape, t), dim, index, t)))
_index_fill_op = primitive(
    "index_fill", 1,
    vjp=(lambda g, ans, x, dim, index: index_fill(g, dim, index, 0),),
    jvp=(lambda t, ans, x, dim, index: index_fill(t, dim, index, 0),))


def _scale(x, alpha):
    return x if alpha == 1 else x * alpha


def _check_vector_index(index, opname, exc=IndexError):
    _check_index(index, opname, exc=RuntimeError)
    if index.ndim > 1:
        raise exc(f"{opname}(): Index is supposed to be a vector")
    return index if index.ndim == 1 else index.reshape(-1)


@op_event("aten::index_select")
def index_select(input, dim, index, *, out=None):
    """index_select(input, dim, index) -> Tensor: the slices of ``input`` along ``dim`` listed by
    the 1-D ``index`` (a copy)."""
    idx = _check_vector_index(index, "index_select")
    x = _as_nd(input)
    d = shapes.normalize_dim(dim, x.ndim)
    size = x._shape[d]
    if size == 0 and idx.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    _check_range(idx, d, size, IndexError)
    shape = list(x._shape)
    shape[d] = idx._shape[0]
    result = Tensor._empty(tuple(shape) if input.ndim else (), input.dtype, input.device)
    r = result if input.ndim else result.reshape(shape)
    src_strides, ds = _dim_strides(x, d)
    idx_strides = tuple(idx._strides[0] if k == d else 0 for k in range(x.ndim))
    _kernels(r).run_gather(r, r._strides, idx, idx_strides, x, src_strides, ds)
    result = _record(_index_select_op, (input,), result, {"dim": d, "index": index})
    return _write_out(result, out, "index_select")


def _index_put_along(self, dim, index, source, mode, opname):
    """Write ``source``'s slices along ``dim`` into ``self`` at ``index`` (mode as scatter's)."""
    _check_index_along(index, opname)
    idx = _check_vector_index(index, opname)
    x = _as_nd(self)
    d = shapes.normalize_dim(dim, x.ndim)
    n = idx._shape[0]
    if isinstance(source, Tensor):
        if source.dtype is not self.dtype:
            raise RuntimeError(
                f"{opname}(): self ({torch_type_name(self.dtype)}) and source "
                f"({torch_type_name(source.dtype)}) must have the same scalar type")
        src = _as_nd(source)
        if src.ndim != x.ndim and not (src.numel() == n and n <= 1):
            raise IndexError(f"{opname}(): Source/destination tensor must have same slice shapes. "
                             f"Destination slice shape: {_fmt(x._shape[:d] + x._shape[d + 1:])} at dimension "
                             f"{d} and source slice shape: {_fmt(src._shape)} at dimension 0.")
        src = src.reshape([n if k == d else x._shape[k] for k in range(x.ndim)]) if src.ndim != x.ndim else src
        if src._shape[d] != n:
            if opname == "index_copy_":
                raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                                 f"({src._shape[d]})")
            raise RuntimeError(f"{opname}(): Number of indices ({n}) should be equal to source.size(dim): "
                               f"({src._shape[d]}), for dim: {d}")
        for k in range(x.ndim):
            if k != d and src._shape[k] != x._shape[k]:
                raise RuntimeError(f"{opname}(): Source/destination tensor must have same slice shapes. "
                                   f"Destination slice shape: {_fmt(x._shape)} and source shape: "
                                   f"{_fmt(src._shape)} differ at dimension {k}")
        src_strides = src._strides
        shape = src._shape
    else:
        src = tensor([source], dtype=self.dtype, device=self.device)
        shape = tuple(n if k == d else x._shape[k] for k in range(x.ndim))
        src_strides = (0,) * x.ndim
    size = x._shape[d]
    if opname == "index_fill_":
        # index_fill alone counts negative indices from the end.
        _check_range(idx, d, size, IndexError, lo=-size)
        if n:
            idx = idx.remainder(size)
    elif opname == "index_add_":
        _check_index_add_range(x, idx, d, size)
    else:
        _check_range(idx, d, size, IndexError)
    out_strides, ds = _dim_strides(x, d)
    idx_strides = tuple(idx._strides[0] if k == d else 0 for k in range(x.ndim))
    _kernels(x).run_scatter(x, shape, out_strides, idx, idx_strides, src, src_strides, ds, mode)


def _check_index_add_range(x, idx, d, size):
    """index_add_'s index check, as PyTorch's CPU kernel words it: along the outer or the
    innermost dim of a tensor of two or more dims it adds through index_put_ (RuntimeError naming
    the index), skipped entirely when the tensor is empty; elsewhere it adds slice by slice
    (IndexError)."""
    if x.ndim > 1:
        if x.numel() == 0:
            return
        if d in (0, x.ndim - 1):
            _check_range(idx, d, size, RuntimeError)
            return
    if _kernels(idx).first_out_of_range(idx, 0, size) is not None:
        raise IndexError("index out of range in self")


def _check_index_along(index, opname):
    """PyTorch's own index checks of index_fill_ and index_copy_ (index_add_ takes the shared ones)."""
    if not hasattr(index, "_storage") or opname == "index_add_":
        return
    if opname == "index_fill_":
        if index.dtype is not dtypes.int64:
            raise IndexError("index_fill_(): Expected dtype int64 for index.")
        if index.ndim > 1:
            raise RuntimeError("Index has to be a vector/scalar")
    elif opname == "index_copy_":
        if index.dtype is not dtypes.int64:
            raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                               f"{torch_type_name(index.dtype)}")
        if index.ndim > 1:
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")


@op_event("aten::index_add")
def index_add(input, dim, index, source, *, alpha=1):
    """index_add(input, dim, index, source, *, alpha=1) -> Tensor: a copy of ``input`` with
    ``alpha * source[i]`` added to slice ``index[i]`` along ``dim``."""
    out = _copy(input)
    _index_put_along(out, dim, index, _scale(source, alpha) if alpha != 1 else source, 1, "index_add_")
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    return _record(_index_add_op, (input, source), out, {"dim": d, "index": index, "alpha": alpha})


def index_add_(input, dim, index, source, *, alpha=1):
    """In-place version of :func:`index_add`."""
    src = _scale(source, alpha) if alpha != 1 else source
    return _in_place(lambda s: _index_put_along(s, dim, index, src, 1, "index_add_"),
                     lambda s: index_add(s, dim, index, source, alpha=alpha), input, (), (source,),
                     index=index)


@op_event("aten::index_copy")
def index_copy(input, dim, index, source):
    """index_copy(input, dim, index, source) -> Tensor: a copy of ``input`` whose slice
    ``index[i]`` along ``dim`` is ``source``'s slice ``i``."""
    out = _copy(input)
    _index_put_along(out, dim, index, source, 0, "index_copy_")
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    return _record(_index_copy_op, (input, source), out, {"dim": d, "index": index})


def index_copy_(input, dim, index, source):
    """In-place version of :func:`index_copy`."""
    return _in_place(lambda s: _index_put_along(s, dim, index, source, 0, "index_copy_"),
                     lambda s: index_copy(s, dim, index, source), input, (), (source,), index=index)


@op_event("aten::index_fill")
def index_fill(input, dim, index, value):
    """index_fill(input, dim, index, value) -> Tensor: a copy of ``input`` with the slices
    ``index`` along ``dim`` set to ``value``."""
    if hasattr(value, "_storage"):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        value = value.item()
    out = _copy(input)
    _index_put_along(out, dim, index, value, 0, "index_fill_")
    d = shapes.normalize_dim(dim, _as_nd(input).ndim)
    return _record(_index_fill_op, (input,), out, {"dim": d, "index": index})


def index_fill_(input, dim, index, value):
    """In-place version of :func:`index_fill`."""
    v = value.item() if hasattr(value, "_storage") and value.ndim == 0 else value
    return _in_place(lambda s: _index_put_along(s, dim, index, v, 0, "index_fill_"),
                     lambda s: index_fill(s, dim, index, value), input, (), may_overlap=True, index=index)


# ----------------------------------------------------------------------------------- take / put

_take_op = primitive(
    "take", 1,
    vjp=(lambda g, ans, x, index: put(_zeros(x.shape, g), index, g, accumulate=True),),
    jvp=(lambda t, ans, x, index: take(t, index),))
_put_op = primitive(
    "put", 2,
    vjp=(lambda g, ans, x, src, index, accumulate: g if accumulate else put(g, index, _zeros(src.shape, g)),
         lambda g, ans, x, src, index, accumulate: take(g, index).reshape(src.shape)),
    jvp=(lambda t, ans, x, src, index, accumulate: t if accumulate else put(t, index, _zeros(src.shape, t)),
         lambda t, ans, x, src, index, accumulate: put(_zeros(ans.shape, t), index, t, accumulate=accumulate)))


def _flat_index(index, numel, opname):
    """``index`` as wrapped contiguous int64, validated against ``numel`` elements."""
    if hasattr(index, "_storage") and index.dtype is not dtypes.int64:
        raise RuntimeError(f"{opname}(): Expected a long tensor for index, but got {torch_type_name(index.dtype)}")
    _check_index(index, opname, (dtypes.int64,))
    bad = _kernels(index).first_out_of_range(index, -numel, numel)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {numel} elements.")
    from .functional_elementwise import remainder
    return remainder(index, numel) if numel else index.contiguous()


@op_event("aten::take")
def take(input, index):
    """take(input, index) -> Tensor: elements of ``input`` seen as 1-D, at ``index`` (negative
    indices count from the end); the result has ``index``'s shape."""
    n = input.numel()
    idx = _flat_index(index, n, "take")
    x = input.contiguous().reshape(-1)
    result = Tensor._empty(index._shape, input.dtype, input.device)
    r = result.reshape(-1)
    i = idx.reshape(-1)
    _kernels(r).run_gather(r, r._strides, i, i._strides, x, (0,), x._strides[0] if x.ndim else 1)
    return _record(_take_op, (input,), result, {"index": idx})


def _put_raw(self, index, source, accumulate):
    n = self.numel()
    idx = _flat_index(index, n, "put_")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {torch_type_name(self.dtype)} and source.dtype = "
                           f"{torch_type_name(source.dtype)}")
    if source.numel() != idx.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {idx.numel()}")
    target = self if self.is_contiguous() else _copy(self)
    flat = target.reshape(-1)
    i = idx.reshape(-1)
    s = source.reshape(-1)
    _kernels(flat).run_scatter(flat, i._shape, (0,), i, i._strides, s, s._strides, 1, 1 if accumulate else 0)
    if target is not self:
        self._write(target)


@op_event("aten::put")
def put(input, index, source, accumulate=False):
    """put(input, index, source, accumulate=False) -> Tensor: a copy of ``input`` (seen as 1-D)
    with ``source`` written (or added) at ``index``."""
    out = _copy(input)
    _put_raw(out, index, source, accumulate)
    idx = _flat_index(index, input.numel(), "put_")
    return _record(_put_op, (input, source), out, {"index": idx, "accumulate": accumulate})


def put_(input, index, source, accumulate=False):
    """In-place version of :func:`put`."""
    return _in_place(lambda s: _put_raw(s, index, source, accumulate),
                     lambda s: put(s, index, source, accumulate), input, (), (source,), index=index)


TENSOR_METHODS = {"scatter_": scatter_, "scatter_add_": scatter_add_, "index_add_": index_add_,
                  "index_copy_": index_copy_, "index_fill_": index_fill_, "put_": put_}
