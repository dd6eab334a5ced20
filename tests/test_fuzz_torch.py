"""Differential fuzzing against PyTorch over the op table.

Every row of ``numgrad.testing.OP_DB`` with a PyTorch counterpart is called on Hypothesis-drawn
cases (dtypes, including ones the row does not support; free shapes for plain elementwise rows,
the row's own samples otherwise; contiguous, transposed, stepped and expanded layouts; NaN,
infinities, signed zeros, huge and tiny magnitudes and integer extremes) in numgrad and in torch,
from the same NumPy data. The two must agree on the result's shape, dtype and values, on
``requires_grad`` and the gradients of ``sum(result)`` with respect to every floating input, and
on the class of any exception. Every disagreement must be listed in ``KNOWN_DIVERGENCES``.

By default each row runs a fixed, derandomized number of examples, so that a run is reproducible
and the file takes two to three minutes. ``NUMGRAD_FUZZ_EXAMPLES=N`` runs N examples per row,
freshly random each run; ``NUMGRAD_FUZZ_ROWS=regex`` restricts the rows.
"""
import collections
import functools
import math
import os
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import numgrad  # noqa: E402
from numgrad import testing as T  # noqa: E402
from torch_counterparts import torch_fn as _torch_fn  # noqa: E402

# ------------------------------------------------------------------------------ known divergences
# (row id, signature) -> reason. A signature is a category ("values", "dtype", "shape", "grad",
# "exception": both raise but unrelated classes, "leniency": only torch raises, "strictness": only
# numgrad raises), optionally followed by ":tag" parts that must all hold for the case: a dtype
# name, "float"/"int"/"bool", a layout ("transposed", "stepped", "expanded"), or a value tag:
# "nan", "inf", "-inf", "-0", "huge" (squaring overflows), "tiny", "intmin", "intmax" (or a Python
# int past 2**31), "empty", "0d", "scalar" (a Python number operand), "unsupported" (a dtype the
# row does not list). A row id may be a row's name, for all its variants, or "*" for every row.
TORCH_BUG = "torch bug: "
KNOWN_DIVERGENCES = {
    # An "exception" divergence adds the tag "A->B": torch's builtin class, then numgrad's. A
    # "grad" divergence where only one side's backward raised adds "torch-raised"/"numgrad-raised".
    ("*", "exception:NotImplementedError->RuntimeError"):
        "deliberate: numgrad refuses a dtype a kernel lacks with RuntimeError, torch with its subclass "
        "NotImplementedError; `except RuntimeError` catches both",
    # Integer edge cases.
    ("pow", "strictness:int"): "numgrad refuses negative integer exponents in a tensor as well; torch refuses "
                               "only Python-scalar ones and returns 1, +-1 or 0",
    ("pow", "values:int"): "integer powers that overflow (exponent near 2**31): torch wraps modulo 2**bits "
                           "by repeated squaring, numgrad's result differs (0)",
    ("pow", "strictness:bool"): "numgrad has no bool pow (the row lists no bool); torch computes it",
    ("softsign", "values:int"): "torch computes 1 + |x| in the integer dtype, which wraps (softsign(int8 127) "
                                "< 0); numgrad promotes to float first",
    ("polygamma", "values"): "at poles (non-positive integers) numgrad gives inf, torch a finite value of its "
                             "series; polygamma(n, inf) is 0 in numgrad, NaN in torch; at -inf NaN and -inf",
    ("digamma", "grad"): "trigamma at the poles (non-positive integers): numgrad inf, torch a finite value of "
                         "its series",
    ("polygamma", "grad:-inf"): "derivative at -inf: numgrad NaN, torch -inf",
    # Float formulas at overflow, infinities and NaN.
    ("lerp", "values:huge"): "numgrad computes start + w * (end - start) throughout; torch switches to "
                             "end - (end - start) * (1 - w) for w >= 0.5, so overflow and inf - inf differ",
    ("lerp", "values:inf"): "as lerp values:huge",
    ("lerp", "values:-inf"): "as lerp values:huge",
    ("hardswish", "values:-inf"): "hardswish(-inf): numgrad 0, torch -inf * 0 = NaN",
    ("sinc", "values:inf"): "sinc(+-inf): numgrad 0, torch NaN",
    ("sinc", "values:-inf"): "as sinc values:inf",
    ("sinc", "values:huge"): "torch computes sin(pi x) / (pi x) and pi x overflows to inf (NaN); numgrad gives ~0",
    ("i0", "values:inf"): "i0(+-inf): numgrad inf, torch NaN",
    ("i0", "values:-inf"): "as i0 values:inf",
    ("special_i1", "values:inf"): "i1(+-inf): numgrad +-inf, torch NaN",
    ("special_i1", "values:-inf"): "as special_i1 values:inf",
    ("special_i1", "grad:torch-raised:float16"): "torch has no float16 i1_backward",
    ("gelu", "grad:float16:tiny"): "the derivative at subnormal float16 x is 0 in numgrad; torch gives 0.5",
    ("nanmedian", "grad:nan"): "derivative of an all-NaN median: numgrad NaN, torch 1 at the chosen element",
    ("std", "grad:expanded"): "a constant (expanded) float32 input: torch's float32 mean rounds, so its deviations "
                              "and the gradient are of order one; numgrad's deviations are exactly 0",
    ("std", "values:huge"): "values near the float maximum: whether a variance's sum or squared deviations "
                            "overflow depends on the order of accumulation, so each library gives 0 for some "
                            "such inputs where the other gives inf (equal values: numgrad 0, torch inf)",
    ("var", "values:huge"): "as std values:huge",
    ("cdist", "values:huge"): "float16 products path: squares overflow, and the order of accumulation decides "
                              "inf or NaN",
    ("dist", "grad:torch-raised"): "torch's dist backward raises for p=0; numgrad's gradient is 0",
    **{("cdist", f"grad:{tag}"): "torch's cdist backward kernel forms |d| - dist (inf - inf for an infinite "
                                 "coordinate, NaN for a NaN one) where numgrad's rules give the limit (0, or 1 for the "
                                 "inf-norm)" for tag in ("inf", "-inf", "nan")},
    ("dist", "values:huge"): "values near the float maximum: numgrad's sum of powers overflows to inf; torch's "
                             "norm kernel does not for these (a single element, or its own scaling)",
    ("cdist", "grad:huge"): "as dist values:huge, in the backward pass: an infinite norm where torch's is finite",
    ("pdist", "grad:torch-raised:float16"): "torch's pdist backward has no float16 kernel even for an empty result; "
                                            "numgrad's gradient is zeros",
    **{("cosine_similarity", f"grad:{tag}"): "a zero vector beside an infinite one: torch's gradient is NaN in "
                                             "every coordinate, numgrad's only in the infinite one"
       for tag in ("inf", "-inf")},
    ("cdist", "values:float32"): "the matrix-product path (compute_mode use_mm_for_euclid_dist, or more than 25 "
                                 "rows) forms |x|^2 + |y|^2 - 2 x.y: for coordinates near 1e4 float32 cancellation "
                                 "leaves a few ulps of 1e8, and the BLAS's order of accumulation (MKL in torch, "
                                 "OpenBLAS here) decides which",
    ("cdist", "values:inf"): "as cdist values:nan, where infinite coordinates on both sides differ by inf - inf",
    ("cdist", "values:nan"): "torch's cdist inf-norm drops NaN coordinates (its max skips them); numgrad's is NaN, "
                             "as both libraries' dist and linalg.vector_norm are",
    ("quantile", "values:inf"): "interpolating between inf and a finite value: numgrad inf, torch NaN "
                                "(its lerp computes inf - inf)",
    ("quantile", "values:-inf"): "as quantile values:inf",
    ("logcumsumexp", "grad:-inf"): "derivative where every value is -inf: numgrad 0, torch NaN",
    ("nextafter", "grad"): "numgrad passes gradient 1 to self through nextafter; torch's derivative is 0",
    # Reductions whose float16 intermediates or order of accumulation decide overflow.
    ("renorm", "grad:huge"): "slices whose norm overflows: torch's backward reads a finite norm where numgrad's "
                             "is inf (NaN); in float16 numgrad's backward sums x * g in float32, torch's in "
                             "float16, which overflows",
    ("pdist", "grad:nan"): "derivative at NaN: numgrad 0, torch NaN",
    ("pdist", "grad:inf"): "derivative at inf: numgrad finite, torch NaN",
    ("pdist", "grad:-inf"): "as pdist grad:inf",
    ("hardswish", "values:huge"): "torch computes x * (x + 3) first, which overflows to inf; numgrad does not",
    ("cov", "values:huge"): "entries near the float32 limit: numgrad centres before multiplying and overflows "
                            "to inf, torch to NaN",
    ("cov", "values:int"): "integer inputs near the dtype's limits: float32 results differ in the 5th digit "
                           "(numgrad centres before multiplying, torch after)",
    ("pow", "values:-inf"): "torch's pow by a tensor exponent follows C's pow (pow(-inf, 0.5) = inf, "
                            "pow(-0, 0.5) = +0) and by a Python 0.5 is sqrt (NaN, -0), except in float16; "
                            "numgrad's is sqrt for both",
    ("pow", "values:-0"): "as pow values:-inf",
    ("clamp", "grad:inf"): "bounds equal to each other and to the result (both inf): numgrad passes the gradient "
                           "to min, torch to neither",
    ("prod", "grad:float16:tiny"): "float16 products with subnormal factors: numgrad divides the product by the "
                                   "element, torch multiplies the others; the roundings differ",
    ("gelu", "values:huge"): "torch computes x * (1 + erf) before halving, which overflows to inf near the "
                             "float32 limit; numgrad halves first",
    ("polygamma", "grad:inf"): "the derivative at inf: numgrad 0 (its limit), torch NaN",
    ("cov.weights", "grad:float16"): "float16 rounding of the weighted sums decides the derivative's digits",
    ("cosine_similarity", "grad:inf"): "a zero vector against one holding inf: numgrad's derivative is 0, torch's NaN",
    ("prod", "grad:nan"): "a block holding both a zero and a NaN: torch's derivative at the NaN is the product "
                          "of the others taken in order (0, across the zero), numgrad's NaN",
    **{("prod", f"grad:{tag}"): "as prod grad:nan, for a block holding both a zero and an infinity (numgrad "
                                "divides the block's product by the element: inf / inf)" for tag in ("inf", "-inf")},
    **{(name, "values:huge"): "gap: for x near a beyond about 1e11 the power series and the continued fraction "
                              "do not converge in 2**22 terms and numgrad gives NaN; torch's uniform asymptotic "
                              "expansion gives the value" for name in ("igamma", "igammac")},
    **{(name, "values:tiny"): TORCH_BUG + "for a subnormal float32 a, P(a, x) = x**a / Gamma(a + 1) is 1 to float32 "
                              "precision, as torch's float64 kernel and numgrad (which evaluates in float64) "
                              "give; torch's float32 kernel gives 0" for name in ("igamma", "igammac")},
    # Not yet matched: PyTorch casts a Python number (or a 0-d tensor of another dtype) to float16
    # before these kernels read it (they have no full-precision scalar path, unlike add, sub, mul
    # and div); numgrad computes with the number as given, which differs where float16 rounds it.
    **{(name, "values:float16:scalar"): "gap: the number operand is not rounded to float16 first, as torch's is"
       for name in ("fmod", "remainder", "pow", "xlogy")},
    ("gelu", "values:inf"): TORCH_BUG + "its vectorised erf gives gelu(inf) = NaN for some positions of an array, inf "
                            "for others; numgrad gives inf",
    ("logit", "grad:-0"): "the derivative at -0.0: numgrad 1 / (x (1 - x)) = -inf, torch +inf",
    ("special_i1", "grad:nan"): "the derivative at NaN: numgrad NaN, torch 0.5 (its value at 0)",
    ("cosine_similarity", "grad:float16"): "a zero vector in float16: numgrad's derivative is inf (computed in "
                                           "float32, then rounded), torch's NaN",
    ("pairwise_distance", "grad:float16:huge"): "float16 differences near its largest value: numgrad computes the "
                                                 "norm in float32, torch's derivative overflows to 0",
    ("index_reduce", "strictness:unsupported"): "deliberate: numgrad has no bool index_reduce; torch accepts "
                                                "bool in some layouts (the row lists no bool)",
    # Matrix products and linear algebra with non-finite or overflowing entries: the order of
    # accumulation (BLAS/LAPACK blocking and pivoting) decides where inf - inf makes NaN.
    **{(row, f"{category}:{tag}"): "order of accumulation decides inf - inf"
       for row in ("matmul", "mm", "bmm", "mv", "dot", "addmm", "addmv", "addr", "addbmm", "baddbmm", "linalg.inv",
                   "linalg.det", "linalg.solve")
       for category in ("values", "grad") for tag in ("inf", "-inf", "huge", "tiny", "nan")},
    ("trapezoid", "strictness:bool"): "deliberate: numgrad refuses bool y (the row lists no bool); torch accepts it",
    ("linalg.det", "grad"): "at singular matrices numgrad's derivative is the adjugate (through the SVD): "
                            "nonzero at rank n - 1 and of the order of rounding at rank <= n - 2, where "
                            "torch's LU-based rule gives 0 in both cases; NaN where entries overflow",
    ("linalg.det", "values"): "singular or ill-conditioned matrices (entries from 1 to 1e4, a determinant of "
                              "order 1 or 0 from products of order 1e8): the LU's rounding decides its digits, "
                              "and the two LAPACKs round differently",
    **{(name, f"{category}:float32"): "as linalg.det values: ill-conditioned float32 matrices, rounded "
                                      "differently by the two LAPACKs"
       for name in ("linalg.inv", "linalg.solve") for category in ("values", "grad")},
    ("linalg.inv", "leniency:nan"): "a matrix holding NaN: numgrad returns NaN entries, torch's LU reads NaN "
                                    "pivots as zero and raises that the matrix is singular",
    ("linalg.solve", "leniency:nan"): "as linalg.inv leniency:nan",
    **{(name, f"leniency:{tag}"): "a matrix holding an infinity: numgrad returns NaN entries without factoring it, "
                                  "torch factors it and raises where an exact zero pivot comes first"
       for name in ("linalg.inv", "linalg.solve") for tag in ("inf", "-inf")},
    **{(name, f"{category}:{tag}"): "a singular or nearly singular matrix with entries near the ends of the float "
                                    "range: whether the LU meets an exact zero pivot depends on the order of its "
                                    "updates and on whether it scales by the pivot's reciprocal (subnormal, or inf), "
                                    "so each library raises for some such matrices where the other returns values"
       for name in ("linalg.inv", "linalg.solve") for category in ("leniency", "strictness")
       for tag in ("huge", "tiny")},
    ("cov.weights", "grad:expanded"): "the derivative in an expanded weight sums products of the entries that cancel: "
                                      "float32 rounding decides the last digits",
    # PyTorch's own failures.
    ("as_strided_scatter", "grad"): TORCH_BUG + "its gradient for input keeps g inside the written region and "
                                   "zeroes it outside (the complement of the derivative)",
    ("as_strided_scatter", "leniency"): TORCH_BUG + "it fails an internal assertion on non-contiguous inputs "
                                        "that require grad",
    ("index_reduce", "grad"): TORCH_BUG + "with include_self=False an amax/amin still shares the gradient with "
                              "self's old element when that equals the result (numgrad gives src all of it); "
                              "with NaN in src numgrad's derivative is NaN, torch's 0",
    ("elu", "grad:nan"): TORCH_BUG + "its derivative at NaN depends on the element's position: the scalar path "
                         "gives 1 (as numgrad), the vectorised one NaN",
    ("hardtanh", "grad:nan"): TORCH_BUG + "its derivative at NaN is 1 on the scalar path (as numgrad), 0 on the "
                              "vectorised one",
    ("kron", "leniency"): TORCH_BUG + "kron calls view() on transposed or expanded inputs and raises",
    ("scatter_reduce", "grad:torch-raised"): TORCH_BUG + "backward fails when the index is smaller than src",
    ("scatter", "grad:torch-raised"): TORCH_BUG + "backward gives src an index-shaped gradient when the index is "
                                      "smaller than src, which its engine then refuses",
    ("scatter_add", "grad:torch-raised"): "as scatter grad:torch-raised",
    ("vander", "grad:torch-raised"): TORCH_BUG + "backward fails its own in-place version check",
    ("nanmedian", "values:expanded"): TORCH_BUG + "nanmedian over an expanded (stride 0) input returns garbage",
}

