"""Parameter: a tensor that a Module registers as learnable when assigned as an attribute."""
from __future__ import annotations

from ..tensor import Tensor, make_requires_grad
from ..creation import empty

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer"]


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True)

    A tensor that shares ``data``'s memory and is listed by :meth:`Module.parameters` when
    assigned to a module attribute. Operations on it return plain tensors."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
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



class Buffer(Tensor):
    """Buffer(data, *, persistent=True)

    Marks ``data`` as module state that is not learnable: assigned to a module attribute, it is
    registered with :meth:`Module.register_buffer` (``persistent`` says whether
    :meth:`Module.state_dict` includes it) and stored as a plain tensor sharing ``data``'s memory."""

    def __new__(cls, data, *, persistent: bool = True):
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer expects a Tensor, got {type(data).__name__}")
        b = cls._make(data._storage, data._shape, data._strides, data._offset, data.dtype)
        b.persistent = persistent
        return b

    def __init__(self, data, *, persistent: bool = True):
        pass


class _Uninitialized:
    """A placeholder whose shape is learnt later: :meth:`materialize` gives it storage of the
    shape and turns it into ``cls_to_become``."""

    cls_to_become = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Allocates uninitialised memory of ``shape`` and becomes a ``cls_to_become``."""
        data = empty(tuple(shape), device=device if device is not None else self.device,
                     dtype=dtype if dtype is not None else self.dtype)
        self._storage, self._shape, self._strides, self._offset = \
            data._storage, data._shape, data._strides, data._offset
        self.dtype = data.dtype
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error "
                           "usually happens in `load_state_dict` when trying to load an uninitialized "
                           "parameter into an initialized one. Call `forward` to initialize the "
                           "parameters before accessing their attributes.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(_Uninitialized, Parameter):
    """UninitializedParameter(requires_grad=True, device=None, dtype=None)

    A parameter of a lazy module before its first forward; it becomes a :class:`Parameter`
    once the module has seen its input's shape."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(_Uninitialized, Tensor):
    """UninitializedBuffer(requires_grad=False, device=None, dtype=None)

    A buffer of a lazy module before its first forward; it becomes a plain tensor once the
    module has seen its input's shape."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        data = empty(0, device=device, dtype=dtype)
        return cls._make(data._storage, data._shape, data._strides, data._offset, data.dtype)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass
