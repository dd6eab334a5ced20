"""Factorizations and solvers run by LAPACK (inv, det, slogdet, solve, cholesky, qr, svd, eigh),
each declared with its VJP and JVP rules written in numgrad ops.

An op with several differentiable results records one tape entry on their concatenation
(flattened per batch element); the results are views of it, so one rule sees every cotangent.
"""
from __future__ import annotations

from .. import dtypes, shapes
from ..autograd.autocast_state import cast_policy
from ..autograd import tape
from ..return_types import return_type as _return_type
from .host_fallback import on_host
from .registry import write_out as _write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import empty, eye, ones, zeros
from .movement import cat
from .functional_elementwise import where
from ..autograd.profiler import op_event

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "cholesky", "qr", "svd", "svdvals", "eigh",
           "eigvalsh"]


class LinAlgError(RuntimeError):
    """Raised when a factorization cannot be completed (singular or not positive-definite input)."""


SlogdetResult = _return_type("linalg_slogdet", ["sign", "logabsdet"])
QRResult = _return_type("linalg_qr", ["Q", "R"])
SVDResult = _return_type("linalg_svd", ["U", "S", "Vh"])
EighResult = _return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])


# ------------------------------------------------------------------------------ shared plumbing

def _kernels(device):
    if device.type != "cpu":
        raise NotImplementedError(f"linear algebra is not implemented for device {device}")
    from . import cpu_linalg
    return cpu_linalg


# The LAPACK kernels PyTorch dispatches to before checking the dtype itself: a dtype they lack
# raises NotImplementedError naming the kernel. Integer inputs reach the kernel only in eigh.
_KERNEL = {"linalg.det": "lu_cpu", "linalg.solve": "lu_cpu", "linalg.cholesky": "cholesky_cpu",
           "linalg.qr": "geqrf_cpu", "linalg.svd": "linalg_svd_cpu", "linalg.svdvals": "linalg_svd_cpu",
           "linalg.eigh": "linalg_eigh_cpu", "linalg.eigvalsh": "linalg_eigh_cpu"}
_KERNEL_FIRST = ("linalg.eigh", "linalg.eigvalsh")
# The one of them PyTorch calls even when there are no elements (the others return at once).
_KERNEL_EVEN_EMPTY = ("linalg.qr",)


def check_input(name, x, square=True):
    """PyTorch's checks for a stack of matrices: float dtype, at least 2-D, square if asked."""
    if not x.dtype.is_floating_point:
        if name in _KERNEL_FIRST:
            raise NotImplementedError(f"\"{_KERNEL[name]}\" not implemented for '{torch_type_name(x.dtype)}'")
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{torch_type_name(x.dtype)}")
    if x.dtype in dtypes.NARROW_FLOATING:
        if name not in _KERNEL:
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {torch_type_name(x.dtype)}")
        if x.numel() or name in _KERNEL_EVEN_EMPTY:
            raise NotImplementedError(f"\"{_KERNEL[name]}\" not implemented for '{torch_type_name(x.dtype)}'")
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and x._shape[-1] != x._shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {x._shape[-2]} by "
                           f"{x._shape[-1]} matrices")


def _batch_prefix(x, failure) -> str:
    return f"(Batch element {failure.batch}): " if x.ndim > 2 else ""


def _call(fn, x, *args, name="", singular=None):
    """Run backend ``fn``, turning a failed factorization into PyTorch's LinAlgError."""
    lapack = _kernels(x.device)
    try:
        return fn(lapack)(x, *args)
    except lapack.Failure as f:
        prefix = _batch_prefix(x, f)
        if f.order == 0:
            raise LinAlgError(f"{name}: {prefix}The algorithm failed to converge because the input matrix "
                              "contained non-finite values.") from None
        raise LinAlgError(singular(prefix, f.order)) from None


def _finish(op, inputs, outs, nbatch, params=None):
    """Record ``op`` on the results; several results share one entry through a packed tensor."""
    params = dict(params or {})
    record = op.differentiable and tape.should_record(inputs)
    forward = tape.has_tangents(inputs)
    if not (record or forward):
        return outs
    if len(outs) == 1:
        packed = outs[0]
    else:
        params["layout"] = tuple(o._shape[nbatch:] for o in outs)
        packed = _pack(outs, nbatch)
    if record:
        tape.record(op, inputs, packed, params)
    if forward:
        tape.forward_jvp(op, inputs, packed, params)
    return (packed,) if len(outs) == 1 else _unpack(packed, params["layout"])