_CATEGORIES = ("values", "dtype", "shape", "grad", "exception", "leniency", "strictness")

_EXAMPLES_ENV = os.environ.get("NUMGRAD_FUZZ_EXAMPLES", "")
_EXAMPLES = int(_EXAMPLES_ENV) if _EXAMPLES_ENV else 40
_ROWS_RE = re.compile(os.environ.get("NUMGRAD_FUZZ_ROWS", ""))

ROWS = [info for info in T.OP_DB if _torch_fn(info) is not None and _ROWS_RE.search(info.id)]

# ------------------------------------------------------------------------------ drawing cases
_PLAIN = {T.sample_unary: 1, T.sample_binary: 2}
# Sample makers whose positional Python scalars are operands (so may be drawn), not dims or orders.
_SCALAR_OPERANDS = {"sample_binary", "sample_ternary", "_sample_intdiv", "_sample_pow", "_sample_clamp",
                    "_sample_clamp_bound", "_sample_shift", "_sample_heaviside"}
# The positions of the arrays that hold data (not indices, sizes, masks, weights or quantiles):
# only these get drawn values. Movement rows take data first, the others everywhere.
_DATA_POSITIONS = {"diff": (0, 3, 4), "block_diag": range(8), "cov.weights": (0,), "quantile.tensor_q": (0,)}
for _info in T.OP_DB:
    if _info.name in ("scatter_reduce", "index_reduce"):
        _DATA_POSITIONS[_info.id] = (0, 3)
    elif _info.kind == "movement":
        _DATA_POSITIONS.setdefault(_info.id, (0,))


