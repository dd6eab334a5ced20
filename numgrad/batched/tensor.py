"""BatchedTensor: inside ``vmap``, a tensor that stands for one sample of a batch.

Its ``value`` holds every sample along dim ``bdim``; it shows the shape of one sample (its
logical shape) and answers every method by a batching rule (``numgrad.batched.dispatch``).
Nested vmaps nest BatchedTensors: the value of a level-2 BatchedTensor may be a level-1 one.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

from ..shapes import Size
from ..tensor import Tensor


@dataclass
class Level:
    """One running vmap: its batch size and its randomness mode."""
    size: int
    randomness: str


class _Running(threading.local):
    """This thread's running vmaps, outermost first: a BatchedTensor's level is its index in
    ``levels`` plus one. Per thread, so that a vmap in one thread leaves the calls of another
    alone."""

    def __init__(self):
        self.levels = []


running = _Running()


class BatchedTensor(Tensor):
    """A tensor batched along dim ``_bdim`` of ``_value`` at vmap level ``_level``."""

    __slots__ = ("_value", "_bdim", "_level")

    def __new__(cls, value, bdim: int, level: int):
        t = object.__new__(cls)
        t._value = value
        t._bdim = bdim
        t._level = level
        return t

    @property
    def shape(self):
        s = tuple(self._value.shape)
        return Size(s[:self._bdim] + s[self._bdim + 1:])

    @property
    def ndim(self) -> int:
        return self._value.ndim - 1

    def dim(self) -> int:
        return self._value.ndim - 1

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        return shape[logical_dim(dim, len(shape))]

    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    @property
    def grad(self):
        return None

    @property
    def _fw_tangent(self):
        return None

    @property
    def _requires_grad(self) -> bool:
        return self._value.requires_grad

    @property
    def _base(self):
        return None

    # The layout of one sample is not stored anywhere: a function that reads it got a
    # BatchedTensor past the batching rules (a library function called directly, not through
    # numgrad's public namespaces).
    @property
    def _storage(self):
        raise _Unbatchable()

    _shape = _strides = _offset = _storage

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim={self._bdim}, value=\n{self._value!r}\n)"

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise _data_dependent()

    def __contains__(self, item):
        raise _data_dependent()

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                           "operations.")

    __float__ = __int__ = __index__ = __complex__ = tolist = item

    def numpy(self, *args, **kwargs):
        raise RuntimeError("vmap: numpy() reads the values of every sample at once, which a function under "
                           "vmap cannot do: return the tensor from the function instead.")

    __array__ = numpy


class _Unbatchable(RuntimeError, AttributeError):
    def __init__(self):
        super().__init__("vmap: a batched tensor reached a function that has no batching rule and was not called "
                         "through numgrad's public functions or Tensor methods; call it as numgrad.<name>, "
                         "numgrad.nn.functional.<name> or a Tensor method")


def _of_value(name):
    return property(lambda self: getattr(self._value, name))


# What a sample shares with the whole batch: read from the value.
for _name in ("dtype", "device", "layout", "is_cuda", "is_cpu", "itemsize", "requires_grad", "is_leaf", "grad_fn"):
    setattr(BatchedTensor, _name, _of_value(_name))


def _data_dependent():
    return RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                        "flow. We don't support that yet.")


def logical_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def front(x: BatchedTensor):
    """``x``'s value with the batch dim first."""
    return x._value if x._bdim == 0 else x._value.movedim(x._bdim, 0)


def physical(x):
    """The plain tensor under every level of ``x``."""
    while type(x) is BatchedTensor:
        x = x._value
    return x


def batched_at_every_level(x, depth: int):
    """``x`` as a plain tensor of shape ``(B1, ..., B_depth) + x.shape``: the samples of every
    running vmap up to ``depth`` along its leading dims (expanded where x is not batched)."""
    for level in range(depth, 0, -1):
        if type(x) is BatchedTensor and x._level == level:
            x = front(x)
        else:
            x = x.unsqueeze(0).expand((running.levels[level - 1].size,) + tuple(x.shape))
    return x


def wrap_every_level(p, depth: int):
    """The inverse of :func:`batched_at_every_level`: plain ``p`` seen one sample at a time."""
    for level in range(1, depth + 1):
        p = BatchedTensor(p, 0, level)
    return p
