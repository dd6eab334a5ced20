"""The BLAS/LAPACK routines the CPU kernels call, taken from the library NumPy ships or links
against and bound so that ``@njit`` code calls them directly (and can still be cached to disk).
"""
from __future__ import annotations

import ctypes
import glob
import importlib
import os

import numpy as np
from numba import njit, types
from numba.extending import overload

from . import parallel

#: Path of the BLAS/LAPACK library to use instead of NumPy's; "none" forces the pure-Numba loops.
ENV_VAR = "NUMGRAD_BLAS"

_ROUTINES = ("gemm", "getrf", "getrs", "potrf", "geqrf", "orgqr", "gesdd", "syevd")
# (prefix, suffix, LAPACK integer): NumPy >= 2 wheels bundle scipy-openblas with 64-bit integers,
# older wheels openblas64_, other builds the reference names with 32-bit integers.
_NAMINGS = (("scipy_", "_64_", np.int64), ("", "_64_", np.int64), ("scipy_", "_", np.int32), ("", "_", np.int32))

_state: dict = {}


def _candidates() -> list:
    override = os.environ.get(ENV_VAR)
    if override is not None:
        return [] if override.strip().lower() in ("", "0", "none", "off", "false") else [override]
    root = os.path.dirname(np.__file__)
    paths = []
    for folder in (root + ".libs", os.path.join(root, ".dylibs")):
        for pattern in ("*blas*", "*lapack*"):
            paths += sorted(glob.glob(os.path.join(folder, pattern)))
    # Symbol lookup through an extension module searches the libraries it was linked with, which
    # finds a system or conda BLAS that NumPy uses without shipping it.
    for name in ("numpy.linalg._umath_linalg", "numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            paths.append(importlib.import_module(name).__file__)
        except (ImportError, AttributeError):
            pass
    return paths


def _addresses(lib, prefix, suffix):
    found = {}
    for routine in _ROUTINES:
        for t in "sd":
            fn = getattr(lib, f"{prefix}{t}{routine}{suffix}", None)
            if fn is None:
                return None
            found[t + routine] = ctypes.cast(fn, ctypes.c_void_p).value
    return found


def _bind(path: str):
    """(library, {routine: address}, integer dtype, name prefix) if ``path`` exports every
    routine, else None. Unsuffixed names are taken to have 32-bit integers, as reference
    LAPACK's do."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for prefix, suffix, integer in _NAMINGS:
        found = _addresses(lib, prefix, suffix)
        if found is not None:
            return lib, found, np.dtype(integer), prefix
    return None


def _follow_machine_load(lib, prefix) -> None:
    """Hand OpenBLAS's thread setter to the parallel policy (other libraries keep their own).
    These are C functions taking the count by value: 64-bit-integer builds end their names in
    "64_" (a name ending in "_" alone is the Fortran form, which takes a pointer)."""
    for stem in (f"{prefix}openblas_%s_num_threads64_", f"{prefix}openblas_%s_num_threads"):
        setter, getter = getattr(lib, stem % "set", None), getattr(lib, stem % "get", None)
        if setter is not None and getter is not None:
            setter.argtypes, setter.restype, getter.restype = [ctypes.c_int], None, ctypes.c_int
            parallel.register_blas_threads(setter, max(getter(), 1))
            return


def _load():
    import llvmlite.binding as llvm
    for path in _candidates():
        bound = _bind(path)
        if bound is not None:
            lib, addresses, integer, prefix = bound
            for name, address in addresses.items():
                llvm.add_symbol("numgrad_" + name, address)
            _follow_machine_load(lib, prefix)
            return {"path": path, "lib": lib, "witness": np.zeros(1, integer)}
    return None


def available() -> bool:
    """True if a BLAS/LAPACK library was found (looked up on the first call)."""
    if "lib" not in _state:
        _state["lib"] = _load()
    return _state["lib"] is not None


def library_path():
    """The file the routines come from, or None when the kernels run as pure-Numba loops."""
    return _state["lib"]["path"] if available() else None


def int_witness() -> np.ndarray:
    """A one-element array of the library's integer type: kernels take it so that they compile
    (and cache) once per integer width and allocate their integer arguments like it."""
    if not available():
        raise RuntimeError("no BLAS/LAPACK library was found")
    return _state["lib"]["witness"]


# Fortran passes every argument by reference: callers pass ``array.ctypes`` (which keeps the array
# alive through the call), scalars as one-element arrays. Character arguments are followed by their
# lengths (gfortran's hidden arguments; harmless to a callee that does not read them).
def _extern(name, nargs, nchars=0):
    """A function of (array, *pointers, *lengths) calling the single- or double-precision routine
    ``name`` by the array's dtype, chosen when the caller compiles."""
    sig = types.void(*([types.voidptr] * nargs + [types.uintp] * nchars))
    single = types.ExternalFunction(f"numgrad_s{name}", sig)
    double = types.ExternalFunction(f"numgrad_d{name}", sig)

    def call(x, *args):
        raise NotImplementedError("callable from @njit code only")

    @overload(call, jit_options={"nogil": True})
    def _typed(x, *args):
        routine = single if x.dtype == types.float32 else double
        return lambda x, *args: routine(*args)

    return call


_gemm = _extern("gemm", 13, 2)
_getrf = _extern("getrf", 6)
_getrs = _extern("getrs", 9, 1)
_potrf = _extern("potrf", 5, 1)
_geqrf = _extern("geqrf", 8)
_orgqr = _extern("orgqr", 9)
_gesdd = _extern("gesdd", 14, 1)
_syevd = _extern("syevd", 11, 2)

N, T = ord("N"), ord("T")


@njit(cache=True, nogil=True)
def _ints(ik, values):
    """The integers ``values`` (a tuple) as an array of the library's integer type; ``v[i:].ctypes``
    then points at the i-th."""
    out = np.empty(len(values), ik.dtype)
    for i in range(len(values)):
        out[i] = values[i]
    return out


@njit(cache=True, nogil=True)
def gemm_plan(trans_a, trans_b, m, n, k, lda, ldb, ldc, c, ik):
    """The scalar arguments of :func:`gemm` (``trans_*`` is N or T; ``c`` gives the dtype), built
    once for a batch of products of one shape."""
    return (np.array([trans_a, trans_b], np.uint8), _ints(ik, (m, n, k, lda, ldb, ldc)),
            np.array([1.0, 0.0], c.dtype))


@njit(cache=True, nogil=True)
def gemm(plan, a, b, c):
    """c = op(a) @ op(b) in column-major terms, shapes and flags from :func:`gemm_plan`."""
    ch, iv, sc = plan
    _gemm(c, ch.ctypes, ch[1:].ctypes, iv.ctypes, iv[1:].ctypes, iv[2:].ctypes, sc.ctypes,
          a.ctypes, iv[3:].ctypes, b.ctypes, iv[4:].ctypes, sc[1:].ctypes, c.ctypes, iv[5:].ctypes, 1, 1)


@njit(cache=True, nogil=True)
def getrf(n, a, piv):
    """LU factorization with partial pivoting of the column-major n x n ``a``, in place; returns
    LAPACK's info (> 0: the 1-based index of the first exactly zero pivot)."""
    iv = _ints(piv, (n, max(n, 1), 0))
    _getrf(a, iv.ctypes, iv.ctypes, a.ctypes, iv[1:].ctypes, piv.ctypes, iv[2:].ctypes)
    return iv[2]


@njit(cache=True, nogil=True)
def getrs(n, nrhs, a, piv, b):
    """Solves A X = B with ``a``, ``piv`` from :func:`getrf`; ``b`` (column-major n x nrhs)
    becomes X."""
    ch = np.array([N], np.uint8)
    iv = _ints(piv, (n, nrhs, max(n, 1), 0))
    _getrs(a, ch.ctypes, iv.ctypes, iv[1:].ctypes, a.ctypes, iv[2:].ctypes, piv.ctypes, b.ctypes,
           iv[2:].ctypes, iv[3:].ctypes, 1)
    return iv[3]


@njit(cache=True, nogil=True)
def potrf_upper(n, a, ik):
    """Cholesky factor U (A = U^T U) of the column-major ``a`` from its upper triangle, in place;
    returns info (> 0: the order of the leading minor that is not positive-definite)."""
    ch = np.array([ord("U")], np.uint8)
    iv = _ints(ik, (n, max(n, 1), 0))
    _potrf(a, ch.ctypes, iv.ctypes, a.ctypes, iv[1:].ctypes, iv[2:].ctypes, 1)
    return iv[2]


@njit(cache=True, nogil=True)
def qr(m, n, a, ik):
    """Householder QR of the column-major m x n ``a``, in place: Q's first k = min(m, n) columns
    end up over its first columns; returns R (k x n) column-major, i.e. as an (n, k) array."""
    k = min(m, n)
    tau = np.empty(max(k, 1), a.dtype)
    work = np.empty(1, a.dtype)
    iv = _ints(ik, (m, n, k, max(m, 1), -1, 0))  # m, n, k, lda, lwork, info
    for _ in range(2):  # a workspace query, then the factorization
        _geqrf(a, iv.ctypes, iv[1:].ctypes, a.ctypes, iv[3:].ctypes, tau.ctypes, work.ctypes,
               iv[4:].ctypes, iv[5:].ctypes)
        if iv[4] == -1:
            work = np.empty(max(int(work[0]), 1), a.dtype)
            iv[4] = work.size
    r = np.zeros((n, k), a.dtype)
    for j in range(n):
        for i in range(min(j + 1, k)):
            r[j, i] = a[j, i]
    iv[4] = -1
    for _ in range(2):
        _orgqr(a, iv.ctypes, iv[2:].ctypes, iv[2:].ctypes, a.ctypes, iv[3:].ctypes, tau.ctypes,
               work.ctypes, iv[4:].ctypes, iv[5:].ctypes)
        if iv[4] == -1:
            work = np.empty(max(int(work[0]), 1), a.dtype)
            iv[4] = work.size
    return r


@njit(cache=True, nogil=True)
def gesdd(full, m, n, a, s, u, vt, ik):
    """SVD of the column-major m x n ``a`` (destroyed) by divide and conquer: ``u`` gets U
    (column-major, m x m or m x k), ``vt`` gets V^T (n x n or k x n); returns info."""
    k = min(m, n)
    ch = np.array([ord("A") if full else ord("S")], np.uint8)
    rv = n if full else k
    iv = _ints(ik, (m, n, max(m, 1), max(rv, 1), -1, 0))  # m, n, lda = ldu, ldvt, lwork, info
    iwork = np.empty(max(8 * k, 1), ik.dtype)
    work = np.empty(1, a.dtype)
    for _ in range(2):
        _gesdd(a, ch.ctypes, iv.ctypes, iv[1:].ctypes, a.ctypes, iv[2:].ctypes, s.ctypes, u.ctypes,
               iv[2:].ctypes, vt.ctypes, iv[3:].ctypes, work.ctypes, iv[4:].ctypes, iwork.ctypes,
               iv[5:].ctypes, 1)
        if iv[4] == -1:
            work = np.empty(max(int(work[0]), 1), a.dtype)
            iv[4] = work.size
    return iv[5]


@njit(cache=True, nogil=True)
def syevd(vectors, n, a, w, ik):
    """Eigenvalues (ascending, into ``w``) and, if ``vectors``, eigenvectors (over ``a``'s columns)
    of the symmetric column-major ``a`` read from its lower triangle; returns info."""
    ch = np.array([ord("V") if vectors else ord("N"), ord("L")], np.uint8)
    iv = _ints(ik, (n, max(n, 1), -1, -1, 0))  # n, lda, lwork, liwork, info
    work = np.empty(1, a.dtype)
    iwork = np.empty(1, ik.dtype)
    for _ in range(2):
        _syevd(a, ch.ctypes, ch[1:].ctypes, iv.ctypes, a.ctypes, iv[1:].ctypes, w.ctypes, work.ctypes,
               iv[2:].ctypes, iwork.ctypes, iv[3:].ctypes, iv[4:].ctypes, 1, 1)
        if iv[2] == -1:
            work = np.empty(max(int(work[0]), 1), a.dtype)
            iwork = np.empty(max(int(iwork[0]), 1), ik.dtype)
            iv[2], iv[3] = work.size, iwork.size
    return iv[4]
