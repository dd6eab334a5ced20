"""Loss functions with PyTorch's ``reduction`` ('mean' | 'sum' | 'none'), composed from numgrad ops;
the pointwise losses record one node each, with their rules next to them."""
from __future__ import annotations

import math
import warnings

from ... import dtypes
from ...autograd import tape
from ...ops.registry import check_devices, require_floating
from ...ops.records import primitive
from ...ops import functional_elementwise as _E
from ...ops.nn import class_nll, log_softmax as _log_softmax
from .activation import logsigmoid as _logsigmoid
from ...dtypes import torch_type_name
from ...creation import arange
from ...autograd.profiler import op_event

__all__ = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
           "gaussian_nll_loss", "soft_margin_loss", "multilabel_soft_margin_loss"]


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction named by the deprecated ``size_average`` and ``reduce`` flags when either
    is given (with PyTorch's deprecation warning), else ``reduction``."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    resolved = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{resolved}' instead.",
                  stacklevel=3)
    return resolved


def _check_reduction(reduction: str):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_sizes(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _mse_vjp(sign: float):
    def rule(g, ans, x, y, reduction):
        # Rounded as PyTorch's: the scale (2/n for a mean) first, then the gradient.
        d = x - y
        n = d.numel()
        # An empty input has an empty gradient: any scale does, as long as 1/n is not taken.
        return d * (sign * (2.0 / n if reduction == "mean" and n else 2.0)) * g
    return rule


def _mse_jvp(sign: float):
    return lambda t, ans, x, y, reduction: _reduce((x - y) * (2.0 * sign) * t, reduction)


# One node (PyTorch's MseLossBackward0) rather than the sub/mul/mean chain it is made of.
_mse_loss = primitive("mse_loss", 2, backward_name="MseLossBackward0",
                      vjp=(_mse_vjp(1.0), _mse_vjp(-1.0)), jvp=(_mse_jvp(1.0), _mse_jvp(-1.0)))


@op_event("aten::mse_loss", autocast="float32")
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """mse_loss(input, target, reduction='mean') -> Tensor: (input - target)**2, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_sizes(input, target)
    require_floating("mse_cpu", dtypes.result_type(input, target))
    if weight is not None:
        d = input - target
        return _reduce(d * d * weight, reduction)
    inputs = (input, target)
    d = input.detach() - target.detach()
    loss = _reduce(d * d, reduction)
    if tape.should_record(inputs):
        tape.record(_mse_loss, inputs, loss, {"reduction": reduction})
    if tape.has_tangents(inputs):
        tape.forward_jvp(_mse_loss, inputs, loss, {"reduction": reduction})
    return loss


@op_event("aten::l1_loss", autocast="float32")
def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """l1_loss(input, target, reduction='mean') -> Tensor: |input - target|, reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_sizes(input, target)
    loss = _E.abs(input - target)
    return _reduce(loss * weight if weight is not None else loss, reduction)


def _pointwise_vjp(derivative):
    """The VJP of a reduced pointwise loss from its local derivative ``derivative(x, y, *weights, **params)``."""
    def rule(g, ans, x, y, *weights, reduction, **params):
        d = derivative(x, y, *weights, **params)
        return g * d / d.numel() if reduction == "mean" else g * d
    return rule


def _pointwise_jvp(derivative):
    def rule(t, ans, x, y, *weights, reduction, **params):
        return _reduce(t * derivative(x, y, *weights, **params), reduction)
    return rule


def _pointwise_loss(name, nin, d_input, d_target, backward_name):
    """One node for a reduced pointwise loss, with the local derivatives in input and target."""
    none = (None,) * (nin - 2)  # weights: not differentiable, as in PyTorch
    return primitive(name, nin, backward_name=backward_name,
                     vjp=(_pointwise_vjp(d_input), _pointwise_vjp(d_target)) + none,
                     jvp=(_pointwise_jvp(d_input), _pointwise_jvp(d_target)) + none)


def _run_loss(op, inputs, compute, reduction: str, **params):
    """``compute`` on plain aliases of ``inputs``, reduced and recorded as one node of ``op``."""
    loss = _reduce(compute(*[tape.plain(x) for x in inputs], **params), reduction)
    return tape.record_result(op, inputs, loss, dict(params, reduction=reduction))


def _huber_d(x, y, delta):
    return _E.clamp(x - y, -delta, delta)


_huber_loss = _pointwise_loss("huber_loss", 2, _huber_d, lambda x, y, delta: -_huber_d(x, y, delta),
                              "HuberLossBackward0")


def _huber(x, y, delta):
    d = _E.abs(x - y)
    return _E.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


@op_event("aten::huber_loss", autocast="float32")
def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """huber_loss(input, target, reduction='mean', delta=1.0) -> Tensor

    0.5 * d**2 where |d| < delta, else delta * (|d| - delta / 2), with d = input - target."""
    _check_reduction(reduction)
    _check_sizes(input, target)
    require_floating("huber_cpu", dtypes.result_type(input, target))
    if weight is not None:
        loss = _reduce(_huber(input, target, delta) * weight, reduction)
    else:
        loss = _run_loss(_huber_loss, (input, target), _huber, reduction, delta=delta)
    # Computed in the promoted dtype, returned in the input's (PyTorch writes into an empty_like(input)).
    return _cast_result(loss, input.dtype)


def _cast_result(loss, d):
    if loss.dtype is d:
        return loss
    if not d.is_floating_point:
        raise RuntimeError(f"result type {_type_name(loss.dtype)} can't be cast to the desired output type "
                           f"{_type_name(d)}")
    return loss.to(d)


def _smooth_l1_d(x, y, beta):
    return _E.clamp((x - y) / beta, -1.0, 1.0)


_smooth_l1_loss = _pointwise_loss("smooth_l1_loss", 2, _smooth_l1_d,
                                  lambda x, y, beta: -_smooth_l1_d(x, y, beta), "SmoothL1LossBackward0")


def _smooth_l1(x, y, beta):
    d = _E.abs(x - y)
    return _E.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


@op_event("aten::smooth_l1_loss", autocast="float32")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0):
    """smooth_l1_loss(input, target, reduction='mean', beta=1.0) -> Tensor

    0.5 * d**2 / beta where |d| < beta, else |d| - beta / 2; plain L1 when beta is 0."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_sizes(input, target)
    require_floating("smooth_l1_cpu", dtypes.result_type(input, target))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return _run_loss(_smooth_l1_loss, (input, target), _smooth_l1, reduction, beta=beta)


def _class_shape(ndim: int, n_classes: int):
    # Shape that broadcasts a per-class vector along the class dim (dim 1, or 0 for unbatched).
    return (n_classes,) + (1,) * (ndim - 1) if ndim == 1 else (1, n_classes) + (1,) * (ndim - 2)


def _check_targets(input, target, ignore_index) -> bool:
    """Validate class-index targets; returns whether some target may equal ``ignore_index``."""
    if target.dtype.is_floating_point or target.dtype is dtypes.bool:
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target.dtype)}")
    batched = input.ndim >= 2
    if batched and target.shape[0] != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    expected = tuple(input.shape[:1]) + tuple(input.shape[2:]) if batched else ()
    if tuple(target.shape) != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")
    if not target.numel():
        return False
    n_classes = input.shape[1] if batched else input.shape[0]
    lo, hi = target.amin().item(), target.amax().item()
    if 0 <= lo and hi < n_classes:
        return lo <= ignore_index <= hi
    # Something is out of range: it is an error unless it is the ignored index.
    bad = (target != ignore_index) & ((target < 0) | (target >= n_classes))
    if bad.any().item():
        raise IndexError(f"Target {int(target[bad].reshape(-1)[0].item())} is out of bounds.")
    return True


def _type_name(d):
    return torch_type_name(d)


def _target_weights(input, target, weight, ignore_index):
    """(hit, mask, weights): a bool (N, C, ...) tensor, True at each sample's target class
    (False for ignored samples), the float tensor holding the class weights there (zero
    elsewhere), and the per-sample weights."""
    n_classes = input.shape[1] if input.ndim >= 2 else input.shape[0]
    class_dim = 1 if input.ndim >= 2 else 0
    classes = arange(n_classes, device=input.device).reshape(_class_shape(max(input.ndim, 1), n_classes))
    t = target.unsqueeze(class_dim)
    hit = (t == classes) & (t != ignore_index)
    mask = hit.to(input.dtype)
    if weight is not None:
        mask = mask * weight.reshape(_class_shape(max(input.ndim, 1), n_classes))
    return hit, mask, mask.sum(class_dim)


def _single_pass(input, target) -> bool:
    """Whether one kernel pass computes the loss: a non-empty (N, C) float32/float64 batch
    with (N,) integer class indices on the same device."""
    return (input.ndim == 2 and target.ndim == 1 and input._shape[0] == target._shape[0]
            and input.numel() > 0 and input.device == target.device
            and input.dtype in (dtypes.float32, dtypes.float64)
            and not target.dtype.is_floating_point and target.dtype is not dtypes.bool)


@op_event("aten::nll_loss_nd", autocast="float32")
def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    """nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean') -> Tensor

    -input[n, target[n]] * weight[target[n]] per sample; 'mean' divides by the total weight of
    the non-ignored targets."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    check_devices([input, target] if weight is None else [input, target, weight])
    _check_weights_constant("nll_loss2d_forward" if input.ndim >= 3 else "nll_loss_forward", ("weight", weight))
    if target.dtype in (dtypes.int8, dtypes.int16, dtypes.int32):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target.dtype)}")
    require_floating("nll_loss2d_forward_out_frame" if input.ndim >= 3 else "nll_loss_out_frame", input.dtype)
    if weight is None and _single_pass(input, target):
        return class_nll(input, target, reduction, ignore_index)
    may_ignore = _check_targets(input, target, ignore_index)
    class_dim = 1 if input.ndim >= 2 else 0
    if weight is None and not may_ignore:
        return _reduce(-input.gather(class_dim, target.unsqueeze(class_dim)).squeeze(class_dim), reduction)
    hit, mask, w = _target_weights(input, target, weight, ignore_index)
    # Only the picked elements enter, so that the others get a zero gradient even when the
    # mean divides by a total weight of 0 (and a -inf log-probability elsewhere gives no NaN).
    loss = -(_E.where(hit, input, 0) * mask).sum(class_dim)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


