"""Advanced indexing: ``x[idx]`` and ``x[idx] = v`` with integer tensors, lists and boolean masks,
mixed with basic indices; plus index_put, nonzero/argwhere and the masked ops built on them.

Basic indices (ints, slices, None, Ellipsis) are applied first as views, as PyTorch does; the
remaining tensor indices are validated and folded into one int64 tensor of element offsets,
through which a single gather (read) or scatter (write) kernel runs.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, shapes
from ..tensor import Tensor
from ..autograd import tape
from ..autograd.inplace import check_inplace
from ..autograd.tape import plain as _plain, record_result as _record
from . import basic_indexing, slice_views, views
from .host_fallback import on_host, on_host_inplace
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import arange, tensor, zeros
from ..backends.cpu import index
from .movement import stack
from .gather import check_no_overlap
from .functional_elementwise import where
from .inplace_forms import inplace_apply
from ..autograd.profiler import op_event

__all__ = ["index_put", "nonzero", "argwhere", "masked_select", "masked_fill", "masked_scatter",
           "count_nonzero"]



def _kernels():
    return index


def _fmt(shape):
    return f"[{', '.join(map(str, shape))}]"


# ----------------------------------------------------------------------------------- parsing

def _to_index_tensor(item, device):
    """Lists, tuples and NumPy arrays used as indices become tensors (bool if all bools)."""
    if isinstance(item, np.ndarray):
        return Tensor._from_numpy_array(np.array(item))
    data = list(item)
    flat = list(_flatten(data))
    if flat and all(isinstance(v, (bool, np.bool_)) for v in flat):
        return tensor(data, dtype=dtypes.bool, device=device)
    if any(hasattr(v, "_storage") for v in flat):
        return stack([v if hasattr(v, "_storage") else tensor(v) for v in data])
    return tensor(data, dtype=dtypes.int64, device=device)


def _flatten(seq):
    for v in seq:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v


def _parse(x, index, scalar_tensors_select=True):
    """Apply the basic part of ``index`` to ``x``: returns (view, [(dim, index tensor)]) where
    each dim is a dim of the view and each index an integer tensor (masks become nonzero()).

    In ``x[...]`` a 0-d integer tensor selects, as an int does (PyTorch's rule: it changes
    where the advanced dims go); index_put keeps it an advanced index."""
    items = list(index) if isinstance(index, tuple) else [index]
    items = [_to_index_tensor(i, x.device) if isinstance(i, (list, np.ndarray)) else i for i in items]
    consumed = 0
    for i in items:
        if isinstance(i, Tensor):
            consumed += i.ndim if i.dtype in (dtypes.bool, dtypes.uint8) else 1
        elif i is not None and i is not Ellipsis and not isinstance(i, bool):
            consumed += 1
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    v = x
    dim = 0
    adv = []
    for pos, i in enumerate(items):
        if i is Ellipsis:
            dim += x.ndim - consumed
        elif isinstance(i, bool):
            # A Python bool is a 0-d mask: a new dim of size 1 (True) or 0 (False).
            v = views.unsqueeze(v, dim)
            adv.append((dim, _arange_index(1 if i else 0, x.device)))
            dim += 1
        elif isinstance(i, Tensor):
            if i.dtype in (dtypes.bool, dtypes.uint8):
                _check_mask(v, dim, i)
                if i.ndim == 0:
                    v = views.unsqueeze(v, dim)
                    adv.append((dim, _arange_index(1 if i.item() else 0, x.device)))
                    dim += 1
                    continue
                coords = _kernels().nonzero_coords(i)
                for k in range(i.ndim):
                    adv.append((dim + k, Tensor._from_numpy_array(np.ascontiguousarray(coords[:, k]))))
                dim += i.ndim
            elif i.dtype.is_floating_point or i.ndim and i.dtype not in (dtypes.int64, dtypes.int32):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            elif i.ndim == 0 and scalar_tensors_select:
                # A 0-d integer tensor of any width is an int, as it is for PyTorch.
                v = _select(v, dim, int(i.item()), pos)
            else:
                adv.append((dim, i))
                dim += 1
        elif i is None:
            v = views.unsqueeze(v, dim)
            dim += 1
        elif isinstance(i, slice):
            v = basic_indexing.basic_index(v, (slice(None),) * dim + (i,))
            dim += 1
        else:
            v = _select(v, dim, basic_indexing.as_int(i), pos)
    return v, adv


def _select(v, dim, k, pos):
    """``v.select(dim, k)``, refused with PyTorch's message, which names the position ``pos``
    of the int in the index."""
    size = v._shape[dim]
    if not -size <= k < size:
        raise IndexError(f"index {k} is out of bounds for dimension {pos} with size {size}")
    return slice_views.select(v, dim, k)


def _arange_index(n, device):
    return arange(n, device=device)


def _check_mask(v, dim, mask):
    for k, s in enumerate(mask._shape):
        if dim + k >= v.ndim or v._shape[dim + k] != s:
            raise IndexError(
                f"The shape of the mask {_fmt(mask._shape)} at index {k} does not match the shape of the "
                f"indexed tensor {_fmt(v._shape)} at index {dim + k}")


# ----------------------------------------------------------------------------------- planning

def _plan(v, adv):
    """Validate the advanced indices of view ``v`` and fold them into element offsets.

    Returns ``(out_shape, src_strides, offsets, off_strides)``: the result's shape, ``v``'s
    strides over it (0 on the indexed dims), the int64 offsets tensor and its strides over it.
    """
    idx_shapes = [t._shape for _, t in adv]
    try:
        bshape = shapes.broadcast_shapes(*idx_shapes)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_fmt(s) for s in idx_shapes)) from None
    dims = [d for d, _ in adv]
    if 0 not in bshape and any(v._shape[d] == 0 for d in dims):
        # No index is valid for an empty dim (PyTorch's check, before any kernel).
        raise IndexError("index is out of bounds for dimension with size 0")
    rest = [d for d in range(v.ndim) if d not in dims]
    offsets = zeros(bshape, dtype=dtypes.int64, device=v.device)
    for d, t in adv:
        size = v._shape[d]
        bad = _kernels().accumulate_offsets(offsets, t, shapes.broadcast_strides(t._shape, t._strides, bshape),
                                            size, v._strides[d])
        if bad is not None:
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    nb = len(bshape)
    if dims == list(range(dims[0], dims[0] + len(dims))):
        first = dims[0]
        before = [d for d in rest if d < first]
        after = [d for d in rest if d > first]
    else:
        before, after = [], rest
    out_shape = tuple(v._shape[d] for d in before) + tuple(bshape) + tuple(v._shape[d] for d in after)
    src_strides = tuple(v._strides[d] for d in before) + (0,) * nb + tuple(v._strides[d] for d in after)
    off_strides = (0,) * len(before) + offsets._strides + (0,) * len(after)
    return out_shape, src_strides, offsets, off_strides


# ----------------------------------------------------------------------------------- read

_index_op = primitive(
    "index", 1,
    vjp=(lambda g, ans, x, adv: _index_put_adv(_zeros(x.shape, g), adv, g, True),),
    jvp=(lambda t, ans, x, adv: _index_adv(t, adv),))


def _zeros(shape, g):
    return zeros(shape, dtype=g.dtype, device=g.device)


def _index_adv(v, adv):
    """Gather from view ``v`` at the advanced indices ``adv`` (already-validated dims)."""
    out_shape, src_strides, offsets, off_strides = _plan(v, adv)
    result = Tensor._empty(out_shape, v.dtype, v.device)
    _kernels().run_gather(result, result._strides, offsets, off_strides, v, src_strides, 1)
    inputs = (v,)
    if tape.should_record(inputs) or tape.has_tangents(inputs):
        params = {"adv": adv}
        if tape.should_record(inputs):
            tape.record(_index_op, inputs, result, params)
        if tape.has_tangents(inputs):
            tape.forward_jvp(_index_op, inputs, result, params)
    return result


def _select_by_mask(x, mask):
    """``x[mask]`` for a bool ``mask`` over ``x``'s leading dims, outside autograd: the kept
    blocks copied in one pass (no coordinates, no offsets, no gather)."""
    _check_mask(x, 0, mask)
    rest = x._shape[mask.ndim:]
    src = x.contiguous()._np_view().reshape(mask.numel(), shapes.prod(rest))
    kept = index.compress_rows(src, mask.contiguous()._np_view().reshape(-1))
    return Tensor._from_numpy_array(kept.reshape((kept.shape[0],) + rest))


def _selects_by_mask(x, index) -> bool:
    """Whether ``x[index]`` is a CPU bool mask over leading dims that nothing records."""
    return (index.__class__ is Tensor and index.dtype is dtypes.bool and index.ndim > 0
            and x._storage.device.type == "cpu" and index._storage.device.type == "cpu"
            and not tape.should_record((x,)) and not tape.has_tangents((x,)))


@on_host
def getitem(x, index):
    """``x[index]`` for indices with tensors, lists or masks: a copy."""
    if _selects_by_mask(x, index):
        return _select_by_mask(x, index)
    v, adv = _parse(x, index)
    if not adv:
        return v
    return _index_adv(v, adv)


# ----------------------------------------------------------------------------------- write

_index_put_op = primitive(
    "index_put", 2,
    vjp=(lambda g, ans, x, values, adv, accumulate: g if accumulate else _index_put_adv(g, adv, 0, False),
         lambda g, ans, x, values, adv, accumulate: _index_adv(g, adv)),
    jvp=(lambda t, ans, x, values, adv, accumulate: t if accumulate else _index_put_adv(t, adv, 0, False),
         lambda t, ans, x, values, adv, accumulate: _index_put_adv(_zeros(ans.shape, t), adv, t, accumulate)))


def _value_shape(values, out_shape):
    """The shape of tensor ``values`` less its leading 1s beyond ``out_shape``'s dims, checked to
    broadcast to the indexed shape ``out_shape``, as PyTorch's index_put checks it."""
    vshape = values._shape
    while len(vshape) > len(out_shape) and vshape[0] == 1:
        vshape = vshape[1:]
    try:
        if shapes.broadcast_shapes(vshape, out_shape) != tuple(out_shape):
            raise RuntimeError
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_fmt(values._shape)} cannot be broadcast "
                           f"to indexing result of shape {_fmt(out_shape)}") from None
    return vshape


