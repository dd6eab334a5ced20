"""The table's rows for matrix products and ``numgrad.linalg``."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, INT_DTYPES
from ..opinfo import OpInfo
from ..samplers import _sample_pairs, _sample_square


_MATMUL_CASES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2))]
_PRODUCT_DTYPES = INT_DTYPES + FLOAT_DTYPES
_PRODUCT_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}


def _product(name, ref, cases, dtypes=_PRODUCT_DTYPES, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, partial(_sample_pairs, cases=cases), dtypes,
                  inplace=None, tolerances=_PRODUCT_TOL, kind="linalg", **kw)


def _linalg(name, ref, sample, **kw):
    return OpInfo(f"linalg.{name}", getattr(numgrad.linalg, name), ref, sample, ("float32", "float64"),
                  method=None, inplace=None, torch_name=None, tolerances={"float32": (1e-4, 1e-5)},
                  kind="linalg", **kw)


ROWS = [
    _product("matmul", np.matmul, _MATMUL_CASES),
    _product("mm", np.matmul, [((2, 3), (3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3))]),
    _product("bmm", np.matmul, [((2, 2, 3), (2, 3, 4)), ((0, 2, 3), (0, 3, 1))]),
    _product("mv", np.matmul, [((2, 3), (3,)), ((0, 3), (3,))]),
    _product("dot", np.dot, [((3,), (3,)), ((0,), (0,))]),
    _product("kron", np.kron, [((2, 3), (2, 2)), ((3,), (2, 2))], dtypes=("bool",) + _PRODUCT_DTYPES),
    _linalg("inv", np.linalg.inv, _sample_square, invertible_inputs=True),
    _linalg("det", np.linalg.det, _sample_square),
    _linalg("solve", np.linalg.solve, partial(_sample_square, rhs=2), invertible_inputs=True),
]
