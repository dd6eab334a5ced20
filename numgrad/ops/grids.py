"""Coordinate grids and rotations composed from views and copies: meshgrid, cartesian_prod, rot90.

Everything here is written in numgrad ops, so gradients flow through the views they return;
rot90 records one node of its own (PyTorch's Rot90Backward0).
"""
from __future__ import annotations

import operator

from .. import shapes
from ..autograd.tape import plain, record_result
from .records import primitive
from .movement import stack
from ..autograd.profiler import op_event

__all__ = ["meshgrid", "cartesian_prod", "rot90"]


def _tensor_list(tensors) -> list:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    return tensors


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """meshgrid(*tensors, indexing='ij') -> seq of Tensors

    Coordinate grids from N 0-D or 1-D tensors: result ``i`` has shape ``(len(t0), ..., len(tN-1))``
    and varies along dim ``i``. ``indexing='xy'`` swaps the first two dims (Cartesian, as NumPy's
    default). The results are expanded views of the inputs: write to them with care."""
    tensors = _tensor_list(tensors)
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                               f"a {t.ndim}D tensor of shape {list(t.shape)}")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:
        tensors[0], tensors[1] = tensors[1], tensors[0]
    sizes = [t.numel() for t in tensors]
    grids = []
    for i, t in enumerate(tensors):
        view = [1] * len(tensors)
        view[i] = -1
        grids.append(t.reshape(view).expand(sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """cartesian_prod(*tensors) -> Tensor

    The Cartesian product of 1-D tensors, as rows: shape ``(n0 * n1 * ..., N)``, like
    ``itertools.product``. A single tensor is returned as is."""
    tensors = _tensor_list(tensors)
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


@op_event("aten::rot90")
def rot90(input, k: int = 1, dims=(0, 1)):
    """rot90(input, k=1, dims=(0, 1)) -> Tensor

    Rotates ``input`` by 90 degrees ``k`` times in the plane of ``dims``, from the first dim
    towards the second (counter-clockwise for a matrix); negative ``k`` rotates the other way."""
    if isinstance(k, float) or not hasattr(k, "__index__"):
        raise TypeError(f"rot90(): argument 'k' (position 2) must be int, not {type(k).__name__}")
    dims = list(dims)
    n = input.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = shapes.normalize_dim(dims[0], n), shapes.normalize_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    k = operator.index(k) % 4
    x = plain(input)
    if k == 1:
        r = x.flip(d1).transpose(d0, d1)
    elif k == 2:
        r = x.flip([d0, d1])
    elif k == 3:
        r = x.flip(d0).transpose(d0, d1)
    else:
        r = x.clone()
    # plain: the transposed copy is the result itself, not a view of a hidden tensor.
    return record_result(_rot90_op, (input,), plain(r), {"k": k, "dims": (d0, d1)})


_rot90_op = primitive("rot90", 1, vjp=(lambda g, ans, x, k, dims: rot90(g, -k, dims),),
                      jvp=(lambda t, ans, x, k, dims: rot90(t, k, dims),))
