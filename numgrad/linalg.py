"""The ``numgrad.linalg`` namespace: PyTorch's ``torch.linalg`` functions."""
from __future__ import annotations

from .ops.decompositions import (LinAlgError, inv, det, slogdet, solve, cholesky, qr, svd, svdvals, eigh,
                                 eigvalsh)
from .ops.linalg import matmul
from .ops.matrix_functions import (vector_norm, matrix_norm, linalg_norm as norm, pinv, matrix_rank, lstsq,
                                   matrix_power, multi_dot, vecdot, linalg_cross as cross)
from .ops.slice_views import diagonal as _diagonal

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eigh",
           "eigvalsh", "matmul", "vector_norm", "matrix_norm", "norm", "pinv", "matrix_rank", "lstsq",
           "matrix_power", "multi_dot", "vecdot", "cross", "diagonal"]


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor: ``A.diagonal`` over the last two dims."""
    return _diagonal(A, offset, dim1, dim2)
