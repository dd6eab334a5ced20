"""The BLAS/LAPACK binding (library lookup, both precisions, transposed operands) and the pure-Numba
fallback kernels that run when no library is found, against NumPy."""
import ctypes.util
import os
import subprocess
import sys

import numpy as np
import pytest

import numgrad
from numgrad import linalg as L
from numgrad.backends.cpu import blas
from numgrad.testing import assert_close

rng = np.random.default_rng(1)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def T(a):
    return numgrad.tensor(a)


def arr(*shape, dtype="float64"):
    return rng.standard_normal(shape).astype(dtype)


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {}


@pytest.fixture(params=["blas", "loops"])
def path(request, monkeypatch):
    """Runs a test through the BLAS/LAPACK kernels and again through the pure-Numba loops."""
    if request.param == "blas":
        if not blas.available():
            pytest.skip("no BLAS library found")
    else:
        monkeypatch.setattr(blas, "available", lambda: False)
    return request.param


# ------------------------------------------------------------------------------ the library

def test_import_binds_nothing_and_needs_no_scipy():
    # A None entry in sys.modules makes `import scipy` fail, as in an environment without it.
    code = ("import sys\n"
            "sys.modules['scipy'] = None\n"
            "import numgrad\n"
            "from numgrad.backends.cpu import blas\n"
            "assert not blas._state, 'the library was looked up at import'\n"
            "a = numgrad.ones(3, 3) + numgrad.eye(3)\n"
            "assert abs(float(numgrad.linalg.det(a @ a)) - 16.0) < 1e-4\n"
            "assert blas.available() or blas._candidates() == []\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)


def test_library_lookup(monkeypatch):
    if not blas.available():
        pytest.skip("no BLAS library found")
    path = blas.library_path()
    lib, addresses, integer, _prefix = blas._bind(path)
    assert set(addresses) == {t + r for t in "sd" for r in blas._ROUTINES}
    assert integer == blas.int_witness().dtype
    monkeypatch.setenv(blas.ENV_VAR, path)
    assert blas._candidates() == [path]
    for off in ("none", "0", ""):
        monkeypatch.setenv(blas.ENV_VAR, off)
        assert blas._candidates() == []
    monkeypatch.delenv(blas.ENV_VAR)
    assert blas._candidates()
    assert blas._bind(os.path.join(ROOT, "no-such-library.so")) is None
    libc = ctypes.util.find_library("c")
    if libc:
        assert blas._bind(libc) is None


# ------------------------------------------------------------------------------ matmul

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_layouts(path, dtype):
    a, b = arr(2, 5, 4, dtype=dtype), arr(2, 4, 3, dtype=dtype)
    ta, tb = T(a), T(b)
    assert_close(ta @ tb, a @ b, **tol(dtype))
    at, bt = T(np.swapaxes(a, -1, -2).copy()).mT, T(np.swapaxes(b, -1, -2).copy()).mT
    assert_close(at @ tb, a @ b, **tol(dtype))
    assert_close(ta @ bt, a @ b, **tol(dtype))
    assert_close(at @ bt, a @ b, **tol(dtype))
    assert_close(ta[:, ::2] @ tb[0], a[:, ::2] @ b[0], **tol(dtype))   # broadcast batch, strided rows
    big_a, big_b = arr(70, 300, dtype=dtype), arr(300, 260, dtype=dtype)  # crosses the loop's blocks
    assert_close(T(big_a) @ T(big_b), big_a @ big_b, rtol=1e-3 if dtype == "float32" else 1e-7, atol=1e-3)


# ------------------------------------------------------------------------------ factorizations

def spd(*batch, n=4, dtype="float64"):
    a = arr(*batch, n, n)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_family(path, dtype):
    a = (arr(3, 4, 4) + 2 * np.eye(4)).astype(dtype)
    b = arr(3, 4, 2, dtype=dtype)
    a64 = a.astype(np.float64)
    assert_close(L.inv(T(a)), np.linalg.inv(a64).astype(dtype), **tol(dtype))
    assert_close(L.det(T(a)), np.linalg.det(a64).astype(dtype), **tol(dtype))
    sign, logabs = L.slogdet(T(-a))
    es, el = np.linalg.slogdet(-a64)
    assert_close(sign, es.astype(dtype))
    assert_close(logabs, el.astype(dtype), **tol(dtype))
    assert_close(L.solve(T(a), T(b)), np.linalg.solve(a64, b).astype(dtype), **tol(dtype))
    perm = np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype)   # one row exchange: det -1
    assert float(L.det(T(perm))) == -1.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky_qr_eigh(path, dtype):
    s = spd(2, dtype=dtype)
    low = np.tril(s.astype(np.float64)) + np.triu(np.full((4, 4), 7.0), 1)   # only the lower triangle is read
    assert_close(L.cholesky(T(low.astype(dtype))), np.linalg.cholesky(s.astype(np.float64)).astype(dtype),
                 **tol(dtype))
    w, v = L.eigh(T(low.astype(dtype)))
    assert_close(w, np.linalg.eigvalsh(s.astype(np.float64)).astype(dtype), **tol(dtype))
    assert_close(v @ numgrad.diag_embed(w) @ v.mT, s, **tol(dtype))
    assert_close(L.eigvalsh(T(s)), w, **tol(dtype))
    for shape in [(5, 3), (3, 5), (2, 4, 4)]:
        a = arr(*shape, dtype=dtype)
        q, r = L.qr(T(a))
        assert_close(q @ r, a, **tol(dtype))
        assert_close(q.mT @ q, np.broadcast_to(np.eye(q.shape[-1], dtype=dtype), q.shape[:-2] + (q.shape[-1],) * 2),
                     **tol(dtype))
        assert_close(r, np.triu(r.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (4, 1)])
