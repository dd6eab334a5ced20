"""PyTorch's legacy type objects: ``FloatTensor`` & co. (constructors, ``isinstance`` by dtype and
device, ``Tensor.type``), ``FloatStorage`` & co., ``set_default_tensor_type``, and
``Tensor.set_``, which views a storage."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from . import dtypes, shapes
from .autograd.grad_mode import is_grad_enabled
from .backends import cuda_available
from .creation import empty, tensor
from .devices import as_device
from .shapes import Size, contiguous_strides
from .storage import Storage, UntypedStorage
from .tensor import Tensor
from .typed_storage import TypedStorage

__all__ = ["set_default_tensor_type"]

# The legacy type names, as in 'torch.FloatTensor' and 'torch.LongStorage'.
_BY_NAME = {"Bool": dtypes.bool, "Byte": dtypes.uint8, "Char": dtypes.int8, "Short": dtypes.int16,
            "Int": dtypes.int32, "Long": dtypes.int64, "Half": dtypes.float16, "BFloat16": dtypes.bfloat16,
            "Float": dtypes.float32, "Double": dtypes.float64}


def parse_type_name(name: str):
    """The dtype and device type of a name such as 'torch.cuda.FloatTensor'; ValueError if none."""
    module, _, cls = name.rpartition(".")
    stem = cls[:-len("Tensor")] if cls.endswith("Tensor") else None
    if module in ("torch", "numgrad", "torch.cuda", "numgrad.cuda") and stem in _BY_NAME:
        return _BY_NAME[stem], "cuda" if module.endswith("cuda") else "cpu"
    raise ValueError(f"invalid type: '{name}'")


def _options(dtype, device_type: str) -> str:
    return (f"TensorOptions(dtype={dtypes.C_NAMES[dtype]}, device={device_type}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


_SIGNATURES = (" * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")


def construct(dtype, device_type: str, args: tuple, /, device=None, **kwargs):
    """The legacy constructors ``Tensor(*sizes)``, ``Tensor(data)``, ``Tensor(storage)`` and
    ``Tensor(other)`` for one dtype and device type."""
    if kwargs:
        got = ", ".join([_kind(a) for a in args] + [f"{k}={_kind(v)}" for k, v in kwargs.items()])
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_SIGNATURES}")
    if device is not None:
        dev = as_device(device)
        if dev.type != device_type:
            raise RuntimeError(f"legacy constructor expects device type: {device_type} but device type: "
                               f"{dev.type} was passed")
    else:
        dev = as_device(device_type)
    if len(args) == 1:
        x = args[0]
        if isinstance(x, (TypedStorage, UntypedStorage)):
            return _from_storage(x, dtype, "argument 1 'storage'", capital=True)
        if isinstance(x, Size):
            return empty(x, dtype=dtype, device=dev)
        if isinstance(x, Tensor):
            if x.dtype is not dtype or x.device.type != device_type:
                raise TypeError(f"expected {_options(dtype, device_type)} (got "
                                f"{_options(x.dtype, x.device.type)})")
            return Tensor._make(x._storage, x._shape, x._strides, x._offset, x.dtype)
        if isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, (numbers.Integral, np.integer)) \
                or isinstance(x, (bool, np.bool_)):
            raise TypeError(f"new(): data must be a sequence (got {type(x).__name__})")
        if not isinstance(x, (numbers.Integral, np.integer)):
            return tensor(x, dtype=dtype, device=dev)
    if not all(isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool) for a in args):
        got = ", ".join(_kind(a) for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one "
                        f"of:\n{_SIGNATURES}")
    return empty(*(args or (0,)), dtype=dtype, device=dev)


def _kind(value) -> str:
    return "torch.dtype" if isinstance(value, dtypes.dtype) else type(value).__name__


def _from_storage(storage, dtype, what: str, capital: bool, offset: int = 0, size=None, stride=None):
    """A tensor of ``dtype`` over ``storage``'s memory (shared, not copied)."""
    if isinstance(storage, TypedStorage):
        if storage.dtype is not dtype:
            name = dtypes.TORCH_NAMES[dtype] if capital else dtypes.C_NAMES[dtype]
            raise RuntimeError(f"Expected a Storage of type {name} or an UntypedStorage, but got type "
                               f"{dtypes.TORCH_NAMES[storage.dtype]} for {what}")
        storage = storage.untyped()
    elements = storage.reinterpret(dtype)
    if size is None:
        size = (elements.data.shape[0] - offset,)
    stride = contiguous_strides(tuple(size)) if stride is None else stride
    return Tensor._make(elements, tuple(size), tuple(stride), offset, dtype)


