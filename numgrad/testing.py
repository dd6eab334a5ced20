"""The op table (one OpInfo row per public op) that drives the generic tests and benchmarks,
and numerical checks users can run on their own code (``assert_close``, ``make_tensor``).
"""
from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Optional

import numpy as np

import numgrad
from numgrad.ops import functional_elementwise as _E
from numgrad.ops.functional_elementwise import pow_backward, sigmoid_backward, tanh_backward, threshold_backward

__all__ = ["assert_close", "make_tensor", "OpInfo", "SampleInput", "OP_DB", "op_db_by_id",
           "ALL_DTYPES", "FLOAT_DTYPES", "INT_DTYPES", "INTEGRAL_DTYPES", "default_tolerance"]

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
INTEGRAL_DTYPES = ("bool",) + INT_DTYPES
NO_BOOL = INT_DTYPES + FLOAT_DTYPES

# (rtol, atol) per result dtype, as torch.testing.assert_close; float16 is looser because a
# float32 computation rounded to float16 may differ by one ulp from a float64 one.
# Composite ops round their float16 intermediates, hence a looser bound for them.
_F16_COMPOSITE = {"float16": (1e-2, 1e-2)}
_TOLERANCES = {"float16": (2e-3, 1e-3), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


def default_tolerance(dtype) -> tuple:
    """``(rtol, atol)`` that :func:`assert_close` uses for ``dtype`` (0, 0 for exact dtypes)."""
    return _TOLERANCES.get(_dtype_name(dtype), (0.0, 0.0))


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str):
        return dtype
    return getattr(dtype, "name", None) or np.dtype(dtype).name


# ------------------------------------------------------------------------------ numerical checks
def _to_numpy(x) -> np.ndarray:
    if isinstance(x, numgrad.Tensor):
        return x.detach().numpy().copy() if hasattr(x, "detach") else np.array(x)
    return np.asarray(x)


def assert_close(actual, expected, *, rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = True, check_dtype: bool = True, msg: Optional[str] = None) -> None:
    """Asserts that ``actual`` and ``expected`` are close, like ``torch.testing.assert_close``.

    Both may be numgrad tensors, NumPy arrays or Python numbers. Shapes must match, dtypes too
    when both are tensors and ``check_dtype`` is set; values must satisfy
    ``|actual - expected| <= atol + rtol * |expected|``, with defaults chosen by dtype.
    """
    both_tensors = isinstance(actual, numgrad.Tensor) and isinstance(expected, numgrad.Tensor)
    if both_tensors:
        if tuple(actual.shape) != tuple(expected.shape):
            raise AssertionError(f"The values for attribute 'shape' do not match: "
                                 f"{actual.shape} != {expected.shape}.")
        if check_dtype and actual.dtype != expected.dtype:
            raise AssertionError(f"The values for attribute 'dtype' do not match: "
                                 f"{actual.dtype} != {expected.dtype}.")
    a, e = _to_numpy(actual), _to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is None:
        rtol, atol = map(max, zip(default_tolerance(a.dtype), default_tolerance(e.dtype)))
    if a.dtype == np.bool_ and e.dtype == np.bool_:
        ok = a == e
        diff = (a != e).astype(np.float64)
        rel = diff
    else:
        af, ef = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(af - ef)
            ok = diff <= atol + rtol * np.abs(ef)
            ok |= af == ef  # equal infinities
            if equal_nan:
                ok |= np.isnan(af) & np.isnan(ef)
            rel = diff / np.abs(ef)
        diff = np.where(ok, 0.0, np.nan_to_num(diff, nan=np.inf))
        rel = np.where(ok, 0.0, np.nan_to_num(rel, nan=np.inf))
    if ok.all():
        return
    bad = int((~ok).sum())
    lines = ["Tensor-likes are not close!" if a.ndim else "Scalars are not close!", "",
             f"Mismatched elements: {bad} / {ok.size} ({100.0 * bad / ok.size:.1f}%)"]
    if ok.size:
        ia = np.unravel_index(int(np.argmax(diff)), ok.shape)
        ir = np.unravel_index(int(np.argmax(rel)), ok.shape)
        lines.append(f"Greatest absolute difference: {diff[ia]} at index {tuple(map(int, ia))} "
                     f"(up to {atol} allowed)")
        lines.append(f"Greatest relative difference: {rel[ir]} at index {tuple(map(int, ir))} "
                     f"(up to {rtol} allowed)")
    text = "\n".join(lines)
    raise AssertionError(f"{msg}\n\n{text}" if msg else text)


def _make_array(shape, dtype: str, rng: np.random.Generator, low=None, high=None) -> np.ndarray:
    """Random values of ``dtype`` in ``[low, high)``: small integers, floats in [-5, 5) by default."""
    shape = tuple(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOAT_DTYPES:
        lo = -5.0 if low is None else low
        hi = 5.0 if high is None else high
        return np.asarray(rng.uniform(lo, hi, shape)).astype(dtype)
    info = np.iinfo(dtype)
    lo = max(info.min, -9 if low is None else math.ceil(low))
    hi = min(info.max, 10 if high is None else math.ceil(high))
    return np.asarray(rng.integers(lo, max(hi, lo + 1), shape)).astype(dtype)


def make_tensor(*shape, dtype, low=None, high=None, seed: int = 0, noncontiguous: bool = False,
                requires_grad: bool = False) -> "numgrad.Tensor":
    """A tensor of random values of ``dtype`` in ``[low, high)``, like ``torch.testing.make_tensor``.

    ``noncontiguous=True`` returns a view that steps through a larger buffer.
    """
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    arr = _make_array(shape, _dtype_name(dtype), np.random.default_rng(seed), low, high)
    t = noncontiguous_view(arr) if noncontiguous else numgrad.tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def noncontiguous_view(arr: np.ndarray) -> "numgrad.Tensor":
    """A tensor equal to ``arr`` that strides over every other element of its storage."""
    if arr.ndim == 0:
        return numgrad.tensor(arr)
    big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
    big[..., ::2] = arr
    return numgrad.tensor(big)[..., ::2]


def transposed_view(arr: np.ndarray) -> "numgrad.Tensor":
    """A tensor equal to ``arr`` whose storage holds it with its first and last dims swapped."""
    if arr.ndim < 2:
        return numgrad.tensor(arr)
    return numgrad.tensor(np.ascontiguousarray(np.swapaxes(arr, 0, -1))).transpose(0, -1)


# ------------------------------------------------------------------------------ the table
@dataclass
class SampleInput:
    """Arguments for one call: NumPy arrays (become tensors) or Python scalars, and kwargs.

    ``broadcasts`` marks samples whose operands differ in shape or dtype category; the generic
    tests run those for fewer dtypes to bound compilation time.
    """
    args: tuple
    kwargs: dict = field(default_factory=dict)
    broadcasts: bool = False

    def __repr__(self):
        def fmt(a):
            return f"array{a.shape}:{a.dtype}" if isinstance(a, np.ndarray) else repr(a)
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"SampleInput({', '.join(map(fmt, self.args))}{kw})"


_SAME = object()


@dataclass
class OpInfo:
    """One row of the op table: how to call an op, what it should compute, what it supports.

    ``ref`` is the NumPy reference, called with the sample's arguments (arrays are widened to
    float64 when the op's result is floating). ``sample_inputs(dtype, rng)`` yields
    :class:`SampleInput` s whose first argument is the tensor the method and in-place forms
    are called on. ``domain`` bounds the generated values (e.g. ``(0, None)`` for log).
    """
    name: str
    op: Callable
    ref: Callable
    sample_inputs: Callable
    dtypes: tuple = ALL_DTYPES
    variant: str = ""
    method: Optional[str] = _SAME            # Tensor method name; None if there is none
    inplace: Optional[str] = _SAME           # in-place method name; None if there is none
    supports_out: bool = True
    supports_grad: bool = True
    supports_gradgrad: bool = True
    supports_forward_ad: bool = True
    grad_dtypes: tuple = ("float64",)
    domain: tuple = (None, None)
    tolerances: dict = field(default_factory=dict)   # dtype name -> (rtol, atol)
    torch_name: Optional[str] = _SAME         # function in torch to compare dtypes with
    kind: str = "elementwise"
    invertible_inputs: bool = False  # repeating a matrix's rows would make it singular
    xfails: dict = field(default_factory=dict)   # "values", "values-int8", "out", ... -> reason

    def __post_init__(self):
        if self.method is _SAME:
            self.method = self.name
        if self.inplace is _SAME:
            self.inplace = self.name + "_"
        if self.torch_name is _SAME:
            self.torch_name = self.name

    @property
    def id(self) -> str:
        return f"{self.name}.{self.variant}" if self.variant else self.name

    def samples(self, dtype: str, seed: int = 0) -> list:
        """The sample inputs for ``dtype``, reproducibly generated."""
        return list(self.sample_inputs(dtype, np.random.default_rng(seed)))

    def tolerance(self, dtype) -> tuple:
        name = _dtype_name(dtype)
        return self.tolerances.get(name, default_tolerance(name))

    def __repr__(self):
        return f"OpInfo({self.id})"


_SHAPES = ((), (0,), (7,), (2, 3), (2, 1, 3, 1, 2))
_TENSORS_ONLY = {"scalar_rhs": False}   # PyTorch's function takes no Python scalar here
_BROADCAST = (((3, 1), (1, 4)), ((2, 3), (3,)), ((2, 1, 2), ()))


def _arg(shape, dtype, rng, domain):
    return _make_array(shape, dtype, rng, *domain)


def _scalar_for(dtype: str, rng, domain):
    """A Python scalar of the same category as ``dtype``, inside ``domain``."""
    v = _make_array((), dtype, rng, *domain).item()
    return bool(v) if dtype == "bool" else v


def sample_unary(dtype, rng, *, domain=(None, None), kwargs=None):
    """Tensors of every shape in the generic list: 0-d, empty, 1-d, 2-d and 5-d."""
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, dtype, rng, domain),), dict(kwargs or {}))