def test_svd(path, dtype, shape):
    a = arr(*shape, dtype=dtype)
    k = min(shape[-2:])
    assert_close(L.svdvals(T(a)), np.linalg.svd(a.astype(np.float64), compute_uv=False).astype(dtype), **tol(dtype))
    for full in (True, False):
        u, s, vh = L.svd(T(a), full_matrices=full)
        eye_u = np.eye(u.shape[-1], dtype=dtype)
        eye_v = np.eye(vh.shape[-2], dtype=dtype)
        assert_close((u.mT @ u).numpy(), np.broadcast_to(eye_u, u.shape[:-2] + eye_u.shape), **tol(dtype))
        assert_close((vh @ vh.mT).numpy(), np.broadcast_to(eye_v, vh.shape[:-2] + eye_v.shape), **tol(dtype))
        assert_close((u[..., :k] * s.unsqueeze(-2)) @ vh[..., :k, :], a, **tol(dtype))


def test_rank_deficient_svd_completes_bases(path):
    a = np.outer(arr(5), arr(3))
    u, s, vh = L.svd(T(a))
    assert_close(u.mT @ u, np.eye(5), rtol=0, atol=1e-10)
    assert_close(vh @ vh.mT, np.eye(3), rtol=0, atol=1e-10)
    assert_close(s, np.linalg.svd(a, compute_uv=False), rtol=0, atol=1e-10)
    assert_close((u[:, :3] * s) @ vh, a)


def test_failures(path):
    sing = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\): The diagonal element 3 is zero"):
        L.inv(T(np.stack([np.eye(3), sing])))
    with pytest.raises(L.LinAlgError, match="The solver failed because the input matrix is singular"):
        L.solve(T(sing), T(np.ones(3)))
    assert float(L.det(T(sing))) == 0.0
    sign, logabs = L.slogdet(T(sing))
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    not_pd = np.diag([1.0, 2.0, -1.0, 3.0])
    with pytest.raises(L.LinAlgError, match="leading minor of order 3 is not positive-definite"):
        L.cholesky(T(not_pd))
    nan = np.full((2, 2), np.nan)
    assert np.isnan(L.inv(T(nan)).numpy()).all()
    assert np.isnan(L.det(T(nan)).numpy())
    for fn in (L.cholesky, L.qr, L.svd, L.eigh):
        with pytest.raises(L.LinAlgError, match="contained non-finite values"):
            fn(T(np.stack([np.eye(2), nan])))
