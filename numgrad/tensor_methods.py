"""Binds every Tensor method that lives above the tensor layer: the functional API as methods,
in-place variants and Python operators, and the surface that reaches printing, indexing,
storages, DLPack and autograd.

Every method is a forward to one function, so each op keeps a single home in ``numgrad.ops``.
"""
from __future__ import annotations

from types import FunctionType

from .memo import Memo
from . import dtypes, shapes
from .devices import CPU
from .tensor import Tensor
from .ops import functional_elementwise as F
from .ops import reductions as R, selection as SEL, scans as SC
from .ops import statistics as S
from .ops import views as V, slice_views as SV
from .ops import copying as C
from .ops import splitting as SP
from .ops.numpy_names import accepts_numpy_names
from .ops.registry import backend, run_elementwise, run_in_place
from .dtypes import torch_type_name
from .ops.records import OPS
from .autograd import tape as _tape
from .autograd.saving import saved_args as _saved_args
from .ops.inplace_forms import has_out_parameter as _takes_out, inplace_apply
from .autograd.grad_mode import _state as _grad_state
from . import legacy as _legacy, printing as _printing, typed_storage as _typed_storage
from .ops import indexing as _indexing
from .autograd import engine as _engine, nodes as _nodes
from .autograd.inplace import refresh_view as _refresh_view
from .utils import dlpack as _dlpack
from .ops.nn import softmax as _softmax, log_softmax as _log_softmax
from . import random as _random
from .ops import linalg as _linalg
from .ops import (advanced as _advanced, gather as _gather, movement as _movement,
                  scatter_reduce as _scatter_reduce, sorting as _sorting)
from .ops import comparisons as _comparisons
from .ops import matrix_functions as _mf
from .ops import composites as _composites, covariance as _covariance, quantiles as _quantiles
from .ops.grids import rot90 as _rot90
from .ops import (aliases as _aliases, conjugation as _conjugation, histograms as _histograms,
                  matrix_extras as _matrix_extras, number_theory as _number_theory, scatter_views as _scatter_views)
from .creation import empty_strided as _empty_strided, tensor as _tensor

# name -> function; becomes Tensor.name(self, ...) == function(self, ...)
METHODS = {}
for _mod in (F, R, SEL, SC, S, V, SV, C, SP):
    for _name in _mod.__all__:
        METHODS[_name] = getattr(_mod, _name)
for _skip in ("copy",):
    METHODS.pop(_skip, None)
METHODS["softmax"], METHODS["log_softmax"] = _softmax, _log_softmax
METHODS["unfold"] = SV.unfold  # a method only: numgrad.nn.functional.unfold is im2col


def _where(self, condition, y):
    """Tensor.where(condition, y) -> Tensor: ``numgrad.where(condition, self, y)``."""
    return F.where(condition, self, y)


METHODS["where"] = _where


def _polygamma(self, n, *, out=None):
    """Tensor.polygamma(n) -> Tensor: ``numgrad.polygamma(n, self)``."""
    return F.polygamma(n, self, out=out)


def _float_power_inplace(self, exponent):
    """In-place version of :meth:`Tensor.float_power`; ``self`` must be float64."""
    if self.dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {torch_type_name(self.dtype)} but the "
                           f"operation's result requires dtype Double")
    return F.float_power(self, exponent)


METHODS["polygamma"] = _polygamma

# elementwise ops with an in-place form ``x.name_(...)``
INPLACE = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "neg",
           "abs", "sign", "sqrt", "rsqrt", "square", "reciprocal", "exp", "exp2", "expm1", "log", "log1p",
           "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
           "acosh", "atanh", "sigmoid", "relu", "erf", "erfc", "ceil", "floor", "round", "trunc", "frac",
           "clamp", "clip", "clamp_min", "clamp_max", "lerp", "addcmul", "addcdiv", "eq", "ne", "lt", "le",
           "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "maximum", "minimum", "atan2", "subtract",
           "multiply", "divide", "negative", "absolute", "arcsin", "arccos", "arctan", "sgn", "nan_to_num",
           "hypot", "xlogy", "logit", "erfinv", "lgamma", "digamma", "i0", "sinc", "heaviside", "copysign",
           "deg2rad", "rad2deg", "fix", "nextafter", "ldexp", "polygamma"]


