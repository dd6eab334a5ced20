"""The table's rows for activations (``numgrad.nn.functional``) and the kernels of their derivatives."""
from functools import partial

import numpy as np

import numgrad
from numgrad.ops import functional_elementwise as _E

from ..dtypes import FLOAT_DTYPES, NO_BOOL
from ..opinfo import OpInfo
from ..references import (_SELU_A, _SELU_S, _backward_ref, _np_elu, _np_gelu, _np_gelu_grad, _np_hardtanh,
                          _np_leaky_relu, _np_mish_tanh, _np_shrink_grad, _np_sigmoid, _np_silu_grad, _np_softplus,
                          _np_softshrink)
from ..samplers import sample_binary, sample_ternary, sample_unary


def _activation(name, op, ref, kwargs=None, **kw):
    return OpInfo(name, op, ref, partial(sample_unary, kwargs=kwargs), kw.pop("dtypes", FLOAT_DTYPES),
                  method=None, inplace=None, supports_out=False, torch_name=None, **kw)


def _activation_backward(name, op, grad_fn, kwargs=None):
    return OpInfo(f"{name}_backward", op, _backward_ref(grad_fn), partial(sample_binary, kwargs=kwargs),
                  FLOAT_DTYPES, method=None, inplace=None, supports_out=False, torch_name=None)


_F = numgrad.nn.functional
_SOFTPLUS_KW = {"beta": 2.0, "threshold": 4.0}
_HARDTANH_KW = {"min_val": -2.0, "max_val": 3.0}
ROWS = [
    _activation("gelu", _F.gelu, _np_gelu),
    _activation("gelu_tanh", _F.gelu, partial(_np_gelu, approximate="tanh"), {"approximate": "tanh"}),
    _activation("silu", _F.silu, lambda x: x * _np_sigmoid(x)),
    _activation("log_sigmoid", _F.logsigmoid, lambda x: -np.logaddexp(0.0, -x)),
    _activation("leaky_relu", _F.leaky_relu, _np_leaky_relu, {"negative_slope": 0.2}),
    _activation("elu", _F.elu, _np_elu, {"alpha": 1.5}),
    _activation("softplus", _F.softplus, _np_softplus, _SOFTPLUS_KW),
    _activation("hardtanh", _F.hardtanh, _np_hardtanh, _HARDTANH_KW,
                dtypes=("int8", "int16", "int32", "int64") + FLOAT_DTYPES),
    _activation("hardtanh", _F.relu6, lambda x: np.clip(x, 0, 6), variant="relu6", dtypes=NO_BOOL),
    _activation_backward("gelu", _E.gelu_backward, _np_gelu_grad),
    _activation_backward("gelu_tanh", _E.gelu_backward, partial(_np_gelu_grad, approximate="tanh"),
                         {"approximate": "tanh"}),
    _activation_backward("silu", _E.silu_backward, _np_silu_grad),
    _activation_backward("log_sigmoid", _E.log_sigmoid_backward, lambda x: _np_sigmoid(-x)),
    _activation_backward("leaky_relu", _E.leaky_relu_backward,
                         lambda x, negative_slope: np.where(x > 0, 1.0, negative_slope), {"negative_slope": 0.2}),
    _activation_backward("elu", _E.elu_backward, lambda x, alpha: np.where(x > 0, 1.0, alpha * np.exp(np.minimum(x, 0))),
                         {"alpha": 1.5}),
    _activation_backward("softplus", _E.softplus_backward,
                         lambda x, beta, threshold: np.where(x * beta > threshold, 1.0, _np_sigmoid(x * beta)),
                         _SOFTPLUS_KW),
    _activation_backward("hardtanh", _E.hardtanh_backward,
                         lambda x, min_val, max_val: ((x > min_val) & (x < max_val)).astype(np.float64),
                         _HARDTANH_KW),
]


def _kernel(name):
    """Call the declared op ``name`` directly, its scalar parameters given by keyword in order."""
    op = numgrad.ops.records.OPS[name]

    def fn(*args, **kwargs):
        _E.check_floating(name, *(a for a in args if isinstance(a, numgrad.Tensor)))
        return numgrad.ops.registry.run_elementwise(op, args + tuple(kwargs.values()))
    fn.__name__ = name
    return fn