def _pack(parts, nbatch):
    batch = parts[0]._shape[:nbatch]
    return cat([p.reshape(batch + (-1,)) for p in parts], -1)


def _unpack(packed, layout):
    batch = packed._shape[:-1]
    out, start = [], 0
    for shape in layout:
        n = shapes.prod(shape)
        out.append(packed.narrow(-1, start, n).reshape(batch + tuple(shape)))
        start += n
    return tuple(out)


def _eye_like(n, like):
    return eye(n, dtype=like.dtype, device=like.device)


def _tril_mask(n, like, diagonal=0):
    return ones(n, n, dtype=like.dtype, device=like.device).tril(diagonal)


def _sym(x):
    return (x + x.mT) * 0.5


def _batch_trace(x):
    return x.diagonal(0, -2, -1).sum(-1)


# ------------------------------------------------------------------------------ inv

def _inv_singular(prefix, order):
    return (f"linalg.inv: {prefix}The diagonal element {order} is zero, the inversion could not be completed "
            "because the input matrix is singular.")


_inv_op = primitive("linalg_inv", 1, backward_name="LinalgInvExBackward0",
                    vjp=(lambda g, ans, a: -(ans.mT @ g @ ans.mT),),
                    jvp=(lambda t, ans, a: -(ans @ t @ ans),))


@on_host
@op_event("aten::linalg_inv", autocast="float32")
def inv(A, *, out=None):
    """linalg.inv(A) -> Tensor: the inverse of each square matrix in ``A``.

    Raises LinAlgError when a matrix is singular."""
    check_input("linalg.inv", A)
    r = _call(lambda k: k.inv, A, name="linalg.inv", singular=_inv_singular)
    return _write_out(_finish(_inv_op, (A,), (r,), A.ndim - 2)[0], out, "inv")



# ------------------------------------------------------------------------------ det, slogdet

def _adjugate_t(a, d):
    """adj(a)^T, which is det(a) a^{-T} when a is invertible; through the SVD otherwise, where
    adj(U S Vh)^T = det(U) det(Vh) U adj(S) Vh and adj(S)_i is the product of the other s_j."""
    if a.numel() == 0:
        # Nothing to invert (and no kernel to refuse a 16-bit float, as in PyTorch).
        return a * 0
    if not bool((d == 0).any()):
        return d.unsqueeze(-1).unsqueeze(-1) * inv(a).mT
    u, s, vh = svd(a, full_matrices=False)
    n = s._shape[-1]
    eye = _eye_like(n, a) != 0
    others = where(eye, 1.0, s.unsqueeze(-2).expand(s._shape + (n,))).prod(-1)
    signs = det(u.detach()) * det(vh.detach())
    return signs.unsqueeze(-1).unsqueeze(-1) * (u * others.unsqueeze(-2)) @ vh


_det_op = primitive("linalg_det", 1, backward_name="LinalgDetBackward0",
                    vjp=(lambda g, ans, a: g.unsqueeze(-1).unsqueeze(-1) * _adjugate_t(a, ans),),
                    jvp=(lambda t, ans, a: (_adjugate_t(a, ans) * t).sum((-2, -1)),))


@on_host
@op_event("aten::linalg_det")
def det(A, *, out=None):
    """linalg.det(A) -> Tensor: the determinant of each square matrix in ``A``."""
    check_input("linalg.det", A)
    r = _call(lambda k: k.det, A, name="linalg.det")
    return _write_out(_finish(_det_op, (A,), (r,), A.ndim - 2)[0], out, "det")


_slogdet_op = primitive("linalg_slogdet", 1, backward_name="LinalgSlogdetBackward0",
                        vjp=(lambda g, ans, a: g.unsqueeze(-1).unsqueeze(-1) * inv(a).mT,),
                        jvp=(lambda t, ans, a: (inv(a).mT * t).sum((-2, -1)),))


@on_host
def slogdet(A, *, out=None):
    """linalg.slogdet(A) -> (sign, logabsdet): the sign and the log of the absolute value of the
    determinant; only ``logabsdet`` is differentiable."""
    check_input("linalg.slogdet", A)
    sign, logabs = _call(lambda k: k.slogdet, A, name="linalg.slogdet")
    logabs = _finish(_slogdet_op, (A,), (logabs,), A.ndim - 2)[0]
    return SlogdetResult(sign, logabs)


# ------------------------------------------------------------------------------ solve

