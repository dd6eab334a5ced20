"""Matrix functions composed from numgrad's linear algebra: matrix_exp, cholesky_solve,
cholesky_inverse, lu_unpack, and the multivariate log-gamma mvlgamma."""
from __future__ import annotations

import math

from .. import dtypes
from ..autograd.autocast_state import cast_policy
from ..autograd import grad_mode
from ..creation import empty, eye
from ..return_types import return_type
from . import functional_elementwise as _E
from .decompositions import inv, solve
from .linalg import matmul
from .movement import stack

__all__ = ["matrix_exp", "cholesky_solve", "cholesky_inverse", "lu_unpack", "mvlgamma"]

# Taylor terms after scaling to norm <= 1/2: the remainder is below float64's epsilon.
_TAYLOR_TERMS = 18


def matrix_exp(input):
    """matrix_exp(input) -> Tensor

    The matrix exponential of each square matrix of ``input`` (*, n, n), by scaling and squaring
    a Taylor series; differentiable through its products."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.ndim > 1 else 1} by {input.shape[-1]} matrices")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype}")
    n = input.shape[-1]
    if input.numel() == 0:
        return input.clone()
    with grad_mode.no_grad():
        norm = float(input.abs().sum(-2).amax())
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    scaled = input / (2.0 ** squarings)
    identity = eye(n, dtype=input.dtype, device=input.device)
    # Horner's scheme: I + X (I + X/2 (I + X/3 (...))).
    result = identity + scaled / _TAYLOR_TERMS
    for k in range(_TAYLOR_TERMS - 1, 0, -1):
        result = identity + matmul(scaled, result) / k
    for _ in range(squarings):
        result = matmul(result, result)
    return result


def _gram(factor, upper: bool):
    return matmul(factor.mT, factor) if upper else matmul(factor, factor.mT)


@cast_policy("float32")
def cholesky_solve(input, input2, upper: bool = False, *, out=None):
    """cholesky_solve(B, L, upper=False, *, out=None) -> Tensor

    The solution X of ``A X = B`` where ``A = L L^T`` (``U^T U`` when ``upper``) is given by its
    Cholesky factor ``input2``."""
    if input.ndim < 2 or input2.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead")
    result = solve(_gram(input2, upper), input)
    return result if out is None else out.resize_(result.shape).copy_(result)


@cast_policy("float32")
def cholesky_inverse(input, upper: bool = False, *, out=None):
    """cholesky_inverse(L, upper=False, *, out=None) -> Tensor

    The inverse of ``A = L L^T`` (``U^T U`` when ``upper``) from its Cholesky factor."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError("cholesky_inverse: A must be batches of square matrices")
    result = inv(_gram(input, upper))
    return result if out is None else out.resize_(result.shape).copy_(result)


def _permutation(pivots, m: int, dtype, device):
    """The permutation matrices P (batched) with ``A = P L U`` from LAPACK's 1-based row swaps."""
    batch = tuple(pivots.shape[:-1])
    swaps = pivots.reshape(-1, pivots.shape[-1]).tolist()
    identity = eye(m, dtype=dtype, device=device)
    mats = []
    for row_swaps in swaps:
        order = list(range(m))
        for i, j in enumerate(row_swaps):
            order[i], order[j - 1] = order[j - 1], order[i]
        mats.append(identity[order].mT)
    return stack(mats).reshape(batch + (m, m)) if mats else empty(batch + (m, m), dtype=dtype, device=device)


def lu_unpack(LU_data, LU_pivots, unpack_data: bool = True, unpack_pivots: bool = True, *, out=None):
    """lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None) -> (Tensor, Tensor, Tensor)

    The factors ``P, L, U`` of ``A = P L U`` from the packed output of :func:`linalg.lu_factor`:
    ``L`` unit lower triangular (m, k), ``U`` upper triangular (k, n), ``k = min(m, n)``."""
    if LU_pivots.dtype is not dtypes.int32:
        raise RuntimeError("lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.")
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    dtype, device = LU_data.dtype, LU_data.device
    none = empty(0, dtype=dtype, device=device)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + eye(m, k, dtype=dtype, device=device)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = none
    P = _permutation(LU_pivots, m, dtype, device) if unpack_pivots else none
    result = (P, L, U)
    if out is not None:
        for dst, src in zip(out, result):
            dst.resize_(src.shape).copy_(src)
        result = tuple(out)
    return return_type("lu_unpack", ("P", "L", "U"))(*result)


def mvlgamma(input, p: int, *, out=None):
    """mvlgamma(input, p, *, out=None) -> Tensor

    The multivariate log-gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(input - i / 2)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    result = _E.lgamma(input)
    for i in range(1, p):
        result = result + _E.lgamma(input - i / 2)
    result = result + p * (p - 1) / 4 * math.log(math.pi)
    return result if out is None else out.resize_(result.shape).copy_(result)