def _maker(info):
    s = info.sample_inputs
    return s.func if isinstance(s, functools.partial) else s


def _maker_kw(info):
    s = info.sample_inputs
    return s.keywords if isinstance(s, functools.partial) else {}


def _specials(dtype):
    if dtype == "bool":
        return [False, True]
    if dtype in T.FLOAT_DTYPES:
        fi = np.finfo(dtype)
        return [np.nan, np.inf, -np.inf, 0.0, -0.0, float(fi.max), -float(fi.max), float(fi.tiny),
                -float(fi.tiny), float(fi.smallest_subnormal), 1.0, -1.0, 0.5, -2.5, 1e4, -1e4]
    ii = np.iinfo(dtype)
    return sorted({int(ii.min), int(ii.min) + 1, int(ii.max), int(ii.max) - 1, 0, 1, -1 if ii.min else 2,
                   ii.bits, ii.bits - 1})


_FLOAT_SCALARS = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e308, 5e-324, 2.5, -1.0]
_INT_SCALARS = [0, -1, 1, 8, 64, 255, 256, 2 ** 31, -2 ** 63, 2 ** 63 - 1]

_COMMON_DTYPES = ("bool", "int64", "float32", "float64")


@st.composite
def _dtypes(draw, info):
    """Mostly a dtype the row supports; sometimes one it does not, whose refusal is compared."""
    if draw(st.integers(0, 9)) == 0:
        others = [d for d in T.ALL_DTYPES if d not in info.dtypes]
        if others:
            return draw(st.sampled_from(others)), True
    return draw(st.sampled_from(info.dtypes)), False