def sample_binary(dtype, rng, *, domains=((None, None), (None, None)), kwargs=None,
                  scalar_rhs=True, other_dtype_rhs=True):
    """Same-shape pairs, broadcasting pairs, a Python scalar on the right and a mixed-dtype pair."""
    da, db = domains
    kw = dict(kwargs or {})
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, dtype, rng, da), _arg(shape, dtype, rng, db)), kw)
    for sa, sb in _BROADCAST:
        yield SampleInput((_arg(sa, dtype, rng, da), _arg(sb, dtype, rng, db)), kw, broadcasts=True)
    if scalar_rhs:
        yield SampleInput((_arg((2, 3), dtype, rng, da), _scalar_for(dtype, rng, db)), kw)
        if dtype != "float64" and other_dtype_rhs:
            # a Python float promotes an integer tensor to the default dtype
            yield SampleInput((_arg((3,), dtype, rng, da), float(_scalar_for("float32", rng, db))), kw,
                              broadcasts=True)
    if other_dtype_rhs:
        other = "float64" if dtype != "float64" else "int32"
        yield SampleInput((_arg((4,), dtype, rng, da), _arg((4,), other, rng, db)), kw, broadcasts=True)


def sample_ternary(dtype, rng, *, domains=((None, None),) * 3, kwargs=None, scalar_last=True):
    """Same-shape triples, a broadcasting triple and (optionally) a Python scalar last."""
    kw = dict(kwargs or {})
    for shape in ((), (0,), (7,), (2, 3)):
        yield SampleInput(tuple(_arg(shape, dtype, rng, d) for d in domains), kw)
    yield SampleInput(tuple(_arg(s, dtype, rng, d) for s, d in zip(((2, 3), (3,), (2, 1)), domains)), kw,
                      broadcasts=True)
    if scalar_last:
        yield SampleInput(tuple(_arg((2, 3), dtype, rng, d) for d in domains[:2])
                          + (_scalar_for(dtype, rng, domains[2]),), kw)


def sample_reduction(dtype, rng, *, domain=(None, None), empty=True, tuple_dims=True):
    """Full reductions, one dim, negative dim, tuples of dims, keepdim, 0-d and empty inputs.

    ``empty=False`` is for reductions without an identity (amax): only non-empty dims are reduced.
    """
    x5 = _arg((2, 3, 1, 2, 2), dtype, rng, domain)
    x2 = _arg((4, 5), dtype, rng, domain)
    e = _arg((0, 3), dtype, rng, domain)
    cases = [(_arg((), dtype, rng, domain),), (x2,), (x2, 1), (x2, -2, True), (x5,), (x5, 3), (e, 1)]
    if tuple_dims:
        cases += [(x5, (0, 3)), (x5, (-1, 1), True)]
    if empty:
        cases += [(e, 0), (e,)]
    for args in cases:
        yield SampleInput(args)


def _float_out(fn):
    """A reference that computes in float64 even for integer inputs (NumPy would pick float16)."""
    def ref(*args, **kwargs):
        return fn(*[a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args], **kwargs)
    return ref


def _unary(name, ref, *, dtypes=ALL_DTYPES, domain=(None, None), grad=True, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, partial(sample_unary, domain=domain), dtypes,
                  domain=domain, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  **kw)


def _binary(name, ref, *, dtypes=ALL_DTYPES, domains=((None, None), (None, None)), grad=True,
            sample_kw=None, **kw):
    return OpInfo(name, getattr(numgrad, name), ref,
                  partial(sample_binary, domains=domains, **(sample_kw or {})), dtypes,
                  supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad, **kw)


def _np_sign(x):
    return np.sign(x) if x.dtype != np.bool_ else x.copy()


def _np_round(x, decimals=0):
    if decimals == 0 or x.dtype.kind != "f":
        return np.round(x)
    # PyTorch scales, rounds half to even, and scales back in floating point.
    s = 10.0 ** decimals
    return np.round(x * s) / s


def _np_relu(x):
    return np.where(x > 0, x, np.zeros_like(x))


def _np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_rsqrt(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def _np_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _np_erfc(x):
    return np.vectorize(math.erfc, otypes=[np.float64])(x)


def _np_frac(x):
    return x - np.trunc(x)


def _np_div(x, y, rounding_mode=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        if rounding_mode is None:
            return np.true_divide(x, y)
        if rounding_mode == "trunc":
            if _is_int(x) and _is_int(y):
                q = np.abs(x) // np.abs(y)
                return np.where((np.asarray(x) < 0) != (np.asarray(y) < 0), -q, q)
            return np.trunc(np.true_divide(x, y))
        if _is_int(x) and _is_int(y):
            return np.floor_divide(x, y)
        return np.floor(np.true_divide(x, y))


def _is_int(x) -> bool:
    return np.asarray(x).dtype.kind in "biu"


def _np_floor_divide(x, y):
    return _np_div(x, y, rounding_mode="floor")


def _np_pow(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y)


def _np_clamp(x, min=None, max=None):
    # Integer bounds wrap into a narrow integer dtype, as PyTorch converts them.
    min, max = (numgrad.dtypes.scalar_as(b, x.dtype) if isinstance(b, int) and x.dtype.kind in "iu" else b
                for b in (min, max))
    if min is not None:
        x = np.where(np.isnan(x) if x.dtype.kind == "f" else False, x, np.maximum(x, min))
    if max is not None:
        x = np.where(np.isnan(x) if x.dtype.kind == "f" else False, x, np.minimum(x, max))
    return x


def _np_lerp(s, e, w):
    return s + w * (e - s)


def _np_addcmul(x, a, b, value=1):
    return x + value * a * b


def _np_addcdiv(x, a, b, value=1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return x + value * (a / b)


def _np_where(c, x, y):
    return np.where(c, x, y)


def _np_bitwise_not(x):
    return np.logical_not(x) if x.dtype == np.bool_ else np.invert(x)


def _sample_clamp(dtype, rng):
    x = _arg((2, 3), dtype, rng, (None, None))
    yield SampleInput((x,), {"min": _scalar_for(dtype, rng, (-3, 0))})
    yield SampleInput((x,), {"max": _scalar_for(dtype, rng, (0, 3))})
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), _scalar_for(dtype, rng, (-3, 0)),
                       _scalar_for(dtype, rng, (0, 3))))
    yield SampleInput((_arg((), dtype, rng, (None, None)), -1, 1))
    yield SampleInput((_arg((0, 2), dtype, rng, (None, None)), -1, 1))
    if dtype != "bool":
        lo, hi = _arg((3,), dtype, rng, (-4, 0)), _arg((2, 1), dtype, rng, (0, 4))
        yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), lo, hi), broadcasts=True)
        yield SampleInput((x, None, hi), broadcasts=True)
        # Overlapping ranges: where lo > hi every element is hi.
        lo, hi = _arg((3,), dtype, rng, (-2, 2)), _arg((2, 1), dtype, rng, (-2, 2))
        yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), lo, hi), broadcasts=True)


def _sample_where(dtype, rng):
    for shape in _SHAPES:
        yield SampleInput((_arg(shape, "bool", rng, (None, None)), _arg(shape, dtype, rng, (None, None)),
                           _arg(shape, dtype, rng, (None, None))))
    yield SampleInput((_arg((2, 1), "bool", rng, (None, None)), _arg((3,), dtype, rng, (None, None)),
                       _arg((2, 3), dtype, rng, (None, None))), broadcasts=True)


def _sample_round_decimals(dtype, rng):
    for shape in ((), (0,), (2, 3)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), {"decimals": 2})
    yield SampleInput((_arg((7,), dtype, rng, (-300, 300)),), {"decimals": -1})


def _sample_addc(dtype, rng, *, nonzero_last=False):
    d3 = (0.5, 3) if nonzero_last else (None, None)
    domains = ((None, None), (None, None), d3)
    for kw in ({}, {"value": 0.5 if dtype in FLOAT_DTYPES else 2}):
        for shape in ((), (0,), (2, 3)):
            yield SampleInput(tuple(_arg(shape, dtype, rng, d) for d in domains), kw)
    yield SampleInput(tuple(_arg(s, dtype, rng, d) for s, d in zip(((2, 3), (3,), (2, 1)), domains)), {},
                      broadcasts=True)


def _sample_pow(dtype, rng):
    if dtype in FLOAT_DTYPES:
        base, exp = (0.25, 3.0), (-2.0, 2.0)
    else:
        base, exp = (-3, 4), (0, 4)
    yield from sample_binary(dtype, rng, domains=(base, exp), other_dtype_rhs=False)
    yield SampleInput((_arg((5,), dtype, rng, base), 2))
    if dtype in FLOAT_DTYPES:
        yield SampleInput((_arg((5,), dtype, rng, (-3, 3)), 3.0))