def _solve_singular(prefix, order):
    return f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular."


def _solve_raw(a, b):
    return _call(lambda k: k.solve, a, b, name="linalg.solve", singular=_solve_singular)


_solve_op = primitive("linalg_solve", 2, backward_name="LinalgSolveExBackward0",
                      vjp=(lambda g, ans, a, b: -solve(a.mT, g) @ ans.mT,
                           lambda g, ans, a, b: solve(a.mT, g)),
                      jvp=(lambda t, ans, a, b: -solve(a, t @ ans),
                           lambda t, ans, a, b: solve(a, t)))


@on_host
@op_event("aten::linalg_solve", autocast="float32")
def solve(A, B, *, left=True, out=None):
    """linalg.solve(A, B, *, left=True) -> Tensor: the solution X of ``A X = B`` (``X A = B`` when
    ``left`` is False). ``B`` may be a (batch of) vector(s); batch dims broadcast."""
    check_input("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{torch_type_name(A.dtype)} and B of type {torch_type_name(B.dtype)} instead")
    if not left:
        return _write_out(solve(A.mT, B.mT).mT, out, "solve")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])
    b = B.unsqueeze(-1) if vector else B
    n = A._shape[-1]
    if b._shape[-2] != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {b._shape[-2]}x{b._shape[-1]})")
    batch = shapes.broadcast_shapes(A._shape[:-2], b._shape[:-2])
    a = A.expand(batch + A._shape[-2:])
    b = b.expand(batch + b._shape[-2:])
    x = _finish(_solve_op, (a, b), (_solve_raw(a, b),), len(batch))[0]
    return _write_out(x.squeeze(-1) if vector else x, out, "solve")


# ------------------------------------------------------------------------------ cholesky

def _phi(x):
    """The lower triangle with the diagonal halved."""
    n = x._shape[-1]
    return x * (_tril_mask(n, x) - _eye_like(n, x) * 0.5)


def _cholesky_vjp(g, ans, a):
    # gA = L^{-T} phi(L^T gL) L^{-1}, symmetrized since only symmetric inputs are meaningful.
    linv = inv(ans)
    return _sym(linv.mT @ _phi(ans.mT @ g) @ linv)


def _cholesky_jvp(t, ans, a):
    linv = inv(ans)
    return ans @ _phi(linv @ t @ linv.mT)


def _cholesky_singular(prefix, order):
    return (f"linalg.cholesky: {prefix}The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {order} is not positive-definite).")


_cholesky_op = primitive("linalg_cholesky", 1, backward_name="LinalgCholeskyExBackward0",
                         vjp=(_cholesky_vjp,), jvp=(_cholesky_jvp,))


@on_host
@cast_policy("float32")
def cholesky(A, *, upper=False, out=None):
    """linalg.cholesky(A, *, upper=False) -> Tensor: L with ``A = L L^T`` (or U with ``A = U^T U``),
    reading the lower triangle of ``A``. Raises LinAlgError unless positive-definite."""
    check_input("linalg.cholesky", A)
    r = _call(lambda k: k.cholesky, A, name="linalg.cholesky", singular=_cholesky_singular)
    r = _finish(_cholesky_op, (A,), (r,), A.ndim - 2)[0]
    return _write_out(r.mT if upper else r, out, "cholesky")


# ------------------------------------------------------------------------------ qr

def _qr_check(a, mode):
    m, n = a._shape[-2:]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")


def _qr_square_vjp(gq, gr, q, r):
    """The cotangent of A = Q R for R square (k x k), A of k columns."""
    # gA = Q (gR + tril(Q^T gQ - gQ^T Q + R gR^T - gR R^T) R^{-T}) + (gQ - Q Q^T gQ) R^{-T}
    qgq = q.mT @ gq
    rgr = r @ gr.mT
    low = (qgq - qgq.mT + rgr - rgr.mT) * _tril_mask(r._shape[-1], r)
    rinv_t = inv(r).mT
    return q @ (gr + low @ rinv_t) + (gq - q @ qgq) @ rinv_t


def _qr_square_jvp(t, q, r):
    """(dQ, dR) of A = Q R for R square, given dA."""
    rinv = inv(r)
    x = q.mT @ t @ rinv
    low = x * _tril_mask(r._shape[-1], r, -1)
    omega = low - low.mT
    return t @ rinv - q @ (x - omega), (x - omega) @ r