def _put_raw(v, adv, values, accumulate, convert=True):
    """Write ``values`` (a tensor or a number, broadcast to the indexed shape) into view ``v``;
    a tensor of another dtype is converted, or refused without ``convert``."""
    out_shape, dst_strides, offsets, off_strides = _plan(v, adv)
    if isinstance(values, Tensor):
        vals = values if values.dtype is v.dtype else values.to(v.dtype)
        vshape = _value_shape(values, out_shape)
        if not convert:
            _check_same_dtype(v, values)
        vals = vals.reshape(vshape) if vshape != vals._shape else vals
        val_strides = shapes.broadcast_strides(vals._shape, vals._strides, out_shape)
    else:
        vals = tensor([values], dtype=v.dtype, device=v.device)
        val_strides = (0,) * len(out_shape)
    if vals._storage is v._storage:
        vals = vals.clone()
    _kernels().run_scatter(v, out_shape, dst_strides, offsets, off_strides, vals, val_strides, 1,
                           1 if accumulate else 0)


def _index_put_adv(v, adv, values, accumulate, convert=True):
    """Out of place: a copy of ``v`` with ``values`` written at the advanced indices."""
    out = Tensor._empty(v._shape, v.dtype, v.device)
    out._write(v)
    _put_raw(out, adv, values, accumulate, convert)
    is_t = hasattr(values, "_storage")
    inputs = (v, values) if is_t else (v,)
    if tape.should_record(inputs) or tape.has_tangents(inputs):
        op = _index_put_op if is_t else _index_put_value_op
        params = {"adv": adv, "accumulate": accumulate}
        if tape.should_record(inputs):
            tape.record(op, inputs, out, params)
        if tape.has_tangents(inputs):
            tape.forward_jvp(op, inputs, out, params)
    return out