def _sample_pow_backward(dtype, rng):
    # (grad, base, Python-scalar exponent): squares, cubes, a root, a negative power, and 0 and 1,
    # whose rules are constant.
    for shape, exponent in (((), 2), ((0,), 3.0), ((7,), 0.5), ((2, 3), -1.5), ((2, 3), 0), ((2, 3), 1)):
        yield SampleInput((_arg(shape, dtype, rng, (-2, 2)), _arg(shape, dtype, rng, (0.25, 3.0)), exponent))
    yield SampleInput((_arg((2, 3), dtype, rng, (-2, 2)), _arg((3,), dtype, rng, (0.25, 3.0)), 3), broadcasts=True)


def _np_pow_backward(g, x, y):
    return g * 0.0 if y == 0 else g * (y * x ** (y - 1))


def _sample_clamp_bound(dtype, rng):
    # PyTorch clamps bool tensors only by bool tensors, not by Python scalars.
    yield from sample_binary(dtype, rng, scalar_rhs=dtype != "bool", other_dtype_rhs=False)


def _sample_shift(dtype, rng):
    yield from sample_binary(dtype, rng, domains=((None, None), (0, 3)), other_dtype_rhs=False)


def _unary_float(name, np_fn, domain=(None, None), **kw):
    return _unary(name, _float_out(np_fn), domain=domain, **kw)


def _sample_intdiv(dtype, rng, *, kwargs=None):
    # Integer divisors must not be 0 (that raises); negative divisors exercise the rounding.
    if dtype in FLOAT_DTYPES:
        yield from sample_binary(dtype, rng, kwargs=kwargs, domains=((None, None), (0.5, 4)))
        yield SampleInput((_arg((6,), dtype, rng, (-5, 5)), _arg((6,), dtype, rng, (-4, -0.5))), dict(kwargs or {}))
        return
    yield from sample_binary(dtype, rng, kwargs=kwargs, domains=((None, None), (1, 5)))
    if dtype != "uint8":
        yield SampleInput((_arg((6,), dtype, rng, (-9, 9)), _arg((6,), dtype, rng, (-5, -1))), dict(kwargs or {}))


def _intdiv(name, ref, *, variant="", grad=True, kwargs=None):
    return OpInfo(name, getattr(numgrad, name), ref, partial(_sample_intdiv, kwargs=kwargs), NO_BOOL,
                  variant=variant, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad)


def _reduction(name, ref, *, dtypes=ALL_DTYPES, grad=True, empty=True, tuple_dims=True, **kw):
    return OpInfo(name, getattr(numgrad, name), ref,
                  partial(sample_reduction, empty=empty, tuple_dims=tuple_dims), dtypes,
                  inplace=None, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  kind="reduction", tolerances={"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-4)},
                  **kw)


def _np_reduce(fn):
    def ref(x, dim=None, keepdim=False, dtype=None):
        return fn(x, axis=dim, keepdims=keepdim)
    return ref


def _np_amax(x, dim=None, keepdim=False):
    return np.amax(x, axis=dim, keepdims=keepdim)


def _np_amin(x, dim=None, keepdim=False):
    return np.amin(x, axis=dim, keepdims=keepdim)


OP_DB: list = [
    # arithmetic
    _binary("add", np.add),
    _binary("add", lambda x, y, alpha=1: x + alpha * y, variant="alpha",
            sample_kw={"kwargs": {"alpha": 2}}, tolerances=_F16_COMPOSITE),
    _binary("sub", np.subtract, dtypes=NO_BOOL),
    _binary("mul", np.multiply),
    _binary("div", _np_div, domains=((None, None), (0.5, 4))),
    _intdiv("div", partial(_np_div, rounding_mode="trunc"), variant="trunc", grad=False,
            kwargs={"rounding_mode": "trunc"}),
    _intdiv("div", partial(_np_div, rounding_mode="floor"), variant="floor", grad=False,
            kwargs={"rounding_mode": "floor"}),
    _intdiv("floor_divide", _np_floor_divide, grad=False),
    _intdiv("remainder", np.remainder),
    _intdiv("fmod", np.fmod),
    OpInfo("pow", numgrad.pow, _np_pow, _sample_pow, NO_BOOL),
    _binary("atan2", _float_out(np.arctan2), sample_kw=_TENSORS_ONLY),
    _binary("maximum", np.maximum, sample_kw=_TENSORS_ONLY),
    _binary("minimum", np.minimum, sample_kw=_TENSORS_ONLY),
    _binary("fmax", np.fmax, sample_kw=_TENSORS_ONLY, inplace=None),
    _binary("fmin", np.fmin, sample_kw=_TENSORS_ONLY, inplace=None),
    # unary math
    _unary("neg", np.negative, dtypes=NO_BOOL),
    _unary("abs", np.abs, dtypes=NO_BOOL),
    _unary("sign", _np_sign),
    _unary_float("sqrt", np.sqrt, domain=(0.1, 5)),
    _unary_float("rsqrt", _np_rsqrt, domain=(0.1, 5)),
    _unary("square", np.square),
    _unary_float("reciprocal", np.reciprocal, domain=(0.5, 5)),
    _unary_float("exp", np.exp),
    _unary_float("exp2", np.exp2),
    _unary_float("expm1", np.expm1),
    _unary_float("log", np.log, domain=(0.1, 5)),
    _unary_float("log1p", np.log1p, domain=(-0.9, 5)),
    _unary_float("log2", np.log2, domain=(0.1, 5)),
    _unary_float("log10", np.log10, domain=(0.1, 5)),
    _unary_float("sin", np.sin),
    _unary_float("cos", np.cos),
    _unary_float("tan", np.tan, domain=(-1.4, 1.4)),
    _unary_float("asin", np.arcsin, domain=(-0.95, 0.95)),
    _unary_float("acos", np.arccos, domain=(-0.95, 0.95)),
    _unary_float("atan", np.arctan),
    _unary_float("sinh", np.sinh),
    _unary_float("cosh", np.cosh),
    _unary_float("tanh", np.tanh),
    _unary_float("asinh", np.arcsinh),
    _unary_float("acosh", np.arccosh, domain=(1.1, 5)),
    _unary_float("atanh", np.arctanh, domain=(-0.95, 0.95)),
    _unary_float("sigmoid", _np_sigmoid),
    _unary("relu", _np_relu, dtypes=NO_BOOL),
    _unary_float("erf", _np_erf),
    _unary_float("erfc", _np_erfc),
    # rounding
    _unary("ceil", np.ceil, dtypes=NO_BOOL, grad=False),
    _unary("floor", np.floor, dtypes=NO_BOOL, grad=False),
    _unary("round", _np_round, dtypes=NO_BOOL, grad=False),
    OpInfo("round", numgrad.round, _np_round, _sample_round_decimals, FLOAT_DTYPES, variant="decimals",
           supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    _unary("trunc", np.trunc, dtypes=NO_BOOL, grad=False),
    _unary("frac", _np_frac, dtypes=FLOAT_DTYPES),
    # clamping and selection
    OpInfo("clamp", numgrad.clamp, _np_clamp, _sample_clamp, NO_BOOL),
    OpInfo("clip", numgrad.clip, _np_clamp, _sample_clamp, NO_BOOL),
    OpInfo("clamp_min", numgrad.clamp_min, _np_clamp, _sample_clamp_bound),
    OpInfo("clamp_max", numgrad.clamp_max, lambda x, hi: _np_clamp(x, max=hi), _sample_clamp_bound),
    OpInfo("lerp", numgrad.lerp, _np_lerp, partial(sample_ternary, scalar_last=True), FLOAT_DTYPES),
    OpInfo("addcmul", numgrad.addcmul, _np_addcmul, _sample_addc, NO_BOOL, tolerances=_F16_COMPOSITE),
    OpInfo("addcdiv", numgrad.addcdiv, _np_addcdiv, partial(_sample_addc, nonzero_last=True), FLOAT_DTYPES,
           tolerances=_F16_COMPOSITE),
    OpInfo("where", numgrad.where, _np_where, _sample_where, ALL_DTYPES, method=None, inplace=None),
    OpInfo("threshold_backward", threshold_backward, lambda g, y: np.where(y <= 0, 0.0, g),
           partial(sample_binary, domains=((None, None), (None, None))), FLOAT_DTYPES, method=None,
           inplace=None, supports_out=False, torch_name=None),
    OpInfo("pow_backward", pow_backward, _np_pow_backward, _sample_pow_backward, FLOAT_DTYPES, method=None,
           inplace=None, supports_out=False, torch_name=None),
    OpInfo("tanh_backward", tanh_backward, lambda g, y: g * (1 - y * y),
           partial(sample_binary, domains=((None, None), (-1, 1))), FLOAT_DTYPES, method=None, inplace=None,
           supports_out=False, torch_name=None),
    OpInfo("sigmoid_backward", sigmoid_backward, lambda g, y: g * (1 - y) * y,
           partial(sample_binary, domains=((None, None), (0, 1))), FLOAT_DTYPES, method=None, inplace=None,
           supports_out=False, torch_name=None),
    # comparisons and logic
    _binary("eq", np.equal, grad=False),
    _binary("ne", np.not_equal, grad=False),
    _binary("lt", np.less, grad=False),
    _binary("le", np.less_equal, grad=False),
    _binary("gt", np.greater, grad=False),
    _binary("ge", np.greater_equal, grad=False),
    _binary("logical_and", np.logical_and, grad=False, sample_kw=_TENSORS_ONLY),
    _binary("logical_or", np.logical_or, grad=False, sample_kw=_TENSORS_ONLY),
    _binary("logical_xor", np.logical_xor, grad=False, sample_kw=_TENSORS_ONLY),
    _unary("logical_not", np.logical_not, grad=False),
    _unary("isnan", np.isnan, grad=False, inplace=None),
    _unary("isinf", np.isinf, grad=False, inplace=None),
    _unary("isfinite", np.isfinite, grad=False, inplace=None),
    # bitwise
    _binary("bitwise_and", np.bitwise_and, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _binary("bitwise_or", np.bitwise_or, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _binary("bitwise_xor", np.bitwise_xor, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _unary("bitwise_not", _np_bitwise_not, dtypes=INTEGRAL_DTYPES, grad=False),
    OpInfo("bitwise_left_shift", numgrad.bitwise_left_shift, np.left_shift, _sample_shift, INT_DTYPES,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("bitwise_right_shift", numgrad.bitwise_right_shift, np.right_shift, _sample_shift, INT_DTYPES,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    # reductions
    _reduction("sum", _np_reduce(np.sum)),
    _reduction("mean", _np_reduce(np.mean), dtypes=FLOAT_DTYPES),
    _reduction("prod", _np_reduce(np.prod), supports_out=False, tuple_dims=False),
    _reduction("amax", _np_amax, empty=False, supports_out=False),
    _reduction("amin", _np_amin, empty=False, supports_out=False),
    _reduction("any", _np_reduce(np.any), grad=False, supports_out=False),
    _reduction("all", _np_reduce(np.all), grad=False, supports_out=False),
]


# ------------------------------------------------------------------------------ data movement
def _ints(*arrays):
    """Index arguments back to int64 (the generic tests widen every array of a float op)."""
    return [np.asarray(a).astype(np.int64) for a in arrays]


def _np_gather(x, dim, index):
    return np.take_along_axis(x, *_ints(index), dim)


def _np_index_select(x, dim, index):
    return np.take(x, *_ints(index), axis=dim)


def _np_take(x, index):
    return np.take(x, *_ints(index))


def _np_diag_embed(x, offset=0):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), dtype=x.dtype)
    rows = np.arange(x.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = x
    return out


def _np_masked_fill(x, mask, value):
    return np.where(mask, value, x)


def _sample_gather(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), 1, rng.integers(0, 4, (3, 2))))
    yield SampleInput((_arg((2, 3, 2), dtype, rng, (None, None)), 0, rng.integers(0, 2, (2, 3, 2))))
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), 1, np.zeros((0, 2), dtype=np.int64)))


def _sample_index_select(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), 0, np.array([2, 0, 2])))
    yield SampleInput((_arg((2, 5, 3), dtype, rng, (None, None)), 1, np.array([4, 1])))
    yield SampleInput((_arg((2, 0), dtype, rng, (None, None)), 0, np.array([], dtype=np.int64)))


