"""DLPack interchange: tensors to and from other array libraries without copying, as
``torch.utils.dlpack``.

CPU tensors travel through NumPy, which implements the protocol: a tensor exports a NumPy view of
its memory, and imports are ``np.from_dlpack`` results wrapped without a copy. CUDA tensors
travel as capsules built by ``backends/cuda/dlpack.py``, or come in through
``__cuda_array_interface__`` when the producer has one.
"""
from __future__ import annotations

import numpy as np

from ..creation import from_cuda_array

__all__ = ["from_dlpack", "to_dlpack"]

# DLDeviceType codes of the DLPack specification.
_KDL_CPU = 1
_KDL_CUDA = 2
_KDL_CUDA_MANAGED = 13


def dlpack_device(tensor) -> tuple:
    """``Tensor.__dlpack_device__``: (device type, device index)."""
    if tensor.device.type == "cuda":
        return (_KDL_CUDA, tensor.device.index or 0)
    return (_KDL_CPU, 0)


def export(tensor, stream=None, max_version=None, dl_device=None, copy=None):
    """``Tensor.__dlpack__``: a DLPack capsule viewing the tensor's memory."""
    if tensor.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if tensor.device.type != "cpu":
        if copy:
            raise BufferError("numgrad cannot export a copy of a CUDA tensor through DLPack")
        if stream not in (None, 1, -1):
            # numgrad's kernels run on the legacy default stream (1, or None, in DLPack's terms);
            # a consumer on another stream sees finished data.
            _cuda().synchronize()
        return _capsules().to_capsule(tensor)
    kwargs = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device), ("copy", copy))
              if v is not None}
    return tensor._np_view().__dlpack__(stream=stream, **kwargs)


def to_dlpack(tensor):
    """to_dlpack(tensor) -> PyCapsule: a DLPack capsule sharing ``tensor``'s memory."""
    return tensor.__dlpack__()


class _Capsule:
    """A bare DLPack capsule dressed as an exporter (``np.from_dlpack`` wants ``__dlpack__``)."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return _capsules().capsule_device(self.capsule)


def from_dlpack(ext_tensor):
    """from_dlpack(ext_tensor) -> Tensor

    A tensor sharing memory with ``ext_tensor``: an object implementing ``__dlpack__`` (a NumPy
    array, a PyTorch tensor, ...), a DLPack capsule, or on CUDA an object exposing
    ``__cuda_array_interface__``."""
    from ..tensor import Tensor
    if isinstance(ext_tensor, Tensor):
        if ext_tensor.requires_grad:
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return Tensor._make(ext_tensor._storage, ext_tensor._shape, ext_tensor._strides,
                            ext_tensor._offset, ext_tensor.dtype)
    if type(ext_tensor).__name__ == "PyCapsule":
        if _capsules().capsule_device(ext_tensor)[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            return _from_cuda_capsule(ext_tensor)
        ext_tensor = _Capsule(ext_tensor)
    if not hasattr(ext_tensor, "__dlpack__"):
        if hasattr(ext_tensor, "__cuda_array_interface__"):
            return from_cuda_array(ext_tensor)
        raise TypeError(f"from_dlpack() expected an object implementing __dlpack__, got "
                        f"{type(ext_tensor).__name__}")
    kind = ext_tensor.__dlpack_device__()[0] if hasattr(ext_tensor, "__dlpack_device__") else _KDL_CPU
    if kind in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        if hasattr(ext_tensor, "__cuda_array_interface__"):
            return from_cuda_array(ext_tensor)
        return _from_cuda_capsule(ext_tensor.__dlpack__(stream=None))
    if kind != _KDL_CPU:
        raise BufferError(f"from_dlpack(): unsupported DLPack device type {kind}")
    from ..creation import from_numpy
    return from_numpy(np.from_dlpack(ext_tensor))


def _capsules():
    # The DLPack structs (plain ctypes, no CUDA needed) live with the CUDA backend, their main user.
    from ..backends.cuda import dlpack
    return dlpack


def _cuda():
    from ..backends import require_cuda
    return require_cuda()


def _from_cuda_capsule(capsule):
    _cuda()
    return from_cuda_array(_capsules().from_capsule(capsule))
