"""The split family. unbind, split and chunk return views recorded as ONE multi-output node
(UnbindBackward0, SplitBackward0, SplitWithSizesBackward0); tensor_split, hsplit, vsplit and
dsplit are a slice per piece, as PyTorch composes them.
"""
from __future__ import annotations

from .. import shapes
from ..autograd import tape
from ..autograd.inplace import mark_view
from ..autograd.grad_mode import _state as _grad_state
from ..tensor import Tensor
from ..dtypes import torch_type_name
from .records import primitive
from .slice_views import slice_view as _slice
from .movement import cat, stack
from ..autograd.profiler import op_event

__all__ = ["unbind", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit"]


def _join(g, dim, sizes):
    """The input's cotangent from the pieces' ``g`` (a tuple when there are several; the engine
    gives a piece that got no cotangent zeros): stacked along ``dim`` for unbind (``sizes``
    None), concatenated for split."""
    parts = g if g.__class__ is tuple else (g,)
    if sizes is None:
        return parts[0].unsqueeze(dim) if len(parts) == 1 else stack(parts, dim)
    return parts[0] if len(parts) == 1 else cat(parts, dim)


def _piece(t, dim, sizes, index):
    """Piece ``index`` of ``t`` split along ``dim`` into ``sizes``."""
    return t.narrow(dim, sum(sizes[:index]), sizes[index])


# A piece's tangent is the same piece of its input's tangent; the JVP rules take the piece's
# ``index`` on top of the node's parameters.
_unbind_op = primitive("unbind", 1, kind="view",
                       vjp=(lambda g, ans, x, dim: _join(g, dim, None),),
                       jvp=(lambda t, ans, x, dim, index: t.select(dim, index),),
                       batched_jvp=(lambda t, ans, x, dim, index: t.select(dim + 1, index),))
_split_op = primitive("split", 1, kind="view",
                      vjp=(lambda g, ans, x, dim, sizes: _join(g, dim, sizes),),
                      jvp=(lambda t, ans, x, dim, sizes, index: _piece(t, dim, sizes, index),),
                      batched_jvp=(lambda t, ans, x, dim, sizes, index: _piece(t, dim + 1, sizes, index),),
                      variants={"sizes": "SplitWithSizesBackward0"})


def _multi_view(input, op, geometry, params, variant=None):
    """Views of ``input`` with the given (shape, strides, offset), all outputs of one node."""
    storage, dtype = input._storage, input.dtype
    base = input if input._base is None else input._base
    pieces = []
    for shape, strides, offset in geometry:
        p = Tensor._make(storage, shape, strides, offset, dtype)
        p._base = base
        pieces.append(p)
    if not pieces:
        return ()
    if input._requires_grad and _grad_state.enabled:
        tape.record(op, (input,), None, params, outputs=pieces, variant=variant)
    for p in pieces:
        mark_view(input, p, op, variant, multi=True)
    if tape._dual_levels[0] and input._fw_tangent is not None:
        for i, p in enumerate(pieces):
            tape.forward_jvp(op, (input,), p, dict(params, index=i))
    return tuple(pieces)


@op_event("aten::unbind")
def unbind(input, dim=0):
    """unbind(input, dim=0) -> tuple of Tensors: every slice along ``dim``, with that dim
    removed (views of ``input``)."""
    nd = input.ndim
    d = shapes.normalize_dim(dim, nd)
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    shape = input._shape[:d] + input._shape[d + 1:]
    strides = input._strides[:d] + input._strides[d + 1:]
    step, offset = input._strides[d], input._offset
    return _multi_view(input, _unbind_op, [(shape, strides, offset + i * step) for i in range(input._shape[d])],
                       {"dim": d})


def _split_views(input, d, sizes, variant):
    shape = list(input._shape)
    step, offset = input._strides[d], input._offset
    geometry = []
    for n in sizes:
        shape[d] = n
        geometry.append((tuple(shape), input._strides, offset))
        offset += n * step
    return _multi_view(input, _split_op, geometry, {"dim": d, "sizes": tuple(sizes)}, variant)


def split(tensor, split_size_or_sections, dim=0):
    """split(tensor, split_size_or_sections, dim=0) -> tuple of Tensors: pieces of
    ``split_size`` along ``dim`` (the last may be smaller), or of the listed sizes (views)."""
    sections = split_size_or_sections
    if hasattr(sections, "_storage") and sections.ndim == 0:
        sections = sections.item()
    if isinstance(sections, bool) or not isinstance(sections, (int, list, tuple)):
        raise TypeError("split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not "
                        f"{type(sections).__name__}")
    nd = tensor.ndim
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = shapes.normalize_dim(dim, nd)
    if isinstance(sections, int):
        return _split_equally(tensor, d, sections)
    return _split_with_sizes(tensor, d, sections)


@op_event("aten::split")
def _split_equally(tensor, d, split_size):
    size = tensor._shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    sizes = [min(split_size, size - i) for i in range(0, size, split_size)] if size else [0]
    return _split_views(tensor, d, sizes, None)


@op_event("aten::split_with_sizes")
def _split_with_sizes(tensor, d, sections):
    size = tensor._shape[d]
    sizes = [shapes._as_index(n, "split_sizes") for n in sections]
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                           f"at dimension {d}), but got split_sizes={sizes}")
    return _split_views(tensor, d, sizes, "sizes")


