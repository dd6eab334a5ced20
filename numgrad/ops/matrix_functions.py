"""Linear-algebra functions composed from products and factorizations (norms, pinv, lstsq,
matrix_power, cross, trace, ...), and PyTorch's top-level spellings of the linalg functions.
"""
from __future__ import annotations

import math

from .. import dtypes, shapes
from ..autograd.autocast_state import cast_policy
from ..autograd import grad_mode, tape
from ..return_types import return_type
from . import decompositions as D
from .linalg import matmul
from .registry import write_out as _write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import empty, eye, ones_like, tensor, zeros, zeros_like
from .functional_elementwise import maximum, where
from .einsum import einsum
from ..autograd.profiler import op_event

__all__ = ["inverse", "det", "slogdet", "logdet", "cholesky", "qr", "svd", "pinverse", "matrix_power",
           "trace", "cross", "norm"]
TENSOR_METHODS = __all__

LstsqResult = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _eps(dtype) -> float:
    return 1.1920928955078125e-07 if dtype.itemsize == 4 else 2.220446049250313e-16


# ------------------------------------------------------------------------------ norms

def _pnorm_vjp(g, ans, x, p, dims, keepdim):
    if x.dtype in dtypes.NARROW_FLOATING:
        # in float32, as the norm itself: 1 / ||x|| of a subnormal difference overflows float16
        return _pnorm_vjp(g.float(), ans.float(), x.float(), p, dims, keepdim).to(x.dtype)
    a = ans if keepdim else _unsqueeze_all(ans, dims)
    ga = g if keepdim else _unsqueeze_all(g, dims)
    if p == 0:
        return zeros_like(x)
    if p == 1:
        return x.sign() * ga
    if math.isinf(p):
        # Ties for the largest (smallest) |x| share the gradient evenly, as in PyTorch.
        # None ties a NaN norm: no share is a NaN (0 / 0) then, the gradient is 0 as PyTorch's.
        hit = x.abs() == a
        return x.sign() * where(hit, ga / hit.sum(dims, True).to(x.dtype), 0.0)
    # d||x||_p/dx = x |x|^(p-2) / ||x||^(p-1); zero where the norm is zero, as in PyTorch.
    scale = where(a == 0, 0.0, ga / where(a == 0, 1.0, a) ** (p - 1))
    if p == 2:
        return x * scale
    if p >= 2:
        return x * x.abs() ** (p - 2) * scale
    # Below 2, x |x|^(p-2) is 0 * inf at x == 0, where PyTorch's gradient is 0.
    return where(x == 0, 0.0, x.sign() * x.abs() ** (p - 1)) * scale


def _pnorm_jvp(t, ans, x, p, dims, keepdim):
    g1 = _pnorm_vjp(_ones(ans), ans, x, p, dims, keepdim)
    return (g1 * t).sum(dims, keepdim)


def _ones(t):
    return ones_like(t)


def _unsqueeze_all(t, dims):
    for d in sorted(dims):
        t = t.unsqueeze(d)
    return t


_pnorm_op = primitive("linalg_vector_norm", 1, backward_name="LinalgVectorNormBackward0",
                      vjp=(_pnorm_vjp,), jvp=(_pnorm_jvp,))


