"""dtype objects and PyTorch's type promotion rules."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from . import names

__all__ = [
    "dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "get_default_dtype", "set_default_dtype", "result_type", "promote_types", "finfo", "iinfo",
]

_builtin_bool = bool
_py_int = int
_py_float = float


class dtype:
    """A tensor element type: a name, its NumPy equivalent and its category."""

    __slots__ = ("name", "numpy", "itemsize", "is_floating_point", "is_signed", "_category")

    def __init__(self, name: str, np_dtype, category: int):
        self.name = name
        self.numpy = np.dtype(np_dtype)
        self.itemsize = self.numpy.itemsize
        self.is_floating_point = category == 2
        self.is_signed = name != "uint8" and name != "bool"
        self._category = category  # 0 bool, 1 integer, 2 floating

    @property
    def is_complex(self) -> _builtin_bool:
        return False

    def to_real(self) -> "dtype":
        return self

    def __repr__(self) -> str:
        return f"{names.package()}.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


bool = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
# Brain floating point: float32's exponent with 8 significant bits. NumPy has no such type;
# ml_dtypes' gives its storage (16 bits) and its round-to-nearest-even conversions.
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)

# PyTorch's aliases
long, int, short, half, float, double = int64, int32, int16, float16, float32, float64

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
# The C++ names some of PyTorch's messages give dtypes.
C_NAMES = {bool: "bool", uint8: "unsigned char", int8: "signed char", int16: "short int", int32: "int",
           int64: "long int", float16: "c10::Half", bfloat16: "c10::BFloat16", float32: "float", float64: "double"}
# PyTorch's names of the scalar types, as its messages give them (Float, Long, ...).
TORCH_NAMES = {bool: "Bool", uint8: "Byte", int8: "Char", int16: "Short", int32: "Int", int64: "Long",
               float16: "Half", bfloat16: "BFloat16", float32: "Float", float64: "Double"}


def torch_type_name(d: "dtype") -> str:
    return TORCH_NAMES[d]


def legacy_type_name(d: "dtype", device_type: str = "cpu", kind: str = "Tensor") -> str:
    """PyTorch's legacy type name: 'torch.FloatTensor', 'torch.cuda.LongTensor', 'torch.DoubleStorage'."""
    return ("torch.cuda." if device_type == "cuda" else "torch.") + TORCH_NAMES[d] + kind


# The conversion methods tensors and storages share (``x.float()`` & co.), by name.
CONVERSIONS = {"double": float64, "float": float32, "half": float16, "bfloat16": bfloat16, "long": int64,
               "int": int32, "short": int16, "char": int8, "byte": uint8, "bool": bool}
INTEGRAL = (uint8, int8, int16, int32, int64)
FLOATING = (float16, bfloat16, float32, float64)
# The 16-bit floating types: storage formats, widened to float32 for arithmetic on the CPU.
NARROW_FLOATING = (float16, bfloat16)
NARROW_NUMPY = frozenset(d.numpy for d in NARROW_FLOATING)
# The largest finite number of each floating type (``finfo(d).max``, read once).
FLOAT_MAX = {d: _py_float(ml_dtypes.finfo(d.numpy).max) for d in FLOATING}
_BY_NUMPY = {d.numpy: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}

_default_dtype = float32


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy(np_dtype) -> dtype:
    """The numgrad dtype of a NumPy dtype; TypeError for types numgrad does not support."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool.") from None


def as_dtype(value) -> dtype:
    """Accept a numgrad dtype, a NumPy dtype or type, or the Python types bool/int/float."""
    if isinstance(value, dtype):
        return value
    if value is _builtin_bool:
        return bool
    if value is _py_int:
        return int64
    if value is _py_float:
        return float64
    return from_numpy(value)


def get_default_dtype() -> dtype:
    """Returns the current default floating point dtype (initially ``numgrad.float32``)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Sets the default floating point dtype (any floating dtype: float16, bfloat16, float32, float64)."""
    global _default_dtype
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` convert to without leaving their category."""
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    if a is bfloat16 or b is bfloat16:
        # Neither 16-bit float holds the other: together they need float32.
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    return _BY_NUMPY[np.promote_types(a.numpy, b.numpy)]


def overflow_error(d: dtype) -> RuntimeError:
    """PyTorch's error for a number that ``d`` cannot hold (it names integer types as C's
    fixed-width ones, floating types as C's)."""
    name = C_NAMES[d] if d.is_floating_point else "int" if d is int32 else d.name + "_t"
    return RuntimeError(f"value cannot be converted to type {name} without overflow")


