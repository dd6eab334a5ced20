"""View ops: new shape/stride/offset metadata over the same storage, never a copy.

Each view records its own tape entry so gradients flow back through it; the VJP of a view is
the matching view (or scatter) of the cotangent.
"""
from __future__ import annotations

from ..memo import Memo
from .. import dtypes, shapes
from ..autograd import tape, views_history as _views_history
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor
from .registry import primitive, torch_type_name

__all__ = ["view", "reshape", "expand", "expand_as", "unsqueeze", "squeeze", "permute", "transpose",
           "t", "flatten", "movedim", "narrow", "select", "diagonal",
           "as_strided", "swapaxes", "swapdims", "unflatten", "view_as", "reshape_as", "squeeze_",
           "unsqueeze_", "transpose_", "t_", "swapdims_", "swapaxes_", "moveaxis", "as_strided_"]


_dual_levels = tape._dual_levels
_new = Tensor._make


def _make_view(x, op, shape, strides, offset=None, params=None, variant=None):
    out = _new(x._storage, shape if shape.__class__ is tuple else tuple(shape),
               strides if strides.__class__ is tuple else tuple(strides), x._offset if offset is None else offset,
               x.dtype)
    out._base = x if x._base is None else x._base
    # tape.should_record and tape.has_tangents for one input, inlined: views run on every step.
    enabled = _grad_state.enabled
    if enabled and op.differentiable and (x._requires_grad or x._base is not None and tape.adopts_base_grad(x)):
        tape.record(op, (x,), out, params, variant=variant)
    if not enabled:
        if x._requires_grad:
            # As PyTorch's, a view requires grad when its base does, even made without grad.
            out._requires_grad = True
        if _grad_state.inference or x._base is not None and x._view_meta is not None:
            _views_history.mark_view(x, out, op, variant)
        else:
            # mark_view's common case, inlined: optimizers and init make views under no_grad.
            out._view_meta = _views_history.NO_GRAD_MARK
            if x._requires_grad:
                _views_history.note_version(out)
    elif x._base is not None and x._view_meta is not None:
        # Only views carry a mark; the slot read first is the cheaper one.
        _views_history.mark_view(x, out, op, variant)
    if _dual_levels[0] and x._fw_tangent is not None:
        tape.forward_jvp(op, (x,), out, params)
    return out


_view_op = primitive("view", 1, kind="view",
                     vjp=(lambda g, ans, x, shape: g.reshape(x.shape),),
                     jvp=(lambda t, ans, x, shape: t.reshape(shape),))


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
    return _make_view(input, _view_op, size, strides, params={"shape": size})


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
        return _make_view(input, op, size, strides, params={"shape": size})
    return _unsafe_view(input.contiguous(), size)


_contiguous = Memo()
_reshape_alias_op = primitive("reshape_alias", 1, kind="view", backward_name="ReshapeAliasBackward0",
                              vjp=_view_op.vjp, jvp=_view_op.jvp)
_unsafe_view_op = primitive("unsafe_view", 1, backward_name="UnsafeViewBackward0",
                            vjp=_view_op.vjp, jvp=_view_op.jvp)


def _unsafe_view(x, shape):
    """Contiguous ``x``, a fresh copy nothing else reads, seen with ``shape``: how PyTorch's
    reshape ends after copying. Not a view of ``x``, so writes to it need no view history."""
    out = _new(x._storage, shape, shapes.contiguous_strides(shape), x._offset, x.dtype)
    return tape.record_result(_unsafe_view_op, (x,), out, {"shape": shape})


def view_as(input, other):
    return view(input, other.shape)


def reshape_as(input, other):
    return reshape(input, other.shape)


_expand_op = primitive("expand", 1, kind="view",
                       vjp=(lambda g, ans, x, shape: _sum_to(g, x.shape),),
                       jvp=(lambda t, ans, x, shape: t.expand(shape),))


def _sum_to(g, shape):
    from .reductions import sum_to
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
    return _make_view(input, _expand_op, new_shape, new_strides, params={"shape": new_shape})


def expand_as(input, other):
    return expand(input, other.shape)


_permute_op = primitive("permute", 1, kind="view",
                        vjp=(lambda g, ans, x, dims: g.permute(_inverse(dims)),),
                        jvp=(lambda t, ans, x, dims: t.permute(dims),))


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
    return _make_view(input, _permute_op, tuple([shape[d] for d in order]), tuple([strides[d] for d in order]),
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
                          jvp=(lambda t, ans, x, dim0, dim1: t.transpose(dim0, dim1),))