_index_put_value_op = primitive(
    "index_put_value", 1, backward_name="IndexPutBackward0",
    vjp=(lambda g, ans, x, adv, accumulate: g if accumulate else _index_put_adv(g, adv, 0, False),),
    jvp=(lambda t, ans, x, adv, accumulate: t if accumulate else _index_put_adv(t, adv, 0, False),))


def _write(v, adv, values, accumulate, convert=True):
    """In place into view ``v``: raw when nothing is differentiated, else the differentiable
    out-of-place op written back with its history."""
    inputs = (v, values) if hasattr(values, "_storage") else (v,)
    check_inplace(v, inputs)
    if tape.should_record(inputs) or tape.has_tangents(inputs):
        result = _index_put_adv(v, adv, values, accumulate, convert)
        if shapes.has_internal_overlap(v._shape, v._strides):
            # Copying all of ``result`` back would also write the untouched elements that
            # share memory with written ones: only the indexed elements are written.
            _put_raw(v, adv, _plain(values) if hasattr(values, "_storage") else values, accumulate)
        else:
            v._write(result)
        tape.rebase(v, result)
        return
    _put_raw(v, adv, values, accumulate, convert)
    v._bump_version()


def _write_by_mask(x, mask, value):
    """``x[mask] = value`` for a bool ``mask`` over ``x``'s leading dims and a number or a tensor
    of ``x``'s dtype, outside autograd, in ``x``'s memory without coordinates or offsets: a number
    into a contiguous ``x`` by a select per element, the rest by NumPy's masked assignment."""
    _check_mask(x, 0, mask)
    check_inplace(x, (x,))
    if isinstance(value, Tensor):
        keep = mask._np_view()
        count = int(np.count_nonzero(keep))
        vshape = _value_shape(value, (count,) + x._shape[mask.ndim:])
        x._np_view()[keep] = value._np_view().reshape(vshape)
    else:
        fill = tensor([value], dtype=x.dtype)._np_view()  # converted (and refused) as index_put does
        if x.is_contiguous() and mask.is_contiguous():
            rows = x._np_view().reshape(mask.numel(), shapes.prod(x._shape[mask.ndim:]))
            index.fill_rows(rows, mask._np_view().reshape(-1), fill)
        else:
            x._np_view()[mask._np_view()] = fill[0]
    x._bump_version()