def set_(self, source=None, storage_offset: int = 0, size=None, stride=None) -> "Tensor":
    """Makes this tensor view ``source``: another tensor, or a storage from ``storage_offset``
    with ``size`` and ``stride`` (contiguous by default); nothing is copied."""
    if self._requires_grad and self._grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if source is None:
        source = Storage.empty(0, self.dtype, self.device)
    if isinstance(source, Tensor):
        storage, size, stride = source._storage, source._shape, source._strides
        storage_offset = source._offset
    else:
        if storage_offset < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {storage_offset}")
        view = _from_storage(source, self.dtype, "argument 1 'storage'", False, storage_offset, size, stride)
        storage, size, stride = view._storage, view._shape, view._strides
        if size and shapes.prod(size):
            need = storage_offset + 1 + sum((n - 1) * st for n, st in zip(size, stride))
            have = storage.data.shape[0]
            if need > have:
                item = self.dtype.itemsize
                raise RuntimeError(
                    f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                    f"{storage_offset}, and itemsize {item} requiring a storage size of {need * item} are "
                    f"out of bounds for storage of size {have * item}")
    self._storage, self._shape, self._strides, self._offset = storage, tuple(size), tuple(stride), \
        storage_offset
    self._base = None
    self._bump_version()
    return self


def retype(input, target):
    """``Tensor.type(target)``: converts to a legacy type (a class or its name) or a dtype."""
    if isinstance(target, str):
        dtype, device_type = parse_type_name(target)
    elif isinstance(target, tensortype):
        dtype, device_type = target.dtype, target._device_type
    elif isinstance(target, dtypes.dtype):
        return input.to(target)
    else:
        raise TypeError("dtype must be a type, str, or dtype object")
    if device_type != input.device.type:
        return input.to("cuda" if device_type == "cuda" else "cpu", dtype)
    return input.to(dtype)


class tensortype(type):
    """The metaclass of the legacy tensor types: ``isinstance(t, numgrad.FloatTensor)`` is true
    for every float32 CPU tensor, and calling the type runs the legacy constructor."""

    __module__ = "numgrad"

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype \
            and instance.device.type == cls._device_type

    def __call__(cls, *args, **kwargs):
        if cls._device_type == "cuda":
            if not cuda_available():
                raise TypeError(f"type {dtypes.legacy_type_name(cls.dtype, 'cuda')} not available: numgrad found "
                                "no usable CUDA GPU")
        return construct(cls.dtype, cls._device_type, args, **kwargs)

    def __getattr__(cls, name):
        # The tensor methods, as PyTorch's types expose them (numgrad.FloatTensor.abs_).
        return getattr(Tensor, name)


def tensor_types(device_type: str) -> tuple:
    """The legacy tensor types of one device type, in ``_BY_NAME``'s order."""
    module = "numgrad.cuda" if device_type == "cuda" else "numgrad"
    return tuple(tensortype(f"{n}Tensor", (), {"__module__": module, "dtype": d, "_device_type": device_type,
                                              "is_cuda": device_type == "cuda", "is_sparse": False})
                 for n, d in _BY_NAME.items())


(BoolTensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor, HalfTensor, BFloat16Tensor, FloatTensor,
 DoubleTensor) = tensor_types("cpu")


class _LegacyStorageMeta(type):
    """The metaclass of ``FloatStorage`` & co.: a CPU ``TypedStorage`` of float32 is a ``FloatStorage``."""

    def __instancecheck__(cls, instance) -> bool:
        if type(instance) is TypedStorage:
            return instance.dtype is cls.dtype and instance.device.type == "cpu"
        return type.__instancecheck__(cls, instance)


def _new_storage(cls, *args, device=None):
    return TypedStorage(*args, dtype=cls.dtype, device=device)


def _storage_types() -> tuple:
    return tuple(_LegacyStorageMeta(f"{n}Storage", (TypedStorage,),
                                    {"__module__": "numgrad", "__slots__": (), "dtype": d, "__new__": _new_storage})
                 for n, d in _BY_NAME.items())


(BoolStorage, ByteStorage, CharStorage, ShortStorage, IntStorage, LongStorage, HalfStorage, BFloat16Storage,
 FloatStorage, DoubleStorage) = _storage_types()


def set_default_tensor_type(t) -> None:
    """Sets the default floating point dtype from a legacy type or its name (deprecated: use
    :func:`numgrad.set_default_dtype`)."""
    warnings.warn("set_default_tensor_type() is deprecated, as in PyTorch 2.1 and later; please use "
                  "set_default_dtype() instead.", UserWarning, stacklevel=2)
    if isinstance(t, str):
        dtype, device_type = parse_type_name(t)
    elif isinstance(t, tensortype):
        dtype, device_type = t.dtype, t._device_type
    else:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if device_type != "cpu":
        raise RuntimeError("numgrad keeps no default device: make CUDA tensors with device='cuda'")
    dtypes.set_default_dtype(dtype)
