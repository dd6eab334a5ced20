"""Composite ops PyTorch users expect: diff, logcumsumexp, aminmax, renorm, vander, trapezoid,
broadcast_tensors, block_diag and isin. All but logcumsumexp are written in numgrad ops, so
their gradients (of any order) and tangents follow from their parts."""
from __future__ import annotations

import math

from .. import dtypes, shapes
from ..autograd import grad_mode
from ..autograd.tape import plain, record_result
from ..return_types import return_type
from . import functional_elementwise as F
from .registry import backend, write_out
from ..dtypes import torch_type_name
from .records import get_op, primitive
from ..creation import empty, ones, tensor, zeros
from .movement import cat
from .reductions import amax, amin, sum
from .matrix_functions import _pnorm_jvp, _pnorm_vjp, vector_norm
from .scans import cumsum
from .advanced import masked_select
from .gather import take
from .sorting import searchsorted, sort
from ..autograd.profiler import op_event

__all__ = ["diff", "logcumsumexp", "aminmax", "renorm", "vander", "trapezoid", "cumulative_trapezoid",
           "broadcast_tensors", "broadcast_to", "block_diag", "isin"]

# Tensor methods PyTorch has among the names above.
TENSOR_METHODS = ("diff", "logcumsumexp", "aminmax", "renorm", "broadcast_to")


@op_event("aten::diff")
def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None, *, out=None):
    """diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None) -> Tensor

    The n-th forward difference along ``dim``, ``out[i] = input[i + 1] - input[i]`` applied
    ``n`` times, after joining ``prepend`` and ``append`` along ``dim``. Bool inputs give
    ``input[i + 1] != input[i]``."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = shapes.normalize_dim(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    for t in parts:
        if t.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    x = input
    if len(parts) > 1:
        x = cat(parts, d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = F.logical_xor(hi, lo) if x.dtype is dtypes.bool else hi - lo
    return write_out(x, out, "diff")


# ---------------------------------------------------------------------------- logcumsumexp

def _log_of_positive(w):
    """log(w) where w > 0 and -inf elsewhere, with finite derivatives everywhere."""
    pos = w > 0
    return F.where(pos, F.log(F.where(pos, w, 1.0)), -math.inf)


def _signed_logsum(w, scan):
    """``scan`` (a log-domain cumulative sum) of the weights ``w``, split by sign: keeps every
    exponent bounded whatever the sign of the cotangent or tangent."""
    return F.exp(scan(_log_of_positive(F.clamp_min(w, 0.0)))) - F.exp(scan(_log_of_positive(F.clamp_min(-w, 0.0))))


def _finite_floor(ans):
    """``ans`` with -inf (a prefix of -inf inputs, whose weights are all 0) read as 0, so that
    -inf - ans gives -inf, not NaN."""
    return F.where(ans == -math.inf, 0.0, ans)


def _lcse_vjp(g, ans, x, dim):
    # d ans_j / d x_k = exp(x_k - ans_j) for k <= j: a reversed cumulative sum of g_j exp(-ans_j).
    if not x.ndim:
        return g  # a 0-d tensor's logcumsumexp is itself (and has no dim to flip)
    ans = _finite_floor(ans)
    return _signed_logsum(g, lambda v: logcumsumexp((v - ans).flip(dim), dim).flip(dim) + x)


def _lcse_jvp(t, ans, x, dim):
    ans = _finite_floor(ans)
    return _signed_logsum(t, lambda v: logcumsumexp(v + x, dim) - ans)


_logcumsumexp_op = primitive("logcumsumexp", 1, vjp=(_lcse_vjp,), jvp=(_lcse_jvp,),
                             backward_name="LogcumsumexpBackward0")
_logcumsumexp_op.combine = get_op("logaddexp").math  # each step is a logaddexp


@op_event("aten::logcumsumexp")
def logcumsumexp(input, dim: int, *, out=None):
    """logcumsumexp(input, dim, *, out=None) -> Tensor

    ``log(cumsum(exp(input), dim))``, each step combined stably as ``logaddexp``."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    d = shapes.normalize_dim(dim, input.ndim)
    compute = dtypes.float32 if input.dtype in dtypes.NARROW_FLOATING else input.dtype
    result = backend(input.device).scan(_logcumsumexp_op, input, d, compute, -math.inf, input.dtype)
    return write_out(record_result(_logcumsumexp_op, (input,), result, {"dim": d}), out, "logcumsumexp")


# ---------------------------------------------------------------------------------- aminmax

_aminmax_type = return_type("aminmax", ["min", "max"])
_aminmax_out_type = return_type("aminmax_out", ["min", "max"])


def out_pair(name: str, out) -> tuple:
    """The two tensors of a two-result op's ``out=`` argument, checked as PyTorch checks it."""
    if not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    if len(out) != 2:
        raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
    return tuple(out)


