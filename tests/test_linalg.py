"""Matrix products, einsum and numgrad.linalg against NumPy: values, dtypes, layouts, errors and
derivatives (finite differences through gradcheck)."""
import numpy as np
import pytest

import numgrad
from numgrad import linalg as L
from numgrad.autograd.gradcheck import gradcheck, gradgradcheck
from numgrad.testing import assert_close

rng = np.random.default_rng(0)


def arr(*shape, dtype="float64"):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, shape).astype(dtype) if dtype != "uint8" else rng.integers(0, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def T(a, requires_grad=False):
    return numgrad.tensor(a, requires_grad=requires_grad)


def spd(*batch, n=3):
    a = arr(*batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# ------------------------------------------------------------------------------ matmul family

MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((3,), (2, 3, 4)), ((2, 1, 2, 3), (5, 3, 2)), ((2, 3, 4), (4,)), ((0, 3), (3, 2)),
                 ((2, 0), (0, 3)), ((0, 2, 3), (3, 1))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_shapes_match_numpy(sa, sb):
    a, b = arr(*sa), arr(*sb)
    assert_close(T(a) @ T(b), a @ b)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "uint8", "float16"])
def test_matmul_dtypes(dtype):
    a, b = arr(2, 3, 4, dtype=dtype), arr(4, 5, dtype=dtype)
    r = T(a) @ T(b)
    assert r.dtype.name == dtype
    expected = (a.astype(np.float64) @ b.astype(np.float64))
    assert_close(r.numpy().astype(np.float64), expected, rtol=1e-2 if dtype == "float16" else 1e-5, atol=1e-2)


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_matmul_noncontiguous(dtype):
    a, b = arr(4, 5, dtype=dtype), arr(6, 4, dtype=dtype)
    ta, tb = T(a), T(b)
    assert_close(ta.t() @ tb.t(), a.T @ b.T)            # transposed operands, no copy
    assert_close(ta.t()[::2] @ tb.t()[:, ::3], a.T[::2] @ b.T[:, ::3])   # strided: copied
    c = arr(3, 1, 4, dtype=dtype)
    assert_close(T(c).expand(3, 5, 4) @ tb[:4].t(), np.broadcast_to(c, (3, 5, 4)) @ b[:4].T)


def test_matmul_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        T(arr(2, 3)) @ T(arr(4, 5))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        numgrad.matmul(T(np.float64(1.0)), T(arr(2)))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        T(arr(2, 2, dtype="float32")) @ T(arr(2, 2))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: "
                                           r"\[2, 3\] but got: \[2, 4\]"):
        T(arr(2, 2, 3)) @ T(arr(2, 4, 5))
    with pytest.raises(NotImplementedError):
        T(np.ones((2, 2), bool)) @ T(np.ones((2, 2), bool))
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        numgrad.dot(T(arr(3)), T(arr(4)))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        numgrad.mv(T(arr(2, 3)), T(arr(4)))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        numgrad.bmm(T(arr(2, 3)), T(arr(3, 2)))


@pytest.mark.parametrize("call, message", [
    (lambda m, v: numgrad.matmul(m, 3), r"matmul\(\): argument 'other' \(position 2\) must be Tensor, not int"),
    (lambda m, v: numgrad.matmul([1], m), r"matmul\(\): argument 'input' \(position 1\) must be Tensor, not list"),
    (lambda m, v: numgrad.mm(m, 2.0), r"mm\(\): argument 'mat2' \(position 2\) must be Tensor, not float"),
    (lambda m, v: numgrad.bmm(m, None), r"bmm\(\): argument 'mat2' \(position 2\) must be Tensor, not NoneType"),
    (lambda m, v: numgrad.mv(m, [1, 2]), r"mv\(\): argument 'vec' \(position 2\) must be Tensor, not list"),
    (lambda m, v: numgrad.dot(v, 1), r"dot\(\): argument 'tensor' \(position 2\) must be Tensor, not int"),
    (lambda m, v: m @ 3, r"unsupported operand type\(s\) for @: 'Tensor' and 'int'"),
    (lambda m, v: [1, 2] @ m, r"unsupported operand type\(s\) for @: 'list' and 'Tensor'"),
])
def test_products_refuse_non_tensors(call, message):
    # PyTorch's TypeErrors, not an AttributeError from inside the product.
    with pytest.raises(TypeError, match=message):
        call(T(arr(2, 2)), T(arr(2)))


def test_product_family():
    a, b, v, w = arr(2, 3), arr(3, 4), arr(3), arr(2)
    assert_close(numgrad.mm(T(a), T(b)), a @ b)
    assert_close(numgrad.mv(T(a), T(v)), a @ v)
    assert_close(numgrad.dot(T(v), T(v)), v @ v)
    assert_close(numgrad.vdot(T(v), T(v)), v @ v)
    assert_close(numgrad.outer(T(w), T(v)), np.outer(w, v))
    assert_close(numgrad.ger(T(w), T(v)), np.outer(w, v))
    x, y = arr(3, 2, 3), arr(3, 3, 4)
    c = arr(2, 4)
    assert_close(numgrad.bmm(T(x), T(y)), x @ y)
    assert_close(numgrad.addmm(T(c), T(a), T(b), beta=0.5, alpha=2), 0.5 * c + 2 * a @ b)
    assert_close(numgrad.addmm(T(np.full(4, np.nan)), T(a), T(b), beta=0), a @ b)
    assert_close(numgrad.addmv(T(w), T(a), T(v), alpha=3), w + 3 * a @ v)
    assert_close(numgrad.addr(T(c[:, :3]), T(w), T(v)), c[:, :3] + np.outer(w, v))
    assert_close(numgrad.baddbmm(T(c), T(x), T(y), beta=2), 2 * c + x @ y)
    assert_close(numgrad.addbmm(T(c), T(x), T(y)), c + (x @ y).sum(0))
    assert_close(T(a).matmul(T(b)), a @ b)
    t = T(c.copy())
    t.addmm_(T(a), T(b))
    assert_close(t, c + a @ b)
    s = T(a.copy())
    s @= T(arr(3, 3))
    assert s.shape == (2, 3)


def test_inner_values():
    a, b, v = arr(2, 3), arr(4, 3), arr(3)
    assert_close(numgrad.inner(T(a), T(b)), np.inner(a, b))
    assert_close(numgrad.inner(T(v), T(b)), np.inner(v, b))
    with pytest.raises(RuntimeError, match="the last dimension must match"):
        numgrad.inner(T(a), T(arr(2, 2)))


def test_tensordot_and_kron():
    a, b = arr(2, 3, 4), arr(3, 4, 5)
    assert_close(numgrad.tensordot(T(a), T(b)), np.tensordot(a, b))
    assert_close(numgrad.tensordot(T(a), T(b), dims=([1, 2], [0, 1])), np.tensordot(a, b, ([1, 2], [0, 1])))
    assert_close(numgrad.tensordot(T(a), T(b), dims=0), np.tensordot(a, b, 0))
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        numgrad.tensordot(T(arr(2, 3)), T(arr(4, 5)), dims=1)
    x, y = arr(2, 3), arr(4, 2, 2)
    assert_close(numgrad.kron(T(x), T(y)), np.kron(x, y))
    assert numgrad.kron(T(arr(3, dtype="int64")), T(x)).shape == (2, 9)


EINSUM_CASES = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]),
                ("ii->i", [(3, 3)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,j->ij", [(3,), (4,)]),
                ("ij->ji", [(2, 3)]), ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("ij,ij->", [(2, 3), (2, 3)]),
                ("bA,a", [(2, 3), (3,)]), ("iij->j", [(2, 2, 3)]), ("ijk,kj->i", [(2, 3, 4), (4, 3)]),
                ("i,i,i->", [(3,), (3,), (3,)]), ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
                ("i...->...", [(2, 3, 4)]), ("bij,bjk->ik", [(1, 3, 4), (2, 4, 5)]), ("ij,jk->ik", [(0, 3), (3, 2)])]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_matches_numpy(eq, shapes):
    arrays = [arr(*s) for s in shapes]
    assert_close(numgrad.einsum(eq, *[T(a) for a in arrays]), np.einsum(eq, *arrays))


def test_einsum_errors():
    with pytest.raises(RuntimeError, match="subscript j has size 4 for operand 1"):
        numgrad.einsum("ij,jk", T(arr(2, 3)), T(arr(4, 5)))
    with pytest.raises(RuntimeError, match="output subscript l does not appear"):
        numgrad.einsum("ij,jk->il", T(arr(2, 3)), T(arr(3, 4)))
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes don't match"):
        numgrad.einsum("ii", T(arr(2, 3)))
    with pytest.raises(RuntimeError, match="fewer operands"):
        numgrad.einsum("ij,jk->ik", T(arr(2, 3)))


def test_product_gradients():
    a, b = T(arr(2, 3), True), T(arr(3, 4), True)
    assert gradcheck(numgrad.matmul, (a, b))
    assert gradgradcheck(numgrad.matmul, (a, b))
    x, y = T(arr(2, 1, 2, 3), True), T(arr(3, 3, 2), True)
    assert gradcheck(numgrad.matmul, (x, y))
    v = T(arr(3), True)
    assert gradcheck(numgrad.matmul, (v, b))
    assert gradcheck(numgrad.dot, (v, T(arr(3), True)))
    assert gradcheck(lambda p, q: numgrad.einsum("ii,ij->j", p, q), (T(arr(3, 3), True), b))
    assert gradcheck(lambda p, q: numgrad.tensordot(p, q, 1), (a, b))
    assert gradcheck(numgrad.kron, (a, T(arr(2, 2), True)))
    assert gradcheck(lambda c, p, q: numgrad.addmm(c, p, q, beta=0.5, alpha=2), (T(arr(4), True), a, b))


def test_forward_ad_matmul():
    import numgrad.autograd.forward_ad as fwAD
    a, b, ta = arr(2, 3), arr(3, 4), arr(2, 3)
    with fwAD.dual_level():
        d = fwAD.make_dual(T(a), T(ta))
        out = fwAD.unpack_dual(d @ T(b))
    assert_close(out.tangent, ta @ b)


# ------------------------------------------------------------------------------ numgrad.linalg

def test_decompositions_match_numpy():
    a = arr(2, 3, 3)
    assert_close(L.inv(T(a)), np.linalg.inv(a))
    assert_close(numgrad.inverse(T(a)), np.linalg.inv(a))
    assert_close(L.det(T(a)), np.linalg.det(a))
    sign, logabs = L.slogdet(T(a))
    es, el = np.linalg.slogdet(a)
    assert_close(sign, es)
    assert_close(logabs, el)
    b = arr(2, 3, 2)
    assert_close(L.solve(T(a), T(b)), np.linalg.solve(a, b))
    assert_close(L.solve(T(a), T(b[..., 0])), np.linalg.solve(a, b[..., :1])[..., 0])
    assert_close(L.solve(T(a), T(arr(3, 2))).shape, (2, 3, 2))
    s = spd(2)
    assert_close(L.cholesky(T(s)), np.linalg.cholesky(s))
    assert_close(L.cholesky(T(s), upper=True), np.swapaxes(np.linalg.cholesky(s), -1, -2))
    w, v = L.eigh(T(s))
    assert_close(w, np.linalg.eigvalsh(s))
    assert_close(v @ numgrad.diag_embed(w) @ v.mT, s)
    assert_close(L.eigvalsh(T(s)), np.linalg.eigvalsh(s))
    assert_close(numgrad.trace(T(a[0])), np.trace(a[0]))
    assert_close(L.matrix_power(T(a), 3), np.linalg.matrix_power(a, 3))
    assert_close(L.matrix_power(T(a), -2), np.linalg.matrix_power(a, -2))
    assert_close(L.matrix_power(T(a), 0), np.broadcast_to(np.eye(3), a.shape))


def test_decompositions_float32():
    a = arr(3, 3, dtype="float32") + 3 * np.eye(3, dtype="float32")
    r = L.inv(T(a))
    assert r.dtype is numgrad.float32
    assert_close(r, np.linalg.inv(a), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
def test_qr_svd(shape):
    a = arr(*shape)
    q, r = L.qr(T(a))
    assert_close(q @ r, a)
    assert_close(q.mT @ q, np.eye(q.shape[-1]) + np.zeros(q.shape[:-2] + (1, 1)), atol=1e-12, rtol=0)
    assert_close(r, np.triu(r.numpy()))
    qc, rc = L.qr(T(a), mode="complete")
    assert qc.shape[-1] == qc.shape[-2] == shape[-2]
    assert_close(qc @ rc, a)
    u, s, vh = L.svd(T(a))
    assert_close(s, np.linalg.svd(a, compute_uv=False))
    k = min(shape[-2:])
    assert_close((u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], a)
    u2, s2, v2 = numgrad.svd(T(a))
    assert_close((u2 * s2.unsqueeze(-2)) @ v2.mT, a)
    assert_close(L.svdvals(T(a)), np.linalg.svd(a, compute_uv=False))
    assert_close(L.pinv(T(a)), np.linalg.pinv(a))


def test_norms():
    x = arr(2, 3, 4)
    assert_close(L.norm(T(x)), np.linalg.norm(x.ravel()))
    assert_close(L.vector_norm(T(x), 3, dim=(0, 2)), (np.abs(x) ** 3).sum((0, 2)) ** (1 / 3))
    assert_close(L.vector_norm(T(x), float("inf"), dim=-1, keepdim=True), np.abs(x).max(-1, keepdims=True))
    assert_close(L.vector_norm(T(x), 0), np.count_nonzero(x) * 1.0)
    m = x[0]
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")):
        assert_close(L.matrix_norm(T(m), ord), np.linalg.norm(m, ord))
    assert_close(L.matrix_norm(T(x), dim=(0, 2)), np.sqrt((x ** 2).sum((0, 2))))
    assert_close(L.norm(T(m), 2), np.linalg.norm(m, 2))
    assert_close(numgrad.norm(T(x), dim=1), np.linalg.norm(x, axis=1))
    assert_close(T(x).norm(), np.linalg.norm(x.ravel()))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        L.vector_norm(T(np.ones(3, np.int64)))
    with pytest.raises(RuntimeError, match="Order 3 not supported"):
        L.matrix_norm(T(m), 3)


def test_cross_lstsq_rank():
    a, b = arr(4, 3), arr(1, 3)
    assert_close(L.cross(T(a), T(b)), np.cross(a, b))
    assert_close(numgrad.cross(T(a.T.copy()), T(np.broadcast_to(b.T, (3, 4)).copy())), np.cross(a, b).T)
    with pytest.raises(RuntimeError, match="dimension -1 must have length 3"):
        L.cross(T(arr(4)), T(arr(4)))
    A, B = arr(5, 3), arr(5, 2)
    res = L.lstsq(T(A), T(B), driver="gelsd")
    sol, resid, rank, sv = np.linalg.lstsq(A, B, rcond=None)
    assert_close(res.solution, sol)
    assert_close(res.residuals, resid)
    assert int(res.rank) == rank
    assert_close(res.singular_values, sv)
    assert int(L.matrix_rank(T(np.outer(arr(4), arr(3))))) == 1


def test_linalg_errors():
    sing = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(L.LinAlgError, match="linalg.inv: The diagonal element 2 is zero, the inversion could not "
                                            "be completed because the input matrix is singular."):
        L.inv(T(sing))
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\): The diagonal element 2 is zero"):
        L.inv(T(np.stack([np.eye(2), sing])))
    with pytest.raises(L.LinAlgError, match="The solver failed because the input matrix is singular"):
        L.solve(T(sing), T(np.ones(2)))
    with pytest.raises(L.LinAlgError, match=r"not positive-definite \(the leading minor of order 2 is not "
                                            r"positive-definite\)"):
        L.cholesky(T(sing))
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        L.inv(T(arr(2, 3)))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        L.det(T(np.ones((2, 2), np.int64)))
    with pytest.raises(RuntimeError, match="Incompatible shapes of A and B"):
        L.solve(T(np.eye(2)), T(np.ones(3)))
    assert float(L.det(T(sing))) == 0.0
    assert np.isnan(L.inv(T(np.full((2, 2), np.nan))).numpy()).all()


def test_empty_matrices():
    assert L.inv(T(np.zeros((0, 3, 3)))).shape == (0, 3, 3)
    assert_close(L.det(T(np.zeros((2, 0, 0)))), np.ones(2))
    u, s, vh = L.svd(T(np.zeros((3, 0))))
    assert u.shape == (3, 3) and s.shape == (0,) and vh.shape == (0, 0)
    assert (T(arr(0, 3)) @ T(arr(3, 0))).shape == (0, 0)
    assert_close(T(arr(2, 0)) @ T(arr(0, 3)), np.zeros((2, 3)))


# ------------------------------------------------------------------------------ linalg derivatives

def _sym(x):
    return (x + x.mT) * 0.5


GRAD_CASES = {
    "inv": (lambda a: L.inv(a), [(3, 3)]),
    "det": (lambda a: L.det(a), [(2, 3, 3)]),
    "det_singular": (lambda a: L.det(a), "singular"),
    "slogdet": (lambda a: L.slogdet(a).logabsdet, [(3, 3)]),
    "solve": (lambda a, b: L.solve(a, b), [(2, 3, 3), (3, 2)]),
    "cholesky": (lambda a: L.cholesky(a @ a.mT + numgrad.eye(3, dtype=numgrad.float64)), [(3, 3)]),
    "qr": (lambda a: L.qr(a), [(4, 3)]),
    "eigh": (lambda a: L.eigh(_sym(a)), [(3, 3)]),
    "eigvalsh": (lambda a: L.eigvalsh(_sym(a)), [(2, 3, 3)]),
    "svd_tall": (lambda a: L.svd(a, full_matrices=False), [(4, 3)]),
    "svd_wide": (lambda a: L.svd(a, full_matrices=False), [(2, 4)]),
    "svd_full": (lambda a: (lambda u, s, vh: (u[..., :2], s, vh))(*L.svd(a)), [(4, 2)]),
    "svdvals": (lambda a: L.svdvals(a), [(3, 4)]),
    "pinv": (lambda a: L.pinv(a), [(4, 3)]),
    "vector_norm": (lambda a: L.vector_norm(a, 3, dim=1), [(2, 3)]),
    "norm2": (lambda a: L.norm(a), [(2, 3)]),
    "nuc": (lambda a: L.matrix_norm(a, "nuc"), [(3, 2)]),
    "cross": (lambda a, b: L.cross(a, b), [(2, 3), (1, 3)]),
    "matrix_power": (lambda a: L.matrix_power(a, -2), [(3, 3)]),
    "logdet": (lambda a: numgrad.logdet(a @ a.mT + numgrad.eye(3, dtype=numgrad.float64)), [(3, 3)]),
}


def _grad_inputs(shapes):
    if shapes == "singular":
        return (T(np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -1.0, 2.0]]), True),)
    return tuple(T(arr(*s) + (2 * np.eye(s[-1]) if len(s) >= 2 and s[-1] == s[-2] else 0), True) for s in shapes)


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_linalg_gradcheck(name):
    fn, shapes = GRAD_CASES[name]
    assert gradcheck(fn, _grad_inputs(shapes), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("name", ["inv", "det", "solve", "eigh", "svd_tall"])
def test_linalg_gradgradcheck(name):
    fn, shapes = GRAD_CASES[name]
    assert gradgradcheck(fn, _grad_inputs(shapes), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("name", ["inv", "det", "solve", "cholesky", "qr", "eigh", "svd_tall", "svd_wide",
                                  "vector_norm"])
def test_linalg_forward_ad(name):
    import numgrad.autograd.forward_ad as fwAD
    fn, shapes = GRAD_CASES[name]
    inputs = _grad_inputs(shapes)
    tangents = [arr(*x.shape) for x in inputs]
    eps = 1e-6
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x.detach(), T(t)) for x, t in zip(inputs, tangents)]
        outs = fn(*duals)
        outs = outs if isinstance(outs, tuple) else (outs,)
        jvps = [fwAD.unpack_dual(o).tangent.numpy().copy() for o in outs]
    plus = fn(*[T(x.detach().numpy() + eps * t) for x, t in zip(inputs, tangents)])
    minus = fn(*[T(x.detach().numpy() - eps * t) for x, t in zip(inputs, tangents)])
    plus = plus if isinstance(plus, tuple) else (plus,)
    minus = minus if isinstance(minus, tuple) else (minus,)
    for j, p, m in zip(jvps, plus, minus):
        assert_close(j, (p.numpy() - m.numpy()) / (2 * eps), rtol=1e-4, atol=1e-6)


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")
    a = arr(3, 3) + 2 * np.eye(3)
    for name, fn, tfn in [("inv", L.inv, torch.linalg.inv), ("det", L.det, torch.linalg.det),
                          ("eigh", lambda x: L.eigh(x).eigenvectors, lambda x: torch.linalg.eigh(x).eigenvectors),
                          ("svd", lambda x: L.svd(x).U, lambda x: torch.linalg.svd(x).U)]:
        g = arr(*fn(T(a)).shape)
        x = T(a, True)
        fn(x).backward(T(g))
        tx = torch.tensor(a, requires_grad=True)
        tfn(tx).backward(torch.tensor(g))
        assert_close(x.grad, tx.grad.numpy(), msg=name)


@pytest.mark.parametrize("shape", [(0, 2, 2), (2, 0, 0)])
def test_float16_without_elements_runs_no_kernel(shape):
    # As PyTorch: the LAPACK-backed functions refuse float16 only once a kernel would run; qr's
    # kernel runs even for no elements.
    x = numgrad.zeros(shape, dtype=numgrad.float16)
    assert numgrad.linalg.det(x).tolist() == ([] if shape[0] == 0 else [1.0, 1.0])
    assert numgrad.linalg.solve(x, numgrad.zeros(shape[:-1], dtype=numgrad.float16)).shape == shape[:-1]
    assert numgrad.linalg.cholesky(x).dtype == numgrad.float16
    assert numgrad.linalg.eigvalsh(x).shape == shape[:-1]
    assert numgrad.linalg.svd(x)[1].shape == shape[:-1]
    with pytest.raises(NotImplementedError, match="\"geqrf_cpu\" not implemented for 'Half'"):
        numgrad.linalg.qr(x)
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Half'"):
        numgrad.linalg.det(numgrad.zeros(2, 2, dtype=numgrad.float16))
