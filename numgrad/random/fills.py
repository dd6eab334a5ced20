"""The in-place random fills (``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ...) and
the one routine they draw through: elements are drawn in memory order, into the tensor's own
buffer when it is a dense CPU one. Tensors on other devices get numbers drawn on the CPU.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes, shapes
from ..autograd.grad_mode import no_grad
from ..autograd.inplace import check_inplace
from ..backends.cpu import mt19937
from ..dtypes import torch_type_name
from ..tensor import Tensor
from .generator import generator_or_default
from ..ops.functional_elementwise import lt


def draw_into(t: Tensor, buf_np, kernel, *args):
    """Run ``kernel(buffer, *args)`` over ``t``'s elements in memory order (outer dims the ones
    with the larger strides), writing straight into ``t``'s memory when it is a dense CPU buffer
    of ``buf_np``, else through a temporary."""
    n = t.numel()
    data = t._storage.data
    if n and t.device.type == "cpu" and t.is_contiguous() and data.dtype == buf_np:
        kernel(data[t._offset:t._offset + n], *args)
    elif n:
        tmp = np.empty(n, dtype=buf_np)
        kernel(tmp, *args)
        order = sorted(range(t.ndim), key=lambda d: -t._strides[d])
        target = t._view(tuple(t._shape[d] for d in order), tuple(t._strides[d] for d in order), t._offset)
        target._write(Tensor._from_numpy_array(tmp.reshape(target._shape)))
        return t
    t._bump_version()
    return t


def _check_inplace(t: Tensor):
    """Before a fill overwrites ``t``: the checks of any in-place write; ``t``'s history ends."""
    shapes.check_no_internal_overlap(t._shape, t._strides)
    check_inplace(t)
    if t._grad_fn is not None:
        # The new values do not depend on the old ones: the history ends here.
        t._grad_fn = None
        t._requires_grad = False


def _float_buffer(d: dtypes.dtype):
    """(buffer dtype, random mantissa bits) for a floating dtype; 16-bit floats draw as float32
    does, into a float32 buffer, then round."""
    if d is dtypes.float64:
        return np.dtype(np.float64), 53
    return np.dtype(np.float32), 24


def uniform_(input: Tensor, from_: float = 0.0, to: float = 1.0, *, generator=None, **kwargs) -> Tensor:
    """Fills ``input`` with numbers drawn uniformly from [from, to)."""
    from_ = kwargs.pop("from", from_)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{torch_type_name(input.dtype)}'")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    _check_inplace(input)
    state = generator_or_default(generator)._state
    if input.dtype is dtypes.float32 or input.dtype in dtypes.NARROW_FLOATING:
        # Bounds, span and result all in float32 arithmetic, as the generator computes them.
        low = np.float32(from_)
        draw_into(input, np.dtype(np.float32), mt19937.uniform_single, state, low, np.float32(to) - low)
        if input.dtype in dtypes.NARROW_FLOATING:
            # Rounded to 16 bits, a number can reach ``to``: PyTorch gives ``from`` instead.
            narrow = input.dtype.numpy.type
            with no_grad():
                input.masked_fill_(input == float(narrow(to)), float(narrow(from_)))
        return input
    buf, bits = _float_buffer(input.dtype)
    return draw_into(input, buf, mt19937.uniform_double, state, bits, float(from_), float(to) - float(from_))


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fills ``input`` with numbers drawn from N(mean, std**2)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _check_inplace(input)
    gen = generator_or_default(generator)
    buf, bits = _float_buffer(input.dtype)
    if input.numel() >= 16 and input.is_contiguous():
        # Dense tensors take blocks of 16, with mean and std in the buffer's precision.
        mean, std = float(buf.type(mean)), float(buf.type(std))
        fused = buf == np.float64 and (mean != 0 or std != 1)
        return draw_into(input, buf, mt19937.normal_blocks, gen._state, bits, mean, std, fused,
                         input.dtype in dtypes.NARROW_FLOATING)
    return draw_into(input, buf, mt19937.normal_pairs, gen._state, gen._normal, float(mean), float(std))


def exact_int_bounds(d: dtypes.dtype):
    """The integers [lo, hi] that ``d`` holds exactly."""
    if d is dtypes.bool:
        return 0, 1
    if d.is_floating_point:
        m = {dtypes.float16: 11, dtypes.bfloat16: 8, dtypes.float32: 24, dtypes.float64: 53}[d]
        return -(1 << m), 1 << m
    info = np.iinfo(d.numpy)
    return int(info.min), int(info.max)