@op_event("aten::aminmax")
def aminmax(input, *, dim=None, keepdim: bool = False, out=None):
    """aminmax(input, *, dim=None, keepdim=False, out=None) -> (min, max)

    The smallest and largest elements, of all of ``input`` or over ``dim``."""
    if out is not None:
        for o in out_pair("aminmax", out):
            if o.dtype is not input.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {dtypes.C_NAMES[input.dtype]}, but got "
                                   f"{dtypes.C_NAMES[o.dtype]} instead")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                               "has no identity.")
        lo, hi = amin(input), amax(input)
        if keepdim:
            lo, hi = lo.reshape((1,) * input.ndim), hi.reshape((1,) * input.ndim)
    else:
        d = shapes.normalize_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        lo, hi = amin(input, d, keepdim), amax(input, d, keepdim)
    if out is None:
        return _aminmax_type(lo, hi)
    return _aminmax_out_type(write_out(lo, out[0], "aminmax"), write_out(hi, out[1], "aminmax"))


# ----------------------------------------------------------------------------------- renorm

def _renorm_factor(x, p, dim, maxnorm):
    """The norm of each slice along ``dim`` and the factor that scales it to at most ``maxnorm``."""
    # As PyTorch's, a 16-bit float norm and its factor are computed in float32, where they do not overflow.
    wide = dtypes.float32 if x.dtype in dtypes.NARROW_FLOATING else None
    norm = vector_norm(x, p, tuple(i for i in range(x.ndim) if i != dim), True, dtype=wide)
    # PyTorch's 1e-7 keeps the rescaled norm just under maxnorm.
    factor = F.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return norm, (factor.to(x.dtype) if wide else factor)


def _renorm_vjp(g, ans, x, p, dim, maxnorm):
    # Slices left unscaled pass g through untouched (a NaN slice too: its norm is not > maxnorm).
    if x.dtype in dtypes.NARROW_FLOATING:
        # In float32, as PyTorch's: 16-bit sums of x * g overflow or lose digits.
        return _renorm_vjp(g.float(), ans, x.float(), p, dim, maxnorm).to(x.dtype)
    dims = tuple(i for i in range(x.ndim) if i != dim)
    norm, factor = _renorm_factor(x, p, dim, maxnorm)
    along = _pnorm_vjp((x * g).sum(dims, True), norm, x, p, dims, True)
    inv = 1.0 / (norm + 1e-7)
    return F.where(norm > maxnorm, factor * g - maxnorm * inv * inv * along, g)


def _renorm_jvp(t, ans, x, p, dim, maxnorm):
    if x.dtype in dtypes.NARROW_FLOATING:
        return _renorm_jvp(t.float(), ans, x.float(), p, dim, maxnorm).to(x.dtype)
    dims = tuple(i for i in range(x.ndim) if i != dim)
    norm, factor = _renorm_factor(x, p, dim, maxnorm)
    inv = 1.0 / (norm + 1e-7)
    dnorm = _pnorm_jvp(t, norm, x, p, dims, True)
    return F.where(norm > maxnorm, factor * t - x * (maxnorm * inv * inv * dnorm), t)


_renorm_op = primitive("renorm", 1, vjp=(_renorm_vjp,), jvp=(_renorm_jvp,), backward_name="RenormBackward0")


@op_event("aten::renorm")
def renorm(input, p, dim: int, maxnorm, *, out=None):
    """renorm(input, p, dim, maxnorm, *, out=None) -> Tensor

    Each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is scaled down to
    norm ``maxnorm``; the others are kept."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = shapes.normalize_dim(dim, input.ndim)
    x = plain(input)
    with grad_mode.no_grad():
        result = x * _renorm_factor(x, p, d, maxnorm)[1]
    params = {"p": p, "dim": d, "maxnorm": maxnorm}
    return write_out(record_result(_renorm_op, (input,), result, params), out, "renorm")


# ----------------------------------------------------------------------------------- vander

@op_event("aten::vander")
def vander(x, N=None, increasing: bool = False):
    """vander(x, N=None, increasing=False) -> Tensor

    The Vandermonde matrix of 1-D ``x``: column ``j`` holds ``x ** (N - 1 - j)`` (``x ** j`` when
    ``increasing``). Integer and bool inputs give int64."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    N = n if N is None else N
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x.dtype if x.dtype.is_floating_point else dtypes.int64
    if N == 0:
        return empty((n, 0), dtype=dtype, device=x.device)
    column = x.to(dtype).unsqueeze(1)
    powers = cat([ones((n, 1), dtype=dtype, device=x.device), column.expand(n, N - 1)], 1).cumprod(1)
    return powers if increasing else powers.flip(1)


# -------------------------------------------------------------------------------- trapezoid

def _zeros_without(y, d):
    return zeros(tuple(s for i, s in enumerate(y.shape) if i != d), dtype=y.dtype, device=y.device)


