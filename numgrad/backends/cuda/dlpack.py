"""DLPack capsules of CUDA memory, built and read with ctypes (NumPy's protocol support is CPU only).

Exports are unversioned ``dltensor`` capsules over a tensor's strided view, which stays alive
until the consumer calls the deleter; imports wrap a capsule's memory without a copy.
"""
from __future__ import annotations

import ctypes
import weakref

import numpy as np

KDL_CUDA = 2
_NAME = b"dltensor"
_USED = b"used_dltensor"
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_KINDS = {code: kind for kind, code in _CODES.items()}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_Callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
# The destructor receives the dying capsule as a raw pointer: a py_object would revive it.
_raw_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_raw_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))

# Exported structs and what they point into, by address, until their deleter runs.
_live: dict = {}


def _delete(address):
    _live.pop(address, None)


def _destroy_capsule(capsule):
    # A capsule nobody consumed still owns its tensor.
    if _raw_is_valid(capsule, _NAME):
        _delete(_raw_pointer(capsule, _NAME))


_deleter = _Callback(_delete)
_destructor = _Callback(_destroy_capsule)


def to_capsule(tensor):
    """A ``dltensor`` capsule viewing CUDA ``tensor``'s memory (shape, strides, dtype as is)."""
    dt = np.dtype(tensor.dtype.numpy)
    ndim = tensor.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*tensor._shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*tensor._strides)
    m = _DLManagedTensor()
    m.dl_tensor.data = tensor.data_ptr() if tensor.numel() else None
    m.dl_tensor.device = _DLDevice(KDL_CUDA, tensor.device.index or 0)
    m.dl_tensor.ndim = ndim
    m.dl_tensor.dtype = _DLDataType(_CODES[dt.kind], dt.itemsize * 8, 1)
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.byte_offset = 0
    m.deleter = ctypes.cast(_deleter, ctypes.c_void_p)
    address = ctypes.addressof(m)
    _live[address] = (m, shape, strides, tensor._storage)
    return _capsule_new(address, _NAME, ctypes.cast(_destructor, ctypes.c_void_p))


def capsule_device(capsule) -> tuple:
    """(device type, index) of an unconsumed ``dltensor`` capsule."""
    if not _is_valid(capsule, _NAME):
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                           "consumed only once, so you might have already constructed a tensor from it once.")
    d = _DLManagedTensor.from_address(_pointer(capsule, _NAME)).dl_tensor.device
    return (d.device_type, d.device_id)


class _Imported:
    """The ``__cuda_array_interface__`` of a consumed capsule; calls its deleter when it dies."""

    def __init__(self, address):
        t = _DLManagedTensor.from_address(address).dl_tensor
        code, bits = t.dtype.code, t.dtype.bits
        if code not in _KINDS or t.dtype.lanes != 1:
            raise BufferError(f"from_dlpack(): unsupported DLPack dtype (code {code}, {bits} bits, "
                              f"{t.dtype.lanes} lanes)")
        dt = np.dtype(f"{_KINDS[code]}{bits // 8}") if code != 6 else np.dtype(bool)
        shape = tuple(t.shape[k] for k in range(t.ndim))
        strides = tuple(t.strides[k] * dt.itemsize for k in range(t.ndim)) if t.strides else None
        self.__cuda_array_interface__ = {"shape": shape, "typestr": dt.str, "strides": strides, "version": 3,
                                         "data": ((t.data or 0) + t.byte_offset, False)}
        deleter = _DLManagedTensor.from_address(address).deleter
        if deleter:
            weakref.finalize(self, _Callback(deleter), address)


def from_capsule(capsule):
    """An object exposing the ``__cuda_array_interface__`` of a CUDA ``dltensor`` capsule, which
    is consumed."""
    capsule_device(capsule)
    address = _pointer(capsule, _NAME)
    view = _Imported(address)
    _set_name(capsule, _USED)
    return view
