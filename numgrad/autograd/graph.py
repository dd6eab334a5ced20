"""``numgrad.autograd.graph``: hooks on the values the graph saves for backward, and the node
base class."""
from __future__ import annotations

from typing import Callable

from . import saving
from .nodes import Node

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager that sets a pair of pack / unpack hooks for saved tensors.

    While it is active, every tensor a recorded op saves for its backward is passed to
    ``pack_hook(tensor)`` and the result stored instead; when backward needs the tensor it
    calls ``unpack_hook(packed)``, which must return a tensor with the original's values.
    Contexts nest (the innermost pair applies) and are local to the thread.
    """

    def __init__(self, pack_hook: Callable, unpack_hook: Callable):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = saving.disabled_message()
        if message is not None:
            raise RuntimeError(message)
        saving.hooks_stack().append((self.pack_hook, self.unpack_hook))
        saving.watched[0] += 1
        return self

    def __exit__(self, *exc):
        saving.watched[0] -= 1
        saving.hooks_stack().pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Context manager under which saved tensors are kept in CPU memory and copied back to
    their device when backward reads them (on the CPU, a copy that leaves the values as they
    are)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda"):
        def pack_to_cpu(tensor):
            packed = tensor.detach().to("cpu", copy=True)
            if pin_memory and tensor.device.type != "cpu":
                packed = packed.pin_memory()
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager under which setting saved-tensor hooks raises ``RuntimeError`` with
    ``error_message``; it also fails on entry when hooks are already set."""

    def __init__(self, error_message: str):
        self.error_message = error_message

    def __enter__(self):
        if saving.current_hooks() is not None:
            raise RuntimeError(self.error_message)
        self._previous = saving.disabled_message()
        saving.set_disabled_message(self.error_message)
        return self

    def __exit__(self, *exc):
        saving.set_disabled_message(self._previous)
        return False