def _sample_take(dtype, rng):
    yield SampleInput((_arg((3, 4), dtype, rng, (None, None)), np.array([[0, -1], [5, 11]])))
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), np.array([3, -7])))


def _sample_shape_kw(dtype, rng, *, cases):
    for shape, args in cases:
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),) + args)


def _sample_masked_fill(dtype, rng):
    value = _scalar_for(dtype, rng, (None, None))
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), rng.random((2, 3)) < 0.5, value))
    yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), rng.random(3) < 0.5, value), broadcasts=True)
    yield SampleInput((_arg((0, 3), dtype, rng, (None, None)), np.zeros((0, 3), dtype=bool), value))


def _movement(name, ref, sample, *, grad=True, method=_SAME, inplace=None, dtypes=ALL_DTYPES, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, sample, dtypes, method=method, inplace=inplace,
                  supports_out=False, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  kind="movement", **kw)


def _np_unfold(x, dim, size, step):
    dim %= x.ndim
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)
    return np.take(windows, np.arange(0, windows.shape[dim], step), axis=dim)


def _tensor_unfold(x, *args):
    return x.unfold(*args)


OP_DB += [
    OpInfo("unfold", _tensor_unfold, _np_unfold,
           partial(_sample_shape_kw, cases=[((3, 5, 4), (1, 2, 1)), ((7,), (0, 3, 2)), ((2, 6), (-1, 3, 3)),
                                             ((0, 3), (1, 2, 1))]),
           ALL_DTYPES, inplace=None, supports_out=False, torch_name=None, kind="movement"),
    _movement("gather", _np_gather, _sample_gather),
    _movement("index_select", _np_index_select, _sample_index_select),
    _movement("take", _np_take, _sample_take),
    _movement("flip", np.flip, partial(_sample_shape_kw, cases=[((3, 4), ((0,),)), ((2, 3, 2), ((2, 0),)),
                                                                   ((0, 2), ((1,),))])),
    _movement("roll", lambda x, s, d=None: np.roll(x, s, d),
              partial(_sample_shape_kw, cases=[((3, 4), (1, 0)), ((2, 3, 2), ((2, -1), (1, 2))),
                                                 ((5,), (7,)), ((0, 2), (1, 1))])),
    _movement("tril", np.tril, partial(_sample_shape_kw, cases=[((3, 4), ()), ((2, 3, 3), (-1,)),
                                                                   ((0, 2), (1,))]), inplace="tril_"),
    _movement("triu", np.triu, partial(_sample_shape_kw, cases=[((3, 4), ()), ((2, 3, 3), (1,)),
                                                                   ((4, 2), (-2,))]), inplace="triu_"),
    _movement("diag_embed", _np_diag_embed, partial(_sample_shape_kw, cases=[((3,), ()), ((2, 3), (1,)),
                                                                               ((2, 2), (-1,))])),
    _movement("repeat_interleave", lambda x, r, dim=None: np.repeat(x, r, axis=dim),
              partial(_sample_shape_kw, cases=[((2, 3), (2, 1)), ((3,), (3,)), ((0, 2), (2, 0))])),
    _movement("msort", lambda x: np.sort(x, axis=0),
              partial(_sample_shape_kw, cases=[((5,), ()), ((4, 3), ()), ((0, 2), ())])),
    _movement("argsort", lambda x, dim=-1: np.argsort(x, axis=dim, kind="stable"),
              partial(_sample_shape_kw, cases=[((6,), ()), ((4, 3), (0,)), ((2, 0), ())]), grad=False,
              torch_name=None),
    _movement("masked_fill", _np_masked_fill, _sample_masked_fill, inplace="masked_fill_"),
]


# ------------------------------------------------------------------------------ the split family
def _split_row(name, np_split, cases, variant=""):
    """A row for split-family op ``name`` against ``np_split``. The table's ops return one tensor:
    pieces 0, 2, 4, ... flattened and joined; the odd ones, left out, check that unused outputs
    give zero gradients."""
    fn = getattr(numgrad, name)

    def op(x, *args, **kwargs):
        return numgrad.cat([p.reshape(-1) for p in fn(x, *args, **kwargs)[::2]])

    def ref(x, *args, **kwargs):
        args = [_ints(a)[0] if isinstance(a, np.ndarray) else a for a in args]
        return np.concatenate([p.reshape(-1) for p in np_split(x, *args, **kwargs)[::2]])
    return OpInfo(name, op, ref, partial(_sample_shape_kw, cases=cases), ALL_DTYPES, variant=variant,
                  method=None, inplace=None, supports_out=False, torch_name=None, kind="movement")


def _np_split(x, size_or_sizes, dim=0):
    if isinstance(size_or_sizes, int):
        return np.split(x, range(size_or_sizes, x.shape[dim], size_or_sizes), axis=dim)
    return np.split(x, np.cumsum(size_or_sizes)[:-1], axis=dim)