def _writes_by_mask(x, index, value) -> bool:
    """Whether ``x[index] = value`` can take :func:`_write_by_mask`: a mask read would (see
    :func:`_selects_by_mask`), ``x`` has no overlapping elements, and ``value`` is a number or a
    CPU tensor of ``x``'s dtype, in memory of its own, that nothing records."""
    if not _selects_by_mask(x, index) or shapes.has_internal_overlap(x._shape, x._strides):
        return False
    if value.__class__ in (bool, int, float):
        return True
    return (value.__class__ is Tensor and value.dtype is x.dtype and value._storage is not x._storage
            and value._storage.device.type == "cpu" and not tape.should_record((value,))
            and not tape.has_tangents((value,)))


@on_host_inplace
def setitem(x, index, value):
    """``x[index] = value`` for indices with tensors, lists or masks (repeated indices: the last
    write wins, as PyTorch's CPU kernels do)."""
    if _writes_by_mask(x, index, value):
        _write_by_mask(x, index, value)
        return
    v, adv = _parse(x, index)
    if not adv:
        basic_indexing.write_view(x, v, value)
        return
    indices = index if isinstance(index, tuple) else (index,)
    _check_no_overlap(v, indices, value)
    # A tensor value converts only when 0-d and written through boolean masks (PyTorch's
    # masked_fill); otherwise, as in index_put_, its dtype must be the target's.
    convert = not hasattr(value, "_storage") or (value.ndim == 0 and _masks_only(indices))
    _write(v, adv, value, False, convert)