def _fill(draw, arr, dtype, rng):
    """Sprinkles special values into ``arr`` (in place): none, a few, or everywhere."""
    if arr.size == 0 or arr.dtype != np.dtype(dtype) or dtype == "bool":
        return
    how = draw(st.sampled_from(("keep", "few", "few", "all")), label="specials")
    if how == "keep":
        return
    pool = _specials(dtype)
    picks = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4), label="special values")
    flat = arr.reshape(-1)
    with np.errstate(all="ignore"):
        if how == "all":
            flat[:] = np.asarray(picks, dtype=np.float64 if dtype in T.FLOAT_DTYPES else object)[
                rng.integers(0, len(picks), flat.size)].astype(dtype)
        else:
            for v in picks:
                flat[rng.integers(0, flat.size)] = v


def _scalar(draw, value):
    if isinstance(value, bool) or not draw(st.integers(0, 3)) == 0:
        return value
    if isinstance(value, float):
        return draw(st.sampled_from(_FLOAT_SCALARS))
    if isinstance(value, int):
        return draw(st.sampled_from(_INT_SCALARS))
    return value


# Sides: mostly 1-4; 0 (an empty tensor) one time in eight, so that few examples still see values.
_SIDES = st.sampled_from((3, 1, 2, 4, 5, 2, 3, 0))


