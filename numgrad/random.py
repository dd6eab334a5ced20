"""Random numbers: the Generator, manual_seed, and the random factories and in-place fills.

Streams are counter based: draw ``i`` of a generator is ``mix(key + (offset + i) * GAMMA)``,
where ``key`` hashes the seed and ``mix`` is SplitMix64's finaliser, computed by Numba kernels.
Each call consumes a block of counters, so results depend only on the seed and the sequence of
calls, not on layouts or thread counts. Uniforms take the top mantissa bits of a draw, normals
come from Box-Muller pairs, integers from a draw modulo the range (bias below range / 2**64).
"""
from __future__ import annotations

import os

import numpy as np
from numba import njit

from . import dtypes, shapes
from .devices import as_device
from .tensor import Tensor

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "rand", "randn", "randint", "randperm", "normal", "bernoulli",
           "rand_like", "randn_like", "randint_like", "uniform_", "normal_", "random_", "bernoulli_"]

# In-place fills and ``bernoulli`` are also Tensor methods (bound in ops/methods.py).
TENSOR_METHODS = ("uniform_", "normal_", "random_", "bernoulli_", "bernoulli")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_DEFAULT_SEED = 67280421310721  # PyTorch's default seed, so fresh processes are reproducible


def _mix_py(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Generator:
    """A source of random numbers: a seed and a position in that seed's stream.

    ``numgrad.Generator().manual_seed(0)`` gives the same numbers in every process. Pass one as
    ``generator=`` to any random function to keep its stream separate from the default one.
    """

    def __init__(self, device="cpu"):
        self.device = as_device(device)
        self._set(_DEFAULT_SEED, 0)

    def _set(self, seed: int, offset: int):
        self._seed = seed
        self._offset = offset
        self._key = _mix_py((seed * _GAMMA + 0x2545F4914F6CDD1D) & _MASK)

    def manual_seed(self, seed) -> "Generator":
        """Restart the stream from ``seed`` (any integer in [-2**63, 2**64)); returns self."""
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise RuntimeError("Overflow when unpacking long long")
        self._set(seed & _MASK, 0)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)
        self._set(s, 0)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (seed and offset), for :meth:`set_state`."""
        raw = self._seed.to_bytes(8, "little") + self._offset.to_bytes(8, "little")
        return Tensor._from_numpy_array(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        if not isinstance(new_state, Tensor) or new_state.dtype is not dtypes.uint8 \
                or new_state.numel() != 16:
            raise RuntimeError("Expected a uint8 tensor of 16 bytes from Generator.get_state()")
        raw = bytes(new_state.tolist())
        self._set(int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little"))
        return self

    def _take(self, n: int):
        """Reserve ``n`` counters; returns the key and the first counter as uint64."""
        start = self._offset
        self._offset = (self._offset + n) & _MASK
        return np.uint64(self._key), np.uint64(start)

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


# -------------------------------------------------------------------------------------- kernels
_U_GAMMA = np.uint64(_GAMMA)
_U_M1 = np.uint64(0xBF58476D1CE4E5B9)
_U_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


@njit(cache=True, nogil=True)
def _draw(key, ctr):
    """64 random bits for counter ``ctr``: SplitMix64's finaliser over a Weyl sequence."""
    z = key + ctr * _U_GAMMA
    z = (z ^ (z >> _S30)) * _U_M1
    z = (z ^ (z >> _S27)) * _U_M2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True, error_model="numpy")
def _uniform_kernel(out, key, ctr, bits, low, span):
    """out[i] = low + span * u_i, u_i uniform on [0, 1) with ``bits`` random mantissa bits."""
    shift = np.uint64(64 - bits)
    scale = 2.0 ** -bits
    for i in range(out.shape[0]):
        u = np.float64(_draw(key, ctr + np.uint64(i)) >> shift) * scale
        out[i] = low + span * u