def _method(fn):
    fn = accepts_numpy_names(fn)

    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _inplace(fn, name):
    takes_out = _takes_out(fn)

    def method(self, *args, **kwargs):
        shapes.check_no_internal_overlap(self._shape, self._strides)
        return inplace_apply(self, fn, args, kwargs, takes_out)
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In-place version of :meth:`Tensor.{name}`."
    return method


def _direct_inplace(fn, name):
    """``add_``/``sub_``/``mul_``/``div_``: one operand, no options and nothing to record go
    straight to the dispatcher, which checks broadcasting and casting as ``out=`` would."""
    op = OPS[name]
    general = _inplace(fn, name)
    # Subtraction refuses any bool operand: its checks live in the general path.
    checks_bool_operand = name == "sub"

    def method(self, *args, **kwargs):
        if kwargs or len(args) != 1 or self.dtype is dtypes.bool or _tape._dual_levels[0] or \
                _grad_state.enabled and _tape.should_record((self, args[0])) or checks_bool_operand and (
                    args[0].__class__ is bool or getattr(args[0], "dtype", None) is dtypes.bool):
            return general(self, *args, **kwargs)
        return run_elementwise(op, (self, args[0]), self, True)
    method.__name__ = method.__qualname__ = general.__name__
    method.__doc__ = general.__doc__
    return method


def _result_inplace(fn, name):
    """``exp_``/``tanh_``/``relu_`` & co., unary ops whose rules read only the result: one kernel
    writes over self and, when autograd sees the write, one node takes over self's history, as
    ``nn.functional.relu(x, inplace=True)`` does."""
    op = fn.elementwise_op
    general = _inplace(fn, name)

    def method(self, *args, **kwargs):
        if args or kwargs:
            return general(self, *args, **kwargs)
        return run_in_place(op, self, (), op)
    method.__name__ = method.__qualname__ = general.__name__
    method.__doc__ = general.__doc__
    return method


def _reads_result_only(name) -> bool:
    op = getattr(METHODS[name], "elementwise_op", None)
    return op is not None and op.differentiable and \
        all(uses is None or not uses[1] for uses in _saved_args(op))


for _name, _fn in METHODS.items():
    # A plain function is already a method; only other callables need the wrapper.
    setattr(Tensor, _name, accepts_numpy_names(_fn) if isinstance(_fn, FunctionType) else _method(_fn))
for _name in INPLACE:
    setattr(Tensor, _name + "_", (_direct_inplace if _name in ("add", "sub", "mul", "div") else
                                  _result_inplace if _reads_result_only(_name) else _inplace)(METHODS[_name], _name))
# float_power_ checks self before computing; the result is then written in place.
Tensor.float_power_ = _inplace(_float_power_inplace, "float_power")

# The unary in-place ops PyTorch also spells as functions: ``torch.sin_(x)`` is ``x.sin_()``.
__all__ = [_name + "_" for _name in (
    "abs", "neg", "negative", "sqrt", "rsqrt", "square", "reciprocal", "exp", "exp2", "expm1", "log",
    "log1p", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "arcsin", "arccos", "arctan", "sigmoid", "relu", "erf", "erfc", "ceil", "floor",
    "round", "trunc", "frac", "clamp", "clip", "clamp_min", "clamp_max", "nan_to_num", "xlogy", "logit", "i0",
    "sinc", "deg2rad", "rad2deg", "fix", "ldexp")]
globals().update({_name: getattr(Tensor, _name) for _name in __all__})

for _name in _random.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_random, _name)))

for _name in _linalg.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_linalg, _name)))
for _name in _linalg.INPLACE_METHODS:
    # Without ``out`` in its signature the product is computed first, then written into self.
    setattr(Tensor, _name + "_", _inplace(lambda self, *a, _f=getattr(_linalg, _name), **k: _f(self, *a, **k),
                                          _name))
for _mod in (_advanced, _gather, _scatter_reduce, _movement, _sorting):
    for _name in _mod.__all__ + list(_mod.TENSOR_METHODS):
        setattr(Tensor, _name, _method(getattr(_mod, _name)))