def transpose(input, dim0, dim1):
    """Returns a view with dims ``dim0`` and ``dim1`` swapped."""
    nd = len(input._shape)
    if dim0.__class__ is int and dim1.__class__ is int and -nd <= dim0 < nd and -nd <= dim1 < nd:
        d0, d1 = dim0 % nd, dim1 % nd
    else:
        d0 = shapes.normalize_dim(dim0, nd)
        d1 = shapes.normalize_dim(dim1, nd)
    if nd == 0:
        return _make_view(input, _transpose_op, (), (), params={"dim0": 0, "dim1": 0})
    if nd == 2 and d0 != d1:
        # Every matrix product's backward transposes its operands.
        shape, strides = input._shape, input._strides
        return _make_view(input, _transpose_op, (shape[1], shape[0]), (strides[1], strides[0]),
                          params={"dim0": d0, "dim1": d1})
    shape = list(input._shape)
    strides = list(input._strides)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return _make_view(input, _transpose_op, shape, strides, params={"dim0": d0, "dim1": d1})


swapaxes = swapdims = transpose


_t_op = primitive("t", 1, kind="view", vjp=(lambda g, ans, x: g.t(),), jvp=(lambda t, ans, x: t.t(),))


def t(input):
    """Transposes a tensor of at most 2 dims (0-d and 1-d are returned as they are)."""
    if len(input._shape) > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _make_view(input, _t_op, input._shape[::-1], input._strides[::-1])


_unsqueeze_op = primitive("unsqueeze", 1, kind="view",
                          vjp=(lambda g, ans, x, dim: g.squeeze(dim),),
                          jvp=(lambda t, ans, x, dim: t.unsqueeze(dim),))


def unsqueeze(input, dim):
    """Returns a view with a size-1 dim inserted at ``dim``."""
    nd = input.ndim + 1
    d = shapes.normalize_dim(dim, nd)
    shape = list(input._shape)
    strides = list(input._strides)
    st = shape[d] * strides[d] if d < len(shape) else 1
    shape.insert(d, 1)
    strides.insert(d, st)
    return _make_view(input, _unsqueeze_op, shape, strides, params={"dim": d})


_squeeze_op = primitive("squeeze", 1, kind="view",
                        vjp=(lambda g, ans, x, dims: g.reshape(x.shape),),
                        jvp=(lambda t, ans, x, dims: t.reshape(ans.shape),),
                        variants={"dim": "SqueezeBackward1", "dims": "SqueezeBackward2"})


def squeeze(input, dim=None):
    """Returns a view with size-1 dims removed (all of them, or only those in ``dim``)."""
    nd = input.ndim
    dims = shapes.normalize_dims(dim, nd) if dim is not None else tuple(range(nd))
    keep = [i for i in range(nd) if not (i in dims and input._shape[i] == 1)]
    return _make_view(input, _squeeze_op, tuple(input._shape[i] for i in keep),
                      tuple(input._strides[i] for i in keep), params={"dims": dims},
                      variant=None if dim is None else "dims" if isinstance(dim, (tuple, list)) else "dim")


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
        return _alias(input)
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(input, order)


moveaxis = movedim

_strided_op = primitive("as_strided", 1, kind="view",
                        vjp=(lambda g, ans, x, size, stride, offset: _as_strided_backward(g, x, size, stride, offset),),
                        jvp=(lambda t, ans, x, size, stride, offset: as_strided(t.contiguous(), size, stride, offset - x._offset),))


def _as_strided_backward(g, x, size, stride, offset):
    """Scatter-add the cotangent into a zero buffer shaped like x's storage span, then view it as x."""
    from ..creation import zeros
    span = x._storage.data.shape[0]
    buf = zeros(span, dtype=g.dtype, device=g.device)
    target = buf.as_strided(size, stride, offset)
    target.add_(g) if not _overlapping(size, stride) else _index_add_strided(buf, g, size, stride, offset)
    return buf.as_strided(x.shape, x.stride(), x._offset)


def _overlapping(size, stride) -> bool:
    return not shapes.is_non_overlapping_and_dense(size, stride) and any(
        st == 0 and s > 1 for s, st in zip(size, stride))


def _index_add_strided(buf, g, size, stride, offset):
    from ..creation import arange
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
    return _make_view(input, _strided_op, size, stride, offset,
                      params={"size": size, "stride": stride, "offset": offset})


