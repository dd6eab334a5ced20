"""Tensor: a strided view (shape, strides, offset) over a Storage, with its metadata and Python's
number and sequence protocols.

Every method that runs an op, prints, indexes or reaches autograd is attached from above, in
``numgrad/tensor_methods.py``, so that each op has one home and this layer imports none of them.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes, shapes
from .devices import CPU
from .shapes import Size
from .layouts import strided
from .storage import Storage


LEAF_ONLY = "you can only change requires_grad flags of leaf variables."
DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't require differentiation "
               "use var_no_grad = var.detach().")
# The dim orders Tensor.T permutes to, by ndim.
_REVERSED = tuple(tuple(range(n - 1, -1, -1)) for n in range(8))
# Whether float() of a tensor that requires grad has warned yet in this process.
_float_of_grad_tensor_warned = [False]



def make_requires_grad(t):
    """Makes ``t``, a new tensor (a factory's result, a Parameter), a leaf that requires grad."""
    if not t.dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t._requires_grad = True
    return t

# The active ``numgrad.compile`` tracer, if any (``compiler/graph.py``): the dispatcher hands it
# each elementwise op, and reading a tensor's data into Python ends its trace.
tracing = [None]


def _check_numpy_dtype(dtype) -> None:
    # NumPy has no bfloat16: PyTorch refuses the conversion rather than hand out another type.
    if dtype is dtypes.bfloat16:
        raise TypeError("Got unsupported ScalarType BFloat16")


def _host_read(what: str):
    if tracing[0] is not None:
        tracing[0].host_read(what)


class Tensor:
    """An n-dimensional array with autograd support.

    ``numgrad.Tensor(2, 3)`` makes an uninitialised float tensor and ``numgrad.Tensor([1, 2])``
    copies data into a float tensor, as PyTorch's legacy constructor does; prefer
    :func:`numgrad.tensor` and the factories.
    """

    __module__ = "numgrad"  # the public name, so type(t) shows as numgrad.Tensor
    __slots__ = ("_storage", "_shape", "_strides", "_offset", "dtype", "_requires_grad", "grad",
                 "_grad_fn", "_output_nr", "_base", "_retains_grad", "_hooks", "_fw_tangent",
                 "_version_base", "__weakref__", "__dict__")
    # How a view was made when autograd forbids writing it in place (autograd.inplace).
    _view_meta = None

    def __init__(self, *args, **kwargs):
        pass

    # ------------------------------------------------------------------ construction (internal)
    @classmethod
    def _make(cls, storage: Storage, shape: tuple, strides: tuple, offset: int = 0,
              dtype=None) -> "Tensor":
        t = object.__new__(cls)
        t._storage = storage
        t._shape = shape
        t._strides = strides
        t._offset = offset
        t.dtype = dtype if dtype is not None else dtypes.from_numpy(storage.data.dtype)
        t._requires_grad = False
        t.grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._base = None
        t._retains_grad = False
        t._hooks = None
        t._fw_tangent = None
        return t

    @classmethod
    def _empty(cls, shape, dtype, device=CPU) -> "Tensor":
        shape = tuple(shape)
        return cls._make(Storage.empty(shapes.prod(shape), dtype, device), shape,
                         shapes.contiguous_strides(shape), 0, dtype)

    @classmethod
    def _empty_like_inputs(cls, shape, dtype, device, inputs) -> "Tensor":
        """A result tensor that follows its inputs' memory layout (see :func:`result_strides`)."""
        shape = tuple(shape)
        return cls._make(Storage.empty(shapes.prod(shape), dtype, device or CPU), shape,
                         result_strides(shape, inputs), 0, dtype)

    @classmethod
    def _from_numpy_array(cls, arr: np.ndarray, device=CPU) -> "Tensor":
        """A tensor sharing ``arr``'s memory (arr must be writable or a fresh copy)."""
        d = dtypes.from_numpy(arr.dtype)
        item = arr.itemsize
        if any(s % item for s in arr.strides) or any(s < 0 for s in arr.strides):
            arr = np.ascontiguousarray(arr)
        if arr.size == 0:
            return cls._empty(arr.shape, d, device)
        # Find the flat buffer that arr lives in: walk to the owning base array.
        base = arr
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base.flags.c_contiguous and base.dtype == arr.dtype:
            flat = base.reshape(-1)
            offset = (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
        else:
            lo = min(0, *(s * (n - 1) for s, n in zip(arr.strides, arr.shape))) if arr.ndim else 0
            if lo < 0:
                arr = np.ascontiguousarray(arr)
            extent = 1 + sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) // item if arr.ndim else 1
            flat = np.lib.stride_tricks.as_strided(arr, shape=(extent,), strides=(item,)) \
                if arr.ndim else arr.reshape(1)
            offset = 0
        strides = tuple(s // item for s in arr.strides)
        return cls._make(Storage(flat, CPU), tuple(arr.shape), strides, offset, d)

    def _np_view(self) -> np.ndarray:
        """A NumPy array aliasing this tensor's memory (CPU only)."""
        data = self._storage.data
        shape = self._shape
        if self._strides == shapes.contiguous_strides(shape) and 0 not in shape:
            # A slice reshaped: a third of the cost of NumPy's general constructor below.
            return data[self._offset:self._offset + shapes.prod(shape)].reshape(shape)
        item = data.itemsize
        # An empty view may start past its storage's end (a split's empty last piece), as in PyTorch.
        offset = self._offset * item if 0 not in self._shape else 0
        return np.ndarray(self._shape, dtype=data.dtype, buffer=data, offset=offset,
                          strides=tuple(s * item for s in self._strides))

    def _view(self, shape, strides, offset=None) -> "Tensor":
        t = Tensor._make(self._storage, tuple(shape), tuple(strides),
                         self._offset if offset is None else offset, self.dtype)
        return t

    def _bump_version(self):
        self._storage._counter[0] += 1

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim=None):
        """The shape as ``numgrad.Size``, or the size of one dim."""
        if dim is None:
            return Size(self._shape)
        return self._shape[shapes.normalize_dim(dim, len(self._shape))]

    def stride(self, dim=None):
        """Strides in elements, or the stride of one dim."""
        if dim is None:
            return tuple(self._strides)
        return self._strides[shapes.normalize_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        return self._offset

    def untyped_storage(self) -> Storage:
        """The storage this tensor views; views of one tensor share it."""
        return self._storage

    @property
    def layout(self):
        """Always ``numgrad.strided``: numgrad has no sparse tensors."""
        return strided

    def data_ptr(self) -> int:
        data = self._storage.data
        if self.device.type == "cpu":
            return data.__array_interface__["data"][0] + self._offset * data.itemsize
        from .backends import cuda
        return cuda.pointer(data) + self._offset * data.dtype.itemsize

    @property
    def __cuda_array_interface__(self) -> dict:
        """The CUDA array interface (version 3) of a CUDA tensor; absent on CPU tensors."""
        if self._storage.device.type != "cuda":
            raise AttributeError(
                f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} "
                "If CUDA data is required use tensor.cuda() to copy tensor to device memory.")
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. "
                               "If gradients aren't required, use var.detach() to get Variable that "
                               "doesn't require grad.")
        from .backends import cuda
        item = self.dtype.itemsize
        return {"shape": tuple(self._shape), "typestr": np.dtype(self.dtype.numpy).str,
                "data": (cuda.pointer(self._storage.data) + self._offset * item if self.numel() else 0, False),
                "strides": tuple(s * item for s in self._strides), "version": 3, "stream": None}

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    # Devices, layouts and tensor kinds numgrad does not have: always False, as PyTorch's
    # properties are for a dense CPU or CUDA tensor.
    is_xpu = is_mps = is_meta = is_xla = is_ipu = is_maia = is_mtia = is_vulkan = property(lambda self: False)
    is_quantized = is_sparse = is_sparse_csr = is_mkldnn = is_nested = property(lambda self: False)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        return shapes.prod(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self.dtype.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        return shapes.is_contiguous(self._shape, self._strides)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    def is_conj(self) -> bool:
        """False: numgrad has no lazily conjugated tensors."""
        return False

    def is_neg(self) -> bool:
        """False: numgrad has no lazily negated tensors."""
        return False

    def is_pinned(self, device=None) -> bool:
        """False: numgrad does not page-lock host memory."""
        return False

    def is_shared(self) -> bool:
        """False: numgrad's storages are never in shared memory."""
        return False

    def is_same_size(self, other) -> bool:
        return self._shape == other._shape

    def is_set_to(self, tensor) -> bool:
        """True if both tensors view the same elements of the same storage in the same way."""
        return (self._storage is tensor._storage and self._offset == tensor._offset
                and self._shape == tensor._shape and self._strides == tensor._strides)

    def is_nonzero(self) -> bool:
        if self.numel() == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        return bool(self._scalar_check("bool"))

    @property
    def _version(self) -> int:
        return self._storage.version

    @property
    def requires_grad(self) -> bool:
        """Whether autograd records the operations that read this tensor; a view requires grad
        while its base does."""
        if self._requires_grad:
            return True
        base = self._base
        return base is not None and base._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self.grad_fn is not None:
            raise RuntimeError(LEAF_ONLY if value else LEAF_ONLY + DETACH_HINT)
        if value and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = value

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory."""
        _host_read("numpy")
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first.")
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        _check_numpy_dtype(self.dtype)
        return self._np_view()

    def __array__(self, dtype=None, copy=None):
        _host_read("__array__")
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        _check_numpy_dtype(self.dtype)
        arr = self.cpu()._np_view()
        if dtype is not None:
            arr = arr.astype(dtype, copy=False)
        return arr

    def tolist(self):
        """The data as (nested) Python lists of Python numbers."""
        _host_read("tolist")
        return self.detach().cpu()._np_view().tolist()

    def item(self):
        """The value of a one-element tensor as a Python number."""
        _host_read("item")
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return self.detach().cpu()._np_view().reshape(()).item()

    def _scalar_check(self, what):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar") if what != "bool" \
                else RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return self.item()

    def __bool__(self):
        return bool(self._scalar_check("bool"))

    def __int__(self):
        return int(self._scalar_check("int"))

    def __float__(self):
        if self.requires_grad and not _float_of_grad_tensor_warned[0]:
            from .autograd.grad_mode import is_grad_enabled
            if is_grad_enabled():
                # As PyTorch's: once per process, and only where grad mode could record more.
                _float_of_grad_tensor_warned[0] = True
                warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                              "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._scalar_check("float"))

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        # As PyTorch: a 0-d tensor formats as its Python number, spec or not.
        if self.ndim == 0:
            return self.item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __reduce_ex__(self, protocol):
        raise TypeError("numgrad tensors are not picklable; use numgrad.save")

    def __deepcopy__(self, memo):
        out = self.detach().clone()
        out._requires_grad = self._requires_grad
        if self.grad is not None:
            out.grad = self.grad.clone()
        memo[id(self)] = out
        return out

    @property
    def data(self) -> "Tensor":
        """A view of the same memory outside the graph; assigning to it replaces the values."""
        return self._view(self._shape, self._strides)

    @data.setter
    def data(self, value: "Tensor"):
        self._storage = value._storage
        self._shape = value._shape
        self._strides = value._strides
        self._offset = value._offset
        self.dtype = value.dtype

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def T(self) -> "Tensor":
        nd = len(self._shape)
        return self.permute(_REVERSED[nd] if nd < len(_REVERSED) else tuple(range(nd - 1, -1, -1)))

    @property
    def mT(self) -> "Tensor":
        return self.transpose(-2, -1)


def result_strides(shape: tuple, inputs) -> tuple:
    """The strides of a new result: its inputs' layout when they all share one dense layout (so
    ``a.t() + b.t()`` stays transposed and runs as one flat loop), else contiguous."""
    layout = None
    for x in inputs:
        if x._shape != shape:
            continue
        if layout is None:
            layout = x._strides
        elif x._strides != layout:
            layout = None
            break
    if layout is not None and not shapes.is_contiguous(shape, layout) \
            and shapes.is_non_overlapping_and_dense(shape, layout):
        order = sorted(range(len(shape)), key=lambda d: -layout[d])
        strides = [0] * len(shape)
        acc = 1
        for d in reversed(order):
            strides[d] = acc
            acc *= max(shape[d], 1)
        return tuple(strides)
    return shapes.contiguous_strides(shape)
