"""Draws whose distribution's parameters are the elements of a tensor: ``bernoulli`` (from
probabilities), ``multinomial`` (from category weights) and ``poisson`` (from rates).
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..autograd.tape import record_result
from ..backends.cpu import mt19937
from ..ops.registry import check_out_grad, write_out
from ..dtypes import torch_type_name
from ..ops.records import primitive
from ..tensor import Tensor
from .fills import bernoulli_, bernoulli_draws, exponential_
from .generator import generator_or_default
from ..creation import empty_like, zeros_like
from ..ops.functional_elementwise import ge, isfinite, le, logical_and, lt
from ..ops.reductions import all as all_, any as any_


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Draws 0/1 per element with probability ``input`` (or ``p`` when given); same dtype."""
    if p is not None:
        return bernoulli_(_empty_as(input, input.dtype), p, generator=generator)
    if out is not None:
        check_out_grad("bernoulli", out, input)
    if input.numel() and not _in_unit_interval(input):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    res = bernoulli_draws(input, generator).to(input.dtype)
    if out is not None:
        return write_out(res, out, "bernoulli")
    return res


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) -> Tensor:
    """multinomial(input, num_samples, replacement=False, *, generator=None) -> LongTensor

    ``num_samples`` category indices per row of ``input`` (weights, 1-d or 2-d), each drawn with
    probability proportional to its weight; without ``replacement`` a category is drawn once."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{torch_type_name(input.dtype)}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    categories = input.shape[-1]
    if categories > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    p = input.detach()
    if p.numel() and (bool(any_(lt(p, 0))) or not bool(isfinite(p).all())):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if p.numel() and not bool((p > 0).any(-1).all()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement:
        # Gumbel-max in exponential form: the largest p / q with q ~ Exp(1) are the draws.
        keys = p / exponential_(empty_like(p), 1.0, generator=generator)
        result = keys.argmax(-1, keepdim=True) if num_samples == 1 else keys.topk(num_samples).indices
    else:
        rows = p.reshape(-1, categories)
        if rows.dtype in dtypes.NARROW_FLOATING:
            rows = rows.float()
        result = Tensor._empty((rows.shape[0], num_samples), dtypes.int64)
        state = generator_or_default(generator)._state
        mt19937.categorical(rows.contiguous().cpu().numpy(), result.numpy(), state)
        result = result.reshape(p.shape[:-1] + (num_samples,)).to(p.device)
    if out is not None:
        return write_out(result, out, "multinomial")
    return result


def _no_gradient(g, ans, x):
    """The gradient (or tangent) of a draw with respect to its rate: zero."""
    return zeros_like(x)


_poisson_op = primitive("poisson", 1, vjp=(_no_gradient,), jvp=(_no_gradient,))


def poisson(input: Tensor, generator=None) -> Tensor:
    """poisson(input, generator=None) -> Tensor

    A tensor shaped as ``input`` whose elements are drawn from the Poisson distribution with
    rate the corresponding element of ``input`` (non-negative), in ``input``'s dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    # Rates are read in the row-major order of the (contiguous) result, as doubles.
    rates = input.detach().cpu().to(dtypes.float64).contiguous().numpy().reshape(-1)
    draws = np.zeros(rates.shape[0], dtype=np.int64)
    if rates.shape[0] and mt19937.poisson(rates, draws, generator_or_default(generator)._state) >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    with np.errstate(over="ignore"):  # counts past float16's range become inf, as in PyTorch
        values = draws.astype(input.dtype.numpy).reshape(input.shape)
    result = Tensor._from_numpy_array(values).to(input.device)
    return record_result(_poisson_op, (input,), result)


def _in_unit_interval(p: Tensor) -> bool:
    return bool(all_(logical_and(ge(p.detach(), 0), le(p.detach(), 1))))


def _empty_as(input, d):
    return Tensor._empty(input._shape, d, input.device)