Tensor.flip = _method(_movement._flip_method)  # dims also one by one: x.flip(0, 1)
for _name in _comparisons.__all__:
    setattr(Tensor, _name, _method(getattr(_comparisons, _name)))
for _name in _mf.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_mf, _name)))
for _mod in (_composites, _covariance, _quantiles):
    for _name in _mod.TENSOR_METHODS:
        setattr(Tensor, _name, _method(getattr(_mod, _name)))
Tensor.renorm_ = _inplace(_composites.renorm, "renorm")
Tensor.rot90 = _method(_rot90)
# Other operand types get NotImplemented, so that Python raises its TypeError as for PyTorch.
Tensor.__matmul__ = lambda self, other: _linalg.matmul(self, other) if isinstance(other, Tensor) else NotImplemented
Tensor.__rmatmul__ = lambda self, other: _linalg.matmul(other, self) if isinstance(other, Tensor) else NotImplemented
Tensor.__imatmul__ = lambda self, other: inplace_apply(self, lambda x, y: _linalg.matmul(x, y), (other,), {})


for _name in _number_theory.__all__:
    setattr(Tensor, _name, _method(getattr(_number_theory, _name)))
for _name in ("positive", "conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "adjoint",
              "angle"):
    setattr(Tensor, _name, _method(getattr(_conjugation, _name)))
for _name in ("slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter", "split_with_sizes",
              "narrow_copy"):
    setattr(Tensor, _name, _method(getattr(_scatter_views, _name)))
for _name in ("matrix_exp", "cholesky_solve", "cholesky_inverse", "mvlgamma"):
    setattr(Tensor, _name, _method(getattr(_matrix_extras, _name)))
Tensor.mvlgamma_ = _inplace(_matrix_extras.mvlgamma, "mvlgamma")
for _name in ("ravel", "resize_as_", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "nonzero_static"):
    setattr(Tensor, _name, _method(getattr(_aliases, _name)))
Tensor.histogram = _method(_histograms.histogram)
for _name in ("cumsum", "cumprod"):
    setattr(Tensor, _name + "_", _inplace(lambda self, *a, _f=getattr(SC, _name), **k: _f(self, *a, **k), _name))
# In-place forms of the ops PyTorch also spells another way (greater_ is gt_, arctan2_ is atan2_).
for _alias, _name in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
                      ("not_equal", "ne"), ("arctan2", "atan2"), ("arccosh", "acosh"), ("arcsinh", "asinh"),
                      ("arctanh", "atanh")):
    setattr(Tensor, _alias + "_", getattr(Tensor, _name + "_"))
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    setattr(Tensor, _name + "_", _inplace(getattr(F, _name), _name))
Tensor.real = property(_conjugation.real, doc="The real part: the tensor itself for real tensors.")
Tensor.imag = property(_conjugation.imag, doc="The imaginary part, which real tensors lack.")
Tensor.mH = property(_conjugation.adjoint, doc="The conjugate transpose of the last two dims.")
Tensor.H = property(lambda self: _matrix_transpose(self), doc="The conjugate transpose of a matrix.")
Tensor.output_nr = property(lambda self: self._output_nr, doc="The index of this tensor among its grad_fn's outputs.")


def _matrix_transpose(self):
    if self.ndim > 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.")
    return self.t()


def _is_inference(self) -> bool:
    """Tensor.is_inference() -> bool: numgrad's tensors made in inference mode are ordinary tensors, so False."""
    return False


def _get_device(self) -> int:
    """Tensor.get_device() -> int: the accelerator index holding the tensor, -1 for the CPU."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def _share_memory_(self):
    """Tensor.share_memory_() -> Tensor: self; CPU tensors are handed to worker processes by the DataLoader."""
    return self


def _sum_to_size(self, *size):
    """Tensor.sum_to_size(*size) -> Tensor: sums ``self`` down to ``size``, which must broadcast to self's shape."""
    size = shapes.parse_size(size, "sum_to_size")
    lead = self.ndim - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self.shape)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and self.shape[lead + i] != 1)
    return self.sum(dims, keepdim=True).reshape(size) if dims else self