@op_event("aten::cross_entropy_loss", autocast="float32")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    """cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0)

    Cross entropy between logits ``input`` (N, C, ...) and class indices or class
    probabilities ``target``; log_softmax is computed stably."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 1 if input.ndim >= 2 else 0
    n_classes = input.shape[class_dim]
    logp = _log_softmax(input, class_dim)
    if target.dtype.is_floating_point:
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        terms = logp * target
        if weight is not None:
            terms = terms * weight.reshape(_class_shape(input.ndim, n_classes))
        return _reduce(-terms.sum(class_dim), reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    # Smoothing adds the mean over classes of -log p (class-weighted), skipping ignored samples.
    terms = logp if weight is None else logp * weight.reshape(_class_shape(input.ndim, n_classes))
    keep = target != ignore_index
    # Filled rather than multiplied: ignored samples get a zero gradient even from a NaN mean.
    smooth = _E.where(keep, -terms.sum(class_dim), 0)
    if reduction == "none":
        s = smooth
    elif reduction == "sum":
        s = smooth.sum()
    elif weight is None:
        s = smooth.sum() / keep.sum()
    else:
        s = smooth.sum() / _target_weights(input, target, weight, ignore_index)[2].sum()
    return (1 - label_smoothing) * nll + s * (label_smoothing / n_classes)


def _check_weights_constant(name, *weights):
    for arg, w in weights:
        if w is not None and tape.should_record((w,)):
            raise RuntimeError(f"The function '{name}' is not differentiable with respect to argument "
                               f"'{arg}'. This input cannot have requires_grad True.")


def _bce_d_input(x, y, w):
    # PyTorch's EPSILON keeps the derivative finite at x = 0 or 1.
    d = (x - y) / _E.clamp_min((1 - x) * x, 1e-12)
    return d * w if w.__class__ is not float else d


def _bce_d_target(x, y, w):
    d = _E.log(1 - x) - _E.log(x)
    return d * w if w.__class__ is not float else d


_bce = _pointwise_loss("binary_cross_entropy", 3, _bce_d_input, _bce_d_target, "BinaryCrossEntropyBackward0")


def _bce_values(x, y, w):
    loss = -(y * _E.clamp_min(_E.log(x), -100.0) + (1 - y) * _E.clamp_min(_E.log(1 - x), -100.0))
    return loss * w if w.__class__ is not float else loss


@op_event("aten::binary_cross_entropy", autocast="float32")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    """binary_cross_entropy(input, target, weight=None, reduction='mean') -> Tensor

    -(t * log(x) + (1 - t) * log(1 - x)) for probabilities ``x``; each log is clamped at -100
    as in PyTorch, so x = 0 or 1 gives a finite loss."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_type_name(target.dtype)} but expected {_type_name(input.dtype)}")
    require_floating("binary_cross_entropy", input.dtype)
    if input.numel() and ((input < 0) | (input > 1)).any().item():
        raise RuntimeError("all elements of input should be between 0 and 1")
    _check_weights_constant("binary_cross_entropy", ("weight", weight))
    return _run_loss(_bce, (input, target, 1.0 if weight is None else weight), _bce_values, reduction)