def _np_chunk(x, chunks, dim=0):
    n = x.shape[dim]
    return _np_split(x, -(-n // chunks), dim) if n else [x] * chunks


def _np_unbind(x, dim=0):
    return [np.take(x, i, axis=dim) for i in range(x.shape[dim])]


def _np_tensor_split(x, indices_or_sections, dim=0):
    arg = indices_or_sections
    return np.array_split(x, arg.tolist() if isinstance(arg, np.ndarray) else arg, axis=dim)


OP_DB += [
    _split_row("split", _np_split, [((5, 3), (2,)), ((2, 3, 4), (2, -1)), ((4, 3), (4, 1)), ((0, 3), (2,))]),
    _split_row("split", _np_split, [((5, 3), ([2, 0, 3],)), ((2, 3, 4), ([1, 2], 1)), ((0, 2), ([0, 0],))],
               variant="sizes"),
    _split_row("chunk", _np_chunk, [((5, 3), (3,)), ((2, 3, 4), (2, -1)), ((6, 2), (4,)), ((0, 3), (2,))]),
    _split_row("unbind", _np_unbind, [((3, 4), ()), ((2, 3, 2), (1,)), ((0, 2), (1,))]),
    _split_row("tensor_split", _np_tensor_split,
               [((5, 3), (3,)), ((2, 3, 4), ([1, -1, 2], 2)), ((4, 3), (np.array([1, 3]),)), ((3, 2), (5, 1)),
                ((0, 3), (2, 1))]),
    _split_row("hsplit", np.hsplit, [((4, 6), (2,)), ((2, 4, 3), ([1, 3],)), ((6,), (3,)), ((0, 4), (2,))]),
    _split_row("vsplit", np.vsplit, [((4, 3), (2,)), ((3, 2, 4), ([1],)), ((0, 2), ([0],))]),
    _split_row("dsplit", np.dsplit, [((2, 3, 4), (2,)), ((1, 2, 6, 2), ([2, 5],))]),
]


# ------------------------------------------------------------------------------ scatter_reduce
_REDUCERS = {"sum": lambda v: functools.reduce(operator.add, v),
             "prod": lambda v: functools.reduce(operator.mul, v),
             "mean": lambda v: functools.reduce(operator.add, v) / len(v),
             "amax": max, "amin": min}


def _np_scatter_reduce(x, dim, index, src, reduce, include_self=True):
    """Each target element's values reduced one by one in the array's own dtype (so integers
    wrap as the kernels' do); integer means round down."""
    index, = _ints(index)
    out = np.array(x, copy=True).reshape(x.shape or (1,))
    src = src.reshape(src.shape or (1,))
    index = index.reshape(index.shape or (1,))
    dim %= out.ndim
    groups: dict = {}
    for pos in np.ndindex(index.shape):
        target = pos[:dim] + (int(index[pos]),) + pos[dim + 1:]
        groups.setdefault(target, [out[target]] if include_self else []).append(src[pos])
    for target, values in groups.items():
        if reduce == "mean" and out.dtype.kind in "iu":
            out[target] = functools.reduce(operator.add, values) // len(values)
        else:
            out[target] = _REDUCERS[reduce](values)
    return out.reshape(x.shape)


def _sample_scatter_reduce(dtype, rng, *, reduce):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((3, 4)), 0, rng.integers(0, 3, (2, 4)), arg((2, 4)), reduce))
    yield SampleInput((arg((2, 3, 4)), -1, rng.integers(0, 4, (2, 2, 5)), arg((2, 3, 5)), reduce),
                      {"include_self": False})
    yield SampleInput((arg((4, 2)), 1, rng.integers(0, 2, (3, 2)), arg((3, 3)), reduce), {"include_self": False})
    yield SampleInput((arg(()), 0, np.array(0), arg(()), reduce))
    yield SampleInput((arg((0, 3)), 1, np.zeros((0, 2), dtype=np.int64), arg((0, 2)), reduce))


OP_DB += [
    OpInfo("scatter_reduce", numgrad.scatter_reduce, _np_scatter_reduce,
           partial(_sample_scatter_reduce, reduce=reduce), NO_BOOL if reduce == "mean" else ALL_DTYPES,
           variant=reduce, kind="movement")
    for reduce in ("sum", "prod", "mean", "amax", "amin")]


def _np_index_reduce(x, dim, index, src, reduce, include_self=True):
    """index_reduce as the scatter_reduce whose index holds ``index[i]`` at position i of ``dim``."""
    index, = _ints(index)
    dim %= x.ndim
    along = np.broadcast_to(index.reshape([-1 if d == dim else 1 for d in range(src.ndim)]), src.shape)
    return _np_scatter_reduce(x, dim, along, src, reduce, include_self)


def _sample_index_reduce(dtype, rng, *, reduce):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    # First a call that PyTorch refuses for bool too (it takes bool only in some layouts).
    yield SampleInput((arg((2, 3, 4)), -1, rng.integers(0, 4, 3), arg((2, 3, 3)), reduce), {"include_self": False})
    yield SampleInput((arg((3, 4)), 0, rng.integers(0, 3, 5), arg((5, 4)), reduce))
    yield SampleInput((arg((0, 3)), 1, np.zeros(2, dtype=np.int64), arg((0, 2)), reduce))


OP_DB += [
    OpInfo("index_reduce", numgrad.index_reduce, _np_index_reduce, partial(_sample_index_reduce, reduce=reduce),
           NO_BOOL, variant=reduce, kind="movement")
    for reduce in ("prod", "mean", "amax", "amin")]


# ------------------------------------------------------------------------------ matrix products, linalg
def _sample_pairs(dtype, rng, *, cases):
    for sa, sb in cases:
        yield SampleInput((_arg(sa, dtype, rng, (None, None)), _arg(sb, dtype, rng, (None, None))),
                          broadcasts=len(sa) != len(sb))


def _sample_square(dtype, rng, *, rhs=None):
    for shape in ((3, 3), (2, 3, 3), (0, 2, 2)):
        # Diagonally dominant, so that every sample is well conditioned.
        a = _arg(shape, dtype, rng, (-1, 1)) + 4 * np.eye(shape[-1], dtype=dtype)
        yield SampleInput((a,) if rhs is None else (a, _arg(shape[:-1] + (rhs,), dtype, rng, (None, None))))


_MATMUL_CASES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2))]
_PRODUCT_DTYPES = INT_DTYPES + FLOAT_DTYPES
_PRODUCT_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}


def _product(name, ref, cases, dtypes=_PRODUCT_DTYPES, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, partial(_sample_pairs, cases=cases), dtypes,
                  inplace=None, tolerances=_PRODUCT_TOL, kind="linalg", **kw)


def _linalg(name, ref, sample, **kw):
    return OpInfo(f"linalg.{name}", getattr(numgrad.linalg, name), ref, sample, ("float32", "float64"),
                  method=None, inplace=None, torch_name=None, tolerances={"float32": (1e-4, 1e-5)},
                  kind="linalg", **kw)


OP_DB += [
    _product("matmul", np.matmul, _MATMUL_CASES),
    _product("mm", np.matmul, [((2, 3), (3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3))]),
    _product("bmm", np.matmul, [((2, 2, 3), (2, 3, 4)), ((0, 2, 3), (0, 3, 1))]),
    _product("mv", np.matmul, [((2, 3), (3,)), ((0, 3), (3,))]),
    _product("dot", np.dot, [((3,), (3,)), ((0,), (0,))]),
    _product("kron", np.kron, [((2, 3), (2, 2)), ((3,), (2, 2))], dtypes=("bool",) + _PRODUCT_DTYPES),
    _linalg("inv", np.linalg.inv, _sample_square, invertible_inputs=True),
    _linalg("det", np.linalg.det, _sample_square),
    _linalg("solve", np.linalg.solve, partial(_sample_square, rhs=2), invertible_inputs=True),
]


# ------------------------------------------------------------------------------ activations and more math
_GELU_K, _GELU_C = math.sqrt(2.0 / math.pi), 0.044715


def _np_phi(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _np_gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_GELU_K * (x + _GELU_C * x ** 3)))
    return 0.5 * x * _np_erfc(-x / math.sqrt(2.0))


def _np_gelu_grad(x, approximate="none"):
    if approximate == "tanh":
        t = np.tanh(_GELU_K * (x + _GELU_C * x ** 3))
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _GELU_K * (1.0 + 3.0 * _GELU_C * x * x)
    return 0.5 * _np_erfc(-x / math.sqrt(2.0)) + x * _np_phi(x)


def _np_silu_grad(x):
    s = _np_sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


def _np_leaky_relu(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope)


def _np_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _np_softplus(x, beta=1.0, threshold=20.0):
    z = x * beta
    return np.where(z > threshold, x, np.logaddexp(0.0, z) / beta)


def _np_hardtanh(x, min_val=-1.0, max_val=1.0):
    if x.dtype.kind != "f":
        return np.clip(x, int(min_val), int(max_val))
    return np.clip(x, min_val, max_val)


def _backward_ref(grad_fn):
    """The reference of ``name_backward(grad, input, *params)``: grad times the derivative."""
    def ref(g, x, *params, **kwargs):
        return g * grad_fn(np.asarray(x, dtype=np.float64), *params, **kwargs)
    return ref


def _np_xlogy(x, y):
    with np.errstate(all="ignore"):
        r = np.where(np.asarray(x) == 0, 0.0, x * np.log(y))
    return np.where(np.isnan(y), np.nan, r)


def _np_nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _sample_nan_to_num(dtype, rng):
    yield from sample_unary(dtype, rng)
    if dtype in FLOAT_DTYPES:
        x = _arg((2, 5), dtype, rng, (None, None))
        x[0, :3] = [np.nan, np.inf, -np.inf]
        x[1, 4] = np.nan
        yield SampleInput((x,), {"nan": 1.5, "posinf": 100.0, "neginf": -7.0})
        yield SampleInput((x.copy(), 0.5, 2.0, -3.0))


def _activation(name, op, ref, kwargs=None, **kw):
    return OpInfo(name, op, ref, partial(sample_unary, kwargs=kwargs), kw.pop("dtypes", FLOAT_DTYPES),
                  method=None, inplace=None, supports_out=False, torch_name=None, **kw)


def _activation_backward(name, op, grad_fn, kwargs=None):
    return OpInfo(f"{name}_backward", op, _backward_ref(grad_fn), partial(sample_binary, kwargs=kwargs),
                  FLOAT_DTYPES, method=None, inplace=None, supports_out=False, torch_name=None)