@st.composite
def _broadcastable(draw, n):
    """``n`` shapes that broadcast together: a result shape, each operand dropping leading dims
    and squeezing some sides to 1."""
    result = draw(st.lists(_SIDES, min_size=0, max_size=4))
    shapes = []
    for _ in range(n):
        keep = draw(st.integers(0, len(result))) if draw(st.integers(0, 3)) == 0 else len(result)
        shapes.append(tuple(1 if draw(st.integers(0, 4)) == 0 else side for side in result[len(result) - keep:]))
    return shapes


@st.composite
def cases(draw, info):
    """``(args, kwargs, dtype, unsupported)`` for ``info``: arrays (to become tensors) and scalars."""
    dtype, unsupported = draw(_dtypes(info), label="dtype")
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16), label="seed"))
    maker, mkw = _maker(info), _maker_kw(info)
    nin = _PLAIN.get(maker)
    if nin and draw(st.booleans(), label="free shapes"):
        domains = mkw.get("domains", (mkw.get("domain", (None, None)),) * nin)
        shapes = draw(_broadcastable(nin), label="shapes")
        args = [T._make_array(s, dtype, rng, *d) for s, d in zip(shapes, domains)]
        if nin == 2 and mkw.get("scalar_rhs", True) and draw(st.integers(0, 4)) == 0:
            args[1] = T._scalar_for(dtype, rng, domains[1])
        kwargs = dict(mkw.get("kwargs") or {})
    else:
        samples = _samples(info, dtype)
        sample = samples[draw(st.integers(0, len(samples) - 1), label="sample")]
        # Wide unsigned arrays (a uint8 cumsum in a sample) have no tensor dtype on either side.
        args = [(a.astype(np.int64) if a.dtype.kind == "u" and a.dtype.itemsize > 1 else a.copy())
                if isinstance(a, np.ndarray) else a for a in sample.args]
        kwargs = dict(sample.kwargs)
    data = _DATA_POSITIONS.get(info.id, range(len(args)))
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and i in data:
            _fill(draw, a, dtype, rng)
        elif i and maker.__name__ in _SCALAR_OPERANDS:
            args[i] = _scalar(draw, a)
    layouts = []
    for a in args:
        if not isinstance(a, np.ndarray) or a.ndim == 0:
            layouts.append("contiguous")
            continue
        options = ["contiguous", "stepped"] + (["transposed"] if a.ndim > 1 else []) + (
            ["expanded"] if a.shape[0] > 1 else [])
        layouts.append(draw(st.sampled_from(options), label="layout"))
        if layouts[-1] == "expanded":
            a[...] = a[:1]
    grad = draw(st.booleans(), label="requires_grad")
    return args, kwargs, layouts, dtype, unsupported, grad