def _bce_logits_d_input(x, y, w, pw):
    # d/dx of (1 - y) x + (1 + (pw - 1) y) softplus(-x)
    d = x.sigmoid() - y if pw.__class__ is float else (1 + (pw - 1) * y) * x.sigmoid() - pw * y
    return d * w if w.__class__ is not float else d


def _bce_logits_d_target(x, y, w, pw):
    d = -x if pw.__class__ is float else (pw - 1) * -_logsigmoid(x) - x
    return d * w if w.__class__ is not float else d


_bce_logits = _pointwise_loss("binary_cross_entropy_with_logits", 4, _bce_logits_d_input, _bce_logits_d_target,
                              "BinaryCrossEntropyWithLogitsBackward0")


def _bce_logits_values(x, y, w, pw):
    softplus_neg = -_logsigmoid(x)
    if pw.__class__ is not float:
        loss = (1 - y) * x + (1 + (pw - 1) * y) * softplus_neg
    else:
        loss = (1 - y) * x + softplus_neg
    return loss * w if w.__class__ is not float else loss


@op_event("aten::binary_cross_entropy_with_logits", autocast="float32")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    """binary_cross_entropy_with_logits(input, target, weight=None, reduction='mean', pos_weight=None)

    binary_cross_entropy(sigmoid(input), target) computed stably from the logits, with
    ``pos_weight`` scaling the positive term."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    _check_weights_constant("binary_cross_entropy_with_logits", ("weight", weight), ("pos_weight", pos_weight))
    inputs = (input, target, 1.0 if weight is None else weight, 1.0 if pos_weight is None else pos_weight)
    # PyTorch forms the loss in place in a tensor made from the target: the target's dtype.
    return _cast_result(_run_loss(_bce_logits, inputs, _bce_logits_values, reduction), target.dtype)


@op_event("aten::kl_div", autocast="float32")
def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
    """kl_div(input, target, reduction='mean', log_target=False) -> Tensor

    target * (log(target) - input) for log-probabilities ``input`` (``target`` given as
    log-probabilities when ``log_target``); 'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if reduction != "batchmean":
        _check_reduction(reduction)
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _E.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim else total
    return _reduce(loss, reduction)