_F = numgrad.nn.functional
_SOFTPLUS_KW = {"beta": 2.0, "threshold": 4.0}
_HARDTANH_KW = {"min_val": -2.0, "max_val": 3.0}
OP_DB += [
    _activation("gelu", _F.gelu, _np_gelu),
    _activation("gelu_tanh", _F.gelu, partial(_np_gelu, approximate="tanh"), {"approximate": "tanh"}),
    _activation("silu", _F.silu, lambda x: x * _np_sigmoid(x)),
    _activation("log_sigmoid", _F.logsigmoid, lambda x: -np.logaddexp(0.0, -x)),
    _activation("leaky_relu", _F.leaky_relu, _np_leaky_relu, {"negative_slope": 0.2}),
    _activation("elu", _F.elu, _np_elu, {"alpha": 1.5}),
    _activation("softplus", _F.softplus, _np_softplus, _SOFTPLUS_KW),
    _activation("hardtanh", _F.hardtanh, _np_hardtanh, _HARDTANH_KW,
                dtypes=("int8", "int16", "int32", "int64") + FLOAT_DTYPES),
    _activation("hardtanh", _F.relu6, lambda x: np.clip(x, 0, 6), variant="relu6", dtypes=NO_BOOL),
    _activation_backward("gelu", _E.gelu_backward, _np_gelu_grad),
    _activation_backward("gelu_tanh", _E.gelu_backward, partial(_np_gelu_grad, approximate="tanh"),
                         {"approximate": "tanh"}),
    _activation_backward("silu", _E.silu_backward, _np_silu_grad),
    _activation_backward("log_sigmoid", _E.log_sigmoid_backward, lambda x: _np_sigmoid(-x)),
    _activation_backward("leaky_relu", _E.leaky_relu_backward,
                         lambda x, negative_slope: np.where(x > 0, 1.0, negative_slope), {"negative_slope": 0.2}),
    _activation_backward("elu", _E.elu_backward, lambda x, alpha: np.where(x > 0, 1.0, alpha * np.exp(np.minimum(x, 0))),
                         {"alpha": 1.5}),
    _activation_backward("softplus", _E.softplus_backward,
                         lambda x, beta, threshold: np.where(x * beta > threshold, 1.0, _np_sigmoid(x * beta)),
                         _SOFTPLUS_KW),
    _activation_backward("hardtanh", _E.hardtanh_backward,
                         lambda x, min_val, max_val: ((x > min_val) & (x < max_val)).astype(np.float64),
                         _HARDTANH_KW),
    _unary("sgn", _np_sign),
    OpInfo("nan_to_num", numgrad.nan_to_num, _np_nan_to_num, _sample_nan_to_num),
    _binary("hypot", np.hypot, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY),
    _binary("xlogy", _float_out(_np_xlogy), domains=((None, None), (0.1, 5))),
    _binary("logaddexp", np.logaddexp, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY, inplace=None),
]


# ------------------------------------------------------------------------------ more activations
_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _kernel(name):
    """Call the declared op ``name`` directly, its scalar parameters given by keyword in order."""
    op = numgrad.ops.registry.OPS[name]

    def fn(*args, **kwargs):
        _E.check_floating(name, *(a for a in args if isinstance(a, numgrad.Tensor)))
        return numgrad.ops.registry.run_elementwise(op, args + tuple(kwargs.values()))
    fn.__name__ = name
    return fn


def _np_mish_tanh(x):
    return np.tanh(np.logaddexp(0.0, x))


def _np_shrink_grad(x, lambd):
    return (np.abs(x) > lambd).astype(np.float64)


def _np_softshrink(x, lambd=0.5):
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0))


def _more_activations():
    shrink = {"lambd": 0.7}
    thr = {"threshold": 0.3, "value": -2.0}
    rows = [
        _activation("selu", _F.selu, lambda x: _SELU_S * np.where(x > 0, x, _SELU_A * np.expm1(np.minimum(x, 0)))),
        _activation("celu", _F.celu, lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha)),
                    {"alpha": 1.5}),
        _activation("mish", _F.mish, lambda x: x * _np_mish_tanh(x)),
        _activation("hardswish", _F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
        _activation("hardsigmoid", _F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
        _activation("softsign", _F.softsign, lambda x: x / (1 + np.abs(x)), dtypes=NO_BOOL),
        _activation("tanhshrink", _F.tanhshrink, lambda x: x - np.tanh(x), dtypes=NO_BOOL),
        _activation("softshrink", _F.softshrink, _np_softshrink, shrink),
        _activation("hardshrink", _F.hardshrink, lambda x, lambd: np.where(np.abs(x) > lambd, x, 0.0), shrink),
        # Without uint8: the negative value does not fit it (PyTorch raises, as numgrad does).
        _activation("threshold_value", _F.threshold, lambda x, threshold, value: np.where(x > threshold, x, value),
                    thr, dtypes=tuple(d for d in NO_BOOL if d != "uint8")),
        _activation("rrelu_with_noise", _F.rrelu, lambda x, lower, upper: _np_leaky_relu(x, (lower + upper) / 2),
                    {"lower": 0.1, "upper": 0.3}),
        OpInfo("prelu_kernel", _kernel("prelu_kernel"), lambda x, w: np.where(x > 0, x, w * x),
               partial(sample_binary, scalar_rhs=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("glu_halves", _kernel("glu_halves"), lambda a, b: a * _np_sigmoid(b),
               partial(sample_binary, scalar_rhs=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("glu_gate_backward", _kernel("glu_gate_backward"), lambda g, y, b: g * y * (1 - _np_sigmoid(b)),
               partial(sample_ternary, scalar_last=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("elu_backward_result", _kernel("elu_backward_result"),
               lambda g, y, alpha, scale, input_scale: np.where(y > 0, g * scale, g * input_scale * (y + alpha * scale)),
               partial(sample_binary, scalar_rhs=False, kwargs={"alpha": 1.5, "scale": 1.2, "input_scale": 0.5}),
               FLOAT_DTYPES, method=None, inplace=None, supports_out=False, torch_name=None),
    ]
    grads = [
        ("selu", lambda x: np.where(x > 0, _SELU_S, _SELU_S * _SELU_A * np.exp(np.minimum(x, 0))), None),
        ("celu", lambda x, alpha: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0) / alpha)), {"alpha": 1.5}),
        ("mish", lambda x: _np_mish_tanh(x) + x * _np_sigmoid(x) * (1 - _np_mish_tanh(x) ** 2), None),
        ("hardswish", lambda x: np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0)), None),
        ("hardsigmoid", lambda x: np.where((x > -3) & (x < 3), 1 / 6, 0.0), None),
        ("softsign", lambda x: 1 / (1 + np.abs(x)) ** 2, None),
        ("tanhshrink", lambda x: np.tanh(x) ** 2, None),
        ("softshrink", _np_shrink_grad, shrink),
        ("hardshrink", _np_shrink_grad, shrink),
        ("threshold_value", lambda x, threshold, value: (x > threshold).astype(np.float64), thr),
        ("rrelu_with_noise", lambda x, noise: np.where(x > 0, 1.0, noise), {"noise": 0.2}),
    ]
    return rows + [_activation_backward(name, _kernel(name + "_backward"), fn, kw) for name, fn, kw in grads]


OP_DB += _more_activations()


# ------------------------------------------------------------------------------ special functions
# References from NumPy and ``math`` only, each by another method than the kernel's.
def _np_lgamma(x):
    return np.vectorize(lambda v: math.inf if v <= 0 and v == math.floor(v) else math.lgamma(v),
                        otypes=[np.float64])(x)


def _shifted(x, m=40):
    """``(x + m, sum_j<m 1/(x + j)**p for p = 1..5)``: the recurrence that moves x past m."""
    x = np.asarray(x, dtype=np.float64)
    sums = [sum((x + j) ** -p for j in range(m)) for p in range(1, 6)]
    return x + m, sums


def _np_digamma(x):
    y, sums = _shifted(x)
    return np.log(y) - 0.5 / y - 1 / (12 * y ** 2) + 1 / (120 * y ** 4) - 1 / (252 * y ** 6) - sums[0]


def _np_polygamma(n, x):
    """(-1)^(n+1) n! sum_j 1/(x + j)^(n+1): 40 terms, then Euler-Maclaurin for the tail."""
    if n == 0:
        return _np_digamma(x)
    y, sums = _shifted(x)
    p = n + 1
    tail = (y ** -n / n + 0.5 * y ** -p + p * y ** -(p + 1) / 12
            - p * (p + 1) * (p + 2) * y ** -(p + 3) / 720
            + p * (p + 1) * (p + 2) * (p + 3) * (p + 4) * y ** -(p + 5) / 30240)
    return (-1) ** (n + 1) * math.factorial(n) * (sums[n] + tail)


def _np_erfinv(x):
    # Bisection on math.erf, to the last bit.
    x = np.asarray(x, dtype=np.float64)
    lo, hi = np.full(x.shape, -6.0), np.full(x.shape, 6.0)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = erf(mid) < x
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where(np.abs(x) == 1, np.copysign(np.inf, x), 0.5 * (lo + hi))


def _np_i0(x):
    x = np.asarray(x, dtype=np.float64)
    return np.i0(x.ravel()).reshape(x.shape)


def _np_i1(x):
    def one(v):
        return math.fsum((v / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1)) for k in range(60))
    return np.vectorize(one, otypes=[np.float64])(x)


def _np_logit(x, eps=None):
    x = np.asarray(x, dtype=np.float64)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _np_heaviside(x, values):
    return np.where(x == 0, values, x > 0)


def _np_float_power(x, y):
    return np.float_power(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))


