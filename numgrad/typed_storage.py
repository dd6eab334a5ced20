"""``TypedStorage``: an ``UntypedStorage`` seen as elements of one dtype, what the deprecated
``Tensor.storage()`` returns; PyTorch's path for it is ``torch.storage.TypedStorage``."""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes
from .creation import tensor
from .devices import as_device
from .storage import UntypedStorage, element_index, pretty
from .tensor import Tensor

__all__ = ["TypedStorage"]

_warned = [False]


def warn_typed_storage_removal():
    if not _warned[0]:
        _warned[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
                      "the only storage class. This should only matter to you if you are using storages "
                      "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
                      "tensor.storage()", UserWarning, stacklevel=3)


class TypedStorage:
    """An ``UntypedStorage`` seen as elements of one dtype (what ``Tensor.storage()`` returns).

    ``TypedStorage(size, dtype=...)`` or ``TypedStorage(sequence, dtype=...)`` makes a new one;
    tensors built on it with ``numgrad.Tensor(storage)`` or ``Tensor.set_`` share its memory."""

    __module__ = "numgrad.storage"
    __slots__ = ("_untyped", "dtype")

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        d = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("No positional arguments or device should be given when using "
                                   "'wrap_storage'")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError("expected 'wrap_storage' to be an UntypedStorage, but got "
                                f"{type(wrap_storage).__name__}")
            self._untyped, self.dtype = wrap_storage, d
            return
        dev = as_device(device)
        if len(args) > 1:
            raise RuntimeError(f"Too many positional arguments (expected at most 1, got {len(args)})")
        source = args[0] if args else 0
        if isinstance(source, (int, np.integer)) and not isinstance(source, (bool, np.bool_)):
            if source < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {source}")
            self._untyped, self.dtype = UntypedStorage.empty(int(source), d, dev), d
            return
        if not isinstance(source, (list, tuple)):
            raise TypeError(f"expected a size or a sequence of numbers, but got {type(source).__name__}")
        t = tensor(list(source), dtype=d, device=dev)
        self._untyped, self.dtype = t._storage, d

    @classmethod
    def _wrap(cls, untyped: UntypedStorage, dtype: dtypes.dtype) -> "TypedStorage":
        s = object.__new__(TypedStorage)
        s._untyped, s.dtype = untyped, dtype
        return s

    @property
    def device(self):
        return self._untyped.device

    @property
    def is_cuda(self) -> bool:
        return self._untyped.device.type == "cuda"

    def untyped(self) -> UntypedStorage:
        """The untyped storage this views."""
        return self._untyped

    def _elements(self) -> UntypedStorage:
        """The buffer with this dtype's elements (the same memory)."""
        return self._untyped.reinterpret(self.dtype)

    def size(self) -> int:
        return self._untyped.nbytes() // self.dtype.itemsize

    def __len__(self):
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self.size() * self.dtype.itemsize

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    def type(self) -> str:
        return dtypes.legacy_type_name(self.dtype, self.device.type, "Storage")

    def _tensor(self, offset: int = 0, numel: int | None = None):
        numel = self.size() - offset if numel is None else numel
        return Tensor._make(self._elements(), (numel,), (1,), offset, self.dtype)

    def _index(self, index) -> int:
        return element_index(self, index, self.size())

    def __getitem__(self, index):
        return self._tensor(self._index(index), 1).item()

    def __setitem__(self, index, value):
        self._tensor(self._index(index), 1)._fill_raw(value)
        self._untyped._counter[0] += 1

    def fill_(self, value) -> "TypedStorage":
        """Writes ``value`` to every element."""
        self._tensor()._fill_raw(value)
        self._untyped._counter[0] += 1
        return self

    def tolist(self) -> list:
        """The elements as a list of Python numbers."""
        return self._tensor().tolist()

    def copy_(self, source, non_blocking=None) -> "TypedStorage":
        """Copies ``source`` (a storage or tensor of the same size) into this storage."""
        src = source._tensor() if isinstance(source, TypedStorage) else source
        self._tensor().copy_(src)
        return self

    def clone(self) -> "TypedStorage":
        """A copy in new memory."""
        return TypedStorage._wrap(self._tensor().clone()._storage, self.dtype)

    def cpu(self) -> "TypedStorage":
        """A CPU copy of this storage."""
        return TypedStorage._wrap(self._tensor().cpu().contiguous()._storage, self.dtype)

    def is_shared(self) -> bool:
        return False

    def _to(self, dtype) -> "TypedStorage":
        if dtype is self.dtype:
            return self
        return TypedStorage._wrap(self._tensor().to(dtype)._storage, dtype)

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        kind = f"numgrad.storage.TypedStorage(dtype={self.dtype}, device={self.device})"
        return pretty(self.tolist(), kind, self.size())

    __str__ = __repr__


def _conversion(name, d):
    def convert(self) -> TypedStorage:
        return self._to(d)
    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"This storage as {d.name} (itself when it already is)."
    return convert


for _name, _dtype in dtypes.CONVERSIONS.items():
    setattr(TypedStorage, _name, _conversion(_name, _dtype))
