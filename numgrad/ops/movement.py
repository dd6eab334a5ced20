"""Data movement that copies: cat/stack, repeat/tile, flip/roll, triangles and diagonals.

Forwards are composed from views, ``cat`` and ``where``; the public ops are primitives with
their rules next to them, so each records one node named as PyTorch names it.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .. import dtypes, shapes
from ..tensor import Tensor
from ..autograd.tape import plain as _plain, record_result as _record
from ..backends.cpu.memory import host_buffer
from .host_fallback import on_host
from .registry import can_cast, check_devices, write_out as _out
from ..dtypes import torch_type_name
from .records import Op, primitive
from .slice_views import diagonal_backward as _diagonal_backward
from ..creation import arange, zeros, zeros_like
from ..backends.cpu import index as K
from .functional_elementwise import where
from .inplace_forms import inplace_apply
from ..autograd.profiler import op_event

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
           "atleast_1d", "atleast_2d", "atleast_3d", "tile", "repeat_interleave", "flip",
           "fliplr", "flipud", "roll", "tril", "triu", "diag", "diag_embed", "diagflat"]



def _fmt(shape):
    return f"[{', '.join(map(str, shape))}]"


# ----------------------------------------------------------------------------------- cat

def _cat_vjp(i):
    return lambda g, ans, *xs, dim, starts, sizes: g.narrow(dim, starts[i], sizes[i])


def _cat_jvp(i):
    def rule(t, ans, *xs, dim, starts, sizes):
        # This input's tangent in its slot, zeros in the others' slots.
        n = ans.shape[dim]
        parts = [_zeros_along(t, dim, starts[i]), t, _zeros_along(t, dim, n - starts[i] - t.shape[dim])]
        return cat([p for p in parts if p.shape[dim]], dim)
    return rule


def _zeros_along(t, dim, n):
    shape = list(t.shape)
    shape[dim] = n
    return zeros(shape, dtype=t.dtype, device=t.device)


def _stack_vjp(i):
    return lambda g, ans, *xs, dim: g.select(dim, i)


def _stack_jvp(i):
    def rule(t, ans, *xs, dim):
        zero = zeros_like(t)
        return stack([t if j == i else zero for j in range(len(xs))], dim)
    return rule


# One declaration each; an arity-specific copy of it per number of inputs, with a rule per input.
_cat_op = primitive("cat", 1, vjp=(_cat_vjp(0),), jvp=(_cat_jvp(0),))
_stack_op = primitive("stack", 1, vjp=(_stack_vjp(0),), jvp=(_stack_jvp(0),))
_arity_ops: dict = {}
_RULES = {"cat": (_cat_vjp, _cat_jvp), "stack": (_stack_vjp, _stack_jvp)}


def _op_for(op: Op, n: int) -> Op:
    key = (op.name, n)
    copy = _arity_ops.get(key)
    if copy is None:
        vjp, jvp = _RULES[op.name]
        copy = _arity_ops[key] = dataclasses.replace(op, nin=n, vjp=tuple(vjp(i) for i in range(n)),
                                                     jvp=tuple(jvp(i) for i in range(n)))
    return copy


@op_event("aten::cat")
def cat(tensors, dim=0, *, out=None):
    """cat(tensors, dim=0) -> Tensor: concatenates tensors of equal shape except in ``dim``.

    1-D empty tensors are skipped, as in PyTorch. The result dtype is the promoted dtype."""
    if hasattr(tensors, "_storage"):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for k, t in enumerate(tensors):
        if not hasattr(t, "_storage"):
            raise TypeError(f"expected Tensor as element {k} in argument 0, but got {type(t).__name__}")
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {k}) cannot be concatenated")
    rt = tensors[0].dtype
    for t in tensors[1:]:
        rt = dtypes.promote_types(rt, t.dtype)
    if out is not None and not can_cast(rt, out.dtype):
        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{torch_type_name(out.dtype)}")
    used = [t for t in tensors if not (t.ndim == 1 and t._shape[0] == 0)] or tensors[:1]
    ref = used[0]
    d = shapes.normalize_dim(dim, ref.ndim)
    for k, t in enumerate(tensors):
        if not any(t is u for u in used):
            continue
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}")
        for j in range(ref.ndim):
            if j != d and t._shape[j] != ref._shape[j]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref._shape[j]} but got "
                    f"size {t._shape[j]} for tensor number {k} in the list (shapes {_fmt(ref._shape)} and "
                    f"{_fmt(t._shape)}).")
    device = check_devices(used)
    shape = list(ref._shape)
    shape[d] = sum(t._shape[d] for t in used)
    result = Tensor._empty(tuple(shape), rt, device)
    starts, pos = [], 0
    for t in used:
        starts.append(pos)
        if t.numel():
            st = list(result._strides)
            sub = result._view(t._shape, st, result._offset + pos * result._strides[d])
            sub._write(t)
        pos += t._shape[d]
    _record(_op_for(_cat_op, len(used)), tuple(used), result, {"dim": d, "starts": tuple(starts),
                                                   "sizes": tuple(t._shape[d] for t in used)})
    return _out(result, out, "cat")


concat = concatenate = cat


@op_event("aten::stack")
def stack(tensors, dim=0, *, out=None):
    """stack(tensors, dim=0) -> Tensor: joins equal-shaped tensors along a new dim."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    for k, t in enumerate(tensors[1:], 1):
        if t._shape != first._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_fmt(first._shape)} at "
                               f"entry 0 and {_fmt(t._shape)} at entry {k}")
    d = shapes.normalize_dim(dim, first.ndim + 1)
    result = cat([_plain(t).unsqueeze(d) for t in tensors], d)
    _record(_op_for(_stack_op, len(tensors)), tuple(tensors), result, {"dim": d})
    return _out(result, out, "stack")