def scalar_as(value, np_dtype):
    """Python number ``value`` as a NumPy scalar of ``np_dtype``, the operand of a kernel;
    integers wrap modulo 2**bits, as PyTorch converts a scalar for a narrow integer op, and a
    float must lie in the integer type's range (truncated towards zero)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind in "iu":
        if value.__class__ is _py_int:
            return np.int64(value).astype(np_dtype)
        if isinstance(value, (_py_float, np.floating)):
            info = np.iinfo(np_dtype)
            # The bounds compared as doubles, as PyTorch compares them: int64's top one rounds
            # up to 2**63, which then wraps.
            if not _py_float(info.min) <= value <= _py_float(info.max):
                raise overflow_error(_BY_NUMPY[np_dtype])
            return np_dtype.type((_py_int(value) - info.min) % (1 << info.bits) + info.min)
    elif value.__class__ is _py_float and not -65504.0 <= value <= 65504.0:
        # Beyond the type's range a float becomes inf, as in PyTorch, without NumPy's warning.
        with np.errstate(over="ignore"):
            return np_dtype.type(value)
    return np_dtype.type(value)


def check_fill_value(value, d: dtype) -> None:
    """Refuse, as PyTorch's fills do, a Python number that ``d`` cannot hold: beyond its range,
    NaN or infinity for an integer type, or a complex number with an imaginary part."""
    if d is bool or isinstance(value, (_builtin_bool, np.bool_)):
        return
    fits = True
    if isinstance(value, complex):
        fits, value = value.imag == 0, value.real
    if d.is_floating_point:
        try:
            v = _py_float(value)
        except OverflowError:
            v = np.inf
            fits = False
        fits = fits and not (np.isfinite(v) and abs(v) > FLOAT_MAX[d])
    else:
        info = np.iinfo(d.numpy)
        # uint8 also takes negatives down to -255, which wrap, as PyTorch allows.
        lo = -_py_int(info.max) if d is uint8 else _py_int(info.min)
        if isinstance(value, (_py_float, np.floating)):
            fits = fits and _builtin_bool(np.isfinite(value)) and _py_float(lo) <= value <= _py_float(info.max)
        else:
            fits = fits and lo <= value <= info.max
    if not fits:
        raise overflow_error(d)


def nan_or_min(d: dtype):
    """NaN, or for an integer type the value PyTorch's NaN becomes there: converted through a
    32-bit integer, whose NaN is its minimum, which narrower types truncate to 0."""
    if d.is_floating_point:
        return _py_float("nan")
    if d is bool:
        return True
    return _py_int(np.iinfo(d.numpy).min) if d.numpy.itemsize >= 4 else 0


def scalar_category(value) -> int:
    if isinstance(value, _builtin_bool) or isinstance(value, np.bool_):
        return 0
    if isinstance(value, (_py_int, np.integer)):
        return 1
    return 2


_SCALAR_DTYPE = {0: bool, 1: int64}


def result_type(*operands) -> dtype:
    """The dtype of an op's result as PyTorch computes it.

    Dimensioned tensors take part fully; 0-d tensors and then Python scalars only raise the
    result to a higher category (bool < integer < floating), never widen it within one.
    """
    dim_t = zero_t = scalar_cat = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            if x.ndim > 0:
                dim_t = d if dim_t is None else promote_types(dim_t, d)
            else:
                zero_t = d if zero_t is None else promote_types(zero_t, d)
        else:
            c = scalar_category(x)
            scalar_cat = c if scalar_cat is None else max(scalar_cat, c)
    result = dim_t
    if zero_t is not None and (result is None or zero_t._category > result._category):
        result = zero_t
    if scalar_cat is not None and (result is None or scalar_cat > result._category):
        result = _default_dtype if scalar_cat == 2 else _SCALAR_DTYPE[scalar_cat]
    return result


class finfo:
    """finfo(type=None): the numerical properties of a floating dtype (the default dtype when
    omitted): ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (its name)."""

    def __init__(self, type: dtype = None):
        d = _default_dtype if type is None else _info_dtype("finfo", type)
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to "
                            "handle 'torch.finfo'")
        info = ml_dtypes.finfo(d.numpy)
        self.bits = d.itemsize * 8
        self.eps = _py_float(info.eps)
        self.max = _py_float(info.max)
        self.min = _py_float(info.min)
        self.tiny = self.smallest_normal = _py_float(info.smallest_normal)
        self.resolution = 10.0 ** -_py_int(info.precision)
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    __hash__ = None

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """iinfo(type): the numerical properties of an integer dtype: ``bits``, ``max``, ``min`` and
    ``dtype`` (its name)."""

    def __init__(self, type: dtype):
        d = _info_dtype("iinfo", type)
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(d.numpy)
        self.bits = d.itemsize * 8
        self.max = _py_int(info.max)
        self.min = _py_int(info.min)
        self.dtype = d.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _info_dtype(fn: str, value) -> dtype:
    if not isinstance(value, dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(value).__name__}")
    return value
