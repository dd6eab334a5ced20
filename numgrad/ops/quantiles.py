"""Order statistics from sorted rows: quantile, nanquantile and nanmedian. Values are gathered
from a differentiable sort, so gradients reach the elements each quantile interpolates between;
nanmedian records one node that selects, as PyTorch's NanmedianBackward0/1."""
from __future__ import annotations

from .. import dtypes, shapes
from ..autograd.tape import plain, record_result
from . import functional_elementwise as F
from ..return_types import return_type as _return_type
from .reductions import maxmin_jvp as _maxmin_jvp, maxmin_vjp as _maxmin_vjp
from .selection import select_jvp as _select_jvp, select_vjp as _select_vjp
from .composites import out_pair
from .registry import write_out
from ..dtypes import torch_type_name
from .records import primitive
from ..creation import full, tensor
from ..autograd.autocast_state import cast_policy
from ..autograd.profiler import op_event

__all__ = ["quantile", "nanquantile", "nanmedian"]

TENSOR_METHODS = __all__

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check(name, x, q, interpolation):
    """PyTorch's argument checks, in its order; ``q`` as a 1-D tensor of ``x``'s dtype."""
    if x.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    q_is_tensor = hasattr(q, "_storage")
    if q_is_tensor and q.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if x.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if q_is_tensor and q.dtype is not x.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    if not q_is_tensor:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        return tensor([float(q)], dtype=x.dtype, device=x.device), True
    if q.numel() and bool(((plain(q) < 0) | (plain(q) > 1)).any()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    return q.reshape(-1), q.ndim == 0


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    q, scalar_q = _check(name, input, q, interpolation)
    if dim is None:
        rows, rest = input.reshape(1, -1), (1,) * input.ndim if keepdim else ()
    else:
        d = shapes.normalize_dim(dim, input.ndim)
        rest = tuple(1 if i == d else s for i, s in enumerate(input.shape) if keepdim or i != d)
        moved = input.movedim(d, -1) if input.ndim else input.reshape(1)
        rows = moved.reshape(-1, moved.shape[-1])
    ordered = rows.sort(-1).values  # NaN sorts last
    n = ordered.shape[-1]
    missing = F.isnan(plain(ordered))
    if ignore_nan:
        # Ranks among the non-NaN values; an all-NaN row gets rank 0, which holds NaN.
        count = (~missing).sum(-1, keepdim=True)
        ranks = F.clamp_min(q * (count - 1), 0)
    else:
        # A row with a NaN answers NaN: its last sorted element.
        ranks = F.where(missing.any(-1, keepdim=True), float(n - 1), q * (n - 1))
    if interpolation == "lower":
        ranks = F.floor(ranks)
    elif interpolation == "higher":
        ranks = F.ceil(ranks)
    elif interpolation == "nearest":
        ranks = F.round(ranks)
    below_at = plain(ranks).to(dtypes.int64)
    values = ordered.gather(-1, below_at)
    if interpolation in ("linear", "midpoint"):
        above = ordered.gather(-1, F.ceil(plain(ranks)).to(dtypes.int64))
        if interpolation == "midpoint":
            weights = F.where(plain(ranks) == below_at, 0.0, 0.5).to(values.dtype)
        else:
            weights = ranks - below_at
        values = F.lerp(values, above, weights)
    # (rows, len(q)) -> (len(q), *rest), the q dim first as PyTorch's.
    values = values.t().reshape((-1,) + rest)
    return values.reshape(rest) if scalar_q else values


@op_event("aten::quantile", autocast="float32")
def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):
    """quantile(input, q, dim=None, keepdim=False, *, interpolation='linear') -> Tensor

    The ``q``-th quantiles (a float or a 1-D tensor in [0, 1]) of ``input`` flattened or over
    ``dim``; a 1-D ``q`` adds a leading dim. ``interpolation`` picks between the two closest
    sorted values: linear, lower, higher, midpoint or nearest (ties to even). NaN if a row holds
    a NaN."""
    return write_out(_quantile("quantile", input, q, dim, keepdim, interpolation, False), out, "quantile")


@cast_policy("float32")
def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):
    """nanquantile(input, q, dim=None, keepdim=False, *, interpolation='linear') -> Tensor

    :func:`quantile` ignoring NaN values; NaN only for rows that are all NaN."""
    return write_out(_quantile("nanquantile", input, q, dim, keepdim, interpolation, True), out, "nanquantile")


_nanmedian_type = _return_type("nanmedian")
_nanmedian_out_type = _return_type("nanmedian_out")
_nanmedian_op = primitive("nanmedian", 1, vjp=(lambda g, ans, x: _maxmin_vjp(g, ans, x, (), False, None),),
                          jvp=(lambda t, ans, x: _maxmin_jvp(t, ans, x, (), False, None),),
                          backward_name="NanmedianBackward0")
_nanmedian_dim_op = primitive("nanmedian_dim", 1, vjp=(_select_vjp,), jvp=(_select_jvp,),
                              backward_name="NanmedianBackward1")


@op_event("aten::nanmedian")
def nanmedian(input, dim=None, keepdim: bool = False, *, out=None):
    """nanmedian(input) -> Tensor; nanmedian(input, dim, keepdim=False, *, out=None) -> (values, indices)

    The lower median of the non-NaN values (NaN for a row of NaNs) and, over ``dim``, its index."""
    x = plain(input)
    if x.dtype is dtypes.bool:
        raise NotImplementedError(f'"median_{"cpu" if dim is None else "out"}" not implemented for '
                                  f"'{torch_type_name(x.dtype)}'")
    if dim is None:
        if out is not None:
            raise TypeError("nanmedian() missing 1 required positional arguments: \"dim\"")
        if x.numel() == 0:
            values = full((), dtypes.nan_or_min(x.dtype), dtype=x.dtype, device=x.device)
        else:
            values = _nan_median(x.reshape(-1), 0)[0].reshape(())
        return record_result(_nanmedian_op, (input,), values)
    if out is not None:
        _check_out(x, out_pair("nanmedian", out))
    d = shapes.normalize_dim(dim, x.ndim)
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, indices = _nan_median(x if x.ndim else x.reshape(1), d)
    if not keepdim or not x.ndim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    record_result(_nanmedian_dim_op, (input,), values, {"dim": d, "keepdim": keepdim, "indices": indices})
    if out is None:
        return _nanmedian_type(values, indices)
    return _nanmedian_out_type(write_out(values, out[0], "nanmedian"), write_out(indices, out[1], "nanmedian"))


def _nan_median(rows, d):
    """Each row's lower median along ``d`` of its non-NaN values (which sort first) and its
    index, kept as a dim of size 1."""
    ordered, order = rows.sort(d)
    count = (~F.isnan(ordered)).sum(d, keepdim=True)
    at = F.clamp_min(F.floor_divide(count - 1, 2), 0)
    return ordered.gather(d, at), order.gather(d, at)


def _check_out(x, out):
    values, indices = out
    if values.dtype is not x.dtype:
        raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                           f"but type torch.{torch_type_name(values.dtype)}Tensor does not equal "
                           f"torch.{torch_type_name(x.dtype)}Tensor (while checking arguments for median)")
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                           f"torch.{torch_type_name(indices.dtype)}Tensor instead (while checking arguments "
                           f"for median)")
