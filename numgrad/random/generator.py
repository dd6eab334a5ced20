"""The random number generator: a seed and a position in that seed's stream, the default
generator and the functions that seed it or save and restore its state.

A generator is a 32-bit Mersenne Twister (``backends/cpu/mt19937.py``) whose words become
numbers the way PyTorch's CPU generator makes them, so that after ``manual_seed(s)`` the same
calls give the same numbers as in PyTorch.
"""
from __future__ import annotations

import os

import numpy as np

from .. import dtypes
from ..devices import as_device
from ..backends.cpu import mt19937
from ..tensor import Tensor

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


def generator_or_default(generator) -> Generator:
    """``generator``, or the default generator where it is None."""
    return default_generator if generator is None else generator