def _qr_vjp(g, ans, a, mode, layout):
    _qr_check(a, mode)
    m, n = a._shape[-2:]
    gq, gr = _unpack(g, layout)
    q, r = _unpack(ans, layout)
    if m >= n:
        return _qr_square_vjp(gq, gr, q, r)
    # A wide A = [X | Y] factors as X = Q U and Y = Q V with V = Q^T Y: X's square rule sees
    # V's cotangent reach Q, and Y's cotangent is Q gV.
    y, gv = a.narrow(-1, m, n - m), gr.narrow(-1, m, n - m)
    gx = _qr_square_vjp(gq + y @ gv.mT, gr.narrow(-1, 0, m), q, r.narrow(-1, 0, m))
    return _cat_last(gx, q @ gv)


def _qr_jvp(t, ans, a, mode, layout):
    _qr_check(a, mode)
    m, n = a._shape[-2:]
    q, r = _unpack(ans, layout)
    if m >= n:
        return _pack(_qr_square_jvp(t, q, r), a.ndim - 2)
    dq, du = _qr_square_jvp(t.narrow(-1, 0, m), q, r.narrow(-1, 0, m))
    dv = dq.mT @ a.narrow(-1, m, n - m) + q.mT @ t.narrow(-1, m, n - m)
    return _pack((dq, _cat_last(du, dv)), a.ndim - 2)


_qr_op = primitive("linalg_qr", 1, backward_name="LinalgQrBackward0", vjp=(_qr_vjp,), jvp=(_qr_jvp,))