def _new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                       pin_memory=False):
    """Tensor.new_empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False) -> Tensor"""
    return _empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def _fill_diagonal_(self, fill_value, wrap: bool = False):
    """Tensor.fill_diagonal_(fill_value, wrap=False) -> Tensor

    Fills the main diagonal of a matrix (or of an n-D tensor with equal dims) in place; with
    ``wrap``, the diagonal of a tall matrix restarts N + 1 rows below, as NumPy's does."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    n = self.shape[0]
    if self.ndim > 2 and any(s != n for s in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    if self.ndim == 2:
        rows, cols = self.shape
        count = min(rows, cols)
        if wrap and rows > cols:
            # Flat positions k * (cols + 1), as in row-major memory.
            flat = [k * (cols + 1) for k in range(-(-rows * cols // (cols + 1)))]
            where = ([p // cols for p in flat], [p % cols for p in flat])
        else:
            where = (list(range(count)), list(range(count)))
    else:
        where = (list(range(n)),) * self.ndim
    index = tuple(_tensor(w, dtype=dtypes.int64, device=self.device) for w in where)
    return self.index_put_(index, _tensor(fill_value, dtype=self.dtype, device=self.device))


def _apply_(self, callable):
    """Tensor.apply_(callable) -> Tensor: replaces each element by ``callable(element)``, in place (CPU only)."""
    _check_cpu(self, "apply_")
    flat = [callable(v) for v in self.reshape(-1).tolist()]
    self.copy_(_tensor(flat, dtype=self.dtype).reshape(self.shape))
    return self


def _map_(self, tensor, callable):
    """Tensor.map_(tensor, callable) -> Tensor: ``self[i] = callable(self[i], tensor[i])`` in place, ``tensor``
    broadcast to self's shape (CPU only)."""
    _check_cpu(self, "map_")
    other = tensor.expand(self.shape).reshape(-1).tolist()
    flat = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    self.copy_(_tensor(flat, dtype=self.dtype).reshape(self.shape))
    return self


def _new(self, *args, **kwargs):
    """Tensor.new(*args) -> Tensor: the legacy constructor in self's dtype and device: an empty
    tensor, one of the given sizes (uninitialised), self's data of another tensor, or a copy of data."""
    if kwargs.get("device") is not None and str(kwargs["device"]) != str(self.device):
        raise RuntimeError(f"Expected device {self.device} but got {kwargs['device']}")
    if not args:
        return self.new_empty(0)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not self.dtype:
            raise TypeError(f"expected {self.type()} (got {args[0].type()})")
        return args[0]
    if all(isinstance(a, int) for a in args) or len(args) == 1 and isinstance(args[0], shapes.Size):
        return self.new_empty(*args)
    if len(args) == 1:
        return self.new_tensor(args[0])
    raise TypeError("new() received an invalid combination of arguments")


def _map2_(self, x, y, callable):
    """Tensor.map2_(x, y, callable) -> Tensor: ``self[i] = callable(self[i], x[i], y[i])`` in place, ``x`` and
    ``y`` broadcast to self's shape (CPU only)."""
    _check_cpu(self, "map2_")
    xs, ys = (t.expand(self.shape).reshape(-1).tolist() for t in (x, y))
    flat = [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)]
    self.copy_(_tensor(flat, dtype=self.dtype).reshape(self.shape))
    return self


def _dim_order(self, *, ambiguity_check=False):
    """Tensor.dim_order() -> tuple: the dims from outermost to innermost in memory (by decreasing stride)."""
    return tuple(sorted(range(self.ndim), key=lambda d: -self.stride(d)))


def _check_cpu(self, name):
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


Tensor.is_inference, Tensor.get_device, Tensor.share_memory_ = _is_inference, _get_device, _share_memory_
Tensor.sum_to_size, Tensor.new_empty_strided, Tensor.fill_diagonal_ = _sum_to_size, _new_empty_strided, _fill_diagonal_
Tensor.apply_, Tensor.map_, Tensor.map2_, Tensor.new, Tensor.dim_order = _apply_, _map_, _map2_, _new, _dim_order
# The functional forms of the in-place aliases bound above (``torch.arccosh_(x)``).
_ALIASED_INPLACE = ("arccosh_", "arcsinh_", "arctanh_")
__all__ += list(_ALIASED_INPLACE)
globals().update({_name: getattr(Tensor, _name) for _name in _ALIASED_INPLACE})


