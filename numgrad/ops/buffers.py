"""frombuffer: a 1-D tensor over the memory of an object exposing the buffer protocol."""
from __future__ import annotations

import warnings

import numpy as np

from ..creation import from_numpy

__all__ = ["frombuffer"]


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False):
    """frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor

    A 1-D tensor sharing memory with ``buffer`` (bytes, bytearray, array.array, memoryview...):
    ``count`` elements of ``dtype`` (all of them when -1) starting ``offset`` bytes in."""
    size = memoryview(buffer).nbytes
    itemsize = dtype.itemsize
    if size == 0 or count == 0:
        raise ValueError(f"both buffer length ({size}) and count ({count}) must not be 0")
    if not 0 <= offset < size:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({size} bytes) minus 1")
    if count < 0:
        if (size - offset) % itemsize:
            raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({itemsize})")
        count = (size - offset) // itemsize
    elif offset + count * itemsize > size:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({size} bytes)")
    array = np.frombuffer(buffer, dtype=dtype.numpy, count=count, offset=offset)
    if not array.flags.writeable:
        warnings.warn("The given buffer is not writable, and tensors cannot be read-only: writes through the "
                      "tensor reach the buffer. Copy the buffer or make it writable to protect its data.",
                      UserWarning, stacklevel=2)
    return from_numpy(array).requires_grad_(requires_grad)