@op_event("aten::poisson_nll_loss", autocast="float32")
def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean"):
    """poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction='mean') -> Tensor

    exp(input) - target * input for a log-rate ``input`` (input - target * log(input + eps)
    for a rate); ``full`` adds Stirling's term where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + _E.where(target <= 1, 0, stirling)
    return _reduce(loss, reduction)


def _variance_like(input, var):
    """``var`` shaped to broadcast against ``input``, checked as PyTorch's gaussian_nll_loss does."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return var * input.new_ones(input.shape)
    if not var.dtype.is_floating_point:
        # PyTorch clamps a copy of var in place, at a float bound.
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(var.dtype)}")
    if var.numel() and (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) == tuple(input.shape):
        return var
    if tuple(input.shape[:-1]) == tuple(var.shape):
        return var.unsqueeze(-1)
    # Homoscedastic along exactly one dim of size 1 in ``var``.
    if input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
    """gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction='mean') -> Tensor

    0.5 * (log(var) + (input - target)**2 / var) with var clamped below at ``eps``; ``full``
    adds 0.5 * log(2 * pi). ``var`` matches input, lacks its last dim, or has one dim of size 1."""
    var = _variance_like(input, var)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    plain = var.detach()
    # The clamp moves the value only: the gradient passes to var unchanged, as in PyTorch.
    var = plain.clamp_min(eps) + (var - plain)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _soft_margin_d_input(x, y):
    return -y * (-x * y).sigmoid()


_soft_margin_loss = _pointwise_loss("soft_margin_loss", 2, _soft_margin_d_input,
                                    lambda x, y: _soft_margin_d_input(y, x), "SoftMarginLossBackward0")


def _soft_margin(x, y):
    return (-x * y).exp().log1p()


@op_event("aten::soft_margin_loss", autocast="float32")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """soft_margin_loss(input, target, reduction='mean') -> Tensor: log(1 + exp(-target * input)), reduced."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(input.dtype)}")
    _check_weights_constant("soft_margin_loss", ("target", target))
    return _run_loss(_soft_margin_loss, (input, target), _soft_margin, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean"):
    """multilabel_soft_margin_loss(input, target, weight=None, reduction='mean') -> Tensor

    Binary cross entropy of sigmoid(input) against 0/1 ``target``, averaged over the last (class) dim."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    require_floating("log_sigmoid_cpu", input.dtype)
    loss = -(target * _logsigmoid(input) + (1 - target) * _logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)
