"""The dtype groups the op table's rows are declared over, by NumPy name."""
import numpy as np

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64")
FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
INTEGRAL_DTYPES = ("bool",) + INT_DTYPES
NO_BOOL = INT_DTYPES + FLOAT_DTYPES


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str):
        return dtype
    return getattr(dtype, "name", None) or np.dtype(dtype).name