def _spacing(y, x, dx, d, name):
    """The widths between samples: a tensor broadcastable to ``y`` with one fewer element along
    ``d``, or a Python number."""
    if x is None:
        return 1.0 if dx is None else dx
    if dx is not None or not hasattr(x, "_storage"):
        got = "Tensor, Tensor, dx=" + type(dx).__name__ if dx is not None else "Tensor, " + type(x).__name__
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected "
                        f"(Tensor y, Tensor x, *, int dim) or (Tensor y, *, Number dx, int dim)")
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.reshape(tuple(-1 if i == d else 1 for i in range(y.ndim)))
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    length = x.shape[d]
    return x.narrow(d, 1, length - 1) - x.narrow(d, 0, length - 1)


@op_event("aten::trapezoid")
def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor

    The trapezoidal rule along ``dim``: samples ``y`` at points ``x`` (1-D, or broadcastable to
    ``y``), or spaced ``dx`` apart (1 by default)."""
    _check_not_bool(y, "trapezoid")
    d = shapes.normalize_dim(dim, y.ndim) if y.ndim else _no_dims(dim)
    if y.shape[d] == 0:
        return _zeros_without(y, d)
    width = _spacing(y, x, dx, d, "trapezoid")
    length = y.shape[d]
    if not hasattr(width, "_storage"):
        return (sum(y, d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * width
    return sum(width * (y.narrow(d, 1, length - 1) + y.narrow(d, 0, length - 1)), d) / 2.0


@op_event("aten::cumulative_trapezoid")
def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """cumulative_trapezoid(y, x=None, *, dx=None, dim=-1) -> Tensor

    The running trapezoidal rule along ``dim``: one fewer element than ``y`` along ``dim``."""
    _check_not_bool(y, "cumulative_trapezoid")
    d = shapes.normalize_dim(dim, y.ndim) if y.ndim else _no_dims(dim)
    length = y.shape[d]
    if length == 0:
        return y if y.dtype.is_floating_point else y.to(dtypes.get_default_dtype())
    width = _spacing(y, x, dx, d, "cumulative_trapezoid")
    pairs = y.narrow(d, 1, length - 1) + y.narrow(d, 0, length - 1)
    if not hasattr(width, "_storage"):
        return cumsum(width / 2.0 * pairs, d)
    return cumsum(width * pairs, d) / 2.0


def _check_not_bool(y, name):
    if y.dtype is dtypes.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def _no_dims(dim):
    raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")


# ----------------------------------------------------------------------- shapes and blocks

def broadcast_tensors(*tensors) -> tuple:
    """broadcast_tensors(*tensors) -> List of Tensors

    Expanded views of ``tensors`` to their common broadcast shape."""
    for i, t in enumerate(tensors):
        if not hasattr(t, "_storage"):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    shape = shapes.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors)


def broadcast_to(input, size):
    """broadcast_to(input, shape) -> Tensor: ``input`` expanded to ``shape`` (a view)."""
    return input.expand(size)


@op_event("aten::block_diag")
def block_diag(*tensors):
    """block_diag(*tensors) -> Tensor

    A block-diagonal matrix of the inputs (0-D tensors are 1x1 blocks, 1-D tensors rows), in the
    dtype all of them promote to."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} "
                               f"has {t.ndim} dimensions")
        blocks.append(t if t.ndim == 2 else t.reshape(1, t.numel()))
    if not blocks:
        return empty((1, 0))
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = dtypes.promote_types(dtype, b.dtype)
    device = blocks[0].device
    width = 0
    for b in blocks:
        width += b.shape[1]
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(cat([zeros((r, left), dtype=dtype, device=device), b.to(dtype),
                         zeros((r, width - left - c), dtype=dtype, device=device)], 1))
        left += c
    return cat(rows, 0)


# -------------------------------------------------------------------------------- membership

def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False):
    """isin(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor

    True where an element of ``elements`` is in ``test_elements`` (False where ``invert``);
    either may be a Python scalar. NaN is in nothing."""
    if not hasattr(elements, "_storage") and not hasattr(test_elements, "_storage"):
        raise TypeError("isin() received an invalid combination of arguments: expected a Tensor")
    dtype = dtypes.result_type(elements, test_elements)
    if dtype is dtypes.bool:
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    device = (elements if hasattr(elements, "_storage") else test_elements).device
    e = plain(elements).to(dtype) if hasattr(elements, "_storage") else tensor(elements, dtype=dtype, device=device)
    t = plain(test_elements).to(dtype) if hasattr(test_elements, "_storage") else \
        tensor(test_elements, dtype=dtype, device=device)
    with grad_mode.no_grad():
        t = t.reshape(-1)
        if dtype.is_floating_point:
            # NaN matches nothing, and would break the binary search's ordering.
            t = masked_select(t, F.logical_not(F.isnan(t)))
        if t.numel() == 0:
            found = zeros(e.shape, dtype=dtypes.bool, device=device)
        else:
            ordered = sort(t).values
            # A slot past the end means "larger than all": clamp it to compare with the last.
            slot = F.clamp_max(searchsorted(ordered, e), ordered.numel() - 1)
            found = take(ordered, slot) == e
    return F.logical_not(found) if invert else found