# Python operators -----------------------------------------------------------------------------
def _rev(fn):
    return lambda self, other: fn(other, self)


# The hottest operators go straight to the dispatcher: what ``F.add`` & co. add around it (alpha,
# rounding modes, the bool subtraction check) cannot apply to them.
_ADD, _SUB, _MUL, _DIV, _NEG = OPS["add"], OPS["sub"], OPS["mul"], OPS["div"], OPS["neg"]
Tensor.__add__ = Tensor.__radd__ = lambda self, other: run_elementwise(_ADD, (self, other))
_BOOL = dtypes.bool


def _sub(self, other):
    # Bool operands take the checked path: PyTorch refuses subtracting them.
    if self.dtype is _BOOL or other.__class__ is bool or getattr(other, "dtype", None) is _BOOL:
        return F.sub(self, other)
    return run_elementwise(_SUB, (self, other))


def _rsub(self, other):
    if self.dtype is _BOOL or other.__class__ is bool:
        return F.sub(other, self)
    return run_elementwise(_SUB, (other, self))


Tensor.__sub__ = _sub
Tensor.__rsub__ = _rsub
Tensor.__mul__ = Tensor.__rmul__ = lambda self, other: run_elementwise(_MUL, (self, other))
Tensor.__truediv__ = lambda self, other: run_elementwise(_DIV, (self, other))
Tensor.__rtruediv__ = lambda self, other: run_elementwise(_DIV, (other, self))
Tensor.__floordiv__ = lambda self, other: F.floor_divide(self, other)
Tensor.__rfloordiv__ = lambda self, other: F.floor_divide(other, self)
Tensor.__mod__ = lambda self, other: F.remainder(self, other)
Tensor.__rmod__ = lambda self, other: F.remainder(other, self)
Tensor.__pow__ = lambda self, other: F.pow(self, other)
Tensor.__rpow__ = lambda self, other: F.pow(other, self)
Tensor.__neg__ = lambda self: run_elementwise(_NEG, (self,))
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = lambda self: F.abs(self)
def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return F.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__and__ = Tensor.__rand__ = lambda self, other: F.bitwise_and(self, other)
Tensor.__or__ = Tensor.__ror__ = lambda self, other: F.bitwise_or(self, other)
Tensor.__xor__ = Tensor.__rxor__ = lambda self, other: F.bitwise_xor(self, other)
Tensor.__lshift__ = lambda self, other: F.bitwise_left_shift(self, other)
Tensor.__rshift__ = lambda self, other: F.bitwise_right_shift(self, other)
Tensor.__eq__ = lambda self, other: F.eq(self, other) if _comparable(other) else NotImplemented
Tensor.__ne__ = lambda self, other: F.ne(self, other) if _comparable(other) else NotImplemented
Tensor.__lt__ = lambda self, other: F.lt(self, other)
Tensor.__le__ = lambda self, other: F.le(self, other)
Tensor.__gt__ = lambda self, other: F.gt(self, other)
Tensor.__ge__ = lambda self, other: F.ge(self, other)
Tensor.__hash__ = lambda self: id(self)


def _comparable(other) -> bool:
    return isinstance(other, (Tensor, bool, int, float)) or hasattr(other, "dtype") and not hasattr(other, "shape")


def _iop(name):
    def op(self, other):
        return getattr(self, name + "_")(other)
    return op


Tensor.__iadd__ = _iop("add")
Tensor.__isub__ = _iop("sub")
Tensor.__imul__ = _iop("mul")
Tensor.__itruediv__ = _iop("div")
Tensor.__ifloordiv__ = _iop("floor_divide")
Tensor.__imod__ = _iop("remainder")
Tensor.__ipow__ = _iop("pow")
Tensor.__iand__ = _iop("bitwise_and")
Tensor.__ior__ = _iop("bitwise_or")
Tensor.__ixor__ = _iop("bitwise_xor")


