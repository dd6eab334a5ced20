"""The CTC loss per sample, declared as kernel ops (see ``kernel_ops.py``): the forward (alpha)
recursion and the gradient from the alpha and beta recursions each have a CPU kernel in
``backends/cpu/ctc.py`` and run on host copies for CUDA tensors.

The targets, input lengths and blank are the ops' parameters, not inputs: only ``log_probs`` is
differentiable, as in PyTorch, whose gradient formula (which assumes normalised log-probabilities)
the backward reproduces.
"""
from __future__ import annotations

from .. import dtypes
from .kernel_ops import HOST, Call, apply, kernel_op
from ..dtypes import torch_type_name

__all__: list = []


def _prepare_loss(log_probs, *, targets, input_lengths, blank, zero_infinity):
    if not log_probs.dtype.is_floating_point or log_probs.dtype in dtypes.NARROW_FLOATING:
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for '{torch_type_name(log_probs.dtype)}'")
    params = {"targets": targets, "input_lengths": input_lengths, "blank": blank, "zero_infinity": zero_infinity}
    return Call((log_probs.shape[1],), log_probs.dtype, params)


def _prepare_grad(g, log_probs, nll, **params):
    return Call(tuple(log_probs.shape), log_probs.dtype, params)


def _grad(g, log_probs, nll, params):
    return apply(_ctc_grad, (g, log_probs, nll), params)


def _no_second_derivative(v, ans, g, log_probs, nll, **params):
    raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


_ctc_loss = kernel_op(
    "ctc_loss", 1, prepare=_prepare_loss, backward_name="CtcLossBackward0", event="aten::_ctc_loss",
    kernels={"cpu": "cpu.ctc.ctc_loss", "cuda": HOST},
    vjp=(lambda g, ans, x, **params: _grad(g, x, ans, params),),
    jvp=(lambda t, ans, x, **params: (_grad(ans.new_ones(ans.shape), x, ans, params) * t).sum((0, 2)),))
_ctc_grad = kernel_op(
    "ctc_loss_backward", 3, prepare=_prepare_grad, backward_name="CtcLossBackwardBackward0",
    kernels={"cpu": "cpu.ctc.ctc_loss_backward", "cuda": HOST},
    vjp=(_no_second_derivative,) * 3, jvp=(_no_second_derivative,) * 3)


def ctc_loss_per_sample(log_probs, targets: tuple, input_lengths: tuple, blank: int, zero_infinity: bool):
    """The negative log-likelihood (N,) of each sample's ``targets`` (a tuple of class tuples)
    under ``log_probs`` (T, N, C) over its first ``input_lengths[n]`` frames; one node."""
    return apply(_ctc_loss, (log_probs,), {"targets": targets, "input_lengths": input_lengths,
                                           "blank": blank, "zero_infinity": zero_infinity})