def draw_integers(input: Tensor, low: int, high: int, generator, wide=None) -> Tensor:
    """Integers drawn from [low, high) into ``input``; ``wide`` (64 random bits per draw instead
    of 32) defaults to ranges of 2**28 or more."""
    lo, hi = exact_int_bounds(input.dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if low < lo:
        raise RuntimeError(f"from is out of bounds for {input.dtype.numpy.name}")
    if high - 1 > hi:
        raise RuntimeError(f"to - 1 is out of bounds for {input.dtype.numpy.name}")
    if wide is None:
        wide = high - low >= mt19937.WIDE_RANGE
    state = generator_or_default(generator)._state
    return draw_into(input, np.dtype(np.int64), mt19937.integers, state, np.int64(low), np.uint64(high - low), wide)


def random_(input: Tensor, from_=0, to=None, *, generator=None, **kwargs) -> Tensor:
    """Fills ``input`` with integers from [from, to); ``random_(to)`` means [0, to), and with no
    bound [0, largest integer the dtype holds exactly]."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    elif to is None and from_ != 0:
        from_, to = 0, from_
    wide = None
    if to is None:
        to = exact_int_bounds(input.dtype)[1] + 1
        # The whole range: 64 random bits for the 64-bit types only.
        wide = input.dtype in (dtypes.int64, dtypes.float64)
    _check_inplace(input)
    return draw_integers(input, int(from_), int(to), generator, wide)


def bernoulli_(input: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fills ``input`` with 1 with probability ``p`` (a number or a tensor), else 0."""
    if isinstance(p, Tensor):
        _check_inplace(input)
        return input.copy_(bernoulli_draws(p.expand(input.shape), generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    _check_inplace(input)
    state = generator_or_default(generator)._state
    return draw_into(input, np.dtype(np.float64), mt19937.bernoulli, state, float(p))


def bernoulli_draws(p: Tensor, generator) -> Tensor:
    """True where a uniform falls below the probability, element by element: float64
    probabilities draw 53-bit uniforms, others float32 ones compared in float32."""
    state = generator_or_default(generator)._state
    if p.dtype is dtypes.float64:
        u = draw_into(Tensor._empty(p.shape, dtypes.float64), np.dtype(np.float64), mt19937.uniform_double,
                      state, 53, 0.0, 1.0)
        return lt(u, p.detach())
    u = draw_into(Tensor._empty(p.shape, dtypes.float32), np.dtype(np.float32), mt19937.uniform_single,
                  state, np.float32(0), np.float32(1))
    return lt(u, p.detach().to(dtypes.float32))


def _continuous(input: Tensor, name: str, kernel, *args, generator=None) -> Tensor:
    """Fill floating ``input`` by ``kernel``, which draws in float64 (as the generator does)."""
    if not input.dtype.is_floating_point:
        if name == "log_normal":
            raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{torch_type_name(input.dtype)}'")
        # PyTorch names the dtype differently in the two messages (the Cauchy one by its C type).
        kind, what = ("Exponential", torch_type_name(input.dtype)) if name == "exponential" else \
            ("Cauchy", dtypes.C_NAMES[input.dtype])
        raise RuntimeError(f"{kind} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {what}")
    _check_inplace(input)
    return draw_into(input, np.dtype(np.float64), kernel, generator_or_default(generator)._state, *args)


def exponential_(input: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fills ``input`` with numbers drawn from the exponential distribution of rate ``lambd``."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _continuous(input, "exponential", mt19937.exponential, float(lambd), generator=generator)


def cauchy_(input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fills ``input`` with numbers drawn from the Cauchy distribution around ``median``."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _continuous(input, "cauchy", mt19937.cauchy, float(median), float(sigma), generator=generator)


def log_normal_(input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fills ``input`` with exp(z), z drawn from N(mean, std**2)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    gen = generator_or_default(generator)
    return _continuous(input, "log_normal", mt19937.log_normal, gen._normal, float(mean), float(std),
                       generator=gen)


def geometric_(input: Tensor, p: float, *, generator=None) -> Tensor:
    """Fills ``input`` with the number of Bernoulli(p) trials up to and including the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    _check_inplace(input)
    state = generator_or_default(generator)._state
    return draw_into(input, np.dtype(np.float64), mt19937.geometric, state, float(p))