def atleast_1d(*tensors):
    """Views of the inputs with at least one dim."""
    r = [t.reshape(1) if t.ndim == 0 else t for t in _unpack(tensors)]
    return r[0] if len(r) == 1 else tuple(r)


def atleast_2d(*tensors):
    """Views of the inputs with at least two dims (new dims in front)."""
    r = [t.reshape((1,) * (2 - t.ndim) + tuple(t.shape)) if t.ndim < 2 else t for t in _unpack(tensors)]
    return r[0] if len(r) == 1 else tuple(r)


def atleast_3d(*tensors):
    """Views of the inputs with at least three dims (a vector becomes 1 x n x 1, as in NumPy)."""
    def up(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        if t.ndim == 2:
            return t.unsqueeze(-1)
        return t
    r = [up(t) for t in _unpack(tensors)]
    return r[0] if len(r) == 1 else tuple(r)


def _unpack(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def _check_nonempty(tensors, name):
    if not len(tensors):
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def hstack(tensors, *, out=None):
    """Concatenates along dim 1 (dim 0 for 1-D tensors)."""
    _check_nonempty(tensors, "hstack")
    ts = [atleast_1d(t) for t in tensors]
    return cat(ts, 0 if all(t.ndim == 1 for t in ts) else 1, out=out)


def vstack(tensors, *, out=None):
    """Concatenates along dim 0 after making every input at least 2-D."""
    _check_nonempty(tensors, "vstack")
    return cat([atleast_2d(t) for t in tensors], 0, out=out)


def dstack(tensors, *, out=None):
    """Concatenates along dim 2 after making every input at least 3-D."""
    _check_nonempty(tensors, "dstack")
    return cat([atleast_3d(t) for t in tensors], 2, out=out)


def column_stack(tensors, *, out=None):
    """Stacks 1-D tensors as columns (other tensors are concatenated along dim 1)."""
    _check_nonempty(tensors, "column_stack")
    return hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors], out=out)


# ----------------------------------------------------------------------------------- repeats

def _repeat_vjp(g, ans, x, sizes):
    # Each output element reads one input element: sum the copies, which sit along the even dims
    # of the (repeat, size) pairs.
    shape = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    pairs = []
    for r, s in zip(sizes, shape):
        pairs += [r, s]
    return g.reshape(pairs).sum(tuple(range(0, len(pairs), 2))).reshape(x.shape)


_repeat_op = primitive("repeat", 1, vjp=(_repeat_vjp,), jvp=(lambda t, ans, x, sizes: repeat(t, *sizes),))


def repeat(input, *sizes):
    """Tensor.repeat(*sizes): tiles the tensor ``sizes[i]`` times along each dim (leading
    extra sizes add dims). A broadcast view reshaped into a copy."""
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    sizes = shapes.parse_size(sizes, "repeats")
    nd = input.ndim
    if len(sizes) < nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                           "of tensor")
    shape = (1,) * (len(sizes) - nd) + tuple(input.shape)
    interleaved = []
    for s in shape:
        interleaved += [1, s]
    expanded = []
    for r, s in zip(sizes, shape):
        expanded += [r, s]
    x = _plain(input).reshape(interleaved).expand(expanded)
    if not x.numel():
        out = _empty_like_shape(input, [r * s for r, s in zip(sizes, shape)])
    else:
        out = x.reshape([r * s for r, s in zip(sizes, shape)])
        if out._storage is input._storage:
            # The reshape may merge dims into a view of the input (zero strides included); repeat copies.
            out = out.clone()
    return _record(_repeat_op, (input,), out, {"sizes": tuple(sizes)})


def _empty_like_shape(input, shape):
    return zeros(shape, dtype=input.dtype, device=input.device)