# conversions and copies ------------------------------------------------------------------------
def _copy_into(dst, src):
    """Raw write of src (broadcast, any dtype) into dst's memory; no autograd."""
    if not hasattr(src, "_storage"):
        backend(dst.device).elementwise(OPS["copy"], dst.dtype, dst, (src,), dst._shape)
    else:
        shapes.broadcast_shapes(dst._shape, src._shape)
        if src.device != dst.device:
            src = src.to(dst.device)
        if src._storage is dst._storage and _overlaps(src, dst):
            src = src.clone()
        backend(dst.device).elementwise(OPS["copy"], src.dtype, dst, (src,), dst._shape)
    dst._bump_version()


def _overlaps(a, b) -> bool:
    if a._offset == b._offset and a._strides == b._strides and a._shape == b._shape:
        return False
    return True


Tensor._write = _copy_into


# Fill launchers of CPU tensors by dtype and geometry (factories fill fresh tensors of few shapes).
_fills = Memo(1024)


def _fill_raw(self, value):
    if self._storage.device is CPU and value.__class__ in (bool, int, float):
        key = (self.dtype, self._shape, self._strides)
        fill = _fills.get(key)
        if fill is None:
            fill = _fills[key] = backend(CPU).fill_plan(OPS["copy"], self.dtype, self._shape, self._strides)
        if fill:
            fill(self._storage.data, self._offset, (value,))
            return
    backend(self.device).elementwise(OPS["copy"], self.dtype, self, (value,), self._shape)


Tensor._fill_raw = _fill_raw
Tensor._fill_affine = lambda self, start, step: backend(self.device).fill_affine(self, start, step)
Tensor._fill_linspace = lambda self, s, e, st: backend(self.device).fill_linspace(self, s, e, st)
Tensor._fill_logspace = lambda self, s, e, st, b: backend(self.device).fill_logspace(self, s, e, st, b)


# ------------------------------------------------------------------ the surface above the ops
def _construct(cls, *args, **kwargs):
    return _legacy.construct(dtypes.get_default_dtype(), "cpu", args, **kwargs)


def _storage(self):
    """The storage this tensor views, seen as elements of its dtype (deprecated, as in PyTorch)."""
    _typed_storage.warn_typed_storage_removal()
    return _typed_storage.TypedStorage._wrap(self._storage, self.dtype)


def _grad_fn(self):
    """The node of the op that made this tensor, None for a leaf. A view whose base was
    since written in place answers with its new history, as an as_strided view of the base."""
    if self._base is not None:
        _refresh_view(self)
    return self._grad_fn


def _refuse_grad_fn(self, value):
    raise AttributeError("attribute 'grad_fn' of 'numgrad.Tensor' objects is not writable")


def _repr(self, *, tensor_contents=None):
    return _printing.tensor_repr(self)


def _backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor w.r.t. graph leaves, accumulating into ``.grad``."""
    _engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _retain_grad(self):
    """Makes this non-leaf tensor keep its ``.grad`` after backward."""
    _nodes.retain_grad(self)


def _register_hook(self, hook):
    """Registers ``hook(grad)`` to run when this tensor's gradient is computed; it may return
    a replacement. Returns a handle whose ``remove()`` unregisters it."""
    return _nodes.register_hook(self, hook)


def _register_post_accumulate_grad_hook(self, hook):
    """Registers ``hook(tensor)`` to run after a gradient is accumulated into this leaf."""
    return _nodes.register_post_accumulate_grad_hook(self, hook)


def _dlpack_capsule(self, stream=None, *, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule sharing this tensor's memory (see ``numgrad.utils.dlpack``)."""
    return _dlpack.export(self, stream, max_version, dl_device, copy)


Tensor.__new__ = staticmethod(_construct)
Tensor.__repr__ = Tensor.__str__ = _repr
Tensor.__getitem__, Tensor.__setitem__ = _indexing.getitem, _indexing.setitem
Tensor.grad_fn = property(_grad_fn, _refuse_grad_fn, doc=_grad_fn.__doc__)
Tensor.storage, Tensor.set_ = _storage, _legacy.set_
Tensor.__dlpack__, Tensor.__dlpack_device__ = _dlpack_capsule, _dlpack.dlpack_device
Tensor.backward, Tensor.retain_grad = _backward, _retain_grad
Tensor.register_hook, Tensor.register_post_accumulate_grad_hook = _register_hook, _register_post_accumulate_grad_hook