def _np_signbit(x):
    return np.signbit(np.asarray(x, dtype=np.float64))


def _sample_polygamma(dtype, rng):
    # (input, n): the Tensor.polygamma(n) order.
    for shape, n in zip(_SHAPES, (0, 1, 1, 2, 3)):
        yield SampleInput((_arg(shape, dtype, rng, (0.1, 5)), n))


def _sample_heaviside(dtype, rng):
    yield from sample_binary(dtype, rng, scalar_rhs=False, other_dtype_rhs=False)
    x = _arg((2, 4), dtype, rng, (None, None))
    x[:, ::2] = 0
    yield SampleInput((x, _arg((4,), dtype, rng, (None, None))), broadcasts=True)


def _sample_specials(dtype, rng):
    """The generic shapes, then signed zeros, infinities and NaN for floating dtypes."""
    yield from sample_unary(dtype, rng)
    if dtype in FLOAT_DTYPES:
        yield SampleInput((np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, -1.5, 2.0], dtype=dtype),))


OP_DB += [
    _unary_float("logit", _np_logit, domain=(0.05, 0.95)),
    OpInfo("logit", numgrad.logit, _np_logit, partial(sample_unary, domain=(-0.2, 1.2), kwargs={"eps": 0.1}),
           variant="eps", domain=(-0.2, 1.2)),
    _unary_float("erfinv", _np_erfinv, domain=(-0.9, 0.9)),
    _unary_float("lgamma", _np_lgamma, domain=(0.1, 5)),
    _unary_float("digamma", _np_digamma, domain=(0.1, 5)),
    OpInfo("polygamma", lambda x, n, **kw: numgrad.polygamma(n, x, **kw), lambda x, n: _np_polygamma(n, x),
           _sample_polygamma, torch_name=None),
    _unary_float("i0", _np_i0),
    OpInfo("special_i1", numgrad.special.i1, _np_i1, sample_unary, method=None, inplace=None, torch_name=None),
    _unary_float("sinc", np.sinc),
    _unary_float("deg2rad", np.deg2rad),
    _unary_float("rad2deg", np.rad2deg),
    _binary("copysign", _float_out(np.copysign)),
    OpInfo("heaviside", numgrad.heaviside, _np_heaviside, _sample_heaviside, supports_grad=False,
           supports_gradgrad=False, supports_forward_ad=False),
    _binary("logaddexp2", np.logaddexp2, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY, inplace=None),
    OpInfo("float_power", numgrad.float_power, _np_float_power,
           partial(sample_binary, domains=((0.25, 3.0), (-2.0, 2.0))), inplace=None),
    _unary("fix", np.trunc, dtypes=NO_BOOL, grad=False),
    _binary("nextafter", np.nextafter, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY),
    _binary("ldexp", _float_out(lambda x, y: x * np.exp2(y)), domains=((None, None), (-3, 3)),
            sample_kw=_TENSORS_ONLY),
    OpInfo("signbit", numgrad.signbit, _np_signbit, _sample_specials, inplace=None, supports_grad=False,
           supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("isneginf", numgrad.isneginf, lambda x: np.asarray(x, dtype=np.float64) == -np.inf, _sample_specials,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("isposinf", numgrad.isposinf, lambda x: np.asarray(x, dtype=np.float64) == np.inf, _sample_specials,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    _unary("isreal", lambda x: np.ones(np.shape(x), dtype=bool), grad=False, inplace=None, supports_out=False),
]


# ------------------------------------------------------------------------------ composites, statistics, distances
def _np_diff(x, n=1, dim=-1, prepend=None, append=None):
    return np.diff(x, n, dim, **{k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None})


def _sample_diff(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)),))
    yield SampleInput((arg((7,)), 2))
    yield SampleInput((arg((2, 3)), 3, -1))
    yield SampleInput((arg((0, 3)), 1, 0))
    yield SampleInput((arg((2, 3, 2)), 1, 1, arg((2, 1, 2)), arg((2, 2, 2))), broadcasts=True)


def _np_logcumsumexp(x, dim):
    return x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=dim)


def _sample_logcumsumexp(dtype, rng):
    for shape, dim in (((7,), 0), ((), 0), ((0,), 0), ((2, 3), 1), ((2, 3, 2), -2)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), dim))
    if dtype in FLOAT_DTYPES:
        yield SampleInput((np.array([-np.inf, -np.inf, 60.0, 2.0, -np.inf, 61.0], dtype=dtype), 0))


def _np_renorm(x, p, dim, maxnorm):
    others = tuple(i for i in range(x.ndim) if i != dim % x.ndim)
    norm = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return x * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _sample_renorm(dtype, rng):
    # maxnorms between the slices' norms, so that some slices are rescaled and some kept.
    for shape, p, dim, maxnorm in (((3, 4), 2, 0, 5.5), ((2, 3, 2), 1, 1, 8.0), ((2, 5), 3, -1, 5.0),
                                   ((0, 3), 2, 1, 1.0)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)), p, dim, maxnorm))


def _np_vander(x, N=None, increasing=False):
    return np.vander(x.astype(np.int64) if x.dtype.kind in "biu" else x, N, increasing)


def _sample_vander(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (-3, 3))
    yield SampleInput((arg((4,)),))
    yield SampleInput((arg((3,)), 5, True))
    yield SampleInput((arg((0,)),))
    yield SampleInput((arg((4,)), 0))


def _np_trapezoid(y, x=None, *, dx=None, dim=-1):
    return np.trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim)


def _np_cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    y = np.moveaxis(y, dim, -1)
    width = (1.0 if dx is None else dx) if x is None else np.diff(x)
    return np.moveaxis(np.cumsum(width * (y[..., 1:] + y[..., :-1]) / 2.0, -1), -1, dim)


def _sample_trapezoid(dtype, rng, *, matrix_x=True):
    def arg(shape, domain=(None, None)):
        return _arg(shape, dtype, rng, domain)
    yield SampleInput((arg((2, 3)),))
    yield SampleInput((arg((7,)),), {"dx": 0.5})
    yield SampleInput((arg((2, 4, 3)),), {"dim": 1})
    yield SampleInput((arg((2, 0)),))
    yield SampleInput((arg((2, 4)), np.cumsum(arg((4,), (0, 3)))), broadcasts=True)
    yield SampleInput((arg((4, 2)), np.cumsum(arg((4,), (0, 3)))), {"dim": 0}, broadcasts=True)
    if matrix_x:
        yield SampleInput((arg((2, 3)), arg((2, 3))))


def _np_cov(x, correction=1, fweights=None, aweights=None):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _sample_cov(dtype, rng):
    for shape, kw in (((3, 5), {}), ((5,), {}), ((2, 4), {"correction": 0}), ((2, 6), {"correction": 2})):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), kw)


def _cov_weighted(x, fweights, aweights, **kwargs):
    return numgrad.cov(x, fweights=fweights, aweights=aweights, **kwargs)


def _np_cov_weighted(x, fweights, aweights, correction=1):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _sample_cov_weighted(dtype, rng):
    yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), rng.integers(1, 4, 5),
                       _arg((5,), dtype, rng, (0.5, 2))))
    yield SampleInput((_arg((6,), dtype, rng, (None, None)), rng.integers(0, 3, 6),
                       _arg((6,), dtype, rng, (0.5, 2))), {"correction": 0})


def _sample_corrcoef(dtype, rng):
    for shape in ((3, 5), (5,), (2, 4)):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),))


def _np_quantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    return np.quantile(x, q, axis=dim, keepdims=keepdim, method=interpolation)


def _sample_quantile(dtype, rng, *, tensor_q):
    def q(n):
        # Ranks q * (len - 1) away from whole numbers, where the derivative in q jumps.
        v = rng.uniform(0.05, 0.95, n if tensor_q else ())
        return v.astype(dtype) if tensor_q else float(v)
    yield SampleInput((_arg((7,), dtype, rng, (None, None)), q(3)))
    yield SampleInput((_arg((2, 3, 4), dtype, rng, (None, None)), q(2), 1, True))
    yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), q(1), -1))
    for how in ("lower", "higher", "midpoint", "nearest"):
        yield SampleInput((_arg((3, 5), dtype, rng, (None, None)), q(2), 0), {"interpolation": how})
    yield SampleInput((_arg((), dtype, rng, (None, None)), q(1)))
    if dtype in FLOAT_DTYPES:
        nan_row = _arg((2, 4), dtype, rng, (None, None))
        nan_row[0, 2] = np.nan
        yield SampleInput((nan_row, q(2), 1))
    if tensor_q:
        yield SampleInput((_arg((5,), dtype, rng, (None, None)), np.zeros(0, dtype=dtype)))


