"""Pure shape and stride arithmetic: broadcasting, view strides, dim normalisation, size parsing."""
from __future__ import annotations

import operator
from typing import Sequence

from . import names


class Size(tuple):
    """The shape of a tensor: a tuple of ints, printed as ``numgrad.Size([2, 3])``."""

    def __repr__(self):
        return f"{names.package()}.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))


def prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _as_index(v, what="size") -> int:
    if isinstance(v, bool):
        raise TypeError(f"{what} must be a sequence of ints, not bool")
    try:
        return operator.index(v)
    except TypeError:
        if hasattr(v, "item") and getattr(v, "numel", lambda: 0)() == 1 and not v.dtype.is_floating_point:
            return int(v.item())
        raise TypeError(f"{what} must be tuple of ints, but found element of type "
                        f"{type(v).__name__}") from None


def parse_size(args: Sequence, name: str = "size", keyword=None) -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(Size)`` or ``f(size=(2, 3))`` (the
    ``keyword``); reject negative sizes.

    ``name`` is the calling function, for PyTorch's error messages."""
    if keyword is None and len(args) == 1 and args[0].__class__ is tuple:
        for s in args[0]:
            if s.__class__ is not int or s < 0:
                break
        else:
            return args[0]
    if keyword is not None:
        if len(args):
            raise TypeError(f"{name}() received an invalid combination of arguments - got both "
                            "positional sizes and size=")
        args = (keyword,)
    if len(args) == 1 and not isinstance(args[0], int) and hasattr(args[0], "__iter__") \
            and not hasattr(args[0], "dtype"):
        args = tuple(args[0])
    shape = []
    for pos, a in enumerate(args):
        try:
            shape.append(_as_index(a))
        except TypeError:
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, but found element "
                            f"of type {type(a).__name__} at pos {pos}") from None
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
    return tuple(shape)


def contiguous_strides(shape) -> tuple:
    n = len(shape)
    if n <= 2:  # most results: without a loop (a size of 0 strides as 1)
        return (shape[1] or 1, 1) if n == 2 else (1,) * n
    strides = [1] * n
    acc = 1
    for i in range(n - 1, 0, -1):
        acc *= shape[i] or 1
        strides[i - 1] = acc
    return tuple(strides)


def is_contiguous(shape, strides) -> bool:
    expected = 1
    for s, st in zip(reversed(shape), reversed(strides)):
        if s == 1:
            continue
        if s == 0:
            return True
        if st != expected:
            return False
        expected *= s
    return True


def is_non_overlapping_and_dense(shape, strides) -> bool:
    """True when the elements fill a block of memory exactly once, in some dim order."""
    dims = sorted((st, s) for s, st in zip(shape, strides) if s != 1)
    expected = 1
    for st, s in dims:
        if s == 0:
            return True
        if st != expected:
            return False
        expected *= s
    return True


def has_internal_overlap(shape, strides) -> bool:
    """True when some elements share memory: a dim of stride 0, as ``expand`` makes."""
    return any(st == 0 and s > 1 for s, st in zip(shape, strides))


def may_overlap(shape, strides) -> bool:
    """False only when no two elements can share memory: taken by increasing stride, each dim
    steps past all that the smaller ones span."""
    span = 0
    for size, stride in sorted(((s, st) for s, st in zip(shape, strides) if s > 1), key=lambda d: d[1]):
        if stride <= span:
            return True
        span += (size - 1) * stride
    return False


def check_no_internal_overlap(shape, strides) -> None:
    """Refuse to write into a tensor whose elements share memory: the result would depend on
    the order of the writes."""
    if has_internal_overlap(shape, strides):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")


def check_no_partial_overlap(out, x, full: bool = False) -> None:
    """Refuse an input ``x`` that shares memory with ``out``, the tensor written to, unless it
    has ``out``'s very layout (PyTorch's rule): an elementwise kernel would read elements it has
    already overwritten. Layouts with gaps or repeats are not compared, as PyTorch's are not.
    With ``full``, the same layout is refused too: index-driven writes (scatter, index_copy, put)
    do not read element i before writing element i."""
    if x._offset == out._offset and x._shape == out._shape and x._strides == out._strides:
        if not full:
            return
        if x is out:
            _refuse_overlap()
    if 0 in x._shape or 0 in out._shape or not (is_non_overlapping_and_dense(x._shape, x._strides)
                                                and is_non_overlapping_and_dense(out._shape, out._strides)):
        return
    a0, b0 = out._offset, x._offset
    a1 = a0 + 1 + sum((n - 1) * st for n, st in zip(out._shape, out._strides))
    b1 = b0 + 1 + sum((n - 1) * st for n, st in zip(x._shape, x._strides))
    if a0 < b1 and b0 < a1:
        _refuse_overlap()