def tile(input, *dims):
    """tile(input, dims) -> Tensor: ``repeat`` with missing leading dims counted as 1; dims may
    also be given one by one, as ``Tensor.tile(2, 3)``."""
    dims = shapes.parse_size(dims, "tile") if dims else ()
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, *dims)


@on_host
@op_event("aten::repeat_interleave")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """repeat_interleave(input, repeats, dim=None) -> Tensor

    Repeats each element (each slice along ``dim``; of the flattened input when ``dim`` is None)
    ``repeats`` times, or ``repeats[i]`` times for a tensor of counts. With only a tensor of
    counts, returns the indices ``0, 0, 1, ...`` such a repeat would read."""
    if repeats is None:
        return _repeat_indices(input)
    if dim is None:
        input = input.reshape(-1)
        dim = 0
    d = shapes.normalize_dim(dim, input.ndim)
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.ndim <= 1:
        repeats = int(repeats.item())
    if not isinstance(repeats, Tensor):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        x = input.unsqueeze(d + 1)
        shape = list(x.shape)
        shape[d + 1] = repeats
        x = x.expand(shape)
        out_shape = list(input.shape)
        out_shape[d] *= repeats
        # An empty result still has a history (and a storage of its own), as PyTorch's does.
        return x.reshape(out_shape) if x.numel() else x.clone().reshape(out_shape)
    if repeats.ndim != 1 or repeats._shape[0] != input._shape[d]:
        raise RuntimeError("repeats must have the same size as input along dim")
    return input.index_select(d, _repeat_indices(repeats))


def _repeat_indices(repeats):
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("repeats has to be Long or Int tensor")
    counts = np.ascontiguousarray(repeats.detach()._np_view(), dtype=np.int64)
    if K.first_out_of_range(repeats, 0, np.iinfo(np.int64).max) is not None:
        raise RuntimeError("repeats can not be negative")
    total = int(repeats.sum().item()) if repeats.numel() else 0
    out = host_buffer(np.empty, total, np.int64)
    K.repeat_index(counts, out)
    return Tensor._from_numpy_array(out)


# ----------------------------------------------------------------------------------- flip / roll

_flip_op = primitive("flip", 1, vjp=(lambda g, ans, x, dims: flip(g, dims),),
                     jvp=(lambda t, ans, x, dims: flip(t, dims),))