def _check_float(name, x):
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{torch_type_name(x.dtype)}")


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None) -> Tensor:
    ``sum(|x|**ord)**(1/ord)`` over ``dim`` (all elements when None); ``ord`` may be inf, -inf or 0."""
    _check_float("linalg.vector_norm", x)
    if dtype is not None:
        x = x.to(dtype)
    dims = tuple(range(x.ndim)) if dim is None else shapes.normalize_dims(dim, x.ndim)
    ord = float(ord)
    if math.isinf(ord) and x.numel() == 0:
        name = f"linalg.vector_norm cannot compute the {'' if ord > 0 else '-'}inf norm on"
        if dim is None:
            raise RuntimeError(f"{name} an empty tensor because the operation does not have an identity")
        for d in dims:
            if x.shape[d] == 0:
                # PyTorch's message lacks the space after the dim.
                raise RuntimeError(f"{name} the dimension {d}because this dimension is empty and the "
                                   "operation does not have an identity")
    # Every order is one node (LinalgVectorNormBackward0), as in PyTorch, not the ops composing it.
    with grad_mode.no_grad():
        if math.isinf(ord):
            r = x.abs().amax(dims, keepdim) if ord > 0 else x.abs().amin(dims, keepdim)
        elif ord == 0:
            r = (x != 0).sum(dims, keepdim).to(x.dtype)
        else:
            # 16-bit float powers and sums run in float32, as PyTorch's: a square near 65504 stays finite
            w = x.float() if x.dtype in dtypes.NARROW_FLOATING else x
            if ord == 1:
                r = w.abs().sum(dims, keepdim)
            elif ord == 2:
                r = (w * w).sum(dims, keepdim).sqrt()
            else:
                r = (w.abs() ** ord).sum(dims, keepdim) ** (1.0 / ord)
            r = r.to(x.dtype)
    params = {"p": ord, "dims": dims, "keepdim": keepdim}
    if tape.should_record((x,)):
        tape.record(_pnorm_op, (x,), r, params)
    if tape.has_tangents((x,)):
        tape.forward_jvp(_pnorm_op, (x,), r, params)
    return _write_out(r, out, "vector_norm")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False) -> Tensor: 'fro', 'nuc',
    inf, -inf, 1, -1, 2 or -2 norm of the matrices over ``dim``."""
    _check_float("linalg.matrix_norm", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = (shapes.normalize_dim(d, A.ndim) for d in dim)
    if ord == "fro":
        return _write_out(vector_norm(A, 2, (d0, d1), keepdim), out, "matrix_norm")
    if ord == "nuc" or ord in (2, -2):
        s = D.svdvals(A.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
    elif ord in (1, -1, math.inf, -math.inf):
        # 1-norms take the largest column sum, inf-norms the largest row sum.
        sum_dim, red_dim = (d0, d1) if abs(ord) == 1 else (d1, d0)
        sums = A.abs().sum(sum_dim, True)
        r = sums.amax(red_dim, True) if ord > 0 else sums.amin(red_dim, True)
        r = r.squeeze((d0, d1))
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return _write_out(r, out, "matrix_norm")


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """linalg.norm(A, ord=None, dim=None, keepdim=False) -> Tensor: a vector norm (``dim`` an int,
    or 1-D input) or a matrix norm (``dim`` a pair, or 2-D input with ``ord`` given)."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2 or isinstance(ord, str):
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.ndim}D.")
    return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)



# ------------------------------------------------------------------------------ pinv, lstsq, rank

def _cutoff(s, atol, rtol, m, n, dtype):
    if rtol is None:
        rtol = _eps(dtype) * max(m, n) if atol is None or atol == 0 else 0.0
    smax = s.amax(-1, keepdim=True) if s._shape[-1] else s.sum(-1, keepdim=True)
    tol = smax * rtol
    if atol is not None:
        tol = maximum(tol, atol) if not hasattr(atol, "_storage") else maximum(tol, atol.unsqueeze(-1))
    return tol


@cast_policy("float32")
def pinv(A, *, atol=None, rtol=None, hermitian=False, rcond=None, out=None):
    """linalg.pinv(A, *, atol=None, rtol=None) -> Tensor: the Moore-Penrose pseudoinverse,
    through the SVD; singular values below ``max(atol, rtol * s_max)`` count as zero."""
    D.check_input("linalg.pinv", A, square=False)
    if rcond is not None:
        rtol = rcond
    m, n = A._shape[-2:]
    u, s, vh = D.svd(A, full_matrices=False)
    keep = s > _cutoff(s, atol, rtol, m, n, A.dtype)
    # where() on both sides keeps 1/s of dropped values out of the gradient.
    sinv = where(keep, 1.0 / where(keep, s, 1.0), 0.0)
    return _write_out((vh.mT * sinv.unsqueeze(-2)) @ u.mT, out, "pinv")


@cast_policy("float32")
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """linalg.matrix_rank(A, *, atol=None, rtol=None) -> Tensor: the number of singular values
    above the tolerance."""
    D.check_input("linalg.matrix_rank", A, square=False)
    s = D.svdvals(A.detach())
    return _write_out((s > _cutoff(s, atol, rtol, *A._shape[-2:], A.dtype)).sum(-1), out, "matrix_rank")


@cast_policy("float32")
def lstsq(A, B, rcond=None, *, driver=None):
    """linalg.lstsq(A, B, rcond=None, *, driver=None) -> (solution, residuals, rank, singular_values):
    the least-squares (minimum-norm) solution of ``A X = B``.

    ``residuals`` are filled for full-rank tall ``A`` with drivers other than 'gelsy' (the
    default); ``singular_values`` for the SVD drivers 'gelsd' and 'gelss'."""
    D.check_input("linalg.lstsq", A, square=False)
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss), but got {driver}")
    vector = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    m, n = A._shape[-2:]
    if b._shape[-2] != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    x = pinv(A, rtol=rcond) @ b
    s = D.svdvals(A.detach())
    rank = (s > _cutoff(s, None, rcond, m, n, A.dtype)).sum(-1)
    residuals = empty(0, dtype=A.dtype)
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ x - b) ** 2).sum(-2)
        if vector:
            residuals = residuals.squeeze(-1)
    svals = s if driver in ("gelsd", "gelss") else empty(0, dtype=A.dtype)
    return LstsqResult(x.squeeze(-1) if vector else x, residuals, rank, svals)


# ------------------------------------------------------------------------------ products of matrices

def matrix_power(A, n, *, out=None):
    """linalg.matrix_power(A, n) -> Tensor: the n-th power of square matrices (the inverse's for n < 0)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A._shape[-2]} by {A._shape[-1]} matrices")
    if n == 0:
        identity = eye(A._shape[-1], dtype=A.dtype, device=A.device).expand(A._shape).clone()
        return _write_out(identity, out, "matrix_power")
    if n < 0:
        A = D.inv(A)
        n = -n
    result = None
    base = A
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    return _write_out(result, out, "matrix_power")


def multi_dot(tensors, *, out=None):
    """linalg.multi_dot(tensors) -> Tensor: the chained product; the first and last may be vectors."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    r = tensors[0]
    for t in tensors[1:]:
        r = matmul(r, t)
    return _write_out(r, out, "multi_dot")


@cast_policy("lower")
def vecdot(x, y, *, dim=-1, out=None):
    """linalg.vecdot(x, y, *, dim=-1) -> Tensor: dot products along ``dim`` with broadcasting."""
    return _write_out((x * y).sum(dim), out, "vecdot")


def _trace_vjp(g, ans, x):
    return eye(x.shape[0], x.shape[1], dtype=g.dtype, device=g.device) * g


_trace_op = primitive("trace", 1, vjp=(_trace_vjp,), jvp=(lambda t, ans, x: trace(t),))


@op_event("aten::trace", autocast="float32")
def trace(input):
    """trace(input) -> Tensor: the sum of the main diagonal of a 2-D tensor."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype.name == "bool":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return tape.record_result(_trace_op, (input,), tape.plain(input).diagonal().sum())


_LEVI_CIVITA = [[[0, 0, 0], [0, 0, 1], [0, -1, 0]],
                [[0, 0, -1], [0, 0, 0], [1, 0, 0]],
                [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]]


def _same_ndim(a, b):
    if len(a._shape) != len(b._shape):
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")


def _cross(a, b, dim, name):
    _same_ndim(a, b)
    d = shapes.normalize_dim(dim, len(a._shape))
    if a._shape[d] != 3 or b._shape[d] != 3:
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got {a._shape[d]} and "
                           f"{b._shape[d]}")
    shape = shapes.broadcast_shapes(a._shape, b._shape)
    a = a.expand(shape).movedim(d, -1)
    b = b.expand(shape).movedim(d, -1)
    # c_i = eps_ijk a_j b_k: products with +-1 and 0 only, so the result is exact.
    eps = tensor(_LEVI_CIVITA, dtype=a.dtype, device=a.device)
    # plain: the moved result is the result itself, not a view of a hidden tensor.
    # The dim counted from the end names the same dim of the rules' operands, whatever their ndim.
    return tape.plain(einsum("...j,...k,ijk->...i", a, b, eps).movedim(-1, d)), d - len(shape)


# One node (PyTorch's LinalgCrossBackward0); the engine sums cotangents over broadcast dims.
_cross_op = primitive("linalg_cross", 2,
                      vjp=(lambda g, ans, x, y, dim: linalg_cross(y, g, dim=dim),
                           lambda g, ans, x, y, dim: linalg_cross(g, x, dim=dim)),
                      jvp=(lambda t, ans, x, y, dim: linalg_cross(t, y, dim=dim),
                           lambda t, ans, x, y, dim: linalg_cross(x, t, dim=dim)))


def _recorded_cross(a, b, dim, name):
    r, d = _cross(tape.plain(a), tape.plain(b), dim, name)
    return tape.record_result(_cross_op, (a, b), r, {"dim": d})


def linalg_cross(input, other, *, dim=-1, out=None):
    """linalg.cross(input, other, *, dim=-1) -> Tensor: cross products of 3-vectors along ``dim``."""
    return _write_out(_recorded_cross(input, other, dim, "linalg.cross"), out, "linalg_cross")


def cross(input, other, dim=None, *, out=None):
    """cross(input, other, dim=None) -> Tensor: cross products along ``dim`` (the first dim of size
    3 when None)."""
    if dim is None:
        _same_ndim(input, other)
        shape = shapes.broadcast_shapes(input._shape, other._shape)
        dim = next((k for k, s in enumerate(shape) if s == 3), -1)
    return _write_out(_recorded_cross(input, other, dim, "linalg.cross"), out, "cross")


# ------------------------------------------------------------------------------ top-level spellings

SlogdetResult = return_type("slogdet", ["sign", "logabsdet"])
QRResult = return_type("qr", ["Q", "R"])
SVDResult = return_type("svd", ["U", "S", "V"])


@cast_policy("float32")
def inverse(input, *, out=None):
    """inverse(input) -> Tensor: alias of :func:`numgrad.linalg.inv`."""
    return D.inv(input, out=out)


def det(input):
    """det(input) -> Tensor: alias of :func:`numgrad.linalg.det`."""
    return D.det(input)


def slogdet(input):
    """slogdet(input) -> (sign, logabsdet): alias of :func:`numgrad.linalg.slogdet`."""
    return SlogdetResult(*D.slogdet(input))


def logdet(input):
    """logdet(input) -> Tensor: log det(input); NaN for a negative and -inf for a zero determinant."""
    sign, logabs = D.slogdet(input)
    return logabs + sign.log()


@cast_policy("float32")
def cholesky(input, upper=False, *, out=None):
    """cholesky(input, upper=False) -> Tensor: alias of :func:`numgrad.linalg.cholesky`."""
    if not input.dtype.is_floating_point:
        # This older entry point reaches the LAPACK kernel before any dtype check.
        raise NotImplementedError(f"\"cholesky_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    return D.cholesky(input, upper=upper, out=out)


@cast_policy("float32")
def qr(input, some=True, *, out=None):
    """qr(input, some=True) -> (Q, R): reduced (``some``) or complete QR factorization."""
    return QRResult(*D.qr(input, "reduced" if some else "complete"))


@cast_policy("float32")
def svd(input, some=True, compute_uv=True, *, out=None):
    """svd(input, some=True, compute_uv=True) -> (U, S, V): ``input = U diag(S) V^T``; note V,
    not Vh. ``some=False`` gives full U and V; without ``compute_uv`` they are zero."""
    if not compute_uv:
        m, n = input._shape[-2:]
        s = D.svdvals(input)
        u = zeros(input._shape[:-2] + (m, m if not some else min(m, n)), dtype=input.dtype)
        v = zeros(input._shape[:-2] + (n, n if not some else min(m, n)), dtype=input.dtype)
        return SVDResult(u, s, v)
    u, s, vh = D.svd(input, full_matrices=not some)
    return SVDResult(u, s, vh.mT)


@cast_policy("float32")
def pinverse(input, rcond=1e-15):
    """pinverse(input, rcond=1e-15) -> Tensor: alias of :func:`numgrad.linalg.pinv` with ``rtol=rcond``."""
    return pinv(input, rtol=rcond)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """norm(input, p='fro', dim=None, keepdim=False, dtype=None) -> Tensor: the Frobenius or
    nuclear matrix norm, or the vector ``p``-norm over ``dim`` (all elements when None)."""
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype, out=out)
    if p == "fro" and dim is not None and not isinstance(dim, int) and len(dim) > 2:
        return matrix_norm(input, p, dim, keepdim, dtype=dtype, out=out)
    return vector_norm(input, 2 if p == "fro" else p, dim, keepdim, dtype=dtype, out=out)