@functools.lru_cache(maxsize=None)
def _samples_cached(row_id, dtype):
    info = _BY_ID[row_id]
    try:
        return tuple(info.samples(dtype))
    except Exception:  # a maker that cannot build this (unsupported) dtype
        return tuple(info.samples(info.dtypes[-1]))


_BY_ID = T.op_db_by_id()


def _samples(info, dtype):
    return _samples_cached(info.id, dtype)


# ------------------------------------------------------------------------------ running a case
def _base_and_view(arr, layout):
    """A contiguous base array and the view (as a function of the base tensor) equal to ``arr``."""
    if layout == "transposed":
        return np.ascontiguousarray(np.swapaxes(arr, 0, -1)), lambda t: t.transpose(0, -1)
    if layout == "stepped":
        base = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
        base[..., ::2] = arr
        return base, lambda t: t[..., ::2]
    if layout == "expanded":
        return np.ascontiguousarray(arr[:1]), lambda t: t.expand(*arr.shape)
    return np.ascontiguousarray(arr), lambda t: t


def _build(lib, args, layouts, grad):
    """Tensors for ``lib`` (numgrad or torch), and the leaves whose gradients are compared."""
    out, leaves = [], []
    for a, layout in zip(args, layouts):
        if not isinstance(a, np.ndarray):
            out.append(a)
            continue
        base, view = _base_and_view(a.copy(), layout)
        leaf = numgrad.tensor(base.copy()) if lib is numgrad else torch.from_numpy(base.copy())
        if grad and base.dtype.kind == "f":
            leaf.requires_grad_(True)
            leaves.append(leaf)
        out.append(view(leaf))
    return out, leaves


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [r for x in result for r in _flat(x)]
    return [result]


def _run(lib, fn, args, kwargs, layouts, grad):
    """``(results, leaves, error)``: the call's tensors, the input leaves, and what it raised."""
    tensors, leaves = _build(lib, args, layouts, grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _flat(fn(*tensors, **kwargs)), leaves, None
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return None, leaves, e


def _backward(lib, results):
    """Backpropagates ``sum(result)`` of every floating result that requires grad; the error."""
    roots = [r for r in results if getattr(r, "requires_grad", False) and r.dtype.is_floating_point]
    if not roots:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            total = roots[0].sum()
            for r in roots[1:]:
                total = total + r.sum()
            total.backward()
        except Exception as e:  # noqa: BLE001
            return e
    return None


def _builtin_class(exc):
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins")


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "").replace("numgrad.", "")


def _numpy(t):
    if isinstance(t, (numgrad.Tensor, torch.Tensor)):
        # force=True: the gradient of an op with a zero derivative (sgn) is a ZeroTensor.
        return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy().copy()
    return np.asarray(t)


# Both sides round; where they compute in different precisions or orders, they differ by a
# few ulps, hence tolerances a little looser than those against a float64 reference.
_VALUE_TOL = {"float16": (4e-3, 1e-3), "float32": (1e-5, 1e-5), "float64": (1e-9, 1e-12)}
_GRAD_TOL = {"float16": (2e-2, 1e-2), "float32": (1e-4, 1e-4), "float64": (1e-7, 1e-9)}


