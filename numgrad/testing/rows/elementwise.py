"""The table's rows for elementwise ops: arithmetic, unary math, rounding, clamping and selection,
the kernels of some derivatives, comparisons, logic and bitwise ops."""
from functools import partial

import numpy as np

import numgrad
from numgrad.ops.functional_elementwise import pow_backward, sigmoid_backward, tanh_backward, threshold_backward

from ..dtypes import ALL_DTYPES, FLOAT_DTYPES, INTEGRAL_DTYPES, INT_DTYPES, NO_BOOL
from ..opinfo import OpInfo
from ..references import (_float_out, _np_addcdiv, _np_addcmul, _np_bitwise_not, _np_clamp, _np_div, _np_erf, _np_erfc,
                          _np_floor_divide, _np_frac, _np_lerp, _np_nan_to_num, _np_pow, _np_pow_backward, _np_relu,
                          _np_round, _np_rsqrt, _np_sigmoid, _np_sign, _np_where, _np_xlogy)
from ..samplers import (_sample_addc, _sample_clamp, _sample_clamp_bound, _sample_intdiv, _sample_nan_to_num,
                        _sample_pow, _sample_pow_backward, _sample_round_decimals, _sample_shift, _sample_where,
                        sample_binary, sample_ternary)
from .builders import _F16_COMPOSITE, _TENSORS_ONLY, _binary, _unary, _unary_float


def _intdiv(name, ref, *, variant="", grad=True, kwargs=None):
    return OpInfo(name, getattr(numgrad, name), ref, partial(_sample_intdiv, kwargs=kwargs), NO_BOOL,
                  variant=variant, supports_grad=grad, supports_gradgrad=grad, supports_forward_ad=grad)


