"""Views that pick part of their input by index: select, narrow (slices), diagonal, unfold
(sliding windows), as_strided (explicit geometry) and the alias ``x[...]`` returns, each with its
VJP (an embedding or scatter of the cotangent) and JVP rules."""
from __future__ import annotations

from .. import shapes
from .records import primitive
from .view_tracking import inplace_view, make_view
from ..creation import arange, zeros

__all__ = ["narrow", "select", "diagonal", "as_strided", "as_strided_"]


_strided_op = primitive("as_strided", 1, kind="view",
                        vjp=(lambda g, ans, x, size, stride, offset: _as_strided_backward(g, x, size, stride, offset),),
                        jvp=(lambda t, ans, x, size, stride, offset: as_strided(t.contiguous(), size, stride, offset - x._offset),))


def _as_strided_backward(g, x, size, stride, offset):
    """Scatter-add the cotangent into a zero buffer shaped like x's storage span, then view it as x."""
    span = x._storage.data.shape[0]
    buf = zeros(span, dtype=g.dtype, device=g.device)
    if shapes.may_overlap(size, stride):
        # elements sharing memory each add their cotangent there
        _index_add_strided(buf, g, size, stride, offset)
    else:
        buf.as_strided(size, stride, offset).add_(g)
    return buf.as_strided(x.shape, x.stride(), x._offset)


def _index_add_strided(buf, g, size, stride, offset):
    idx = arange(buf.numel()).as_strided(size, stride, offset).reshape(-1)
    buf.index_add_(0, idx, g.reshape(-1))


def as_strided(input, size, stride, storage_offset=None):
    """A view with explicit size, strides and storage offset (in elements). Use with care."""
    size = tuple(size)
    stride = tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    offset = input._offset if storage_offset is None else storage_offset
    if any(s < 0 for s in size) or any(st < 0 for st in stride) or offset < 0:
        raise RuntimeError("as_strided: Negative sizes, strides or storage offsets are not supported")
    if shapes.prod(size) > 0:
        last = offset + sum((s - 1) * st for s, st in zip(size, stride))
        if last >= input._storage.data.shape[0]:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
                f"{input.dtype.itemsize} requiring a storage size of {(last + 1) * input.dtype.itemsize} are out "
                f"of bounds for storage of size {input._storage.data.shape[0] * input.dtype.itemsize}")
    return make_view(input, _strided_op, size, stride, offset,
                     params={"size": size, "stride": stride, "offset": offset})


_select_op = primitive("select", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, index: _embed(g, x, dim, index, None),),
                       jvp=(lambda t, ans, x, dim, index: t.select(dim, index),),
                       batched_jvp=(lambda t, ans, x, dim, index: t.select(dim + 1, index),))
_narrow_op = primitive("slice", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, start, length, step: _embed(g, x, dim, start, (length, step)),),
                       jvp=(lambda t, ans, x, dim, start, length, step: slice_view(t, dim, start, length, step),),
                       batched_jvp=(lambda t, ans, x, dim, start, length, step:
                                    slice_view(t, dim + 1, start, length, step),))


def _embed(g, x, dim, start, span):
    """The cotangent of x given that of one slice of it: zeros elsewhere."""
    out = zeros(x.shape, dtype=g.dtype, device=g.device)
    if span is None:
        out.select(dim, start).copy_(g)
    else:
        slice_view(out, dim, start, span[0], span[1]).copy_(g)
    return out


_alias_op = primitive("alias", 1, kind="view", vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,))


def alias(x):
    """A new tensor object viewing all of ``x`` (what ``x[...]`` returns)."""
    return make_view(x, _alias_op, x._shape, x._strides)


