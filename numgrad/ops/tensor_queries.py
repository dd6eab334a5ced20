"""Questions about tensors, dtypes and shapes (is_nonzero, is_signed, can_cast, ...) and the
process-wide settings PyTorch reads through functions (interop threads, warn-always)."""
from __future__ import annotations

import os

from .. import shapes
from ..storage import UntypedStorage
from ..typed_storage import TypedStorage
from ..tensor import Tensor
from .registry import can_cast as _can_write

__all__ = ["broadcast_shapes", "is_nonzero", "is_signed", "is_same_size", "is_complex", "is_conj", "is_neg",
           "is_inference", "can_cast", "typename", "get_device", "get_num_interop_threads",
           "set_num_interop_threads", "is_warn_always_enabled", "set_warn_always", "is_storage", "set_flush_denormal"]


def broadcast_shapes(*shapes_):
    """broadcast_shapes(*shapes) -> Size: the shape the given shapes broadcast to."""
    return shapes.Size(shapes.broadcast_shapes(*(tuple(s) if hasattr(s, "__len__") else (s,) for s in shapes_)))


def is_nonzero(input) -> bool:
    """is_nonzero(input) -> bool: whether the single value of ``input`` is not zero."""
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def is_signed(input) -> bool:
    """is_signed(input) -> bool: whether ``input``'s dtype holds negative numbers."""
    return input.dtype.is_signed


def is_same_size(input, other) -> bool:
    """is_same_size(input, other) -> bool: whether both tensors have the same shape."""
    return tuple(input.shape) == tuple(other.shape)


def is_complex(input) -> bool:
    """is_complex(input) -> bool: whether ``input`` has a complex dtype (numgrad's never do)."""
    return input.dtype.is_complex


def is_conj(input) -> bool:
    """is_conj(input) -> bool: whether ``input`` is a lazily conjugated view (never, for real tensors)."""
    return False


def is_neg(input) -> bool:
    """is_neg(input) -> bool: whether ``input`` is a lazily negated view (never, for real tensors)."""
    return False


def is_inference(input) -> bool:
    """is_inference(input) -> bool: whether ``input`` is an inference tensor. numgrad's tensors made
    in inference mode are ordinary tensors without history, so this is False."""
    return False


def can_cast(from_, to) -> bool:
    """can_cast(from_, to) -> bool: whether PyTorch's casting rules allow writing ``from_`` into ``to``
    (never down a kind: float to integer, integer to bool)."""
    return _can_write(from_, to)


def typename(obj) -> str:
    """typename(obj) -> str: ``'torch.FloatTensor'`` & co. for tensors, else the qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module, name = getattr(obj, "__module__", "") or "", getattr(obj, "__qualname__", None)
    if name is None:
        cls = type(obj)
        module, name = cls.__module__, cls.__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def get_device(input) -> int:
    """get_device(input) -> int: the index of the accelerator holding ``input``, -1 for the CPU."""
    index = input.device.index
    return -1 if input.device.type == "cpu" else (index or 0)


_settings = {"interop_threads": None, "warn_always": False}


def get_num_interop_threads() -> int:
    """get_num_interop_threads() -> int: the number of threads for inter-op parallelism."""
    return _settings["interop_threads"] or max(1, (os.cpu_count() or 2) // 2)


def set_num_interop_threads(num: int) -> None:
    """set_num_interop_threads(num): sets the number of threads for inter-op parallelism."""
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _settings["interop_threads"] = int(num)


def is_warn_always_enabled() -> bool:
    """is_warn_always_enabled() -> bool: whether once-only warnings are raised every time."""
    return _settings["warn_always"]


def set_warn_always(b: bool) -> None:
    """set_warn_always(b): when True, once-only warnings are raised every time."""
    _settings["warn_always"] = bool(b)


def is_storage(obj) -> bool:
    """is_storage(obj) -> bool: whether ``obj`` is a storage (typed or untyped)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def set_flush_denormal(mode: bool) -> bool:
    """set_flush_denormal(mode) -> bool: whether denormal floats can be flushed to zero; numgrad's
    kernels keep them, so this is False and nothing changes."""
    return False
