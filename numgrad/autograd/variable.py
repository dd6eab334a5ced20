"""``Variable``: the pre-0.4 wrapper that old tutorials still use; today every tensor is one."""
from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        from ..tensor import Tensor
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False) -> Tensor

    A new leaf tensor sharing ``data``'s memory, as PyTorch's deprecated ``Variable`` returns;
    every tensor counts as an instance of ``Variable``."""

    def __new__(cls, data, requires_grad: bool = False, volatile: bool = False):
        from ..tensor import Tensor
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