def slice_view(x, dim, start, length, step=1):
    """Elements ``start``, ``start + step``, ... (``length`` of them) of dim ``dim`` of ``x`` (a view);
    the arguments are trusted, as after :func:`narrow`'s or ``x[...]``'s checks."""
    shape = list(x._shape)
    strides = list(x._strides)
    offset = x._offset + start * strides[dim]
    shape[dim] = length
    strides[dim] *= step
    return make_view(x, _narrow_op, shape, strides, offset,
                     params={"dim": dim, "start": start, "length": length, "step": step})


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dim removed (a view)."""
    nd = input.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = shapes.normalize_dim(dim, nd)
    size = input._shape[d]
    index = shapes._as_index(index, "index")
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"[{', '.join(map(str, input._shape))}] at dimension {d}")
    index %= size
    shape = input._shape[:d] + input._shape[d + 1:]
    strides = input._strides[:d] + input._strides[d + 1:]
    return make_view(input, _select_op, shape, strides, input._offset + index * input._strides[d],
                     params={"dim": d, "index": index})


def narrow(input, dim, start, length):
    """Elements ``start`` .. ``start + length`` of dim ``dim`` (a view)."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = shapes.normalize_dim(dim, input.ndim)
    size = input._shape[d]
    start = shapes._as_index(start, "start")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start %= max(size, 1) if start < 0 else size + 1
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_view(input, d, start, length)


def diagonal_backward(g, ans, x, offset, dim1, dim2):
    """diagonal's VJP (also diag's, whose diagonal is a copy): the cotangent on the diagonal,
    zeros elsewhere. Only x's shape is read, as PyTorch's."""
    out = zeros(x.shape, dtype=g.dtype, device=g.device)
    diagonal(out, offset, dim1, dim2).copy_(g)
    return out


_diagonal_op = primitive("diagonal", 1, kind="view", vjp=(diagonal_backward,),
                         jvp=(lambda t, ans, x, offset, dim1, dim2: diagonal(t, offset, dim1, dim2),),
                         batched_jvp=(lambda t, ans, x, offset, dim1, dim2: diagonal(t, offset, dim1 + 1, dim2 + 1),))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the diagonal over dims ``dim1``, ``dim2`` (appended as the last dim)."""
    nd = input.ndim
    d1 = shapes.normalize_dim(dim1, nd)
    d2 = shapes.normalize_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = input._shape[d1], input._shape[d2]
    s1, s2 = input._strides[d1], input._strides[d2]
    base = input._offset
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        if length:
            base += offset * s2
    else:
        length = max(0, min(n1 + offset, n2))
        if length:
            base -= offset * s1
    keep = [i for i in range(nd) if i not in (d1, d2)]
    shape = tuple(input._shape[i] for i in keep) + (length,)
    strides = tuple(input._strides[i] for i in keep) + (s1 + s2,)
    return make_view(input, _diagonal_op, shape, strides, base,
                     params={"offset": offset, "dim1": d1, "dim2": d2})


_unfold_op = primitive("unfold", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, size, step: _unfold_backward(g, x, dim, size, step),),
                       jvp=(lambda t, ans, x, dim, size, step: unfold(t, dim, size, step),),
                       backward_name="UnfoldBackward0")


def _unfold_backward(g, x, dim, size, step):
    # Windows may overlap: each window element's cotangent is added at its position along dim.
    out = zeros(x.shape, dtype=g.dtype, device=g.device)
    if x.ndim == 0:
        return out + g.sum()
    positions = unfold(arange(x._shape[dim], device=g.device), 0, size, step).reshape(-1)
    windows = g.movedim(-1, dim + 1).flatten(dim, dim + 1)
    return out.index_add(dim, positions, windows)


def unfold(input, dimension, size, step):
    """Tensor.unfold(dimension, size, step) -> Tensor: a view of every slice of length ``size``
    along ``dimension``, starting ``step`` apart; the windows become a new last dim."""
    nd = input.ndim
    d = shapes.normalize_dim(dimension, max(nd, 1))
    n = input._shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    stride = input._strides[d] if nd else 1
    shape = list(input._shape)
    strides = list(input._strides)
    if nd:
        shape[d] = (n - size) // step + 1
        strides[d] = stride * step
    return make_view(input, _unfold_op, tuple(shape) + (size,), tuple(strides) + (stride,),
                     params={"dim": d, "size": size, "step": step})


def as_strided_(input, size, stride, storage_offset=None):
    """In-place :func:`as_strided`: gives ``input`` the size, strides and storage offset."""
    return inplace_view(input, as_strided, size, stride, storage_offset)