ROWS = [
    # arithmetic
    _binary("add", np.add),
    _binary("add", lambda x, y, alpha=1: x + alpha * y, variant="alpha",
            sample_kw={"kwargs": {"alpha": 2}}, tolerances=_F16_COMPOSITE),
    _binary("sub", np.subtract, dtypes=NO_BOOL),
    _binary("mul", np.multiply),
    _binary("div", _np_div, domains=((None, None), (0.5, 4))),
    _intdiv("div", partial(_np_div, rounding_mode="trunc"), variant="trunc", grad=False,
            kwargs={"rounding_mode": "trunc"}),
    _intdiv("div", partial(_np_div, rounding_mode="floor"), variant="floor", grad=False,
            kwargs={"rounding_mode": "floor"}),
    _intdiv("floor_divide", _np_floor_divide, grad=False),
    _intdiv("remainder", np.remainder),
    _intdiv("fmod", np.fmod),
    OpInfo("pow", numgrad.pow, _np_pow, _sample_pow, NO_BOOL),
    _binary("atan2", _float_out(np.arctan2), sample_kw=_TENSORS_ONLY),
    _binary("maximum", np.maximum, sample_kw=_TENSORS_ONLY),
    _binary("minimum", np.minimum, sample_kw=_TENSORS_ONLY),
    _binary("fmax", np.fmax, sample_kw=_TENSORS_ONLY, inplace=None),
    _binary("fmin", np.fmin, sample_kw=_TENSORS_ONLY, inplace=None),
    # unary math
    _unary("neg", np.negative, dtypes=NO_BOOL),
    _unary("abs", np.abs, dtypes=NO_BOOL),
    _unary("sign", _np_sign),
    _unary_float("sqrt", np.sqrt, domain=(0.1, 5)),
    _unary_float("rsqrt", _np_rsqrt, domain=(0.1, 5)),
    _unary("square", np.square),
    _unary_float("reciprocal", np.reciprocal, domain=(0.5, 5)),
    _unary_float("exp", np.exp),
    _unary_float("exp2", np.exp2),
    _unary_float("expm1", np.expm1),
    _unary_float("log", np.log, domain=(0.1, 5)),
    _unary_float("log1p", np.log1p, domain=(-0.9, 5)),
    _unary_float("log2", np.log2, domain=(0.1, 5)),
    _unary_float("log10", np.log10, domain=(0.1, 5)),
    _unary_float("sin", np.sin),
    _unary_float("cos", np.cos),
    _unary_float("tan", np.tan, domain=(-1.4, 1.4)),
    _unary_float("asin", np.arcsin, domain=(-0.95, 0.95)),
    _unary_float("acos", np.arccos, domain=(-0.95, 0.95)),
    _unary_float("atan", np.arctan),
    _unary_float("sinh", np.sinh),
    _unary_float("cosh", np.cosh),
    _unary_float("tanh", np.tanh),
    _unary_float("asinh", np.arcsinh),
    _unary_float("acosh", np.arccosh, domain=(1.1, 5)),
    _unary_float("atanh", np.arctanh, domain=(-0.95, 0.95)),
    _unary_float("sigmoid", _np_sigmoid),
    _unary("relu", _np_relu, dtypes=NO_BOOL),
    _unary_float("erf", _np_erf),
    _unary_float("erfc", _np_erfc),
    # rounding
    _unary("ceil", np.ceil, dtypes=NO_BOOL, grad=False),
    _unary("floor", np.floor, dtypes=NO_BOOL, grad=False),
    _unary("round", _np_round, dtypes=NO_BOOL, grad=False),
    OpInfo("round", numgrad.round, _np_round, _sample_round_decimals, FLOAT_DTYPES, variant="decimals",
           supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    _unary("trunc", np.trunc, dtypes=NO_BOOL, grad=False),
    _unary("frac", _np_frac, dtypes=FLOAT_DTYPES),
    # clamping and selection
    OpInfo("clamp", numgrad.clamp, _np_clamp, _sample_clamp, NO_BOOL),
    OpInfo("clip", numgrad.clip, _np_clamp, _sample_clamp, NO_BOOL),
    OpInfo("clamp_min", numgrad.clamp_min, _np_clamp, _sample_clamp_bound),
    OpInfo("clamp_max", numgrad.clamp_max, lambda x, hi: _np_clamp(x, max=hi), _sample_clamp_bound),
    OpInfo("lerp", numgrad.lerp, _np_lerp, partial(sample_ternary, scalar_last=True), FLOAT_DTYPES),
    OpInfo("addcmul", numgrad.addcmul, _np_addcmul, _sample_addc, NO_BOOL, tolerances=_F16_COMPOSITE),
    OpInfo("addcdiv", numgrad.addcdiv, _np_addcdiv, partial(_sample_addc, nonzero_last=True), FLOAT_DTYPES,
           tolerances=_F16_COMPOSITE),
    OpInfo("where", numgrad.where, _np_where, _sample_where, ALL_DTYPES, method=None, inplace=None),
    OpInfo("threshold_backward", threshold_backward, lambda g, y: np.where(y <= 0, 0.0, g),
           partial(sample_binary, domains=((None, None), (None, None))), FLOAT_DTYPES, method=None,
           inplace=None, supports_out=False, torch_name=None),
    OpInfo("pow_backward", pow_backward, _np_pow_backward, _sample_pow_backward, FLOAT_DTYPES, method=None,
           inplace=None, supports_out=False, torch_name=None),
    OpInfo("tanh_backward", tanh_backward, lambda g, y: g * (1 - y * y),
           partial(sample_binary, domains=((None, None), (-1, 1))), FLOAT_DTYPES, method=None, inplace=None,
           supports_out=False, torch_name=None),
    OpInfo("sigmoid_backward", sigmoid_backward, lambda g, y: g * (1 - y) * y,
           partial(sample_binary, domains=((None, None), (0, 1))), FLOAT_DTYPES, method=None, inplace=None,
           supports_out=False, torch_name=None),
    # comparisons and logic
    _binary("eq", np.equal, grad=False),
    _binary("ne", np.not_equal, grad=False),
    _binary("lt", np.less, grad=False),
    _binary("le", np.less_equal, grad=False),
    _binary("gt", np.greater, grad=False),
    _binary("ge", np.greater_equal, grad=False),
    _binary("logical_and", np.logical_and, grad=False, sample_kw=_TENSORS_ONLY),
    _binary("logical_or", np.logical_or, grad=False, sample_kw=_TENSORS_ONLY),
    _binary("logical_xor", np.logical_xor, grad=False, sample_kw=_TENSORS_ONLY),
    _unary("logical_not", np.logical_not, grad=False),
    _unary("isnan", np.isnan, grad=False, inplace=None),
    _unary("isinf", np.isinf, grad=False, inplace=None),
    _unary("isfinite", np.isfinite, grad=False, inplace=None),
    # bitwise
    _binary("bitwise_and", np.bitwise_and, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _binary("bitwise_or", np.bitwise_or, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _binary("bitwise_xor", np.bitwise_xor, dtypes=INTEGRAL_DTYPES, grad=False,
            sample_kw={"other_dtype_rhs": False}),
    _unary("bitwise_not", _np_bitwise_not, dtypes=INTEGRAL_DTYPES, grad=False),
    OpInfo("bitwise_left_shift", numgrad.bitwise_left_shift, np.left_shift, _sample_shift, INT_DTYPES,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
    OpInfo("bitwise_right_shift", numgrad.bitwise_right_shift, np.right_shift, _sample_shift, INT_DTYPES,
           inplace=None, supports_grad=False, supports_gradgrad=False, supports_forward_ad=False),
]

# Tests take the table's rows in order: these follow the activations there.
MORE_MATH_ROWS = [
    _unary("sgn", _np_sign),
    OpInfo("nan_to_num", numgrad.nan_to_num, _np_nan_to_num, _sample_nan_to_num),
    _binary("hypot", np.hypot, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY),
    _binary("xlogy", _float_out(_np_xlogy), domains=((None, None), (0.1, 5))),
    _binary("logaddexp", np.logaddexp, dtypes=FLOAT_DTYPES, sample_kw=_TENSORS_ONLY, inplace=None),
]
