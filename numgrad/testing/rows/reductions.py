"""The table's rows for the basic reductions (``sum``, ``mean``, ``prod``, ``amax``, ``amin``, ``any``, ``all``)."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES
from ..opinfo import OpInfo
from ..references import _np_amax, _np_amin, _np_reduce
from ..samplers import sample_reduction


def _reduction(name, ref, *, dtypes=ALL_DTYPES, grad=True, empty=True, tuple_dims=True, **kw):
    return OpInfo(name, getattr(numgrad, name), ref,
                  partial(sample_reduction, empty=empty, tuple_dims=tuple_dims), dtypes,
                  inplace=None, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  kind="reduction", tolerances={"float16": (5e-3, 5e-3), "float32": (1e-5, 1e-4)},
                  **kw)


ROWS = [
    _reduction("sum", _np_reduce(np.sum)),
    _reduction("mean", _np_reduce(np.mean), dtypes=FLOAT_DTYPES),
    _reduction("prod", _np_reduce(np.prod), supports_out=False, tuple_dims=False),
    _reduction("amax", _np_amax, empty=False, supports_out=False),
    _reduction("amin", _np_amin, empty=False, supports_out=False),
    _reduction("any", _np_reduce(np.any), grad=False, supports_out=False),
    _reduction("all", _np_reduce(np.all), grad=False, supports_out=False),
]