def _masks_only(indices) -> bool:
    """True when every tensor or list among ``indices`` is a boolean mask."""
    advanced = [i for i in indices if hasattr(i, "_storage") or isinstance(i, list)]
    return all(i.dtype is dtypes.bool if hasattr(i, "_storage") else
               all(isinstance(b, bool) for b in i) for i in advanced)


def _check_same_dtype(input, values):
    if values.dtype is not input.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{torch_type_name(input.dtype)} for the destination and "
                           f"{torch_type_name(values.dtype)} for the source.")


def _check_no_overlap(v, indices, values):
    check_no_overlap(v, tuple(i for i in indices if hasattr(i, "_storage")) + (values,))


@on_host
def index_put(input, indices, values, accumulate=False):
    """index_put(input, indices, values, accumulate=False) -> Tensor: a copy of ``input`` with
    ``input[indices] = values`` (or ``+=`` with ``accumulate``, where repeated indices add)."""
    _check_put_args(input, indices, values)
    v, adv = _parse(input, tuple(indices), scalar_tensors_select=False)
    return _index_put_adv(v, adv, values, accumulate)


def _check_put_args(input, indices, values):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for k, i in enumerate(indices):
        # Unlike ``x[...]``, index_put takes tensors only (None is no full slice here).
        if not hasattr(i, "_storage"):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(i).__name__}")
    # Unlike ``x[mask] = v`` with a 0-d ``v``, index_put converts nothing.
    if hasattr(values, "_storage"):
        _check_same_dtype(input, values)


@on_host_inplace
def index_put_(input, indices, values, accumulate=False):
    """In-place version of :func:`index_put`."""
    _check_put_args(input, indices, values)
    v, adv = _parse(input, tuple(indices), scalar_tensors_select=False)
    _check_no_overlap(v, indices, values)
    _write(v, adv, values, accumulate)
    return input


# ----------------------------------------------------------------------------------- nonzero

@on_host
def nonzero(input, *, as_tuple=False):
    """nonzero(input, *, as_tuple=False) -> Tensor

    The indices of the nonzero elements: an (n, ndim) int64 tensor, or with ``as_tuple`` one
    1-D tensor per dim (a 0-d input counts as 1-d)."""
    coords = _kernels().nonzero_coords(input)
    if as_tuple:
        if input.ndim == 0:
            return (Tensor._from_numpy_array(np.zeros(coords.shape[0], dtype=np.int64)),)
        return tuple(Tensor._from_numpy_array(np.ascontiguousarray(coords[:, k])) for k in range(input.ndim))
    return Tensor._from_numpy_array(coords)


@on_host
def argwhere(input):
    """argwhere(input) -> Tensor: the same as ``nonzero(input)``."""
    return nonzero(input)


@on_host
def count_nonzero(input, dim=None):
    """count_nonzero(input, dim=None) -> Tensor: the number of nonzero elements (over ``dim``)."""
    return (input != 0).sum(dim)


# ----------------------------------------------------------------------------------- masked ops

def _check_bool_mask(mask, opname):
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"{opname} only supports boolean masks, but got mask with dtype "
                           f"{torch_type_name(mask.dtype).lower()}")


