"""Out-of-place writes through a view (slice_scatter and its kin), and the copying forms of the view ops."""
from __future__ import annotations

from .. import shapes
from ..autograd import grad_mode
from ..autograd.tape import plain, record_result
from ..creation import zeros
from .registry import write_out
from .records import primitive
from . import splitting as _splitting
from ..autograd.profiler import op_event

__all__ = ["slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter", "split_with_sizes"]


def _slice(x, dim=0, start=None, end=None, step=1):
    d = shapes.normalize_dim(dim, x.ndim)
    return x[(slice(None),) * d + (slice(start, end, step),)]


# How each scatter finds, in a tensor, the region that ``src`` replaces.
_REGIONS = {
    "slice_scatter": _slice,
    "select_scatter": lambda x, dim, index: x.select(dim, index),
    "diagonal_scatter": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "as_strided_scatter": lambda x, size, stride, storage_offset=None, layout=None: x.as_strided(
        size, stride, storage_offset),
}


def _in_layout(x, layout):
    """``x``'s values in new memory strided as ``layout``, the gaps between them zero:
    as_strided_scatter addresses the memory of a copy of its input laid out as the input is."""
    extent = 1 + sum((n - 1) * s for n, s in zip(x.shape, layout)) if x.numel() else 0
    memory = zeros(extent, dtype=x.dtype, device=x.device)
    return memory.as_strided(x.shape, layout).copy_(x)


def _scatter_op(name: str):
    region = _REGIONS[name]

    # The result takes g outside the region (input's share) and inside it (src's share).
    def input_rule(g, ans, x, src, **params):
        return _scatter(name, g, zeros(src.shape, dtype=g.dtype, device=g.device), params)

    def src_rule(g, ans, x, src, **params):
        g = _in_layout(g, params["layout"]) if "layout" in params else g
        return region(g, **params).clone()

    def input_tangent(t, ans, x, src, **params):
        return _scatter(name, t, zeros(src.shape, dtype=t.dtype, device=t.device), params)

    def src_tangent(t, ans, x, src, **params):
        return _scatter(name, zeros(ans.shape, dtype=t.dtype, device=t.device), t, params)

    backward = "".join(part.capitalize() for part in name.split("_")) + "Backward0"
    return primitive(name, 2, vjp=(input_rule, src_rule), jvp=(input_tangent, src_tangent), backward_name=backward)


_SCATTER_OPS = {name: _scatter_op(name) for name in _REGIONS}


def _scatter(name: str, input, src, params: dict):
    x, s = plain(input), plain(src)
    with grad_mode.no_grad():
        out = _in_layout(x, params["layout"]) if "layout" in params else x.clone()
        view = _REGIONS[name](out, **params)
        if tuple(view.shape) != tuple(s.shape):
            raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                               f"{list(s.shape)}, slice size = {list(view.shape)}")
        view.copy_(s)
    return record_result(_SCATTER_OPS[name], (input, src), out, params)


@op_event("aten::slice_scatter")
def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1, *, out=None):
    """slice_scatter(input, src, dim=0, start=None, end=None, step=1, *, out=None) -> Tensor

    A copy of ``input`` whose slice ``start:end:step`` along ``dim`` holds ``src``."""
    params = {"dim": dim, "start": start, "end": end, "step": step}
    return write_out(_scatter("slice_scatter", input, src, params), out, "slice_scatter")


@op_event("aten::select_scatter")
def select_scatter(input, src, dim: int, index: int, *, out=None):
    """select_scatter(input, src, dim, index, *, out=None) -> Tensor

    A copy of ``input`` whose entry ``index`` along ``dim`` holds ``src``."""
    return write_out(_scatter("select_scatter", input, src, {"dim": dim, "index": index}), out, "select_scatter")


@op_event("aten::diagonal_scatter")
def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out=None):
    """diagonal_scatter(input, src, offset=0, dim1=0, dim2=1, *, out=None) -> Tensor

    A copy of ``input`` whose diagonal (as :func:`diagonal` picks it) holds ``src``."""
    params = {"offset": offset, "dim1": dim1, "dim2": dim2}
    return write_out(_scatter("diagonal_scatter", input, src, params), out, "diagonal_scatter")


def _copy_layout(input):
    """The strides of input's copy: input's own, unless elements of input share memory (an
    expanded input), whose copy is contiguous."""
    if all(s != 0 or n <= 1 for n, s in zip(input.shape, input.stride())):
        return tuple(input.stride())
    strides, step = [], 1
    for n in reversed(input.shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


@op_event("aten::as_strided_scatter")
def as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None):
    """as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None) -> Tensor

    A copy of ``input`` (laid out in memory as ``input`` is) whose elements at the strided
    positions of that memory (as :func:`as_strided` picks them) hold ``src``."""
    params = {"size": tuple(size), "stride": tuple(stride), "storage_offset": storage_offset,
              "layout": _copy_layout(input)}
    return write_out(_scatter("as_strided_scatter", input, src, params), out, "as_strided_scatter")


def split_with_sizes(input, split_sizes, dim: int = 0):
    """split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors

    Views of consecutive pieces of ``input`` along ``dim`` with the given sizes, which must add up
    to the size of that dimension."""
    size = input.shape[shapes.normalize_dim(dim, input.ndim)]
    if sum(split_sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(_splitting.split(input, list(split_sizes), dim))


def _fresh(view, input):
    """``view``'s values in new contiguous memory: the copying form never aliases ``input``."""
    out = view.contiguous()
    return out.clone() if out._storage is input._storage else out


# name of the copying form -> the view it copies.
_VIEWS = {
    "view_copy": lambda x, *size: x.view(*size),
    "permute_copy": lambda x, dims: x.permute(*dims),
    "transpose_copy": lambda x, dim0, dim1: x.transpose(dim0, dim1),
    "expand_copy": lambda x, size, implicit=False: x.expand(*size),
    "squeeze_copy": lambda x, *dim: x.squeeze(*dim),
    "unsqueeze_copy": lambda x, dim: x.unsqueeze(dim),
    "diagonal_copy": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "select_copy": lambda x, dim, index: x.select(dim, index),
    "slice_copy": _slice,
    "t_copy": lambda x: x.t(),
    "unbind_copy": lambda x, dim=0: _splitting.unbind(x, dim),
    "split_copy": lambda x, split_size, dim=0: _splitting.split(x, split_size, dim),
    "split_with_sizes_copy": split_with_sizes,
    "as_strided_copy": lambda x, size, stride, storage_offset=None: x.as_strided(size, stride, storage_offset),
    "detach_copy": lambda x: x.detach(),
    "alias_copy": lambda x: x.view(x.shape),
    "narrow_copy": lambda x, dim, start, length: x.narrow(dim, start, length),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
}


def _copying_form(name: str):
    view_of = _VIEWS[name]

    def fn(input, *args, out=None, **kwargs):
        views = view_of(input, *args, **kwargs)
        if isinstance(views, (tuple, list)):
            return tuple(_fresh(v, input) for v in views)
        return write_out(_fresh(views, input), out, name)
    view_name = name[:-len("_copy")]
    fn = op_event("aten::" + name)(fn)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(input, ...) -> Tensor\n\nThe result of :func:`{view_name}` in freshly allocated "
                  f"contiguous memory instead of a view of ``input``.")
    return fn


globals().update({_name: _copying_form(_name) for _name in _VIEWS})
__all__ += list(_VIEWS)
