"""Other spellings PyTorch keeps for existing ops (ravel, rsub, row_stack, trapz, the
deprecated range and chain_matmul) and the functional forms of some in-place methods."""
from __future__ import annotations

import math
import warnings

from .. import dtypes, names
from ..creation import arange, full_like
from . import advanced as _advanced, functional_elementwise as _E, splitting as _splitting
from .composites import trapezoid
from .scatter_views import split_with_sizes
from .tensor_queries import is_warn_always_enabled
from .matrix_functions import multi_dot
from .movement import cat as _movement_cat, vstack

__all__ = ["ravel", "rsub", "row_stack", "trapz", "range", "chain_matmul", "fill", "fill_", "zero_",
           "index_put_", "detach", "detach_", "resize_as_", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes",
           "nonzero_static", "addmv_"]

index_put_ = _advanced.index_put_


def ravel(input):
    """ravel(input) -> Tensor: ``input`` flattened to 1-D (a view when possible)."""
    return input.reshape(-1)


def rsub(input, other, *, alpha=1):
    """rsub(input, other, *, alpha=1) -> Tensor: ``other - alpha * input``."""
    return _E.sub(other, input, alpha=alpha)


def row_stack(tensors, *, out=None):
    """row_stack(tensors, *, out=None) -> Tensor: :func:`vstack`."""
    return vstack(tensors, out=out)


def trapz(y, x=None, *, dx=None, dim: int = -1):
    """trapz(y, x=None, *, dx=None, dim=-1) -> Tensor: :func:`trapezoid`."""
    return trapezoid(y, x, dx=dx, dim=dim)


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """range(start=0, end, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor

    Deprecated: the values ``start, start + step, ...`` up to and including ``end``, in the
    default float dtype unless ``dtype`` says otherwise. Use :func:`arange`."""
    package = names.package()
    warnings.warn(f"{package}.range is deprecated and will be removed in a future release because its behavior "
                  f"is inconsistent with Python's range builtin. Instead, use {package}.arange, which produces "
                  "values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    dtype = dtype or dtypes.get_default_dtype()
    result = arange(count, dtype=dtypes.float64, device=device).mul_(step).add_(start).to(dtype)
    if out is not None:
        return out.resize_(result.shape).copy_(result)
    return result.requires_grad_(requires_grad)


_chain_matmul_warned = [False]


def chain_matmul(*matrices, out=None):
    """chain_matmul(*matrices, out=None) -> Tensor

    Deprecated: the product of the matrices in the cheapest order. Use :func:`linalg.multi_dot`."""
    if not _chain_matmul_warned[0] or is_warn_always_enabled():
        _chain_matmul_warned[0] = True
        package = names.package()
        warnings.warn(f"{package}.chain_matmul is deprecated and will be removed in a future release. Use "
                      f"{package}.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
                      "than multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices), out=out)


def fill(input, value):
    """fill(input, value) -> Tensor: a new tensor shaped like ``input`` filled with ``value``."""
    if hasattr(value, "_storage"):
        if value.ndim != 0:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               f"dimensions.")
        return value.to(input.dtype).expand(input.shape).clone()
    return full_like(input, value)


def fill_(input, value):
    """fill_(input, value) -> Tensor: fills ``input`` with ``value`` in place."""
    return input.fill_(value)


def zero_(input):
    """zero_(input) -> Tensor: fills ``input`` with zeros in place."""
    return input.zero_()


def detach(input):
    """detach(input) -> Tensor: ``input.detach()``."""
    return input.detach()


def detach_(input):
    """detach_(input) -> Tensor: ``input.detach_()``."""
    return input.detach_()


def resize_as_(input, the_template, *, memory_format=None):
    """resize_as_(input, the_template) -> Tensor: resizes ``input`` in place to ``the_template``'s shape."""
    return input.resize_(the_template.shape)


def unsafe_chunk(input, chunks: int, dim: int = 0):
    """unsafe_chunk(input, chunks, dim=0) -> tuple of Tensors: :func:`chunk`."""
    return tuple(_splitting.chunk(input, chunks, dim))


def unsafe_split(input, split_size, dim: int = 0):
    """unsafe_split(input, split_size, dim=0) -> tuple of Tensors: :func:`split`."""
    return tuple(_splitting.split(input, split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0):
    """unsafe_split_with_sizes(input, split_sizes, dim=0) -> tuple of Tensors: :func:`split_with_sizes`."""
    return split_with_sizes(input, split_sizes, dim)


def nonzero_static(input, *, size: int, fill_value: int = -1):
    """nonzero_static(input, *, size, fill_value=-1) -> Tensor

    The (size, input.ndim) indices of ``input``'s nonzero elements, as :func:`nonzero`, cut to
    ``size`` rows or padded with ``fill_value``."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    found = _advanced.nonzero(input)[:size]
    missing = size - found.shape[0]
    if missing == 0:
        return found
    return _movement_cat([found, found.new_full((missing, found.shape[1]), fill_value)])


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """addmv_(input, mat, vec, *, beta=1, alpha=1) -> Tensor: ``input.addmv_(mat, vec)``."""
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)