def _refuse_overlap():
    raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the "
                       "operation.")


def normalize_dim(dim, ndim: int) -> int:
    """Wrap a negative dim; IndexError (PyTorch's message) when out of range."""
    dim = _as_index(dim, "dim")
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


def normalize_dims(dims, ndim: int) -> tuple:
    """A dim, a tuple of dims or None (all dims), as a sorted tuple of distinct non-negative dims."""
    if dims is None:
        return tuple(range(ndim))
    if isinstance(dims, (list, tuple)):
        out = [normalize_dim(d, ndim) for d in dims]
        if len(set(out)) != len(out):
            for d in out:
                if out.count(d) > 1:
                    raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        if ndim == 0:
            return ()
        return tuple(sorted(out))
    d = normalize_dim(dims, ndim)
    return () if ndim == 0 else (d,)


def broadcast_shapes(*shapes) -> tuple:
    """The common shape of several shapes under NumPy/PyTorch broadcasting rules.

    Shapes are combined left to right, each pair from the last dim backwards, so a mismatch
    names the same sizes and output dim as PyTorch's message does."""
    out = tuple(shapes[0]) if shapes else ()
    for shape in shapes[1:]:
        out = _broadcast_pair(out, tuple(shape))
    return out


def _broadcast_pair(a: tuple, b: tuple) -> tuple:
    if a == b:
        return a
    ndim = max(len(a), len(b))
    out = [1] * ndim
    for i in range(ndim - 1, -1, -1):
        off = ndim - 1 - i
        sa = a[len(a) - 1 - off] if off < len(a) else 1
        sb = b[len(b) - 1 - off] if off < len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
                               f"at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def broadcast_strides(shape, strides, target) -> tuple:
    """Strides that present a tensor of ``shape`` as ``target`` (0 along broadcast dims)."""
    nd = len(target)
    pad = nd - len(shape)
    out = [0] * nd
    for i, (s, st) in enumerate(zip(shape, strides)):
        out[pad + i] = 0 if (s == 1 and target[pad + i] != 1) else st
    return tuple(out)


def expand_strides(shape, strides, sizes, type_name: str = "Float") -> tuple:
    """Strides for ``expand(sizes)``: -1 keeps a size; new or size-1 dims get stride 0."""
    nd = len(sizes)
    if nd < len(shape):
        raise RuntimeError(
            f"expand(torch.{type_name}Tensor{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, sizes))}]): "
            f"the number of sizes provided ({nd}) must be greater or equal to the number of dimensions in the "
            f"tensor ({len(shape)})")
    pad = nd - len(shape)
    new_shape, new_strides = [0] * nd, [0] * nd
    # Walk from the last dim: a new leading dim of size 1 takes the stride a contiguous layout
    # would give it, as PyTorch does; every broadcast dim gets stride 0.
    for i in range(nd - 1, -1, -1):
        want = sizes[i]
        if i < pad:
            if want < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) isn't allowed in a leading, non-existing dimension {i}")
            s = 1
            st = new_shape[i + 1] * new_strides[i + 1] if i + 1 < nd else 0
        else:
            s, st = shape[i - pad], strides[i - pad]
            if want == -1:
                want = s
        if s != want:
            if s != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({want}) must match the existing size ({s}) at non-singleton "
                    f"dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  Tensor sizes: "
                    f"[{', '.join(map(str, shape))}]")
            if want < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {want}: {list(sizes)}")
            st = 0
        new_shape[i], new_strides[i] = want, st
    if prod(new_shape) >= 1 << 63:
        # Kernels count elements in int64: a larger view would make them loop for ever.
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(new_shape), tuple(new_strides)


def infer_size(shape, numel: int) -> tuple:
    """Resolve one -1 in a requested shape; RuntimeError when the element count cannot match."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape [{', '.join(map(str, shape))}]")
    known = prod(s for s in shape if s != -1)
    if neg:
        if known == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because the "
                f"unspecified dimension size -1 can be any value and is ambiguous")
        if numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


def view_strides(shape, strides, new_shape):
    """Strides that reinterpret (shape, strides) as new_shape without copying, or None if impossible.

    Old dims are grouped into chunks that are contiguous with each other; a view may split or
    merge dims within a chunk but never across chunk boundaries.
    """
    if len(shape) == 0 or prod(shape) == 0:
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = strides[-1]
    tensor_numel = 1
    view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = strides[d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def shift_dims(dims) -> tuple:
    """``dims`` of a tensor seen behind one new leading dim (a batch of tangents, say)."""
    return tuple(d + 1 for d in dims)
