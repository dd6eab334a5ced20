"""Distances between vectors: cosine_similarity, pairwise_distance and pdist, composed from
numgrad ops (norms and index selection), so every derivative follows from their parts."""
from __future__ import annotations

from ... import dtypes
from ...autograd import grad_mode
from ...ops import functional_elementwise as _F
from ...ops.composites import broadcast_tensors
from ...ops.index_sets import triu_indices
from ...ops.matrix_functions import vector_norm
from ...dtypes import torch_type_name
from ...autograd.profiler import op_event

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def _norm(x, p, dim, keepdim):
    """``vector_norm``, accumulated in float32 for 16-bit float ``x`` (as PyTorch's norm kernels do):
    float16 squares overflow above 256 and underflow below 2**-12."""
    if x.dtype in dtypes.NARROW_FLOATING:
        return vector_norm(x, p, dim, keepdim, dtype=dtypes.float32).to(x.dtype)
    return vector_norm(x, p, dim, keepdim)


@op_event("aten::cosine_similarity")
def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """cosine_similarity(x1, x2, dim=1, eps=1e-8) -> Tensor

    ``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))`` over ``dim``, after broadcasting."""
    common = dtypes.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{torch_type_name(common)}")
    x1, x2 = broadcast_tensors(x1.to(common), x2.to(common))
    n1, n2 = _norm(x1, 2, dim, True), _norm(x2, 2, dim, True)
    # As PyTorch's, the eps floor changes the norms' values but not their derivatives. The lift
    # is 0 wherever the floor does not apply, so an inf norm stays inf (not inf - inf).
    with grad_mode.no_grad():
        lift1 = _F.where(n1 < eps, _F.clamp_min(n1, eps) - n1, 0.0)
        lift2 = _F.where(n2 < eps, _F.clamp_min(n2, eps) - n2, 0.0)
    return ((x1 / (n1 + lift1)) * (x2 / (n2 + lift2))).sum(dim)


@op_event("aten::pairwise_distance")
def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) -> Tensor

    The ``p``-norm of ``x1 - x2 + eps`` over the last dim, batched over the others."""
    last = max(x1.ndim, x2.ndim) - 1
    return _norm(x1 - x2 + eps, p, last, keepdim)


@op_event("aten::pdist")
def pdist(input, p: float = 2):
    """pdist(input, p=2) -> Tensor

    The ``p``-norm distances between every pair of rows ``i < j`` of an N x M input, in
    row-major order of the pairs: N * (N - 1) / 2 values."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if input.dtype in dtypes.NARROW_FLOATING and input.shape[0] > 1 and input.shape[1]:
        # PyTorch has no 16-bit float kernel, but returns without one when there is nothing to compute
        raise NotImplementedError(f"\"pdist\" not implemented for '{torch_type_name(input.dtype)}'")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    pairs = triu_indices(n, n, 1, device=input.device)
    return vector_norm(input.index_select(0, pairs[0]) - input.index_select(0, pairs[1]), p, 1)
