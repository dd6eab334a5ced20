"""Random numbers: the Generator, manual_seed, and the random factories and in-place fills.

A generator is a 32-bit Mersenne Twister (``backends/cpu/mt19937.py``) whose words become
numbers the way PyTorch's CPU generator makes them, so that after ``manual_seed(s)`` the same
calls give the same numbers as in PyTorch. Elements are drawn in memory order. Tensors on other
devices get numbers drawn on the CPU.
"""
from __future__ import annotations

import os

import numpy as np

from . import dtypes, shapes
from .devices import as_device
from .layouts import check_layout
from .backends.cpu import mt19937
from .ops.registry import check_out_grad, primitive, torch_type_name, write_out
from .ops.copying import resize_out
from .tensor import Tensor, make_requires_grad

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "rand", "randn", "randint", "randperm", "normal", "bernoulli",
           "rand_like", "randn_like", "randint_like", "uniform_", "normal_", "random_", "bernoulli_",
           "exponential_", "geometric_", "cauchy_", "log_normal_", "multinomial", "poisson"]

# In-place fills and ``bernoulli`` are also Tensor methods (bound in ops/methods.py).
TENSOR_METHODS = ("uniform_", "normal_", "random_", "bernoulli_", "bernoulli", "exponential_", "geometric_",
                  "cauchy_", "log_normal_", "multinomial")

_MASK = (1 << 64) - 1
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, so fresh processes are reproducible


