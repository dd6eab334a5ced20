"""Views that reshape or reorder their input's dims over the same storage, never a copy: view,
reshape, expand, permute, transpose, t, unsqueeze, squeeze, flatten, unflatten, movedim, and the
in-place forms that rewrite a tensor's own shape. Each records its own tape entry; its VJP is the
inverse view (or sum) of the cotangent.
"""
from __future__ import annotations

from ..memo import Memo
from .. import dtypes, shapes
from ..autograd import tape
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor
from ..dtypes import torch_type_name
from .records import primitive
from .slice_views import alias
from .view_tracking import inplace_view, make_view
from .reductions import sum_to
from ..autograd.profiler import op_event

__all__ = ["view", "reshape", "expand", "expand_as", "unsqueeze", "squeeze", "permute", "transpose",
           "t", "flatten", "movedim", "swapaxes", "swapdims", "unflatten", "view_as", "reshape_as", "squeeze_",
           "unsqueeze_", "transpose_", "t_", "swapdims_", "swapaxes_", "moveaxis"]


# The batched_jvp rules take tangents with a leading batch dim (vectorized forward mode).
_view_op = primitive("view", 1, kind="view",
                     vjp=(lambda g, ans, x, shape: g.reshape(x.shape),),
                     jvp=(lambda t, ans, x, shape: t.reshape(shape),),
                     batched_jvp=(lambda t, ans, x, shape: t.reshape((t.shape[0],) + tuple(shape)),))