_select_op = primitive("select", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, index: _embed(g, x, dim, index, None),),
                       jvp=(lambda t, ans, x, dim, index: t.select(dim, index),))
_narrow_op = primitive("slice", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, start, length, step: _embed(g, x, dim, start, (length, step)),),
                       jvp=(lambda t, ans, x, dim, start, length, step: _slice(t, dim, start, length, step),))


def _embed(g, x, dim, start, span):
    """The cotangent of x given that of one slice of it: zeros elsewhere."""
    from ..creation import zeros
    out = zeros(x.shape, dtype=g.dtype, device=g.device)
    if span is None:
        out.select(dim, start).copy_(g)
    else:
        _slice(out, dim, start, span[0], span[1]).copy_(g)
    return out


_alias_op = primitive("alias", 1, kind="view", vjp=(lambda g, ans, x: g,), jvp=(lambda t, ans, x: t,))


def _alias(x):
    """A new tensor object viewing all of ``x`` (what ``x[...]`` returns)."""
    return _make_view(x, _alias_op, x._shape, x._strides)


def _slice(x, dim, start, length, step=1):
    shape = list(x._shape)
    strides = list(x._strides)
    offset = x._offset + start * strides[dim]
    shape[dim] = length
    strides[dim] *= step
    return _make_view(x, _narrow_op, shape, strides, offset,
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
    return _make_view(input, _select_op, shape, strides, input._offset + index * input._strides[d],
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
    return _slice(input, d, start, length)


def _diagonal_backward(g, ans, x, offset, dim1, dim2):
    # Only x's shape is read, as PyTorch's (also the rule of diag's copied diagonal).
    from ..creation import zeros
    out = zeros(x.shape, dtype=g.dtype, device=g.device)
    diagonal(out, offset, dim1, dim2).copy_(g)
    return out


_diagonal_op = primitive("diagonal", 1, kind="view", vjp=(_diagonal_backward,),
                         jvp=(lambda t, ans, x, offset, dim1, dim2: diagonal(t, offset, dim1, dim2),))


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
    return _make_view(input, _diagonal_op, shape, strides, base,
                      params={"offset": offset, "dim1": d1, "dim2": d2})


_unfold_op = primitive("unfold", 1, kind="view",
                       vjp=(lambda g, ans, x, dim, size, step: _unfold_backward(g, x, dim, size, step),),
                       jvp=(lambda t, ans, x, dim, size, step: unfold(t, dim, size, step),),
                       backward_name="UnfoldBackward0")


def _unfold_backward(g, x, dim, size, step):
    # Windows may overlap: each window element's cotangent is added at its position along dim.
    from ..creation import arange, zeros
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
    return _make_view(input, _unfold_op, tuple(shape) + (size,), tuple(strides) + (stride,),
                      params={"dim": d, "size": size, "step": step})


def _inplace_view(input, fn, *args):
    """Apply view ``fn`` to ``input``'s own metadata (``x.unsqueeze_(0)`` and friends)."""
    tape.check_inplace(input)
    # The op sees an alias so that its tape entry keeps the old shape of its input.
    alias = input._view(input._shape, input._strides)
    alias._requires_grad, alias._grad_fn, alias._output_nr = input._requires_grad, input._grad_fn, input._output_nr
    alias._base = input._base
    out = fn(alias, *args)
    input._shape, input._strides, input._offset = out._shape, out._strides, out._offset
    if out._grad_fn is not None:
        input._grad_fn, input._output_nr = out._grad_fn, out._output_nr
    return input


def squeeze_(input, dim=None):
    """In-place :func:`squeeze`: changes ``input``'s shape, not its data."""
    return _inplace_view(input, squeeze, dim)


def unsqueeze_(input, dim):
    """In-place :func:`unsqueeze`: changes ``input``'s shape, not its data."""
    return _inplace_view(input, unsqueeze, dim)


def transpose_(input, dim0, dim1):
    """In-place :func:`transpose`: swaps two dims of ``input``'s metadata."""
    return _inplace_view(input, transpose, dim0, dim1)


def t_(input):
    """In-place :func:`t`."""
    return _inplace_view(input, t)


def swapdims_(input, dim0, dim1):
    return transpose_(input, dim0, dim1)


def as_strided_(input, size, stride, storage_offset=None):
    """In-place :func:`as_strided`: gives ``input`` the size, strides and storage offset."""
    return _inplace_view(input, as_strided, size, stride, storage_offset)


swapaxes_ = swapdims_
