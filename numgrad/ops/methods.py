"""Binds the functional API to Tensor methods, in-place variants and Python operators.

Every method is a forward to one function, so each op keeps a single home in ``numgrad.ops``.
"""
from __future__ import annotations

from types import FunctionType

from ..memo import Memo
from .. import dtypes, shapes
from ..devices import CPU
from ..tensor import Tensor
from . import functional_elementwise as F
from . import reductions as R, selection as SEL, scans as SC
from . import statistics as S
from . import views as V, slice_views as SV
from . import copying as C
from . import splitting as SP
from .numpy_names import accepts_numpy_names
from .registry import OPS, backend, can_cast, run_elementwise, run_in_place, torch_type_name
from ..autograd import tape as _tape
from ..autograd.inplace import check_inplace as _autograd_check_inplace
from ..autograd.saving import save_snapshot as _save_snapshot, saved_args as _saved_args
from ..autograd.grad_mode import _state as _grad_state

# name -> function; becomes Tensor.name(self, ...) == function(self, ...)
METHODS = {}
for _mod in (F, R, SEL, SC, S, V, SV, C, SP):
    for _name in _mod.__all__:
        METHODS[_name] = getattr(_mod, _name)
for _skip in ("copy",):
    METHODS.pop(_skip, None)
from .nn import softmax as _softmax, log_softmax as _log_softmax  # noqa: E402
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


def inplace_apply(self, fn, args, kwargs, takes_out=None):
    """Run ``fn(self, *args)`` writing its result into ``self``; bumps the version counter."""
    if _grad_state.enabled or _tape._dual_levels[0]:
        inputs = (self,) + tuple(args)
        if _tape.should_record(inputs) or _tape.has_tangents(inputs):
            _autograd_check_inplace(self, args)
            result = fn(self, *args, **kwargs)
            _check_inplace(self, result)
            _save_snapshot(result._grad_fn, self)
            self._write(result)
            _tape.rebase(self, result)
            return self
        _autograd_check_inplace(self)
    if takes_out is None:
        takes_out = _takes_out(fn)
    if takes_out:
        # ``out=`` would resize self; an in-place op must not change its shape.
        _check_inplace_broadcast(self, tuple(args) + tuple(kwargs.values()) if kwargs else args)
        return fn(self, *args, **kwargs, out=self)
    result = fn(self, *args, **kwargs)
    _check_inplace(self, result)
    self._write(result)
    return self


def _check_inplace_broadcast(self, args):
    others = [a._shape for a in args if isinstance(a, Tensor) and a._shape != self._shape]
    if others:
        shape = shapes.broadcast_shapes(self._shape, *others)
        if tuple(shape) != tuple(self.shape):
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast shape "
                f"[{', '.join(map(str, shape))}]")


def _takes_out(fn) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and "out" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


def _check_inplace(self, result):
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, result.shape))}]")
    # As ``out=`` is checked: a float result (and its history) must not land in an integer self.
    if not can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"result type {torch_type_name(result.dtype)} can't be cast to the desired output "
                           f"type {torch_type_name(self.dtype)}")


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

from .. import random as _random  # noqa: E402  (random imports Tensor; bound after it exists)
for _name in _random.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_random, _name)))

from . import linalg as _linalg  # noqa: E402
for _name in _linalg.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_linalg, _name)))
for _name in _linalg.INPLACE_METHODS:
    # Without ``out`` in its signature the product is computed first, then written into self.
    setattr(Tensor, _name + "_", _inplace(lambda self, *a, _f=getattr(_linalg, _name), **k: _f(self, *a, **k),
                                          _name))
from . import advanced as _advanced, gather as _gather, movement as _movement, sorting as _sorting  # noqa: E402
for _mod in (_advanced, _gather, _movement, _sorting):
    for _name in _mod.__all__ + list(_mod.TENSOR_METHODS):
        setattr(Tensor, _name, _method(getattr(_mod, _name)))
Tensor.flip = _method(_movement._flip_method)  # dims also one by one: x.flip(0, 1)
from . import comparisons as _comparisons  # noqa: E402
for _name in _comparisons.__all__:
    setattr(Tensor, _name, _method(getattr(_comparisons, _name)))
from . import matrix_functions as _mf  # noqa: E402
for _name in _mf.TENSOR_METHODS:
    setattr(Tensor, _name, _method(getattr(_mf, _name)))
from . import composites as _composites, covariance as _covariance, quantiles as _quantiles  # noqa: E402
for _mod in (_composites, _covariance, _quantiles):
    for _name in _mod.TENSOR_METHODS:
        setattr(Tensor, _name, _method(getattr(_mod, _name)))
Tensor.renorm_ = _inplace(_composites.renorm, "renorm")
from .grids import rot90 as _rot90  # noqa: E402
Tensor.rot90 = _method(_rot90)
Tensor.__matmul__ = lambda self, other: _linalg.matmul(self, other)
Tensor.__rmatmul__ = lambda self, other: _linalg.matmul(other, self)
Tensor.__imatmul__ = lambda self, other: inplace_apply(self, lambda x, y: _linalg.matmul(x, y), (other,), {})


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
