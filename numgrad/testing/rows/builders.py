"""Shorthands for the table's most common rows: public elementwise ops with generic samples."""
from functools import partial

import numgrad

from ..dtypes import ALL_DTYPES
from ..opinfo import OpInfo
from ..references import _float_out
from ..samplers import sample_binary, sample_unary

# Composite ops round their float16 intermediates, hence a looser bound for them.
_F16_COMPOSITE = {"float16": (1e-2, 1e-2)}
_TENSORS_ONLY = {"scalar_rhs": False}   # PyTorch's function takes no Python scalar here


def _unary(name, ref, *, dtypes=ALL_DTYPES, domain=(None, None), grad=True, **kw):
    return OpInfo(name, getattr(numgrad, name), ref, partial(sample_unary, domain=domain), dtypes,
                  domain=domain, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad,
                  **kw)


def _binary(name, ref, *, dtypes=ALL_DTYPES, domains=((None, None), (None, None)), grad=True,
            sample_kw=None, **kw):
    return OpInfo(name, getattr(numgrad, name), ref,
                  partial(sample_binary, domains=domains, **(sample_kw or {})), dtypes,
                  supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad, **kw)


def _unary_float(name, np_fn, domain=(None, None), **kw):
    return _unary(name, _float_out(np_fn), domain=domain, **kw)