def _mismatch(a, e, tol):
    """A description of where ``a`` (numgrad) and ``e`` (torch) differ, or None."""
    if a.shape != e.shape:
        return f"shape {a.shape} != {e.shape}"
    if a.dtype.kind in "biu" and e.dtype.kind in "biu":
        bad = a.astype(object) != e.astype(object) if a.size else np.zeros(0, bool)
    else:
        rtol, atol = tol.get(e.dtype.name, tol.get(a.dtype.name, (0.0, 0.0)))
        af, ef = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(all="ignore"):
            close = (af == ef) | (np.isnan(af) & np.isnan(ef))
            close |= np.isfinite(af) & np.isfinite(ef) & (np.abs(af - ef) <= atol + rtol * np.abs(ef))
        bad = ~close
    if not bad.any():
        return None
    i = tuple(int(v) for v in np.argwhere(bad)[0])
    return f"{int(bad.sum())}/{bad.size} differ, first at {i}: numgrad {a[i]!r} torch {e[i]!r}"


def _tags(args, layouts, dtype, unsupported):
    tags = {dtype, "float" if dtype in T.FLOAT_DTYPES else "bool" if dtype == "bool" else "int"}
    tags |= set(layouts) - {"contiguous"}
    if unsupported:
        tags.add("unsupported")
    for a in args:
        if isinstance(a, np.ndarray):
            if a.ndim == 0:
                tags.add("0d")
            if a.size == 0:
                tags.add("empty")
            values = a.reshape(-1)
        elif isinstance(a, (bool, int, float)) and not isinstance(a, bool):
            tags.add("scalar")
            values = np.asarray([a], dtype=object if isinstance(a, int) else np.float64)
        else:
            continue
        if values.dtype.kind == "f":
            # "huge": squaring overflows the array's dtype.
            big = math.sqrt(float(np.finfo(values.dtype).max))
            with np.errstate(all="ignore"):
                v = values.astype(np.float64)
                tags |= {t for t, hit in (("nan", np.isnan(v).any()), ("inf", (v == np.inf).any()),
                                          ("-inf", (v == -np.inf).any()),
                                          ("-0", ((v == 0) & np.signbit(v)).any()),
                                          ("huge", (np.abs(v[np.isfinite(v)]) > big).any()),
                                          ("tiny", ((v != 0) & (np.abs(v) < 1e-4)).any())) if hit}
        elif values.size and values.dtype.kind in "iuO":
            info = np.iinfo(a.dtype) if isinstance(a, np.ndarray) else np.iinfo(np.int64)
            ints = values.astype(object)
            if any(v == info.min for v in ints) and info.min:
                tags.add("intmin")
            if any(v == info.max for v in ints) or any(abs(v) >= 2 ** 31 for v in ints):
                tags.add("intmax")
    return tags


def _known(row_id, category, tags):
    for (rid, sig), reason in KNOWN_DIVERGENCES.items():
        cat, *need = sig.split(":")
        if rid in (row_id, row_id.split(".")[0], "*") and cat == category and all(t in tags for t in need):
            USED.add((rid, sig))
            return reason
    return None


# Cases whose backward crashes PyTorch's process (a segmentation fault), so are not run there.
_TORCH_BACKWARD_CRASHES = {"pdist": lambda args: args[0].shape[0] == 0}


def _holds_int_min(args):
    return any(isinstance(a, np.ndarray) and a.dtype.kind == "i" and a.size and a.min() == np.iinfo(a.dtype).min
               for a in args)


# Cases whose forward crashes PyTorch's process, so are not compared: lcm divides by the gcd,
# which is -1 for the dtype's minimum and maximum, and the quotient INT_MIN / -1 traps
# (a floating point exception). numgrad returns INT_MIN there.
_TORCH_FORWARD_CRASHES = {"lcm": _holds_int_min}