@op_event("aten::flip")
def flip(input, dims):
    """flip(input, dims) -> Tensor: a copy with the order of elements reversed along ``dims``."""
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    nd = input.ndim
    norm = tuple(shapes.normalize_dim(d, nd) for d in dims)
    if len(set(norm)) != len(norm):
        raise RuntimeError(f"dim {norm[0]} appears multiple times in the list of dims")
    strides = list(input._strides)
    offset = input._offset
    for d in norm:
        # A 0-d tensor takes dim 0 (or -1), as in PyTorch: there is nothing to reverse.
        if nd and input._shape[d] > 1:
            offset += (input._shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
    # A negative-stride alias that only the copy kernel ever sees.
    src = input._view(input._shape, tuple(strides), offset)
    result = Tensor._empty(input._shape, input.dtype, input.device)
    if result.numel():
        result._write(src)
    return _record(_flip_op, (input,), result, {"dims": norm})


def fliplr(input):
    """Flips a tensor of at least 2 dims left/right (dim 1)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    """Flips a tensor of at least 1 dim up/down (dim 0)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


_roll_op = primitive("roll", 1, vjp=(lambda g, ans, x, shifts, dims: roll(g, [-s for s in shifts], dims),),
                     jvp=(lambda t, ans, x, shifts, dims: roll(t, shifts, dims),))


@op_event("aten::roll")
def roll(input, shifts, dims=None):
    """roll(input, shifts, dims=None) -> Tensor: elements shifted cyclically along ``dims`` (of
    the flattened tensor when ``dims`` is None)."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        out = _roll(_plain(input).reshape(-1), shifts, (0,)).reshape(input.shape)
    else:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
        if not input.ndim:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        out = _roll(_plain(input), shifts, dims)
    return _record(_roll_op, (input,), out, {"shifts": shifts, "dims": dims})


def _roll(input, shifts, dims):
    x = input
    for s, d in zip(shifts, dims):
        d = shapes.normalize_dim(d, x.ndim)
        n = x._shape[d]
        k = s % n if n else 0
        if k:
            x = cat([x.narrow(d, n - k, k), x.narrow(d, 0, n - k)], d)
    return x if x is not input else input.clone()


# ----------------------------------------------------------------------------------- triangles

def _triangle(input, diagonal, lower, name):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    n, m = input.shape[-2], input.shape[-1]
    offset = arange(m, device=input.device) - arange(n, device=input.device).unsqueeze(-1)
    keep = offset <= diagonal if lower else offset >= diagonal
    x = _plain(input)
    out = where(keep, x, zeros((), dtype=input.dtype, device=input.device))
    return _record(_tril_op if lower else _triu_op, (input,), out, {"diagonal": diagonal})


# Both are linear: the cotangent and the tangent keep the same triangle.
_tril_op = primitive("tril", 1, vjp=(lambda g, ans, x, diagonal: tril(g, diagonal),),
                     jvp=(lambda t, ans, x, diagonal: tril(t, diagonal),))
_triu_op = primitive("triu", 1, vjp=(lambda g, ans, x, diagonal: triu(g, diagonal),),
                     jvp=(lambda t, ans, x, diagonal: triu(t, diagonal),))


@op_event("aten::tril")
def tril(input, diagonal=0, *, out=None):
    """tril(input, diagonal=0) -> Tensor: the lower triangle of the last two dims (elements on
    and below the ``diagonal``-th diagonal), the rest zero."""
    return _out(_triangle(input, diagonal, True, "tril"), out, "tril")


@op_event("aten::triu")
def triu(input, diagonal=0, *, out=None):
    """triu(input, diagonal=0) -> Tensor: the upper triangle of the last two dims, the rest zero."""
    return _out(_triangle(input, diagonal, False, "triu"), out, "triu")



def tril_(input, diagonal=0):
    """In-place version of :func:`tril`."""
    return inplace_apply(input, tril, (diagonal,), {})


def triu_(input, diagonal=0):
    """In-place version of :func:`triu`."""
    return inplace_apply(input, triu, (diagonal,), {})


# ----------------------------------------------------------------------------------- diagonals

_diag_embed_op = primitive(
    "diag_embed", 1,
    vjp=(lambda g, ans, x, offset, dim1, dim2: g.diagonal(offset, dim1, dim2),),
    jvp=(lambda t, ans, x, offset, dim1, dim2: diag_embed(t, offset, dim1, dim2),))


@op_event("aten::diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor: tensors whose diagonals (over
    the new dims ``dim1``, ``dim2``) are the last dim of ``input``, zeros elsewhere."""
    nd = input.ndim + 1
    d1 = shapes.normalize_dim(dim1, nd)
    d2 = shapes.normalize_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (input.shape[-1] if input.ndim else 1) + abs(offset)
    rest = iter(input.shape[:-1])
    shape = [n if k in (d1, d2) else next(rest) for k in range(nd)]
    result = zeros(shape, dtype=input.dtype, device=input.device)
    _raw_diagonal(result, offset, d1, d2)._write(input)
    return _record(_diag_embed_op, (input,), result, {"offset": offset, "dim1": d1, "dim2": d2})


def _raw_diagonal(x, offset, d1, d2):
    """The diagonal of ``x`` as a plain view (no tape entry): the destination of a raw write."""
    n1, n2 = x._shape[d1], x._shape[d2]
    base = x._offset
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        base += offset * x._strides[d2] if length else 0
    else:
        length = max(0, min(n1 + offset, n2))
        base -= offset * x._strides[d1] if length else 0
    keep = [k for k in range(x.ndim) if k not in (d1, d2)]
    return x._view(tuple(x._shape[k] for k in keep) + (length,),
                   tuple(x._strides[k] for k in keep) + (x._strides[d1] + x._strides[d2],), base)


def diag(input, diagonal=0, *, out=None):
    """diag(input, diagonal=0) -> Tensor: a 1-D input becomes a square matrix with it on the
    ``diagonal``-th diagonal; a 2-D input gives its ``diagonal``-th diagonal (a copy)."""
    if input.ndim == 1:
        return _out(diag_embed(input, diagonal, 0, 1), out, "diag")
    if input.ndim == 2:
        r = _plain(input).diagonal(diagonal).clone()
        return _out(_record(_diagonal_copy_op, (input,), r, {"offset": diagonal, "dim1": 0, "dim2": 1}), out, "diag")
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


# A copied diagonal: PyTorch names its node after diagonal_copy, the op diag of a matrix runs.
_diagonal_copy_op = primitive(
    "diagonal_copy", 1, backward_name="DiagonalBackward0_copy", vjp=(_diagonal_backward,),
    jvp=(lambda t, ans, x, offset, dim1, dim2: t.diagonal(offset, dim1, dim2).clone(),))


def diagflat(input, offset=0):
    """diagflat(input, offset=0) -> Tensor: the flattened input on a diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


def _flip_method(input, *dims, **kwargs):
    """Tensor.flip(*dims): the dims as one sequence or one by one, as ``x.flip(0, 1)``."""
    if kwargs or not dims:
        if not kwargs:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        return flip(input, *dims, **kwargs)
    return flip(input, dims[0] if len(dims) == 1 else dims)


_flip_method.__name__ = _flip_method.__qualname__ = "flip"

TENSOR_METHODS = {"repeat": repeat, "tril_": tril_, "triu_": triu_}