def _more_activations():
    shrink = {"lambd": 0.7}
    thr = {"threshold": 0.3, "value": -2.0}
    rows = [
        _activation("selu", _F.selu, lambda x: _SELU_S * np.where(x > 0, x, _SELU_A * np.expm1(np.minimum(x, 0)))),
        _activation("celu", _F.celu, lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0) / alpha)),
                    {"alpha": 1.5}),
        _activation("mish", _F.mish, lambda x: x * _np_mish_tanh(x)),
        _activation("hardswish", _F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
        _activation("hardsigmoid", _F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
        _activation("softsign", _F.softsign, lambda x: x / (1 + np.abs(x)), dtypes=NO_BOOL),
        _activation("tanhshrink", _F.tanhshrink, lambda x: x - np.tanh(x), dtypes=NO_BOOL),
        _activation("softshrink", _F.softshrink, _np_softshrink, shrink),
        _activation("hardshrink", _F.hardshrink, lambda x, lambd: np.where(np.abs(x) > lambd, x, 0.0), shrink),
        # Without uint8: the negative value does not fit it (PyTorch raises, as numgrad does).
        _activation("threshold_value", _F.threshold, lambda x, threshold, value: np.where(x > threshold, x, value),
                    thr, dtypes=tuple(d for d in NO_BOOL if d != "uint8")),
        _activation("rrelu_with_noise", _F.rrelu, lambda x, lower, upper: _np_leaky_relu(x, (lower + upper) / 2),
                    {"lower": 0.1, "upper": 0.3}),
        OpInfo("prelu_kernel", _kernel("prelu_kernel"), lambda x, w: np.where(x > 0, x, w * x),
               partial(sample_binary, scalar_rhs=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("glu_halves", _kernel("glu_halves"), lambda a, b: a * _np_sigmoid(b),
               partial(sample_binary, scalar_rhs=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("glu_gate_backward", _kernel("glu_gate_backward"), lambda g, y, b: g * y * (1 - _np_sigmoid(b)),
               partial(sample_ternary, scalar_last=False), FLOAT_DTYPES, method=None, inplace=None,
               supports_out=False, torch_name=None),
        OpInfo("elu_backward_result", _kernel("elu_backward_result"),
               lambda g, y, alpha, scale, input_scale: np.where(y > 0, g * scale, g * input_scale * (y + alpha * scale)),
               partial(sample_binary, scalar_rhs=False, kwargs={"alpha": 1.5, "scale": 1.2, "input_scale": 0.5}),
               FLOAT_DTYPES, method=None, inplace=None, supports_out=False, torch_name=None),
    ]
    grads = [
        ("selu", lambda x: np.where(x > 0, _SELU_S, _SELU_S * _SELU_A * np.exp(np.minimum(x, 0))), None),
        ("celu", lambda x, alpha: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0) / alpha)), {"alpha": 1.5}),
        ("mish", lambda x: _np_mish_tanh(x) + x * _np_sigmoid(x) * (1 - _np_mish_tanh(x) ** 2), None),
        ("hardswish", lambda x: np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0)), None),
        ("hardsigmoid", lambda x: np.where((x > -3) & (x < 3), 1 / 6, 0.0), None),
        ("softsign", lambda x: 1 / (1 + np.abs(x)) ** 2, None),
        ("tanhshrink", lambda x: np.tanh(x) ** 2, None),
        ("softshrink", _np_shrink_grad, shrink),
        ("hardshrink", _np_shrink_grad, shrink),
        ("threshold_value", lambda x, threshold, value: (x > threshold).astype(np.float64), thr),
        ("rrelu_with_noise", lambda x, noise: np.where(x > 0, 1.0, noise), {"noise": 0.2}),
    ]
    return rows + [_activation_backward(name, _kernel(name + "_backward"), fn, kw) for name, fn, kw in grads]


# Tests take the table's rows in order: these follow ``elementwise.MORE_MATH_ROWS`` there.
MORE_ROWS = _more_activations()


def _on_a_copy(inplace_fn):
    """``inplace_fn`` applied to a clone of its input: the in-place form as a function the table
    can call (and differentiate) repeatedly."""
    def fn(x, **kwargs):
        return inplace_fn(x.clone(), **kwargs)
    fn.__name__ = inplace_fn.__name__
    return fn


# The in-place forms of nn.functional, each beside its function's reference.
_SELU = next(r for r in MORE_ROWS if r.name == "selu")
_CELU = next(r for r in MORE_ROWS if r.name == "celu")
MORE_ROWS += [
    _activation("elu_", _on_a_copy(_F.elu_), _np_elu, {"alpha": 1.5}),
    _activation("celu_", _on_a_copy(_F.celu_), _CELU.ref, {"alpha": 1.5}),
    _activation("selu_", _on_a_copy(_F.selu_), _SELU.ref),
    _activation("leaky_relu_", _on_a_copy(_F.leaky_relu_), _np_leaky_relu, {"negative_slope": 0.2}),
    _activation("hardtanh_", _on_a_copy(_F.hardtanh_), _np_hardtanh, _HARDTANH_KW,
                dtypes=("int8", "int16", "int32", "int64") + FLOAT_DTYPES),
]