@op_event("aten::chunk")
def chunk(input, chunks, dim=0):
    """chunk(input, chunks, dim=0) -> tuple of Tensors: at most ``chunks`` pieces of equal size
    along ``dim`` (the last may be smaller; fewer pieces when sizes round up)."""
    if isinstance(chunks, bool) or not isinstance(chunks, int):
        raise TypeError(f"chunk(): argument 'chunks' (position 1) must be int, not {type(chunks).__name__}")
    nd = input.ndim
    if nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = shapes.normalize_dim(dim, nd)
    size = input._shape[d]
    if not size:
        return _split_views(input, d, [0] * chunks, "sizes")
    return split(input, -(-size // chunks), d)


@op_event("aten::tensor_split")
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None):
    """tensor_split(input, indices_or_sections, dim=0) -> tuple of Tensors: ``sections`` pieces
    of near-equal size (the first ``size % sections`` one longer), or the pieces between the
    given ``indices``, as ``numpy.array_split`` (views of ``input``)."""
    arg = indices_or_sections
    if arg is None:
        arg = sections if sections is not None else indices
    nd = input.ndim
    if nd == 0:
        raise RuntimeError(f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {nd} dims")
    if hasattr(arg, "_storage"):
        if arg.dtype.name != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{torch_type_name(arg.dtype)}")
        if arg.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arg.ndim} dims")
        arg = arg.item() if arg.ndim == 0 else arg.tolist()
    if isinstance(arg, bool) or not isinstance(arg, (int, list, tuple)) or \
            not isinstance(arg, int) and any(isinstance(i, bool) or not isinstance(i, int) for i in arg):
        raise TypeError(f"tensor_split() received an invalid combination of arguments - got "
                        f"({type(arg).__name__}), but expected one of: (int sections), (tuple of ints indices), "
                        "(Tensor tensor_indices_or_sections)")
    d = shapes.normalize_dim(dim, nd)
    size = input._shape[d]
    if isinstance(arg, int):
        if arg <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {arg}")
        small, extra = divmod(size, arg)
        bounds = [k * small + min(k, extra) for k in range(arg + 1)]
    else:
        # Python slice bounds: negative indices wrap once, then everything clamps to [0, size].
        bounds = [0] + [min(max(i + size if i < 0 else i, 0), size) for i in arg] + [size]
    out = []
    for k in range(len(bounds) - 1):
        start = bounds[k]
        out.append(_slice(input, d, start, max(bounds[k + 1] - start, 0)))
    return tuple(out)


def _split_numpy_style(input, indices_or_sections, dim, name, min_dims):
    nd = input.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {nd} dimensions!")
    arg = indices_or_sections
    if hasattr(arg, "_storage"):
        arg = arg.item() if arg.ndim == 0 else arg.tolist()
    if isinstance(arg, int) and not isinstance(arg, bool):
        size = input._shape[dim]
        if arg == 0 or size % arg:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {arg}!")
    elif not isinstance(arg, (list, tuple)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(arg).__name__}), "
                        "but expected one of: (int sections), (tuple of ints indices)")
    return tensor_split(input, arg, dim)


@op_event("aten::hsplit")
def hsplit(input, indices_or_sections):
    """hsplit(input, indices_or_sections) -> tuple of Tensors: :func:`tensor_split` along dim 1
    (dim 0 for a 1-D tensor); an int must divide that dim evenly."""
    return _split_numpy_style(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


@op_event("aten::vsplit")
def vsplit(input, indices_or_sections):
    """vsplit(input, indices_or_sections) -> tuple of Tensors: :func:`tensor_split` along dim 0
    of a tensor of at least 2 dims; an int must divide that dim evenly."""
    return _split_numpy_style(input, indices_or_sections, 0, "vsplit", 2)


@op_event("aten::dsplit")
def dsplit(input, indices_or_sections):
    """dsplit(input, indices_or_sections) -> tuple of Tensors: :func:`tensor_split` along dim 2
    of a tensor of at least 3 dims; an int must divide that dim evenly."""
    return _split_numpy_style(input, indices_or_sections, 2, "dsplit", 3)
