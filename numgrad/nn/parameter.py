"""Parameter: a tensor that a Module registers as learnable when assigned as an attribute."""
from __future__ import annotations

from ..tensor import Tensor, make_requires_grad

__all__ = ["Parameter"]


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True)

    A tensor that shares ``data``'s memory and is listed by :meth:`Module.parameters` when
    assigned to a module attribute. Operations on it return plain tensors."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..creation import empty
            data = empty(0)
        p = cls._make(data._storage, data._shape, data._strides, data._offset, data.dtype)
        if requires_grad:
            make_requires_grad(p)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.detach().clone(), self._requires_grad)
        if self.grad is not None:
            out.grad = self.grad.clone()
        memo[id(self)] = out
        return out

