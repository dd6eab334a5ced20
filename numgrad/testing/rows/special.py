"""The table's rows for special functions (gamma family, erfinv, Bessel, logit) and more elementwise math:
sign-bit and infinity predicates, copysign, heaviside, float_power, nextafter, ldexp."""
from functools import partial

import numpy as np

import numgrad

from ..dtypes import FLOAT_DTYPES, NO_BOOL
from ..opinfo import OpInfo
from ..references import (_float_out, _np_digamma, _np_erfinv, _np_float_power, _np_heaviside, _np_i0, _np_i1,
                          _np_lgamma, _np_logit, _np_polygamma, _np_signbit, _np_xlog1py)
from ..samplers import _sample_heaviside, _sample_polygamma, _sample_specials, sample_binary, sample_unary
from .builders import _TENSORS_ONLY, _binary, _unary, _unary_float


ROWS = [
    _unary_float("logit", _np_logit, domain=(0.05, 0.95)),
    OpInfo("logit", numgrad.logit, _np_logit, partial(sample_unary, domain=(-0.2, 1.2), kwargs={"eps": 0.1}),
           variant="eps", domain=(-0.2, 1.2)),
    _unary_float("erfinv", _np_erfinv, domain=(-0.9, 0.9)),
    _unary_float("lgamma", _np_lgamma, domain=(0.1, 5)),
    _unary_float("digamma", _np_digamma, domain=(0.1, 5)),
    OpInfo("polygamma", lambda x, n, **kw: numgrad.polygamma(n, x, **kw), lambda x, n: _np_polygamma(n, x),
           _sample_polygamma, torch_name=None),
    _unary_float("i0", _np_i0),
    OpInfo("special_i1", numgrad.special.i1, _np_i1, sample_unary, method=None, inplace=None, torch_name=None),
    OpInfo("special_xlog1py", numgrad.special.xlog1py, _float_out(_np_xlog1py),
           partial(sample_binary, domains=((None, None), (-0.9, 5))), method=None, inplace=None, torch_name=None),
    _unary_float("sinc", np.sinc),
    _unary_float("deg2rad", np.deg2rad),
    _unary_float("rad2deg", np.rad2deg),
    _binary("copysign", _float_out(np.copysign)),
    OpInfo("heaviside", numgrad.heaviside, _np_heaviside, _sample_heaviside, supports_grad=False,
           supports_gradgrad=False, supports_forward_ad=False),
    _binary("logaddexp2", np.logaddexp2, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY, inplace=None),
    OpInfo("float_power", numgrad.float_power, _np_float_power,
           partial(sample_binary, domains=((0.25, 3.0), (-2.0, 2.0))), inplace=None),
    _unary("fix", np.trunc, dtypes=NO_BOOL, grad=False),
    _binary("nextafter", np.nextafter, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY),
    _binary("ldexp", _float_out(lambda x, y: x * np.exp2(y)), domains=((None, None), (-3, 3)),
            sample_kw=_TENSORS_ONLY),
    OpInfo("signbit", numgrad.signbit, _np_signbit, _sample_specials, inplace=None, supports_grad=False,
           supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("isneginf", numgrad.isneginf, lambda x: np.asarray(x, dtype=np.float64) == -np.inf, _sample_specials,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("isposinf", numgrad.isposinf, lambda x: np.asarray(x, dtype=np.float64) == np.inf, _sample_specials,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    _unary("isreal", lambda x: np.ones(np.shape(x), dtype=bool), grad=False, inplace=None, supports_out=False),
]