class Generator:
    """A source of random numbers: a seed and a position in that seed's stream.

    ``numgrad.Generator().manual_seed(0)`` gives the same numbers in every process. Pass one as
    ``generator=`` to any random function to keep its stream separate from the default one.
    """

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._set(_DEFAULT_SEED)

    def _set(self, seed: int):
        self._seed = seed
        # Seeded on the first draw: seeding runs a kernel, and importing numgrad compiles none.
        self._engine = None
        # [valid, value]: the second normal of the last one-at-a-time Box-Muller pair.
        self._normal = np.zeros(2)

    @property
    def _state(self) -> np.ndarray:
        """The engine's state words, which kernels draw from and advance."""
        if self._engine is None:
            self._engine = mt19937.new_state()
            mt19937.seed(self._engine, np.uint64(self._seed))
        return self._engine

    def manual_seed(self, seed) -> "Generator":
        """Restart the stream from ``seed`` (any integer in [-2**63, 2**64)); returns self."""
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise RuntimeError("Overflow when unpacking long long")
        self._set(seed & _MASK)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self._set(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor, for :meth:`set_state`."""
        raw = self._seed.to_bytes(8, "little") + self._state.tobytes() + self._normal.tobytes()
        return Tensor._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        """Restores a state from :meth:`get_state`; returns self."""
        words = 8 + 4 * (mt19937.N + 1)
        size = words + self._normal.nbytes
        if not isinstance(new_state, Tensor) or new_state.dtype is not dtypes.uint8 \
                or new_state.numel() != size:
            raise RuntimeError(f"Expected a uint8 tensor of {size} bytes from Generator.get_state()")
        raw = new_state.contiguous().numpy().tobytes()
        self._seed = int.from_bytes(raw[:8], "little")
        self._engine = np.frombuffer(raw[8:words], dtype=np.uint32).copy()
        self._normal = np.frombuffer(raw[words:], dtype=np.float64).copy()
        return self

    def __repr__(self):
        return f"<numgrad.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seeds the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seeds the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state, as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restores the default generator's state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


# ------------------------------------------------------------------------------------- plumbing
def _gen(generator) -> Generator:
    return default_generator if generator is None else generator


def _fill(t: Tensor, buf_np, kernel, *args):
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
    from .autograd import tape
    shapes.check_no_internal_overlap(t._shape, t._strides)
    tape.check_inplace(t)
    if t._grad_fn is not None:
        # The new values do not depend on the old ones: the history ends here.
        t._grad_fn = None
        t._requires_grad = False


def _float_buffer(d: dtypes.dtype):
    """(buffer dtype, random mantissa bits) for a floating dtype; float16 goes through float32."""
    if d is dtypes.float64:
        return np.dtype(np.float64), 53
    if d is dtypes.float32:
        return np.dtype(np.float32), 24
    return np.dtype(np.float32), 11


def _type_name(d):
    from .ops.registry import torch_type_name
    return torch_type_name(d)


def uniform_(input: Tensor, from_: float = 0.0, to: float = 1.0, *, generator=None, **kwargs) -> Tensor:
    """Fills ``input`` with numbers drawn uniformly from [from, to)."""
    from_ = kwargs.pop("from", from_)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_type_name(input.dtype)}'")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    _check_inplace(input)
    state = _gen(generator)._state
    if input.dtype in (dtypes.float32, dtypes.float16):
        # Bounds, span and result all in float32 arithmetic, as the generator computes them.
        low = np.float32(from_)
        _fill(input, np.dtype(np.float32), mt19937.uniform_single, state, low, np.float32(to) - low)
        if input.dtype is dtypes.float16:
            # Rounded to half, a number can reach ``to``: PyTorch gives ``from`` instead.
            from .autograd.grad_mode import no_grad
            with no_grad():
                input.masked_fill_(input == float(np.float16(to)), float(np.float16(from_)))
        return input
    buf, bits = _float_buffer(input.dtype)
    return _fill(input, buf, mt19937.uniform_double, state, bits, float(from_), float(to) - float(from_))


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fills ``input`` with numbers drawn from N(mean, std**2)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_type_name(input.dtype)}'")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _check_inplace(input)
    gen = _gen(generator)
    buf, bits = _float_buffer(input.dtype)
    if input.numel() >= 16 and input.is_contiguous():
        # Dense tensors take blocks of 16, with mean and std in the tensor's own precision.
        mean, std = buf.type(mean), buf.type(std)
        fused = buf == np.float64 and (mean != 0 or std != 1)
        return _fill(input, buf, mt19937.normal_blocks, gen._state, bits, float(mean), float(std), fused)
    return _fill(input, buf, mt19937.normal_pairs, gen._state, gen._normal, float(mean), float(std))


def _int_bounds(d: dtypes.dtype):
    """The integers [lo, hi] that ``d`` holds exactly."""
    if d is dtypes.bool:
        return 0, 1
    if d.is_floating_point:
        m = {dtypes.float16: 11, dtypes.float32: 24, dtypes.float64: 53}[d]
        return -(1 << m), 1 << m
    info = np.iinfo(d.numpy)
    return int(info.min), int(info.max)


def _fill_ints(input: Tensor, low: int, high: int, generator, wide=None) -> Tensor:
    """Integers drawn from [low, high) into ``input``; ``wide`` (64 random bits per draw instead
    of 32) defaults to ranges of 2**28 or more."""
    lo, hi = _int_bounds(input.dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if low < lo:
        raise RuntimeError(f"from is out of bounds for {input.dtype.numpy.name}")
    if high - 1 > hi:
        raise RuntimeError(f"to - 1 is out of bounds for {input.dtype.numpy.name}")
    if wide is None:
        wide = high - low >= mt19937.WIDE_RANGE
    return _fill(input, np.dtype(np.int64), mt19937.integers, _gen(generator)._state, np.int64(low),
                 np.uint64(high - low), wide)


def random_(input: Tensor, from_=0, to=None, *, generator=None, **kwargs) -> Tensor:
    """Fills ``input`` with integers from [from, to); ``random_(to)`` means [0, to), and with no
    bound [0, largest integer the dtype holds exactly]."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    elif to is None and from_ != 0:
        from_, to = 0, from_
    wide = None
    if to is None:
        to = _int_bounds(input.dtype)[1] + 1
        # The whole range: 64 random bits for the 64-bit types only.
        wide = input.dtype in (dtypes.int64, dtypes.float64)
    _check_inplace(input)
    return _fill_ints(input, int(from_), int(to), generator, wide)


def bernoulli_(input: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fills ``input`` with 1 with probability ``p`` (a number or a tensor), else 0."""
    if isinstance(p, Tensor):
        _check_inplace(input)
        return input.copy_(_bernoulli_from(p.expand(input.shape), generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    _check_inplace(input)
    return _fill(input, np.dtype(np.float64), mt19937.bernoulli, _gen(generator)._state, float(p))


def _bernoulli_from(p: Tensor, generator) -> Tensor:
    """True where a uniform falls below the probability, element by element: float64
    probabilities draw 53-bit uniforms, others float32 ones compared in float32."""
    from .ops.functional_elementwise import lt
    state = _gen(generator)._state
    if p.dtype is dtypes.float64:
        u = _fill(Tensor._empty(p.shape, dtypes.float64), np.dtype(np.float64), mt19937.uniform_double,
                  state, 53, 0.0, 1.0)
        return lt(u, p.detach())
    u = _fill(Tensor._empty(p.shape, dtypes.float32), np.dtype(np.float32), mt19937.uniform_single,
              state, np.float32(0), np.float32(1))
    return lt(u, p.detach().to(dtypes.float32))


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Draws 0/1 per element with probability ``input`` (or ``p`` when given); same dtype."""
    if p is not None:
        return bernoulli_(_empty_as(input, input.dtype), p, generator=generator)
    if out is not None:
        check_out_grad("bernoulli", out, input)
    if input.numel() and not _in_unit_interval(input):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    res = _bernoulli_from(input, generator).to(input.dtype)
    if out is not None:
        return write_out(res, out)
    return res


def _continuous(input: Tensor, name: str, kernel, *args, generator=None) -> Tensor:
    """Fill floating ``input`` by ``kernel``, which draws in float64 (as the generator does)."""
    if not input.dtype.is_floating_point:
        if name == "log_normal":
            raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{_type_name(input.dtype)}'")
        # PyTorch names the dtype differently in the two messages (the Cauchy one by its C type).
        kind, what = ("Exponential", _type_name(input.dtype)) if name == "exponential" else \
            ("Cauchy", dtypes.C_NAMES[input.dtype])
        raise RuntimeError(f"{kind} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {what}")
    _check_inplace(input)
    return _fill(input, np.dtype(np.float64), kernel, _gen(generator)._state, *args)


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
    gen = _gen(generator)
    return _continuous(input, "log_normal", mt19937.log_normal, gen._normal, float(mean), float(std),
                       generator=gen)


def geometric_(input: Tensor, p: float, *, generator=None) -> Tensor:
    """Fills ``input`` with the number of Bernoulli(p) trials up to and including the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    _check_inplace(input)
    return _fill(input, np.dtype(np.float64), mt19937.geometric, _gen(generator)._state, float(p))


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,
                out=None) -> Tensor:
    """multinomial(input, num_samples, replacement=False, *, generator=None) -> LongTensor

    ``num_samples`` category indices per row of ``input`` (weights, 1-d or 2-d), each drawn with
    probability proportional to its weight; without ``replacement`` a category is drawn once."""
    from .ops.functional_elementwise import isfinite, lt
    from .ops.reductions import any as any_
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_type_name(input.dtype)}")
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
        from .creation import empty_like
        keys = p / exponential_(empty_like(p), 1.0, generator=generator)
        result = keys.argmax(-1, keepdim=True) if num_samples == 1 else keys.topk(num_samples).indices
    else:
        rows = p.reshape(-1, categories)
        if rows.dtype is dtypes.float16:
            rows = rows.float()
        result = Tensor._empty((rows.shape[0], num_samples), dtypes.int64)
        mt19937.categorical(rows.contiguous().cpu().numpy(), result.numpy(), _gen(generator)._state)
        result = result.reshape(p.shape[:-1] + (num_samples,)).to(p.device)
    if out is not None:
        return write_out(result, out)
    return result


def _no_gradient(g, ans, x):
    """The gradient (or tangent) of a draw with respect to its rate: zero."""
    from .creation import zeros_like
    return zeros_like(x)


_poisson_op = primitive("poisson", 1, vjp=(_no_gradient,), jvp=(_no_gradient,))


def poisson(input: Tensor, generator=None) -> Tensor:
    """poisson(input, generator=None) -> Tensor

    A tensor shaped as ``input`` whose elements are drawn from the Poisson distribution with
    rate the corresponding element of ``input`` (non-negative), in ``input``'s dtype."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_type_name(input.dtype)}'")
    # Rates are read in the row-major order of the (contiguous) result, as doubles.
    rates = input.detach().cpu().to(dtypes.float64).contiguous().numpy().reshape(-1)
    draws = np.zeros(rates.shape[0], dtype=np.int64)
    if rates.shape[0] and mt19937.poisson(rates, draws, _gen(generator)._state) >= 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    with np.errstate(over="ignore"):  # counts past float16's range become inf, as in PyTorch
        values = draws.astype(input.dtype.numpy).reshape(input.shape)
    result = Tensor._from_numpy_array(values).to(input.device)
    from .autograd import tape
    return tape.record_result(_poisson_op, (input,), result)


def _in_unit_interval(p: Tensor) -> bool:
    from .ops.functional_elementwise import ge, le, logical_and
    from .ops.reductions import all as all_
    return bool(all_(logical_and(ge(p.detach(), 0), le(p.detach(), 1))))


def _empty_as(input, d):
    return Tensor._empty(input._shape, d, input.device)


# ------------------------------------------------------------------------------------ factories
def _new(size, dtype, device, default=None, keyword=None, name="size", out=None, op=None) -> Tensor:
    """A tensor to draw into: a new one, or ``out`` resized (then the draw runs in its dtype,
    as PyTorch's factories fill ``out`` in place)."""
    if out is not None and op is not None:
        _check_out(out, dtype, op)
    shape = shapes.parse_size(size, name, keyword)
    if out is not None:
        return resize_out(out, shape) if tuple(out.shape) != shape else out
    d = dtypes.as_dtype(dtype) if dtype is not None else (default or dtypes.get_default_dtype())
    return Tensor._empty(shape, d, as_device(device))


def _check_out(out: Tensor, dtype, op: str):
    """PyTorch's checks of a factory's ``out=`` before anything is drawn."""
    if dtype is not None and dtypes.as_dtype(dtype) is not out.dtype:
        raise RuntimeError(f"dtype {torch_type_name(dtypes.as_dtype(dtype))} does not match dtype of out "
                           f"parameter ({torch_type_name(out.dtype)})")
    if op == "randn":
        # PyTorch's randn resizes ``out`` unconditionally, which refuses in any grad mode.
        if out._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
    else:
        check_out_grad("aten::" + op, out)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        make_requires_grad(t)
    return t


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False) -> Tensor:
    """rand(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn uniformly from [0, 1)."""
    check_layout(layout, "rand")
    return _finish(uniform_(_new(args, dtype, device, None, size, "rand", out, "rand"), generator=generator),
                   requires_grad)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False) -> Tensor:
    """randn(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn from the standard normal distribution."""
    check_layout(layout, "randn")
    return _finish(normal_(_new(args, dtype, device, None, size, "randn", out, "randn"), generator=generator),
                   requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, layout=None, pin_memory=False) -> Tensor:
    """randint(low=0, high, size, *, generator=None, dtype=int64, device=None) -> Tensor

    Integers drawn uniformly from [low, high)."""
    check_layout(layout, "randint")
    if out is not None:
        _check_out(out, dtype, "randint")
    if size is not None:
        args = args + (size,)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if not isinstance(size, (tuple, list, shapes.Size)):
        raise TypeError(f"randint(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = _new(size, None if out is not None else dtype, device, dtypes.int64, out=out)
    return _finish(_fill_ints(t, low, high, generator), requires_grad)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False) -> Tensor:
    """randperm(n, *, generator=None, dtype=int64, device=None) -> Tensor: a random
    permutation of 0 .. n-1."""
    check_layout(layout, "randperm")
    if out is not None:
        _check_out(out, dtype, "randperm")
    n = shapes._as_index(n, "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    t = _new((n,), None if out is not None else dtype, device, dtypes.int64, out=out)
    if n - 1 > _int_bounds(t.dtype)[1]:
        raise RuntimeError(f"n is too large for result tensor type: '{_type_name(t.dtype)}'")
    return _finish(_fill(t, np.dtype(np.int64), mt19937.permutation, _gen(generator)._state,
                         n >= mt19937.WIDE_PERMUTATION), requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False, out=None) -> Tensor:
    """normal(mean, std, size=None, *, generator=None) -> Tensor

    Draws from N(mean, std**2). ``mean`` and ``std`` may be tensors (broadcast together, giving
    the result's shape) or numbers (then ``size`` gives the shape)."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() missing the size argument for number mean and std")
        t = normal_(_new(size, dtype, device, out=out, op="normal"), float(mean), float(std), generator=generator)
        return _finish(t, requires_grad)
    if out is not None:
        check_out_grad("normal", out, mean, std)
    if st and std.numel() and _negative(std):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = shapes.broadcast_shapes(*[x.shape for x in (mean, std) if isinstance(x, Tensor)])
    d = dtypes.result_type(*[x for x in (mean, std) if isinstance(x, Tensor)])
    if not d.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_type_name(d)}'")
    dev = (mean if mt else std).device
    if out is not None:
        return _normal_into(out, mean, std, shape, generator)
    z = normal_(Tensor._empty(shape, d, dev), generator=generator)
    return mean + std * z


def _normal_into(out, mean, std, shape, generator) -> Tensor:
    """normal(mean, std, out=out) as PyTorch computes it: the draw in ``out``'s dtype, then
    scaled and shifted in place (a number std widens ``out``'s own shape into the broadcast)."""
    from .autograd.grad_mode import no_grad
    if not isinstance(std, Tensor):
        shape = shapes.broadcast_shapes(shape, out.shape)
    if tuple(out.shape) != tuple(shape):
        resize_out(out, tuple(shape))
    with no_grad():
        if isinstance(std, Tensor):
            normal_(out, generator=generator).mul_(std)
        else:
            normal_(out, 0.0, float(std), generator=generator)
        return out.add_(mean)


def _negative(std: Tensor) -> bool:
    from .ops.functional_elementwise import lt
    from .ops.reductions import any as any_
    return bool(any_(lt(std.detach(), 0)))


def _empty_like(input, dtype, device) -> Tensor:
    """An uninitialised tensor shaped as ``input`` whose memory runs in the order of
    ``input``'s strides (PyTorch's preserve_format), so that a fill in memory order puts each
    number where PyTorch puts it."""
    from .creation import empty_strided
    shape, order = input.shape, sorted(range(input.ndim), key=lambda k: -input.stride(k))
    strides, step = [0] * input.ndim, 1
    for k in reversed(order):
        strides[k] = step
        step *= max(shape[k], 1)
    return empty_strided(shape, strides, dtype=dtype or input.dtype, device=device or input.device)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """Uniform [0, 1) numbers with ``input``'s shape, dtype and device."""
    t = uniform_(_empty_like(input, dtype, device), generator=generator)
    return _finish(t, requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Standard normal numbers with ``input``'s shape, dtype and device."""
    t = normal_(_empty_like(input, dtype, device), generator=generator)
    return _finish(t, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None) -> Tensor:
    """Integers from [low, high) with ``input``'s shape, dtype and device; ``randint_like(x, high)``."""
    if high is None:
        low, high = 0, low
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    t = _fill_ints(_empty_like(input, dtype, device), low, high, generator)
    return _finish(t, requires_grad)