def compare(info, args, kwargs, layouts, dtype, unsupported, grad):
    """The divergences of one case, as ``[(category, tag, detail)]``: ``tag`` (or None) joins
    the case's tags when the divergence is looked up in ``KNOWN_DIVERGENCES``."""
    found = []
    if _TORCH_FORWARD_CRASHES.get(info.name, lambda args: False)(args):
        return found
    got, g_leaves, g_err = _run(numgrad, info.op, args, kwargs, layouts, grad)
    want, t_leaves, t_err = _run(torch, _torch_fn(info), args, kwargs, layouts, grad)
    if t_err is not None or g_err is not None:
        if g_err is None:
            found.append(("leniency", None, f"torch raised {type(t_err).__name__}: {str(t_err)[:200]}"))
        elif t_err is None:
            found.append(("strictness", None, f"numgrad raised {type(g_err).__name__}: {str(g_err)[:200]}"))
        elif not isinstance(g_err, _builtin_class(t_err)):
            pair = f"{_builtin_class(t_err).__name__}->{_builtin_class(g_err).__name__}"
            found.append(("exception", pair, f"numgrad raised {type(g_err).__name__}: {str(g_err)[:120]}; "
                                       f"torch raised {type(t_err).__name__}: {str(t_err)[:120]}"))
        return found
    if len(got) != len(want):
        return [("shape", None, f"{len(got)} results != {len(want)}")]
    for k, (a, e) in enumerate(zip(got, want)):
        an, en = _numpy(a), _numpy(e)
        if an.shape != en.shape:
            found.append(("shape", None, f"result {k}: {an.shape} != {en.shape}"))
            continue
        if isinstance(e, torch.Tensor) and _dtype_name(a) != _dtype_name(e):
            found.append(("dtype", None, f"result {k}: {_dtype_name(a)} != {_dtype_name(e)}"))
        bad = _mismatch(an, en, _VALUE_TOL)
        if bad:
            found.append(("values", None, f"result {k}: {bad}"))
        if isinstance(e, torch.Tensor) and bool(getattr(a, "requires_grad", False)) != e.requires_grad:
            found.append(("grad", None, f"result {k}: requires_grad {a.requires_grad} != {e.requires_grad}"))
    if not grad or found or _TORCH_BACKWARD_CRASHES.get(info.name, lambda args: False)(args):
        return found
    g_err, t_err = _backward(numgrad, got), _backward(torch, want)
    if (g_err is None) != (t_err is None):
        who = "torch-raised" if t_err is not None else "numgrad-raised"
        return found + [("grad", who, f"backward raised: numgrad {g_err!r}, torch {t_err!r}")]
    for k, (a, e) in enumerate(zip(g_leaves, t_leaves)):
        an = np.zeros(a.shape, _numpy(a).dtype) if a.grad is None else _numpy(a.grad)
        en = np.zeros(e.shape, _numpy(e).dtype) if e.grad is None else _numpy(e.grad)
        bad = _mismatch(an, en, _GRAD_TOL)
        if bad:
            found.append(("grad", None, f"input {k}: {bad}"))
    return found


# ------------------------------------------------------------------------------ the test
COUNTS = collections.Counter()
USED = set()  # the KNOWN_DIVERGENCES entries some case needed


@pytest.fixture(scope="module", autouse=True)
def _report(request):
    yield
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and COUNTS:
        parts = ", ".join(f"{k}={v}" for k, v in sorted(COUNTS.items()))
        reporter.write_line(f"\nfuzz against torch: {parts}")
        if not _ROWS_RE.pattern:
            unused = sorted(f"{rid} {sig}" for rid, sig in KNOWN_DIVERGENCES if (rid, sig) not in USED)
            reporter.write_line(f"known divergences no case needed ({len(unused)}): " + "; ".join(unused))


_SETTINGS = settings(max_examples=_EXAMPLES, derandomize=not _EXAMPLES_ENV, database=None, deadline=None,
                     suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("info", ROWS, ids=[info.id for info in ROWS])
@_SETTINGS
@given(data=st.data())
def test_matches_torch(info, data):
    args, kwargs, layouts, dtype, unsupported, grad = data.draw(cases(info), label="case")
    COUNTS["cases"] += 1
    found = compare(info, args, kwargs, layouts, dtype, unsupported, grad)
    tags = _tags(args, layouts, dtype, unsupported)
    undocumented = []
    for category, tag, detail in found:
        reason = _known(info.id, category, tags | {tag})
        COUNTS[f"{category}{'' if reason else '!'}"] += 1
        if reason is None:
            undocumented.append(f"{category}: {detail}")
    if undocumented:
        call = ", ".join(f"{a.dtype}{list(a.shape)}={a.tolist()!r}"[:300] if isinstance(a, np.ndarray)
                         else repr(a) for a in args)
        raise AssertionError(f"{info.id}({call}, **{kwargs}) layouts={layouts} grad={grad} "
                             f"tags={sorted(tags)}:\n  " + "\n  ".join(undocumented))


def test_known_divergences_name_rows_and_categories():
    ids = {info.id for info in T.OP_DB} | {info.name for info in T.OP_DB} | {"*"}
    for (row_id, sig), reason in KNOWN_DIVERGENCES.items():
        assert row_id in ids, row_id
        assert sig.split(":")[0] in _CATEGORIES, sig
        assert reason, (row_id, sig)