@njit(cache=True, nogil=True, error_model="numpy")
def _normal_kernel(out, key, ctr, mean, std):
    """Box-Muller: counters 2p and 2p+1 give the pair out[2p], out[2p + 1]."""
    n = out.shape[0]
    shift = np.uint64(11)
    scale = 2.0 ** -53
    two_pi = 2.0 * np.pi
    for p in range((n + 1) // 2):
        c = ctr + np.uint64(2 * p)
        u1 = np.float64(_draw(key, c) >> shift) * scale
        u2 = np.float64(_draw(key, c + np.uint64(1)) >> shift) * scale
        r = np.sqrt(-2.0 * np.log1p(-u1))  # 1 - u1 is in (0, 1]: the log stays finite
        out[2 * p] = mean + std * r * np.cos(two_pi * u2)
        if 2 * p + 1 < n:
            out[2 * p + 1] = mean + std * r * np.sin(two_pi * u2)


@njit(cache=True, nogil=True)
def _randint_kernel(out, key, ctr, low, span):
    """out[i] = low + draw_i mod span, for integers in [low, low + span)."""
    for i in range(out.shape[0]):
        out[i] = low + np.int64(_draw(key, ctr + np.uint64(i)) % span)


@njit(cache=True, nogil=True)
def _randperm_kernel(out, key, ctr):
    """Fisher-Yates shuffle of 0 .. n-1, drawing the swap partner of position i from counter i."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = np.int64(_draw(key, ctr + np.uint64(i)) % np.uint64(i + 1))
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


# ------------------------------------------------------------------------------------- plumbing
def _gen(generator) -> Generator:
    return default_generator if generator is None else generator


def _fill(t: Tensor, buf_np, kernel, *args):
    """Run ``kernel(buffer, *args)`` over ``t``'s elements in row-major order, writing straight
    into ``t``'s memory when it is a dense CPU buffer of ``buf_np``, else through a temporary."""
    n = t.numel()
    data = t._storage.data
    if n and t.device.type == "cpu" and t.is_contiguous() and data.dtype == buf_np:
        kernel(data[t._offset:t._offset + n], *args)
    elif n:
        tmp = np.empty(n, dtype=buf_np)
        kernel(tmp, *args)
        t._write(Tensor._from_numpy_array(tmp.reshape(t._shape)))
        return t
    t._bump_version()
    return t


def _check_inplace(t: Tensor):
    from .autograd import grad_mode
    if t.requires_grad and t.grad_fn is None and grad_mode.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if t.grad_fn is not None:
        # The new values do not depend on the old ones: the history ends here.
        t.grad_fn = None
        t.requires_grad = False


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
    buf, bits = _float_buffer(input.dtype)
    key, ctr = _gen(generator)._take(input.numel())
    return _fill(input, buf, _uniform_kernel, key, ctr, bits, float(from_), float(to) - float(from_))


def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fills ``input`` with numbers drawn from N(mean, std**2)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_type_name(input.dtype)}'")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _check_inplace(input)
    buf, _ = _float_buffer(input.dtype)
    n = input.numel()
    key, ctr = _gen(generator)._take(n + (n & 1))
    return _fill(input, buf, _normal_kernel, key, ctr, float(mean), float(std))


def _int_bounds(d: dtypes.dtype):
    """The integers [lo, hi] that ``d`` holds exactly."""
    if d is dtypes.bool:
        return 0, 1
    if d.is_floating_point:
        m = {dtypes.float16: 11, dtypes.float32: 24, dtypes.float64: 53}[d]
        return -(1 << m), 1 << m
    info = np.iinfo(d.numpy)
    return int(info.min), int(info.max)


