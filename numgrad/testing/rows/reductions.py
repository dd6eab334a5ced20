"""The table's rows for the reductions: sums, products and extremes, cumulative ops, statistics,
selections (median, mode, kthvalue, topk, sort), traces and distances."""
import math
from functools import partial

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, NO_BOOL
from ..opinfo import OpInfo, SampleInput
from ..references import _np_amax, _np_amin, _np_reduce
from ..samplers import _arg, sample_reduction, sample_unary


def _reduction(name, ref, *, dtypes=ALL_DTYPES, grad=True, empty=True, tuple_dims=True, **kw):
    return OpInfo(name, getattr(numgrad, name), ref,
                  partial(sample_reduction, empty=empty, tuple_dims=tuple_dims), dtypes,
                  inplace=None, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  kind="reduction", tolerances={"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-4)},
                  **kw)


# ------------------------------------------------------------------------------ references
def _along(fn, x, dim, k=None, dtype=None):
    """``fn`` applied to each 1-d row of ``x`` along ``dim``: every row gives ``k`` values (the
    row's length when None), which take the row's place. A 0-d ``x`` is one row of one element."""
    row = np.moveaxis(x.reshape(1) if x.ndim == 0 else x, dim, -1)
    k = row.shape[-1] if k is None else k
    flat = row.reshape(int(np.prod(row.shape[:-1])), row.shape[-1])
    out = np.empty((flat.shape[0], k), dtype=dtype or x.dtype)
    for i, r in enumerate(flat):
        out[i] = fn(r)
    out = np.moveaxis(out.reshape(row.shape[:-1] + (k,)), -1, dim)
    return out.reshape(()) if x.ndim == 0 else out


def _reduced(fn, x, dim, keepdim, dtype=None):
    """A per-row scalar ``fn`` as a reduction over ``dim``."""
    r = _along(fn, x, dim, 1, dtype)
    return r if keepdim or x.ndim == 0 else np.squeeze(r, dim)


def _np_cumsum(x, dim, dtype=None):
    return _along(lambda r: np.cumsum(r, dtype=dtype), x, dim, dtype=dtype or np.float64)


def _np_cumprod(x, dim):
    return _along(np.cumprod, x, dim, dtype=np.float64)


def _running_extreme(r, want_max):
    """Values and indices of a running maximum (minimum): a later equal value takes the index."""
    nan = np.isnan(r) if r.dtype.kind == "f" else np.zeros(r.shape, bool)
    values, indices = r.copy(), np.zeros(r.shape, np.int64)
    for j in range(1, r.size):
        prev = values[j - 1]
        if np.isnan(prev):
            values[j], indices[j] = prev, indices[j - 1]
        elif nan[j] or (r[j] >= prev if want_max else r[j] <= prev):
            indices[j] = j
        else:
            values[j], indices[j] = prev, indices[j - 1]
    return values, indices


def _np_cumext(want_max, part):
    def ref(x, dim):
        return _along(lambda r: _running_extreme(r, want_max)[part], x, dim, dtype=np.int64 if part else x.dtype)
    return ref


def _np_logsumexp(x, dim, keepdim=False):
    if x.ndim == 0:
        return x.copy()
    axes = tuple(d % x.ndim for d in ((dim,) if isinstance(dim, int) else dim))
    if any(x.shape[d] == 0 for d in axes):
        return np.log(np.sum(np.exp(x), axis=axes, keepdims=keepdim))
    m = np.amax(x, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    r = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axes)


def _np_var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    c = correction if correction is not None else 0 if unbiased is False else 1
    axes = range(x.ndim) if dim is None else (dim,) if isinstance(dim, int) else dim
    n = int(np.prod([x.shape[d] for d in axes]))
    m = np.sum(x, axis=dim, keepdims=True) / n
    return np.sum((x - m) ** 2, axis=dim, keepdims=keepdim) / max(n - c, 0)


def _np_std(*args, **kwargs):
    return np.sqrt(_np_var(*args, **kwargs))


def _np_with_mean(spread):
    def ref(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
        axis = None if isinstance(dim, bool) else dim
        n = np.sum(np.ones_like(x), axis=axis, keepdims=keepdim)
        return np.stack([spread(x, dim, unbiased, keepdim, correction=correction),
                         np.sum(x, axis=axis, keepdims=keepdim) / n])
    return ref


def _lower_median(r):
    if r.dtype.kind == "f" and np.isnan(r).any():
        return np.nan
    return np.sort(r)[(r.size - 1) // 2]


def _np_median(x):
    if x.size == 0:
        # PyTorch's NaN converted to an integer type: int32's minimum, whose low bits are 0 in
        # the narrower types.
        if x.dtype.kind == "f":
            return np.array(np.nan)
        return np.array(np.iinfo(x.dtype).min if x.dtype.itemsize >= 4 else 0, dtype=x.dtype)
    return np.asarray(_lower_median(x.reshape(-1)))


def _np_median_dim(part):
    def ref(x, dim, keepdim=False):
        if part:
            return _reduced(lambda r: np.argsort(r, kind="stable")[(r.size - 1) // 2], x, dim, keepdim, np.int64)
        return _reduced(_lower_median, x, dim, keepdim)
    return ref


def _mode_of(r, part):
    """The smallest of the most frequent values, or the last index where it occurs."""
    values, counts = np.unique(r, return_counts=True)
    v = values[np.argmax(counts)]
    return np.flatnonzero(r == v)[-1] if part else v


def _np_mode(part):
    def ref(x, dim=-1, keepdim=False):
        return _reduced(lambda r: _mode_of(r, part), x, dim, keepdim, np.int64 if part else None)
    return ref


def _order(r, descending):
    """The stable order of a row: NaN last ascending and first descending, as PyTorch sorts."""
    key = r.astype(np.float64)
    if descending:
        key = np.where(np.isnan(key), -np.inf, -key)
    return np.argsort(key, kind="stable")


def _np_sort(part):
    def ref(x, dim=-1, descending=False, stable=False):
        if part:
            return _along(lambda r: _order(r, descending), x, dim, dtype=np.int64)
        return _along(lambda r: r[_order(r, descending)], x, dim)
    return ref


def _np_topk(part):
    def ref(x, k, dim=-1, largest=True, sorted=True):
        n = 1 if x.ndim == 0 else k
        pick = (lambda r: _order(r, largest)[:n]) if part else (lambda r: r[_order(r, largest)[:n]])
        return _along(pick, x, dim, n, np.int64 if part else None)
    return ref


def _np_kthvalue(part):
    def ref(x, k, dim=-1, keepdim=False):
        pick = (lambda r: _order(r, False)[k - 1]) if part else (lambda r: r[_order(r, False)[k - 1]])
        return _reduced(pick, x, dim, keepdim, np.int64 if part else None)
    return ref


def _np_pnorm(d, p, axis=None):
    d = np.abs(d)
    if p == 0:
        return np.sum(d != 0, axis=axis).astype(np.float64)
    if p == np.inf:
        return np.max(d, axis=axis, initial=0.0)
    return np.sum(d ** p, axis=axis) ** (1.0 / p)


def _np_dist(x, y, p=2):
    return _np_pnorm((x - y).reshape(-1), p)


def _np_cdist(x1, x2, p=2.0, compute_mode=None):
    return _np_pnorm(x1[..., :, None, :] - x2[..., None, :, :], p, axis=-1)


# ------------------------------------------------------------------------------ samplers
def _distinct(shape, dtype, rng):
    """Values without ties (so that indices are unique): a shuffled range, plus a fraction for floats."""
    n = int(np.prod(shape))
    v = rng.permutation(n) - (0 if dtype == "uint8" else n // 2)
    if dtype in FLOAT_DTYPES:
        v = v + rng.uniform(0.0, 0.5, n)
    return v.reshape(shape).astype(dtype)


def _sample_shapes(cases, *, domain=(None, None), make=None):
    """A sampler of ``(shape, args[, kwargs])`` cases, each a tensor of ``shape`` and its arguments."""
    def sample(dtype, rng):
        for shape, args, *kw in cases:
            x = make(shape, dtype, rng) if make else _arg(shape, dtype, rng, domain)
            yield SampleInput((x,) + args, *kw)
    return sample


def _with_nan(sample, nan_cases):
    """``sample``'s inputs, then for floating dtypes tensors holding NaN called with ``nan_cases``."""
    def with_nan(dtype, rng):
        yield from sample(dtype, rng)
        if dtype in FLOAT_DTYPES:
            for args in nan_cases:
                x = _arg((3, 4), dtype, rng, (None, None))
                x[0, 1] = x[1, :] = np.nan
                yield SampleInput((x,) + args)
    return with_nan


def _small_ints(shape, dtype, rng):
    """Values with many ties: 0..2 (bool: both), random reals for floats (no ties for gradients)."""
    return _arg(shape, dtype, rng, (None, None) if dtype in FLOAT_DTYPES else (0, 3))


_SCANS = [((7,), (0,)), ((), (0,)), ((), (-1,)), ((2, 3), (1,)), ((2, 3, 2), (-2,)), ((0, 3), (0,)),
          ((0, 3), (1,))]
_LSE = [((7,), (0,)), ((), (0,)), ((4, 5), (1,)), ((4, 5), (-2, True)), ((2, 3, 1, 2, 2), ((0, 3),)),
        ((2, 3, 1, 2, 2), ((-1, 1), True)), ((0, 3), (1,)), ((0, 3), (0,))]
_MOMENTS = [((7,), ()), ((), (), {"correction": 0}), ((4, 5), (1,)), ((4, 5), (-2, False, True)),
            ((2, 3, 1, 2, 2), ((0, 3),), {"correction": 2}), ((2, 3, 1, 2, 2), ((-1, 1),), {"keepdim": True}),
            ((4, 5), (None,), {"correction": 0}), ((4, 5), (False,)), ((3,), (0,), {"correction": 3}),
            ((0, 3), (1,)), ((0, 3), (0,))]
_SELECT = [((7,), (0,)), ((2, 3, 2), (1, True)), ((4, 5), (-1,)), ((), (0,)), ((0, 3), (1,))]
_MODE = [((7,), ()), ((4, 5), (0,)), ((2, 3, 2), (-1, True)), ((), ()), ((0, 3), (1,))]
_KTH = [((7,), (3,)), ((4, 5), (1, 0)), ((2, 3, 2), (2, -1, True)), ((), (1,)), ((0, 3), (2, 1))]
_TOPK = [((7,), (3,)), ((4, 5), (2, 0)), ((2, 3, 2), (1, -1, False)), ((4, 5), (5, 1, True, True)), ((), (1,)),
         ((0, 3), (2,)), ((3, 4), (0,)), ((5,), (1, 0, True, False))]
_SORT = [((7,), ()), ((4, 5), (0,)), ((2, 3, 2), (-1, True)), ((), ()), ((0, 3), ()), ((4, 5), (1,), {"stable": True})]
_STABLE = [(shape, args, {"stable": True}) for shape, args, *_ in _SORT]


def _sample_cumsum_dtype(dtype, rng):
    # float64 first: the gradient checks need a float64 result from a float64 input.
    for target in ("float64",) + (("float32",) if dtype != "float64" else ()):
        yield SampleInput((_arg((2, 3), dtype, rng, (None, None)), 1, target))
        yield SampleInput((_arg((0, 2), dtype, rng, (None, None)), 0, target))


def _sample_nansum(dtype, rng):
    yield from sample_reduction(dtype, rng)
    if dtype in FLOAT_DTYPES:
        x = _arg((3, 4), dtype, rng, (None, None))
        x[0, 1] = x[1, :] = x[2, 3] = np.nan
        for args in ((), (1,), (0, True), ((0, 1),)):
            yield SampleInput((x,) + args)


def _sample_median(dtype, rng):
    yield from sample_unary(dtype, rng)
    if dtype in FLOAT_DTYPES:
        x = _arg((2, 3), dtype, rng, (None, None))
        x[1, 2] = np.nan
        yield SampleInput((x,))


def _sample_dist(dtype, rng):
    def pair(s1, s2):
        return _arg(s1, dtype, rng, (None, None)), _arg(s2, dtype, rng, (None, None))
    for s, p in (((2, 3), ()), ((7,), (1,)), ((2, 3, 1, 2, 2), (3,)), ((4,), (0,)), ((2, 3), (math.inf,)),
                 ((), (2,)), ((0, 3), ())):
        yield SampleInput(pair(s, s) + p)
    yield SampleInput(pair((2, 3), (3,)), broadcasts=True)
    yield SampleInput(pair((3, 1), (1, 4)) + (0.5,), broadcasts=True)


def _sample_cdist(dtype, rng):
    def pair(s1, s2):
        return _arg(s1, dtype, rng, (None, None)), _arg(s2, dtype, rng, (None, None))
    for s1, s2, args in (((3, 4), (5, 4), ()), ((2, 3, 4), (2, 5, 4), (1.0,)), ((4, 2), (3, 2), (0.0,)),
                         ((3, 2), (4, 2), (math.inf,)), ((2, 3), (3, 3), (3.0,)), ((3, 0), (2, 0), ()),
                         ((0, 3), (2, 3), ())):
        yield SampleInput(pair(s1, s2) + args)
    yield SampleInput(pair((3, 4), (2, 4)), {"compute_mode": "use_mm_for_euclid_dist"})
    yield SampleInput(pair((1, 3, 2), (2, 4, 2)), broadcasts=True)


# ------------------------------------------------------------------------------ ops with two results
def _values_of(fn):
    """``fn``'s values, through a fresh pair when ``out`` is given (whose values are returned)."""
    return _result_of(fn, 0)


def _indices_of(fn):
    """``fn``'s indices, through a fresh pair when ``out`` is given (whose indices are returned)."""
    return _result_of(fn, 1)


def _result_of(fn, which):
    """Result ``which`` (0 values, 1 indices) of ``fn``; with ``out``, the call writes into a
    pair holding ``out`` there, and must return that pair's tensors."""
    def result(x, *args, out=None, **kwargs):
        if out is None:
            return fn(x, *args, **kwargs)[which]
        pair = [numgrad.empty(0, dtype=x.dtype), numgrad.empty(0, dtype=numgrad.int64)]
        pair[which] = out
        r = fn(x, *args, **kwargs, out=tuple(pair))
        assert r.values is pair[0] and r.indices is pair[1]
        return r[which]
    return result


def _stacked(fn):
    """Both results of ``fn`` (a spread and the mean, of one shape) stacked into one tensor."""
    def stacked(*args, **kwargs):
        return numgrad.stack(fn(*args, **kwargs))
    return stacked


def _cumsum_to(x, dim, dtype, *, out=None):
    return numgrad.cumsum(x, dim, dtype=getattr(numgrad, dtype), out=out)


def _pair_rows(name, ref, sampler, dtypes, *, index_sampler=None, out=True, **kw):
    """A row of ``name``'s values (differentiable) and one of its indices: indices are checked on
    ``index_sampler``'s inputs, whose ties (if any) the op breaks as the reference does."""
    fn = getattr(numgrad, name)
    common = dict(method=None, inplace=None, supports_out=out, torch_name=None, kind="reduction")
    return [OpInfo(name, _values_of(fn), ref(0), sampler, dtypes, variant="values", **common, **kw),
            OpInfo(name, _indices_of(fn), ref(1), index_sampler or sampler, dtypes,
                   variant="indices", supports_grad=False, supports_gradgrad=False, supports_forward_ad=False,
                   **common)]


_MOMENT_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}
_DIST_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}


ROWS = [
    _reduction("sum", _np_reduce(np.sum)),
    _reduction("mean", _np_reduce(np.mean), dtypes=FLOAT_DTYPES),
    _reduction("prod", _np_reduce(np.prod), supports_out=False, tuple_dims=False),
    _reduction("amax", _np_amax, empty=False, supports_out=False),
    _reduction("amin", _np_amin, empty=False, supports_out=False),
    _reduction("any", _np_reduce(np.any), grad=False, supports_out=False),
    _reduction("all", _np_reduce(np.all), grad=False, supports_out=False),
    # Cumulative ops.
    OpInfo("cumsum", numgrad.cumsum, _np_cumsum, _sample_shapes(_SCANS), kind="reduction",
           tolerances={"float16": (5e-3, 5e-3)}),
    OpInfo("cumsum", _cumsum_to, _np_cumsum, _sample_cumsum_dtype, variant="dtype", method=None, inplace=None,
           torch_name=None, kind="reduction"),
    OpInfo("cumprod", numgrad.cumprod, _np_cumprod, _sample_shapes(_SCANS, domain=(-2, 2.5)), kind="reduction",
           tolerances={"float16": (5e-3, 5e-3)}),
    *_pair_rows("cummax", partial(_np_cumext, True), _with_nan(_sample_shapes(_SCANS), ((0,), (1,))), ALL_DTYPES,
                index_sampler=_sample_shapes(_SCANS, make=_small_ints)),
    *_pair_rows("cummin", partial(_np_cumext, False), _with_nan(_sample_shapes(_SCANS), ((0,), (1,))), ALL_DTYPES,
                index_sampler=_sample_shapes(_SCANS, make=_small_ints)),
    # Statistics.
    OpInfo("logsumexp", numgrad.logsumexp, _np_logsumexp, _with_nan(_sample_shapes(_LSE), ((1,), (0, True))),
           inplace=None, kind="reduction", tolerances={"float16": (5e-3, 5e-3)}),
    OpInfo("nansum", numgrad.nansum, _np_reduce(np.nansum), _sample_nansum, inplace=None, kind="reduction",
           tolerances={"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-4)}),
    OpInfo("var", numgrad.var, _np_var, _sample_shapes(_MOMENTS), FLOAT_DTYPES, inplace=None, kind="reduction",
           tolerances=_MOMENT_TOL),
    OpInfo("std", numgrad.std, _np_std, _sample_shapes(_MOMENTS), FLOAT_DTYPES, inplace=None, kind="reduction",
           tolerances=_MOMENT_TOL),
    # The spread and the mean, stacked.
    OpInfo("var_mean", _stacked(numgrad.var_mean), _np_with_mean(_np_var), _sample_shapes(_MOMENTS), FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction", tolerances=_MOMENT_TOL),
    OpInfo("std_mean", _stacked(numgrad.std_mean), _np_with_mean(_np_std), _sample_shapes(_MOMENTS), FLOAT_DTYPES,
           method=None, inplace=None, supports_out=False, torch_name=None, kind="reduction", tolerances=_MOMENT_TOL),
    # Selections: values on any inputs, indices on inputs whose ties the reference breaks as the op does.
    OpInfo("median", numgrad.median, _np_median, _sample_median, NO_BOOL, inplace=None, supports_out=False,
           kind="reduction"),
    *_pair_rows("median", _np_median_dim, _with_nan(_sample_shapes(_SELECT), ((1,), (0, True))), NO_BOOL,
                index_sampler=_sample_shapes(_SELECT, make=_distinct), out=False),
    *_pair_rows("mode", _np_mode, _sample_shapes(_MODE, make=_small_ints), ALL_DTYPES, out=False),
    *_pair_rows("kthvalue", _np_kthvalue, _with_nan(_sample_shapes(_KTH), ((2, 1), (3, 0, True))), NO_BOOL,
                index_sampler=_sample_shapes(_KTH, make=_distinct)),
    *_pair_rows("topk", _np_topk, _with_nan(_sample_shapes(_TOPK), ((2, 1), (3, 0, False))), NO_BOOL,
                index_sampler=_sample_shapes(_TOPK, make=_distinct)),
    *_pair_rows("sort", _np_sort, _with_nan(_sample_shapes(_SORT), ((1,), (0, True))), ALL_DTYPES,
                index_sampler=_sample_shapes(_STABLE, make=_small_ints)),
    # Traces and distances.
    OpInfo("trace", numgrad.trace, np.trace, _sample_shapes([((3, 3), ()), ((2, 4), ()), ((4, 2), ()), ((0, 3), ()),
                                                             ((1, 1), ())]), NO_BOOL, inplace=None,
           supports_out=False, kind="reduction", tolerances={"float16": (5e-3, 5e-3)}),
    OpInfo("dist", numgrad.dist, _np_dist, _sample_dist, FLOAT_DTYPES, inplace=None, supports_out=False,
           kind="reduction", tolerances=_DIST_TOL),
    OpInfo("cdist", numgrad.cdist, _np_cdist, _sample_cdist, ("float32", "float64"), method=None, inplace=None,
           supports_out=False, kind="reduction", tolerances=_DIST_TOL),
]
