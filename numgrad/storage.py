"""A flat buffer on one device and the version counter that every view of it shares."""
from __future__ import annotations

import numpy as np

from . import dtypes
from .devices import CPU


class Storage:
    """One contiguous 1-D buffer: a NumPy array on the CPU, a device array on a GPU.

    ``version`` counts in-place writes to any tensor viewing this storage; autograd compares it
    against the value it saw when saving a tensor for backward.
    """

    __slots__ = ("data", "device", "version", "__weakref__")

    def __init__(self, data, device=CPU):
        self.data = data
        self.device = device
        self.version = 0

    @classmethod
    def empty(cls, numel: int, dtype: dtypes.dtype, device=CPU) -> "Storage":
        if device.type == "cpu":
            return cls(np.empty(numel, dtype=dtype.numpy), device)
        from .backends import cuda
        return cls(cuda.empty(numel, dtype.numpy, device), device)

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy(self.data.dtype)

    def __len__(self):
        return self.data.shape[0]

    def nbytes(self) -> int:
        return self.data.shape[0] * self.data.dtype.itemsize
