"""A flat buffer on one device and the version counter that every view of it shares."""
from __future__ import annotations

import numpy as np

from . import dtypes
from .devices import CPU, require_cuda


class Storage:
    """One contiguous 1-D buffer: a NumPy array on the CPU, a device array on a GPU.

    ``version`` counts in-place writes to any tensor viewing this memory; autograd compares it
    against the value it saw when saving a tensor for backward. Reinterpretations of the same
    memory as another dtype share the counter.
    """

    __slots__ = ("data", "device", "_counter", "__weakref__")

    def __init__(self, data, device=CPU, counter=None):
        self.data = data
        self.device = device
        self._counter = counter if counter is not None else [0]

    @classmethod
    def empty(cls, numel: int, dtype: dtypes.dtype, device=CPU) -> "Storage":
        if device.type == "cpu":
            return cls(np.empty(numel, dtype=dtype.numpy), device)
        cuda = require_cuda()
        return cls(cuda.empty(numel, dtype.numpy, device), device)

    @classmethod
    def cpu_zeros(cls, numel: int, dtype: dtypes.dtype) -> "Storage":
        """A zero-filled CPU buffer, straight from the allocator's zeroed pages."""
        return cls(np.zeros(numel, dtype=dtype.numpy), CPU)

    @property
    def version(self) -> int:
        return self._counter[0]

    @version.setter
    def version(self, value: int):
        self._counter[0] = value

    def reinterpret(self, dtype: dtypes.dtype) -> "Storage":
        """The same bytes seen as ``dtype`` (a trailing partial element is dropped)."""
        nbytes = self.nbytes()
        usable = nbytes - nbytes % dtype.itemsize
        raw = self.data.view(np.uint8)[:usable]
        return Storage(raw.view(dtype.numpy), self.device, self._counter)

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy(self.data.dtype)

    def __len__(self):
        return self.data.shape[0]

    def nbytes(self) -> int:
        return self.data.shape[0] * self.data.dtype.itemsize

    def data_ptr(self) -> int:
        """The address of the buffer's first element."""
        if self.device.type == "cpu":
            return self.data.__array_interface__["data"][0]
        from .backends import cuda
        return cuda.pointer(self.data)