@on_host
@cast_policy("float32")
def qr(A, mode="reduced", *, out=None):
    """linalg.qr(A, mode='reduced') -> (Q, R): ``A = Q R`` with orthonormal Q and upper triangular R.

    ``mode``: 'reduced' (Q is m x k), 'complete' (Q is m x m) or 'r' (R only; Q is empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    check_input("linalg.qr", A, square=False)
    m, n = A._shape[-2:]
    x = A
    if mode == "complete" and m > n:
        # Zero columns leave their Householder reflectors at the identity, which completes Q.
        x = _cat_last(A.detach(), zeros(A._shape[:-1] + (m - n,), dtype=A.dtype, device=A.device))
    q, r = _call(lambda k: k.qr, x, name="linalg.qr")
    if x is not A:
        r = r.narrow(-1, 0, n).contiguous()
    q, r = _finish(_qr_op, (A,), (q, r), A.ndim - 2, {"mode": mode})
    if mode == "r":
        q = empty(0, dtype=A.dtype, device=A.device)
    return QRResult(q, r)


def _cat_last(a, b):
    return cat([a, b], -1)


# ------------------------------------------------------------------------------ svd

def _svd_vjp(g, ans, a, full_matrices, layout):
    gu, gs, gvh = _unpack(g, layout)
    u, s, vh = _unpack(ans, layout)
    m, n = a._shape[-2:]
    k = s._shape[-1]
    if full_matrices and m != n:
        # Only the first k singular vectors are determined by A.
        u, gu = u.narrow(-1, 0, k), gu.narrow(-1, 0, k)
        vh, gvh = vh.narrow(-2, 0, k), gvh.narrow(-2, 0, k)
    s2 = s * s
    eye = _eye_like(k, a) != 0
    e = where(eye, 1.0, s2.unsqueeze(-2) - s2.unsqueeze(-1))
    uhgu = u.mT @ gu
    vhgv = vh @ gvh.mT
    uhgu = uhgu - uhgu.mT
    vhgv = vhgv - vhgv.mT
    inner = where(eye, 0.0, (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / e)
    inner = inner + gs.diag_embed()
    if m > n:
        gus = gu / s.unsqueeze(-2)
        return (u @ inner + gus - u @ (u.mT @ gus)) @ vh
    if m < n:
        sgv = gvh / s.unsqueeze(-1)
        return u @ (inner @ vh + sgv - (sgv @ vh.mT) @ vh)
    return u @ inner @ vh


def _svd_jvp(t, ans, a, full_matrices, layout):
    u, s, vh = _unpack(ans, layout)
    m, n = a._shape[-2:]
    k = s._shape[-1]
    if full_matrices and m != n:
        raise NotImplementedError("linalg.svd: forward-mode derivatives need full_matrices=False for "
                                  "non-square inputs")
    v = vh.mT
    dp = u.mT @ t @ v
    ds = dp.diagonal(0, -2, -1)
    s2 = s * s
    eye = _eye_like(k, a) != 0
    f = where(eye, 0.0, 1.0 / where(eye, 1.0, s2.unsqueeze(-2) - s2.unsqueeze(-1)))
    sd = s.unsqueeze(-2)
    du_core = f * (dp * sd + sd.mT * dp.mT)
    dv_core = f * (sd.mT * dp + dp.mT * sd)
    du = u @ du_core
    dv = v @ dv_core
    if m > n:
        du = du + (t @ v - u @ (u.mT @ t @ v)) / sd
    if m < n:
        dv = dv + (t.mT @ u - v @ (v.mT @ t.mT @ u)) / sd
    return _pack((du, ds, dv.mT), a.ndim - 2)


_svd_op = primitive("linalg_svd", 1, backward_name="LinalgSvdBackward0", vjp=(_svd_vjp,), jvp=(_svd_jvp,))


@on_host
@cast_policy("float32")
def svd(A, full_matrices=True, *, driver=None, out=None):
    """linalg.svd(A, full_matrices=True) -> (U, S, Vh): ``A = U diag(S) Vh`` with singular values
    in descending order; ``full_matrices=False`` gives the reduced factors."""
    check_input("linalg.svd", A, square=False)
    u, s, vh = _call(lambda k: k.svd, A, bool(full_matrices), name="linalg.svd")
    u, s, vh = _finish(_svd_op, (A,), (u, s, vh), A.ndim - 2, {"full_matrices": bool(full_matrices)})
    return SVDResult(u, s, vh)


@on_host
@cast_policy("float32")
def svdvals(A, *, driver=None, out=None):
    """linalg.svdvals(A) -> Tensor: the singular values of ``A`` in descending order."""
    check_input("linalg.svdvals", A, square=False)
    if tape.should_record((A,)) or tape.has_tangents((A,)):
        return _write_out(svd(A, full_matrices=False).S, out, "svdvals")
    return _write_out(_call(lambda k: k.svd, A, False, name="linalg.svd")[1], out, "svdvals")


# ------------------------------------------------------------------------------ eigh

def _eigh_vjp(g, ans, a, layout):
    gl, gv = _unpack(g, layout)
    lam, v = _unpack(ans, layout)
    n = lam._shape[-1]
    eye = _eye_like(n, a) != 0
    e = where(eye, 1.0, lam.unsqueeze(-2) - lam.unsqueeze(-1))
    vhgv = v.mT @ gv
    inner = where(eye, 0.0, (vhgv - vhgv.mT) * 0.5 / e) + gl.diag_embed()
    return v @ inner @ v.mT


def _eigh_jvp(t, ans, a, layout):
    lam, v = _unpack(ans, layout)
    n = lam._shape[-1]
    eye = _eye_like(n, a) != 0
    vtv = v.mT @ t @ v
    f = where(eye, 0.0, 1.0 / where(eye, 1.0, lam.unsqueeze(-2) - lam.unsqueeze(-1)))
    return _pack((vtv.diagonal(0, -2, -1), v @ (f * vtv)), a.ndim - 2)


_eigh_op = primitive("linalg_eigh", 1, backward_name="LinalgEighBackward0", vjp=(_eigh_vjp,), jvp=(_eigh_jvp,))


def _check_uplo(name, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@on_host
@cast_policy("float32")
def eigh(A, UPLO="L", *, out=None):
    """linalg.eigh(A, UPLO='L') -> (eigenvalues, eigenvectors) of symmetric matrices, reading the
    lower (or upper) triangle; eigenvalues ascend."""
    _check_uplo("linalg.eigh", UPLO)
    check_input("linalg.eigh", A)
    x = A.mT if UPLO == "U" else A
    w, v = _call(lambda k: k.eigh, x, name="linalg.eigh")
    w, v = _finish(_eigh_op, (x,), (w, v), A.ndim - 2)
    return EighResult(w, v)


@on_host
@cast_policy("float32")
def eigvalsh(A, UPLO="L", *, out=None):
    """linalg.eigvalsh(A, UPLO='L') -> Tensor: the ascending eigenvalues of symmetric matrices."""
    _check_uplo("linalg.eigvalsh", UPLO)
    check_input("linalg.eigvalsh", A)
    if tape.should_record((A,)) or tape.has_tangents((A,)):
        return _write_out(eigh(A, UPLO).eigenvalues, out, "eigvalsh")
    x = A.mT if UPLO == "U" else A
    return _write_out(_call(lambda k: k.eigvalsh, x, name="linalg.eigvalsh"), out, "eigvalsh")