def view(input, *shape):
    """Returns a tensor with the same data and a new shape; one dim may be -1.

    Raises RuntimeError if the strides do not allow it: use ``reshape`` then."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return _view_dtype(input, shape[0])
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    size = shapes.infer_size(_parse_with_neg(shape), input.numel())
    strides = shapes.view_strides(input._shape, input._strides, size)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return make_view(input, _view_op, size, strides, params={"shape": size})


def _view_dtype(input, dtype):
    """The same bytes read as ``dtype``; with another element size the last dim scales."""
    old, new = input.dtype.itemsize, dtype.itemsize
    shape, strides, offset = list(input._shape), list(input._strides), input._offset
    if old != new:
        what = f"to view {torch_type_name(input.dtype)} as {torch_type_name(dtype)} (different element sizes)"
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if new > old:
            r = new // old
            if shape[-1] % r:
                raise RuntimeError(f"self.size(-1) must be divisible by {r} {what}, but got {shape[-1]}")
            if offset % r:
                raise RuntimeError(f"self.storage_offset() must be divisible by {r} {what}, but got {offset}")
            for d, st in enumerate(strides[:-1]):
                if st % r:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {r} {what}, but got {st}")
            shape[-1] //= r
            strides = [st // r for st in strides[:-1]] + [1]
            offset //= r
        else:
            r = old // new
            shape[-1] *= r
            strides = [st * r for st in strides[:-1]] + [1]
            offset *= r
    # Not differentiable, as PyTorch's view(dtype), whatever the dtypes: an alias outside the
    # graph (as detach() is), which never requires grad.
    return Tensor._make(input._storage.reinterpret(dtype), tuple(shape), tuple(strides), offset, dtype)


_SIZE_CLASSES = (tuple, shapes.Size, list)


def _missing(name, arg):
    return TypeError(f'{name}() missing 1 required positional arguments: "{arg}"')


def _parse_with_neg(shape):
    """Sizes given as varargs or one sequence; -1 allowed (resolved by the caller)."""
    seq = shape[0] if len(shape) == 1 and shape[0].__class__ in _SIZE_CLASSES else shape
    for s in seq:
        if s.__class__ is not int:
            break
    else:
        return tuple(seq)
    if len(shape) == 1 and hasattr(shape[0], "__iter__") and not hasattr(shape[0], "_storage"):
        shape = tuple(shape[0])
    return tuple(shapes._as_index(s) for s in shape)


@op_event("aten::reshape")
def reshape(input, *shape):
    """Returns a tensor with the given shape: a view when strides allow, otherwise a copy."""
    if not shape:
        raise _missing("reshape", "shape")
    size = shapes.infer_size(_parse_with_neg(shape), input.numel())
    strides = shapes.view_strides(input._shape, input._strides, size)
    if strides is not None:
        op = _view_op
        if input._requires_grad and _grad_state.enabled:
            # PyTorch names a view of a non-contiguous tensor after its _reshape_alias.
            layout = (input._shape, input._strides)
            contiguous = _contiguous.get(layout)
            if contiguous is None:
                contiguous = _contiguous[layout] = shapes.is_contiguous(*layout)
            if not contiguous:
                op = _reshape_alias_op
        return make_view(input, op, size, strides, params={"shape": size})
    return unsafe_view(input.contiguous(), size)


_contiguous = Memo()
_reshape_alias_op = primitive("reshape_alias", 1, kind="view", backward_name="ReshapeAliasBackward0",
                              vjp=_view_op.vjp, jvp=_view_op.jvp, batched_jvp=_view_op.batched_jvp)
_unsafe_view_op = primitive("unsafe_view", 1, backward_name="UnsafeViewBackward0",
                            vjp=_view_op.vjp, jvp=_view_op.jvp, batched_jvp=_view_op.batched_jvp)


def unsafe_view(x, shape):
    """Contiguous ``x``, a fresh copy nothing else reads, seen with ``shape``: how PyTorch's
    reshape ends after copying. Not a view of ``x``, so writes to it need no view history."""
    out = Tensor._make(x._storage, shape, shapes.contiguous_strides(shape), x._offset, x.dtype)
    return tape.record_result(_unsafe_view_op, (x,), out, {"shape": shape})


def view_as(input, other):
    return view(input, other.shape)


def reshape_as(input, other):
    return reshape(input, other.shape)


def _batched_expand(t, ans, x, shape):
    lead = len(shape) - x.ndim
    if lead:
        t = t.reshape((t.shape[0],) + (1,) * lead + tuple(x.shape))
    return t.expand((t.shape[0],) + tuple(shape))


_expand_op = primitive("expand", 1, kind="view",
                       vjp=(lambda g, ans, x, shape: _sum_to(g, x.shape),),
                       jvp=(lambda t, ans, x, shape: t.expand(shape),),
                       batched_jvp=(_batched_expand,))


def _sum_to(g, shape):
    return sum_to(g, shape)


# Geometry of valid expands, keyed by (shape, strides, sizes): sizes repeat every step.
_expanded = Memo()


def expand(input, *sizes):
    """Broadcasts size-1 dims to larger sizes (-1 keeps a dim) as a stride-0 view: no copy."""
    if not sizes:
        raise _missing("expand", "size")
    sizes = _parse_with_neg(sizes)
    key = (input._shape, input._strides, sizes)
    geometry = _expanded.get(key)
    if geometry is None:
        geometry = shapes.expand_strides(input._shape, input._strides, sizes, torch_type_name(input.dtype))
        _expanded[key] = geometry
    new_shape, new_strides = geometry
    # Even to its own shape it is a new view with its own history (ExpandBackward0), as in PyTorch.
    return make_view(input, _expand_op, new_shape, new_strides, params={"shape": new_shape})


def expand_as(input, other):
    return expand(input, other.shape)


_permute_op = primitive("permute", 1, kind="view",
                        vjp=(lambda g, ans, x, dims: g.permute(_inverse(dims)),),
                        jvp=(lambda t, ans, x, dims: t.permute(dims),),
                        batched_jvp=(lambda t, ans, x, dims: t.permute((0,) + shapes.shift_dims(dims)),))


def _inverse(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


# Validated orders, keyed by (dims as given, ndim).
_orders = Memo()


def permute(input, *dims):
    """Returns a view with the dims reordered."""
    if not dims:
        raise _missing("permute", "dims")
    dims = _parse_with_neg(dims)
    nd = len(input._shape)
    key = (dims, nd)
    order = _orders.get(key)
    if order is None:
        order = _check_order(dims, nd)
        _orders[key] = order
    shape, strides = input._shape, input._strides
    return make_view(input, _permute_op, tuple([shape[d] for d in order]), tuple([strides[d] for d in order]),
                     params={"dims": order})


def _check_order(dims, nd):
    """``dims`` normalized, after PyTorch's checks that they order all ``nd`` dims once each."""
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {nd} is not equal to len(dims) = {len(dims)}")
    dims = tuple(shapes.normalize_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return dims


_transpose_op = primitive("transpose", 1, kind="view",
                          vjp=(lambda g, ans, x, dim0, dim1: g.transpose(dim0, dim1),),
                          jvp=(lambda t, ans, x, dim0, dim1: t.transpose(dim0, dim1),),
                          batched_jvp=(lambda t, ans, x, dim0, dim1: t.transpose(dim0 + 1, dim1 + 1),))


def transpose(input, dim0, dim1):
    """Returns a view with dims ``dim0`` and ``dim1`` swapped."""
    nd = len(input._shape)
    if dim0.__class__ is int and dim1.__class__ is int and -nd <= dim0 < nd and -nd <= dim1 < nd:
        d0, d1 = dim0 % nd, dim1 % nd
    else:
        d0 = shapes.normalize_dim(dim0, nd)
        d1 = shapes.normalize_dim(dim1, nd)
    if nd == 0:
        return make_view(input, _transpose_op, (), (), params={"dim0": 0, "dim1": 0})
    if nd == 2 and d0 != d1:
        # Every matrix product's backward transposes its operands.
        shape, strides = input._shape, input._strides
        return make_view(input, _transpose_op, (shape[1], shape[0]), (strides[1], strides[0]),
                         params={"dim0": d0, "dim1": d1})
    shape = list(input._shape)
    strides = list(input._strides)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return make_view(input, _transpose_op, shape, strides, params={"dim0": d0, "dim1": d1})


swapaxes = swapdims = transpose


_t_op = primitive("t", 1, kind="view", vjp=(lambda g, ans, x: g.t(),), jvp=(lambda t, ans, x: t.t(),))


def t(input):
    """Transposes a tensor of at most 2 dims (0-d and 1-d are returned as they are)."""
    if len(input._shape) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return make_view(input, _t_op, input._shape[::-1], input._strides[::-1])


_unsqueeze_op = primitive("unsqueeze", 1, kind="view",
                          vjp=(lambda g, ans, x, dim: g.squeeze(dim),),
                          jvp=(lambda t, ans, x, dim: t.unsqueeze(dim),),
                          batched_jvp=(lambda t, ans, x, dim: t.unsqueeze(dim + 1),))


def unsqueeze(input, dim):
    """Returns a view with a size-1 dim inserted at ``dim``."""
    nd = input.ndim + 1
    d = shapes.normalize_dim(dim, nd)
    shape = list(input._shape)
    strides = list(input._strides)
    st = shape[d] * strides[d] if d < len(shape) else 1
    shape.insert(d, 1)
    strides.insert(d, st)
    return make_view(input, _unsqueeze_op, shape, strides, params={"dim": d})


_squeeze_op = primitive("squeeze", 1, kind="view",
                        vjp=(lambda g, ans, x, dims: g.reshape(x.shape),),
                        jvp=(lambda t, ans, x, dims: t.reshape(ans.shape),),
                        batched_jvp=(lambda t, ans, x, dims: t.reshape((t.shape[0],) + tuple(ans.shape)),),
                        variants={"dim": "SqueezeBackward1", "dims": "SqueezeBackward2"})


def squeeze(input, dim=None):
    """Returns a view with size-1 dims removed (all of them, or only those in ``dim``)."""
    nd = input.ndim
    dims = shapes.normalize_dims(dim, nd) if dim is not None else tuple(range(nd))
    keep = [i for i in range(nd) if not (i in dims and input._shape[i] == 1)]
    return make_view(input, _squeeze_op, tuple(input._shape[i] for i in keep),
                     tuple(input._strides[i] for i in keep), params={"dims": dims},
                      variant=None if dim is None else "dims" if isinstance(dim, (tuple, list)) else "dim")


@op_event("aten::flatten")
def flatten(input, start_dim=0, end_dim=-1):
    """Flattens dims ``start_dim`` .. ``end_dim`` into one (a view when possible)."""
    nd = input.ndim
    if nd == 0:
        # A 0-d tensor has one valid dim index as far as the checks go, as in PyTorch.
        shapes.normalize_dim(start_dim, 1)
        shapes.normalize_dim(end_dim, 1)
        return reshape(input, 1)
    s = shapes.normalize_dim(start_dim, nd)
    e = shapes.normalize_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._shape[:s] + (shapes.prod(input._shape[s:e + 1]),) + input._shape[e + 1:]
    return reshape(input, shape)


def unflatten(input, dim, sizes):
    """Expands dim ``dim`` into ``sizes``."""
    d = shapes.normalize_dim(dim, input.ndim)
    sizes = shapes.infer_size(tuple(sizes), input._shape[d])
    return view(input, input._shape[:d] + tuple(sizes) + input._shape[d + 1:])


def movedim(input, source, destination):
    """Moves dims from ``source`` positions to ``destination`` positions."""
    nd = input.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same "
            f"number of dims as destination ({dst} dims)")
    src = [shapes.normalize_dim(d, nd) for d in src]
    dst = [shapes.normalize_dim(d, nd) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    if nd == 0:
        return alias(input)
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(input, order)


moveaxis = movedim


def squeeze_(input, dim=None):
    """In-place :func:`squeeze`: changes ``input``'s shape, not its data."""
    return inplace_view(input, squeeze, dim)


def unsqueeze_(input, dim):
    """In-place :func:`unsqueeze`: changes ``input``'s shape, not its data."""
    return inplace_view(input, unsqueeze, dim)


def transpose_(input, dim0, dim1):
    """In-place :func:`transpose`: swaps two dims of ``input``'s metadata."""
    return inplace_view(input, transpose, dim0, dim1)


def t_(input):
    """In-place :func:`t`."""
    return inplace_view(input, t)


def swapdims_(input, dim0, dim1):
    return transpose_(input, dim0, dim1)


swapaxes_ = swapdims_
