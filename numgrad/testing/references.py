"""The op table's references: what each row's op should compute, in NumPy (and ``math``), by family."""
import functools
import math
import operator

import numpy as np

import numgrad


# ------------------------------------------------------------------------------ elementwise
def _float_out(fn):
    """A reference that computes in float64 even for integer inputs (NumPy would pick float16)."""
    def ref(*args, **kwargs):
        return fn(*[a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args], **kwargs)
    return ref


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


def _np_pow_backward(g, x, y):
    return g * 0.0 if y == 0 else g * (y * x ** (y - 1))


# ------------------------------------------------------------------------------ reductions
def _np_reduce(fn):
    def ref(x, dim=None, keepdim=False, dtype=None):
        return fn(x, axis=dim, keepdims=keepdim)
    return ref


def _np_amax(x, dim=None, keepdim=False):
    return np.amax(x, axis=dim, keepdims=keepdim)


def _np_amin(x, dim=None, keepdim=False):
    return np.amin(x, axis=dim, keepdims=keepdim)


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


def _np_scatter(x, dim, index, src=None, value=None, add=False):
    """``x`` with each index position's ``src`` element (or ``value``) written, or added, at
    that position with its ``dim`` coordinate replaced by the index (a loop: independent of
    NumPy's broadcasting rules, which PyTorch's index shapes do not follow)."""
    index, = _ints(index)
    out = x.copy()
    if x.ndim == 0:
        return out + src if add else np.asarray(src if value is None else value, dtype=x.dtype)
    for pos in np.ndindex(*index.shape):
        target = pos[:dim % x.ndim] + (index[pos],) + pos[dim % x.ndim + 1:]
        v = value if value is not None else src[pos]
        out[target] = out[target] + v if add else v
    return out


def _np_index_add(x, dim, index, source, alpha=1, copy=False):
    """index_add (index_copy when ``copy``): slice i of ``source`` along ``dim`` added (or
    written) to slice index[i] of ``x``; a 0-d ``x`` is one slice."""
    out = np.moveaxis(x.reshape(x.shape or (1,)).copy(), dim, 0)
    src = np.moveaxis(np.reshape(source, np.shape(source) or (1,)), dim, 0)
    for i, k in enumerate(_ints(index)[0].reshape(-1)):
        out[k] = src[i] if copy else out[k] + alpha * src[i]
    return np.moveaxis(out, 0, dim).reshape(x.shape)


def _np_index_copy(x, dim, index, source):
    return _np_index_add(x, dim, index, source, copy=True)


def _np_index_fill(x, dim, index, value):
    out = np.moveaxis(x.copy(), dim, 0)
    out[_ints(index)[0].reshape(-1)] = value
    return np.moveaxis(out, 0, dim)


def _np_index_put(x, rows, cols, values, accumulate=False):
    out = x.copy()
    rows, cols = _ints(rows, cols)
    if accumulate:
        np.add.at(out, (rows, cols), values)
    else:
        out[rows, cols] = values
    return out


def _np_put(x, index, source, accumulate=False):
    flat = x.reshape(-1).copy()
    index, = _ints(index)
    if accumulate:
        np.add.at(flat, index.reshape(-1), np.asarray(source).reshape(-1))
    else:
        flat[index.reshape(-1)] = np.asarray(source).reshape(-1)
    return flat.reshape(x.shape)


def _np_masked_select(x, mask):
    x, mask = np.broadcast_arrays(x, mask)
    return x[mask]


def _np_unfold(x, dim, size, step):
    dim %= x.ndim
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)
    return np.take(windows, np.arange(0, windows.shape[dim], step), axis=dim)


# ------------------------------------------------------------------------------ the split family
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


def _np_index_reduce(x, dim, index, src, reduce, include_self=True):
    """index_reduce as the scatter_reduce whose index holds ``index[i]`` at position i of ``dim``."""
    index, = _ints(index)
    dim %= x.ndim
    along = np.broadcast_to(index.reshape([-1 if d == dim else 1 for d in range(src.ndim)]), src.shape)
    return _np_scatter_reduce(x, dim, along, src, reduce, include_self)


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


def _np_xlog1py(x, y):
    # In float64 even for bool operands (NumPy's log1p of a bool is float16).
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        r = np.where(x == 0, 0.0, x * np.log1p(y))
    return np.where(np.isnan(y), np.nan, r)


def _np_nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


# ------------------------------------------------------------------------------ more activations
_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _np_mish_tanh(x):
    return np.tanh(np.logaddexp(0.0, x))


def _np_shrink_grad(x, lambd):
    return (np.abs(x) > lambd).astype(np.float64)


def _np_softshrink(x, lambd=0.5):
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0))


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


# ------------------------------------------------------------------------------ composites, statistics, distances
def _np_diff(x, n=1, dim=-1, prepend=None, append=None):
    return np.diff(x, n, dim, **{k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None})


def _np_logcumsumexp(x, dim):
    return x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=dim)


def _np_renorm(x, p, dim, maxnorm):
    others = tuple(i for i in range(x.ndim) if i != dim % x.ndim)
    norm = np.sum(np.abs(x) ** p, axis=others, keepdims=True) ** (1.0 / p)
    return x * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def _np_vander(x, N=None, increasing=False):
    return np.vander(x.astype(np.int64) if x.dtype.kind in "biu" else x, N, increasing)


def _np_trapezoid(y, x=None, *, dx=None, dim=-1):
    return np.trapezoid(y, x, dx=1.0 if dx is None else dx, axis=dim)


def _np_cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    y = np.moveaxis(y, dim, -1)
    width = (1.0 if dx is None else dx) if x is None else np.diff(x)
    return np.moveaxis(np.cumsum(width * (y[..., 1:] + y[..., :-1]) / 2.0, -1), -1, dim)


def _np_cov(x, correction=1, fweights=None, aweights=None):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _np_cov_weighted(x, fweights, aweights, correction=1):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _np_quantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    return np.quantile(x, q, axis=dim, keepdims=keepdim, method=interpolation)


def _np_block_diag(*arrays):
    blocks = [a if a.ndim == 2 else a.reshape(1, -1) for a in arrays]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), np.result_type(*blocks))
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _np_cosine_similarity(x1, x2, dim=1, eps=1e-8):
    def norm(v):
        return np.maximum(np.sqrt(np.sum(v * v, axis=dim, keepdims=True)), eps)
    return np.sum((x1 / norm(x1)) * (x2 / norm(x2)), axis=dim)


def _np_pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return np.linalg.norm(x1 - x2 + eps, ord=p, axis=-1, keepdims=keepdim)


def _np_pdist(x, p=2):
    i, j = np.triu_indices(x.shape[0], 1)
    return np.linalg.norm(x[i] - x[j], ord=p, axis=-1)


def _np_aminmax(x, dim=None, keepdim=False):
    return np.stack([np.amin(x, axis=dim, keepdims=keepdim), np.amax(x, axis=dim, keepdims=keepdim)])


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
