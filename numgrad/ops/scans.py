"""Scans along one dim: cumsum and cumprod (running totals from the sum's and product's combine
bodies), cummax and cummin (running extremes and where they were reached), with their VJP and
JVP rules."""
from __future__ import annotations

from .. import dtypes, shapes
from ..autograd import tape
from ..return_types import return_type as _return_type
from .reductions import prod_op, sum, sum_op
from .registry import backend, write_out as _write_out
from .records import primitive
from ..creation import zeros
from .functional_elementwise import where
from ..autograd.profiler import op_event

__all__ = ["cumsum", "cumprod", "cummax", "cummin"]


return_types = {n: _return_type(n) for n in ("cummax", "cummin")}


def _where(c, a, b):
    return where(c, a, b)


def _cumsum_vjp(g, ans, x, dim, dtype):
    # Reverse cumulative sum: element k receives the cotangents of outputs k, k+1, ... (summed
    # from the end, not as the total minus a prefix, which cancels and turns inf - inf into NaN).
    return cumsum(g.flip(dim), dim).flip(dim)


def _cumprod_grad(g, ans, x, dim):
    """d/dx of sum(g * cumprod(x)), zeros included.

    Before the first zero of a row, each x is nonzero and the gradient is the reverse
    cumulative sum of g * ans divided by x. At the first zero it is the reverse cumulative sum
    of g * cumprod(x with that zero set to 1). After it, every product holds that zero twice
    over (or the gradient would need a later one): 0.
    """
    zero = x == 0
    seen = cumsum(zero, dim)
    before = seen == 0
    first = zero & (seen == 1)
    rc = _cumsum_vjp(g * ans, ans, x, dim, None)
    rc_first = _cumsum_vjp(g * cumprod(_where(first, 1, x), dim), ans, x, dim, None)
    return _where(before, rc / _where(before, x, 1), _where(first, rc_first, 0))


def _single(x, dim):
    """Whether each row along ``dim`` holds one element: the product is then the element itself
    (whose derivative is 1 even at NaN or inf, where the general rules divide by it)."""
    return (x.shape[dim] if x.ndim else 1) == 1


def _cumprod_vjp(g, ans, x, dim, dtype):
    return g if _single(x, dim) else _cumprod_grad(g, ans, x, dim)


def _cumprod_jvp(t, ans, x, dim, dtype):
    if _single(x, dim):
        return t
    # Output j gets sum_{k<=j} t_k * prod_{i<=j, i!=k} x_i: ans_j * cumsum(t / x)_j before the
    # first zero, t at that zero times the product of the others while it is the only zero, 0
    # after a second one.
    zero = x == 0
    seen = cumsum(zero, dim)
    before = seen == 0
    first = zero & (seen == 1)
    t_first = sum(t * first, dim, True)
    return _where(before, ans * cumsum(t / _where(before, x, 1), dim),
                  _where(seen == 1, t_first * cumprod(_where(first, 1, x), dim), 0))


_cumsum = primitive("cumsum", 1, vjp=(_cumsum_vjp,), jvp=(lambda t, ans, x, dim, dtype: cumsum(t, dim),),
                    backward_name="CumsumBackward0")
_cumprod = primitive("cumprod", 1, vjp=(_cumprod_vjp,), jvp=(_cumprod_jvp,), backward_name="CumprodBackward0")
_cumsum.combine = sum_op.combine
_cumprod.combine = prod_op.combine


def _scan(op, x, dim, dtype, out):
    d = shapes.normalize_dim(dim, x.ndim)
    if dtype is not None:
        acc = dtypes.as_dtype(dtype)
    else:
        acc = x.dtype if x.dtype.is_floating_point else dtypes.int64
    # Running totals accumulate as PyTorch's do: float16 in float32, and on the CPU float32 in
    # float64, each output rounded once.
    compute = dtypes.float32 if acc in dtypes.NARROW_FLOATING else acc
    if acc is dtypes.float32 and x.device.type == "cpu":
        compute = dtypes.float64
    result = backend(x.device).scan(op, x, d, compute, 0 if op is _cumsum else 1, acc)
    params = {"dim": d, "dtype": dtype}
    if tape.should_record((x,)):
        tape.record(op, (x,), result, params)
    if tape.has_tangents((x,)):
        tape.forward_jvp(op, (x,), result, params)
    return _write_out(result, out, op.name)


@op_event("aten::cumsum")
def cumsum(input, dim, *, dtype=None, out=None):
    """cumsum(input, dim, *, dtype=None, out=None) -> Tensor

    Cumulative sum along ``dim``: ``y[i] = x[0] + ... + x[i]``. Integer inputs give int64."""
    return _scan(_cumsum, input, dim, dtype, out)


@op_event("aten::cumprod")
def cumprod(input, dim, *, dtype=None, out=None):
    """cumprod(input, dim, *, dtype=None, out=None) -> Tensor

    Cumulative product along ``dim``: ``y[i] = x[0] * ... * x[i]``. Integer inputs give int64."""
    return _scan(_cumprod, input, dim, dtype, out)


def _cumext_vjp(g, ans, x, dim, indices):
    # Each running extreme came from one element: its cotangent goes back there.
    return zeros(x.shape, dtype=g.dtype, device=g.device).scatter_add(dim, indices, g)


_cummax = primitive("cummax", 1, vjp=(_cumext_vjp,), jvp=(lambda t, ans, x, dim, indices: t.gather(dim, indices),),
                    backward_name="CummaxBackward0")
_cummin = primitive("cummin", 1, vjp=(_cumext_vjp,), jvp=(lambda t, ans, x, dim, indices: t.gather(dim, indices),),
                    backward_name="CumminBackward0")


def _cumulative_extreme(x, dim, out, want_max):
    name = "cummax" if want_max else "cummin"
    d = shapes.normalize_dim(dim, x.ndim)
    values, indices = backend(x.device).cumulative_extreme(x, d, want_max)
    tape.record_result(_cummax if want_max else _cummin, (x,), values, {"dim": d, "indices": indices})
    if out is not None:
        _write_out(values, out[0], name)
        _write_out(indices, out[1], name)
        values, indices = out
    return return_types[name](values, indices)


def cummax(input, dim, *, out=None):
    """cummax(input, dim, *, out=None) -> (values, indices)

    Running maximum along ``dim`` and the index where it was (last) reached; NaN propagates."""
    return _cumulative_extreme(input, dim, out, True)


def cummin(input, dim, *, out=None):
    """cummin(input, dim, *, out=None) -> (values, indices)

    Running minimum along ``dim`` and the index where it was (last) reached; NaN propagates."""
    return _cumulative_extreme(input, dim, out, False)
