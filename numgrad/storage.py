"""Storage: the flat buffer tensors view (``UntypedStorage``), with the version counter every view
shares. ``TypedStorage``, the buffer seen as elements of one dtype, builds tensors, so it lives
a layer up, in ``typed_storage.py``."""
from __future__ import annotations

import numpy as np

from . import dtypes
from .backends.cpu.memory import host_buffer
from .backends import require_cuda
from .devices import CPU

__all__ = ["UntypedStorage"]


def element_index(storage, index, n: int) -> int:
    """``index`` into a storage of ``n`` elements, checked and made non-negative, as PyTorch's
    storages take one element index (no slices)."""
    if isinstance(index, slice):
        raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
    if not isinstance(index, (int, np.integer)):
        raise RuntimeError(f"can't index a {type(storage)} with {type(index)}")
    if not -n <= index < n:
        raise IndexError(f"index {index} out of range for storage of size {n}")
    return int(index) % n


def _check_nbytes(numel: int, dtype: dtypes.dtype) -> None:
    if numel * dtype.itemsize >= 1 << 63:
        raise RuntimeError(f"Storage size calculation overflowed: {numel} elements of {dtype.itemsize} bytes")


class UntypedStorage:
    """One contiguous 1-D buffer: a NumPy array on the CPU, a device array on a GPU.

    Seen from Python it is a sequence of bytes, as PyTorch's ``UntypedStorage``. ``version``
    counts in-place writes to any tensor viewing this memory; autograd compares it against the
    value it saw when saving a tensor for backward. Reinterpretations of the same memory as
    another dtype share the counter.
    """

    __module__ = "numgrad.storage"
    __slots__ = ("data", "device", "_counter", "__weakref__")

    def __init__(self, data, device=CPU, counter=None):
        self.data = data
        self.device = device
        self._counter = counter if counter is not None else [0]

    @classmethod
    def empty(cls, numel: int, dtype: dtypes.dtype, device=CPU) -> "UntypedStorage":
        _check_nbytes(numel, dtype)
        if device.type == "cpu":
            return cls(host_buffer(np.empty, numel, dtype.numpy), device)
        cuda = require_cuda()
        return cls(cuda.empty(numel, dtype.numpy, device), device)

    @classmethod
    def cpu_zeros(cls, numel: int, dtype: dtypes.dtype) -> "UntypedStorage":
        """A zero-filled CPU buffer, straight from the allocator's zeroed pages."""
        _check_nbytes(numel, dtype)
        return cls(host_buffer(np.zeros, numel, dtype.numpy), CPU)

    @property
    def version(self) -> int:
        return self._counter[0]

    @version.setter
    def version(self, value: int):
        self._counter[0] = value

    def reinterpret(self, dtype: dtypes.dtype) -> "UntypedStorage":
        """The same bytes seen as ``dtype`` (a trailing partial element is dropped)."""
        if self.data.dtype == dtype.numpy:
            return self
        nbytes = self.nbytes()
        usable = nbytes - nbytes % dtype.itemsize
        raw = self.data.view(np.uint8)[:usable]
        return UntypedStorage(raw.view(dtype.numpy), self.device, self._counter)

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.from_numpy(self.data.dtype)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def nbytes(self) -> int:
        return self.data.shape[0] * self.data.dtype.itemsize

    size = nbytes

    def __len__(self):
        return self.nbytes()

    def data_ptr(self) -> int:
        """The address of the buffer's first element."""
        if self.device.type == "cpu":
            return self.data.__array_interface__["data"][0]
        from .backends import cuda
        return cuda.pointer(self.data)

    def _byte_index(self, index) -> int:
        return element_index(self, index, self.nbytes())

    def _host_bytes(self, start: int = 0, count=None) -> np.ndarray:
        """Bytes ``start .. start + count`` as a host uint8 array (the buffer itself on the CPU)."""
        raw = self.reinterpret(dtypes.uint8).data
        count = raw.shape[0] - start if count is None else count
        if self.device.type == "cpu":
            return raw[start:start + count]
        return require_cuda().to_host(raw, start, count)

    def __getitem__(self, index):
        return int(self._host_bytes(self._byte_index(index), 1)[0])

    def __setitem__(self, index, value):
        i = self._byte_index(index)
        byte = np.array([value]).astype(np.uint8)  # wraps as a cast to uint8 does
        raw = self.reinterpret(dtypes.uint8).data
        if self.device.type == "cpu":
            raw[i] = byte[0]
        else:
            raw[i:i + 1].copy_to_device(byte)
        self._counter[0] += 1

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        """The bytes as a list of ints."""
        return self._host_bytes().tolist()

    def __repr__(self):
        return pretty(self.tolist(), f"numgrad.storage.UntypedStorage(device={self.device})", len(self))

    __str__ = __repr__


# The name the rest of the package uses for the buffer behind a tensor.
Storage = UntypedStorage


def pretty(values: list, kind: str, size: int) -> str:
    """PyTorch's storage print: one value per line, then the kind and size."""
    return " " + "\n ".join(str(v) for v in values) + f"\n[{kind} of size {size}]"
