"""The table's rows for matrix products and ``numgrad.linalg``."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, INT_DTYPES
from ..opinfo import OpInfo, SampleInput
from ..samplers import _arg, _sample_pairs, _sample_square


_MATMUL_CASES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
                 ((2, 1, 2, 3), (3, 3, 2)), ((0, 3), (3, 2))]
_PRODUCT_DTYPES = INT_DTYPES + FLOAT_DTYPES
_PRODUCT_TOL = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5)}


def _product(name, ref, cases, dtypes=_PRODUCT_DTYPES, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, partial(_sample_pairs, cases=cases), dtypes,
                  inplace=None, tolerances=_PRODUCT_TOL, kind="linalg", **kw)


def _np_scaled_sum(product):
    """The reference of an add* product: ``beta * input + alpha * product(a, b)``."""
    def ref(input, a, b, beta=1, alpha=1):
        return beta * input + alpha * product(a, b)
    return ref


def _sample_scaled_products(dtype, rng, *, cases):
    """``(input, a, b)`` of each case's shapes, with and without beta/alpha: integers for
    integral dtypes (PyTorch refuses a float alpha there)."""
    scales = ({}, {"beta": 0.5, "alpha": -1.5} if dtype in FLOAT_DTYPES else
              {"beta": False} if dtype == "bool" else {"beta": 2, "alpha": 3}, {"beta": 0})
    for (si, sa, sb), kw in zip(cases, scales * len(cases)):
        args = tuple(_arg(s, dtype, rng, (-3, 3)) for s in (si, sa, sb))
        yield SampleInput(args, kw, broadcasts=len(si) < 2 + (len(sa) == 3 and len(sb) == 3))


def _scaled_product(name, product, cases, dtypes=_PRODUCT_DTYPES):
    return OpInfo(name, getattr(numgrad, name), _np_scaled_sum(product), partial(_sample_scaled_products, cases=cases),
                  dtypes, tolerances=_PRODUCT_TOL, kind="linalg")


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
    _scaled_product("addmm", np.matmul, [((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)), ((2, 1), (2, 0), (0, 1)),
                                          ((0, 2), (0, 3), (3, 2))]),
    _scaled_product("addmv", np.matmul, [((2,), (2, 3), (3,)), ((1,), (4, 2), (2,)), ((3,), (3, 0), (0,))]),
    _scaled_product("addr", np.outer, [((2, 3), (2,), (3,)), ((3,), (2,), (3,)), ((0, 2), (0,), (2,))],
                    ("bool",) + _PRODUCT_DTYPES),
    _scaled_product("addbmm", lambda a, b: np.matmul(a, b).sum(0),
                    [((2, 4), (3, 2, 3), (3, 3, 4)), ((4,), (2, 2, 3), (2, 3, 4)), ((2, 2), (0, 2, 3), (0, 3, 2))]),
    _scaled_product("baddbmm", np.matmul, [((2, 2, 4), (2, 2, 3), (2, 3, 4)), ((2, 4), (3, 2, 3), (3, 3, 4)),
                                           ((0, 1, 2), (0, 1, 3), (0, 3, 2))]),
    _linalg("inv", np.linalg.inv, _sample_square, invertible_inputs=True),
    _linalg("det", np.linalg.det, _sample_square),
    _linalg("solve", np.linalg.solve, partial(_sample_square, rhs=2), invertible_inputs=True),
]