def _masked_select_vjp(g, ans, x, mask):
    shape = shapes.broadcast_shapes(x.shape, mask.shape)
    return masked_scatter(zeros(shape, dtype=g.dtype, device=g.device), mask, g)


_masked_select = primitive("masked_select", 2, backward_name="MaskedSelectBackward0",
                           vjp=(_masked_select_vjp, None),
                           jvp=(lambda t, ans, x, mask: masked_select(t, mask), None))


@on_host
@op_event("aten::masked_select")
def masked_select(input, mask):
    """masked_select(input, mask) -> Tensor: the 1-D tensor of ``input``'s elements where the
    (broadcast) ``mask`` is True."""
    _check_bool_mask(mask, "masked_select:")
    shape = shapes.broadcast_shapes(input._shape, mask._shape)
    out = _select_by_mask(_plain(input).expand(shape), mask.expand(shape)) if shape else \
        getitem(_plain(input).expand(shape), mask.expand(shape))
    return _record(_masked_select, (input, mask), out, None)


def _where_masked(mask, g):
    return where(mask, g, 0)


# The value's cotangent is the sum of the filled positions' (the engine reduces the broadcast).
_masked_fill = primitive(
    "masked_fill", 3, backward_name="MaskedFillBackward0",
    vjp=(lambda g, ans, x, mask, value: masked_fill(g, mask, 0), None,
         lambda g, ans, x, mask, value: _where_masked(mask, g)),
    jvp=(lambda t, ans, x, mask, value: masked_fill(t, mask, 0), None,
         lambda t, ans, x, mask, value: _where_masked(mask, t)),
    variants={"tts": "MaskedFillBackward0", "ttt": "MaskedFillBackward1"})


@on_host
@op_event("aten::masked_fill")
def masked_fill(input, mask, value):
    """masked_fill(input, mask, value) -> Tensor: ``input`` with ``value`` where ``mask`` is True."""
    _check_bool_mask(mask, "masked_fill_")
    if hasattr(value, "_storage"):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        fill = _plain(value).to(input.dtype)
    else:
        fill = tensor(value, dtype=input.dtype, device=input.device)
    out = where(mask, fill, _plain(input))
    if tuple(out.shape) != tuple(input.shape):
        raise RuntimeError(f"output with shape {_fmt(input._shape)} doesn't match the broadcast shape "
                           f"{_fmt(out._shape)}")
    if hasattr(value, "_storage") and value.dtype is not input.dtype and value._requires_grad:
        value = value.to(input.dtype)
    return _record(_masked_fill, (input, mask, value if hasattr(value, "_storage") else 0.0), out, None)


@on_host_inplace
def masked_fill_(input, mask, value):
    """In-place version of :func:`masked_fill`."""
    return inplace_apply(input, masked_fill, (mask, value), {})


@on_host
def masked_scatter(input, mask, source):
    """masked_scatter(input, mask, source) -> Tensor: ``input`` with the positions where ``mask``
    is True filled, in order, from the elements of ``source``."""
    _check_bool_mask(mask, "masked_scatter_")
    if source.dtype is not input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got "
                           f"{torch_type_name(input.dtype)} and {torch_type_name(source.dtype)}")
    shape = shapes.broadcast_shapes(input._shape, mask._shape)
    m = mask.expand(shape)
    n = int(m.sum().item())
    if n > source.numel():
        raise RuntimeError(f"masked_scatter: expected source to have at least {n} elements, got {source.numel()}")
    return index_put(input.expand(shape), (m,), source.reshape(-1)[:n])


@on_host_inplace
def masked_scatter_(input, mask, source):
    """In-place version of :func:`masked_scatter`."""
    shapes.check_no_internal_overlap(input._shape, input._strides)
    return inplace_apply(input, masked_scatter, (mask, source), {})




TENSOR_METHODS = {"index_put_": index_put_, "masked_fill_": masked_fill_, "masked_scatter_": masked_scatter_}