def _fill_ints(input: Tensor, low: int, high: int, generator) -> Tensor:
    lo, hi = _int_bounds(input.dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if low < lo:
        raise RuntimeError(f"from is out of bounds for {input.dtype.numpy.name}")
    if high - 1 > hi:
        raise RuntimeError(f"to - 1 is out of bounds for {input.dtype.numpy.name}")
    key, ctr = _gen(generator)._take(input.numel())
    return _fill(input, np.dtype(np.int64), _randint_kernel, key, ctr, np.int64(low), np.uint64(high - low))


def random_(input: Tensor, from_=0, to=None, *, generator=None, **kwargs) -> Tensor:
    """Fills ``input`` with integers from [from, to); ``random_(to)`` means [0, to), and with no
    bound [0, largest integer the dtype holds exactly]."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    elif to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        to = _int_bounds(input.dtype)[1] + 1
    _check_inplace(input)
    return _fill_ints(input, int(from_), int(to), generator)


def bernoulli_(input: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fills ``input`` with 1 with probability ``p`` (a number or a tensor), else 0."""
    if isinstance(p, Tensor):
        _check_inplace(input)
        return input.copy_(_bernoulli_from(p.expand(input.shape), generator))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    _check_inplace(input)
    u = _uniform_tensor(input.shape, generator)
    from .ops.functional_elementwise import lt
    input._write(lt(u, p))
    return input


def _uniform_tensor(shape, generator) -> Tensor:
    u = Tensor._empty(shape, dtypes.float64)
    key, ctr = _gen(generator)._take(u.numel())
    return _fill(u, np.dtype(np.float64), _uniform_kernel, key, ctr, 53, 0.0, 1.0)


def _bernoulli_from(p: Tensor, generator) -> Tensor:
    from .ops.functional_elementwise import lt
    u = _uniform_tensor(p.shape, generator)
    return lt(u, p.detach())


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Draws 0/1 per element with probability ``input`` (or ``p`` when given); same dtype."""
    if p is not None:
        return bernoulli_(_empty_as(input, input.dtype), p, generator=generator)
    if input.numel() and not _in_unit_interval(input):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    res = _bernoulli_from(input, generator).to(input.dtype)
    if out is not None:
        return out.copy_(res)
    return res


def _in_unit_interval(p: Tensor) -> bool:
    from .ops.functional_elementwise import ge, le, logical_and
    from .ops.reductions import all as all_
    return bool(all_(logical_and(ge(p.detach(), 0), le(p.detach(), 1))))


def _empty_as(input, d):
    return Tensor._empty(input._shape, d, input.device)


# ------------------------------------------------------------------------------------ factories
def _new(size, dtype, device, default=None, keyword=None, name="size") -> Tensor:
    shape = shapes.parse_size(size, name, keyword)
    d = dtypes.as_dtype(dtype) if dtype is not None else (default or dtypes.get_default_dtype())
    return Tensor._empty(shape, d, as_device(device))


def _finish(t: Tensor, requires_grad: bool, out) -> Tensor:
    if out is not None:
        out.resize_(t.shape) if tuple(out.shape) != tuple(t.shape) else None
        out.copy_(t)
        return out
    if requires_grad:
        t.requires_grad_(True)
    return t


def rand(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False) -> Tensor:
    """rand(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn uniformly from [0, 1)."""
    return _finish(uniform_(_new(args, dtype, device, None, size, "rand"), generator=generator),
                   requires_grad, out)


def randn(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False) -> Tensor:
    """randn(*size, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor

    Numbers drawn from the standard normal distribution."""
    return _finish(normal_(_new(args, dtype, device, None, size, "randn"), generator=generator),
                   requires_grad, out)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, layout=None, pin_memory=False) -> Tensor:
    """randint(low=0, high, size, *, generator=None, dtype=int64, device=None) -> Tensor

    Integers drawn uniformly from [low, high)."""
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
    t = _new(size, dtype, device, dtypes.int64)
    return _finish(_fill_ints(t, low, high, generator), requires_grad, out)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False) -> Tensor:
    """randperm(n, *, generator=None, dtype=int64, device=None) -> Tensor: a random
    permutation of 0 .. n-1."""
    n = shapes._as_index(n, "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    t = _new((n,), dtype, device, dtypes.int64)
    if n - 1 > _int_bounds(t.dtype)[1]:
        raise RuntimeError(f"n is too large for result tensor type: '{_type_name(t.dtype)}'")
    key, ctr = _gen(generator)._take(n)
    return _finish(_fill(t, np.dtype(np.int64), _randperm_kernel, key, ctr), requires_grad, out)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False, out=None) -> Tensor:
    """normal(mean, std, size=None, *, generator=None) -> Tensor

    Draws from N(mean, std**2). ``mean`` and ``std`` may be tensors (broadcast together, giving
    the result's shape) or numbers (then ``size`` gives the shape)."""
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() missing the size argument for number mean and std")
        t = normal_(_new(size, dtype, device), float(mean), float(std), generator=generator)
        return _finish(t, requires_grad, out)
    if st and std.numel() and _negative(std):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape = shapes.broadcast_shapes(*[x.shape for x in (mean, std) if isinstance(x, Tensor)])
    d = dtypes.result_type(*[x for x in (mean, std) if isinstance(x, Tensor)])
    if not d.is_floating_point:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_type_name(d)}'")
    dev = (mean if mt else std).device
    z = normal_(Tensor._empty(shape, d, dev), generator=generator)
    res = mean + std * z
    if out is not None:
        return out.copy_(res)
    return res


def _negative(std: Tensor) -> bool:
    from .ops.functional_elementwise import lt
    from .ops.reductions import any as any_
    return bool(any_(lt(std.detach(), 0)))


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """Uniform [0, 1) numbers with ``input``'s shape, dtype and device."""
    return rand(input.shape, generator=generator, dtype=dtype or input.dtype,
                device=device or input.device, requires_grad=requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """Standard normal numbers with ``input``'s shape, dtype and device."""
    return randn(input.shape, generator=generator, dtype=dtype or input.dtype,
                 device=device or input.device, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None) -> Tensor:
    """Integers from [low, high) with ``input``'s shape, dtype and device; ``randint_like(x, high)``."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, generator=generator, dtype=dtype or input.dtype,
                   device=device or input.device, requires_grad=requires_grad)