def _np_block_diag(*arrays):
    blocks = [a if a.ndim == 2 else a.reshape(1, -1) for a in arrays]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), np.result_type(*blocks))
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _sample_block_diag(dtype, rng):
    def arg(shape, dt=dtype):
        return _arg(shape, dt, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((1, 2))))
    yield SampleInput((arg(()), arg((3,)), arg((2, 2))), broadcasts=True)
    yield SampleInput((arg((0, 2)), arg((2, 0)), arg((1, 1))), broadcasts=True)
    yield SampleInput((arg((2, 2)), arg((1, 3), "float64" if dtype != "float64" else "int32")), broadcasts=True)


def _np_cosine_similarity(x1, x2, dim=1, eps=1e-8):
    def norm(v):
        return np.maximum(np.sqrt(np.sum(v * v, axis=dim, keepdims=True)), eps)
    return np.sum((x1 / norm(x1)) * (x2 / norm(x2)), axis=dim)


def _sample_cosine_similarity(dtype, rng):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    yield SampleInput((arg((2, 3)), arg((2, 3))))
    yield SampleInput((arg((3, 4)), arg((3, 4)), 0))
    yield SampleInput((arg((5,)), arg((5,)), 0))
    yield SampleInput((arg((2, 1, 3)), arg((4, 3))), {"dim": -1}, broadcasts=True)
    zero_row = arg((2, 3))
    zero_row[1] = 0
    yield SampleInput((zero_row, arg((2, 3))), {"eps": 1e-3})


def _np_pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return np.linalg.norm(x1 - x2 + eps, ord=p, axis=-1, keepdims=keepdim)


def _sample_pairwise_distance(dtype, rng):
    # x1 > x2 throughout: an unsigned difference would wrap (in PyTorch too).
    def pair(s1, s2):
        return _arg(s1, dtype, rng, (5, 9)), _arg(s2, dtype, rng, (0, 4))
    yield SampleInput(pair((2, 3), (2, 3)))
    yield SampleInput(pair((4,), (4,)), {"p": 1.0})
    yield SampleInput(pair((2, 2, 3), (2, 2, 3)), {"p": 3.0, "keepdim": True})
    yield SampleInput(pair((2, 3), (2, 3)), {"p": math.inf})
    yield SampleInput(pair((2, 3), (3,)), broadcasts=True)


def _np_pdist(x, p=2):
    i, j = np.triu_indices(x.shape[0], 1)
    return np.linalg.norm(x[i] - x[j], ord=p, axis=-1)


def _sample_pdist(dtype, rng):
    for shape, args in (((4, 3), ()), ((5, 2), (1.0,)), ((3, 4), (math.inf,)), ((1, 3), ()), ((0, 3), ())):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),) + args)


def _aminmax(x, *, out=None, **kwargs):
    if out is None:
        return numgrad.stack(numgrad.aminmax(x, **kwargs))
    # out=: both results written into fresh outs, which the pair returned must be
    pair = (numgrad.empty(0, dtype=out.dtype), numgrad.empty(0, dtype=out.dtype))
    r = numgrad.aminmax(x, **kwargs, out=pair)
    assert type(r).__name__ == "aminmax_out" and r.min is pair[0] and r.max is pair[1]
    return numgrad.stack(r, out=out)


def _np_aminmax(x, dim=None, keepdim=False):
    return np.stack([np.amin(x, axis=dim, keepdims=keepdim), np.amax(x, axis=dim, keepdims=keepdim)])


def _sample_aminmax(dtype, rng):
    for shape, kw in (((4, 5), {}), ((4, 5), {"dim": 1}), ((2, 3, 2), {"dim": -1, "keepdim": True}),
                      ((2, 3), {"keepdim": True}), ((), {}), ((), {"dim": 0})):
        yield SampleInput((_arg(shape, dtype, rng, (None, None)),), kw)


def _np_nanmedian(x, dim=None, keepdim=False):
    """The lower median of the non-NaN values; NaN for none."""
    def lower(v):
        v = np.sort(v[~np.isnan(v)]) if v.dtype.kind == "f" else np.sort(v)
        return v[(v.size - 1) // 2] if v.size else np.nan
    if dim is None:
        return np.asarray(lower(x.reshape(-1)))
    r = np.apply_along_axis(lower, dim, x.reshape(1) if x.ndim == 0 else x)
    r = r.reshape(()) if x.ndim == 0 else r
    return np.expand_dims(r, dim) if keepdim and x.ndim else r


def _nanmedian_values(x, *args, out=None, **kwargs):
    if out is None:
        return numgrad.nanmedian(x, *args, **kwargs).values
    indices = numgrad.empty(0, dtype=numgrad.int64)
    r = numgrad.nanmedian(x, *args, **kwargs, out=(out, indices))
    assert type(r).__name__ == "nanmedian_out" and r.indices is indices
    assert numgrad.equal(indices, numgrad.nanmedian(x, *args, **kwargs).indices)
    return r.values


def _sample_nanmedian(dtype, rng, *, dims):
    def arg(shape):
        return _arg(shape, dtype, rng, (None, None))
    cases = ([((7,), (0,)), ((2, 3, 2), (1, True)), ((4, 5), (-1,)), ((), (0,))] if dims else
             [((7,), ()), ((2, 3), ()), ((), ())])
    for shape, args in cases:
        yield SampleInput((arg(shape),) + args)
    if dtype in FLOAT_DTYPES:
        x = arg((3, 4))
        x[0, 1] = x[1, :] = x[2, 0] = np.nan
        yield SampleInput((x,) + ((1,) if dims else ()))
        if not dims:
            yield SampleInput((arg((0,)),))


_DIST_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}
OP_DB += [
    OpInfo("diff", numgrad.diff, _np_diff, _sample_diff, inplace=None, kind="movement"),
    OpInfo("logcumsumexp", numgrad.logcumsumexp, _np_logcumsumexp, _sample_logcumsumexp, FLOAT_DTYPES,
           inplace=None, kind="reduction", tolerances={"float16": (5e-3, 5e-3)}),
    OpInfo("renorm", numgrad.renorm, _np_renorm, _sample_renorm, FLOAT_DTYPES, tolerances=_F16_COMPOSITE,
           kind="reduction"),
    OpInfo("vander", numgrad.vander, _np_vander, _sample_vander, method=None, inplace=None, supports_out=False,
           tolerances=_F16_COMPOSITE, kind="movement"),
    OpInfo("trapezoid", numgrad.trapezoid, _np_trapezoid, _sample_trapezoid, NO_BOOL, method=None,
           inplace=None, supports_out=False, tolerances=_F16_COMPOSITE, kind="reduction"),
    OpInfo("cumulative_trapezoid", numgrad.cumulative_trapezoid, _np_cumulative_trapezoid,
           partial(_sample_trapezoid, matrix_x=False), NO_BOOL, method=None, inplace=None, supports_out=False,
           tolerances=_F16_COMPOSITE, kind="reduction"),
    OpInfo("cov", numgrad.cov, _np_cov, _sample_cov, NO_BOOL, inplace=None, supports_out=False,
           tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("cov", _cov_weighted, _np_cov_weighted, _sample_cov_weighted, FLOAT_DTYPES, variant="weights", method=None,
           inplace=None, supports_out=False, torch_name=None, tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("corrcoef", numgrad.corrcoef, np.corrcoef, _sample_corrcoef, NO_BOOL, inplace=None,
           supports_out=False, tolerances=_DIST_TOL, kind="linalg"),
    OpInfo("quantile", numgrad.quantile, _np_quantile, partial(_sample_quantile, tensor_q=False),
           ("float32", "float64"), inplace=None, kind="reduction"),
    OpInfo("quantile", numgrad.quantile, _np_quantile, partial(_sample_quantile, tensor_q=True),
           ("float32", "float64"), variant="tensor_q", inplace=None, kind="reduction"),
    OpInfo("block_diag", numgrad.block_diag, _np_block_diag, _sample_block_diag, method=None, inplace=None,
           supports_out=False, kind="movement"),
    OpInfo("cosine_similarity", _F.cosine_similarity, _np_cosine_similarity, _sample_cosine_similarity,
           FLOAT_DTYPES, method=None, inplace=None, supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    OpInfo("pairwise_distance", _F.pairwise_distance, _np_pairwise_distance, _sample_pairwise_distance, NO_BOOL,
           method=None, inplace=None, supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    OpInfo("pdist", _F.pdist, _np_pdist, _sample_pdist, ("float32", "float64"), method=None, inplace=None,
           supports_out=False, tolerances=_DIST_TOL, kind="reduction"),
    # Ops with two results: the table checks them stacked (aminmax) or their values (nanmedian).
    OpInfo("aminmax", _aminmax, _np_aminmax, _sample_aminmax, method=None, inplace=None, torch_name=None,
           kind="reduction"),
    OpInfo("nanmedian", numgrad.nanmedian, _np_nanmedian, partial(_sample_nanmedian, dims=False), NO_BOOL,
           inplace=None, supports_out=False, kind="reduction"),
    # PyTorch's nanmedian has out= only over a dim.
    OpInfo("nanmedian", _nanmedian_values, _np_nanmedian, partial(_sample_nanmedian, dims=True), NO_BOOL,
           variant="dim", method=None, inplace=None, torch_name=None, kind="reduction"),
]


def op_db_by_id() -> dict:
    """The table as ``{row id: OpInfo}`` (ids are ``name`` or ``name.variant``)."""
    return {info.id: info for info in OP_DB}
