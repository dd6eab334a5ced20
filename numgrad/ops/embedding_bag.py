"""Embedding bags: each bag (a run of the flat ``indices``) reduces the table rows it picks to one
row, by sum (optionally weighted per position), mean or max, in one kernel.

Declared as kernel ops (see ``kernel_ops.py``), with CPU kernels in
``backends/cpu/embedding_bag.py`` and host copies for CUDA tensors. The kernels of the backward
run when it is not itself differentiated; otherwise the rules are composed of index ops, so that
higher derivatives come from their rules.
"""
from __future__ import annotations

import numpy as np

from .. import creation
from ..autograd import tape
from ..autograd.grad_mode import is_grad_enabled
from ..backends.cpu.embedding_bag import DECREASING, FIRST_OFFSET, LAST_OFFSET, bag_bounds
from .kernel_ops import HOST, Call, apply, kernel_op

MODES = {"sum": 0, "mean": 1, "max": 2}
_MEAN, _MAX = MODES["mean"], MODES["max"]


def _differentiated() -> bool:
    return is_grad_enabled() or tape._dual_levels[0]


# The rows that won, for the sum and the mean, which have none: never written, so one serves all.
_NO_ARGMAX = np.empty((0, 0), dtype=np.int64)


def _prepare_bag(weight, *psw, indices, offsets, mode, padding_idx, divisor):
    shape = (offsets.shape[0] - 1, weight._shape[1])
    argmax = np.empty(shape, dtype=np.int64) if mode == _MAX else _NO_ARGMAX
    return Call(shape, weight.dtype, {"indices": indices, "offsets": offsets, "mode": mode,
                                      "padding_idx": padding_idx, "argmax": argmax, "divisor": divisor})


def _prepare_scatter(g, *psw, num_weights, **params):
    return Call((num_weights, g.shape[1]), g.dtype, params)


def _prepare_dot(g, weight, **params):
    return Call((params["indices"].shape[0],), g.dtype, params)


def _bags_of(indices, offsets, padding_idx):
    """Per position of ``indices``: its bag (clamped into range) and whether it is read (inside a
    bag and not padding)."""
    bags = offsets.shape[0] - 1
    bag_of = np.searchsorted(offsets, np.arange(indices.shape[0]), side="right") - 1
    keep = (indices != padding_idx) & (bag_of < bags)
    return np.minimum(bag_of, max(bags - 1, 0)), keep


def _positions(indices, offsets, padding_idx, device):
    """:func:`_bags_of` and the indices as tensors on ``device``."""
    bag_of, keep = _bags_of(indices, offsets, padding_idx)
    return (creation.tensor(bag_of, device=device), creation.tensor(indices, device=device),
            creation.tensor(keep, device=device))


def _coefficients(g, psw, indices, offsets, mode, padding_idx, divisor):
    """What each position's row is multiplied by in its bag's sum, as a tensor (``psw`` is a
    tensor or None); positions that are not read get 0."""
    bag_of, keep = _bags_of(indices, offsets, padding_idx)
    c = keep.astype(np.float64)
    if mode == _MEAN:
        counts = np.bincount(bag_of, weights=c, minlength=offsets.shape[0] - 1)
        c = c / np.maximum(counts, 1)[bag_of]
    if divisor is not None:
        c = c / divisor
    c = creation.tensor(c, dtype=g.dtype, device=g.device)
    return c * psw if psw is not None else c


def _weight_vjp(g, num_weights, psw, indices, offsets, mode, padding_idx, argmax, divisor):
    if not _differentiated():
        extra = () if psw is None else (tape.plain(psw),)
        return apply(_scatter, (g,) + extra, {"num_weights": num_weights, "indices": indices, "offsets": offsets,
                                              "mode": mode, "padding_idx": padding_idx, "argmax": argmax,
                                              "divisor": divisor})
    zeros = creation.zeros((num_weights, g.shape[1]), dtype=g.dtype, device=g.device)
    if mode == _MAX:
        won = creation.tensor(argmax, device=g.device)
        return zeros.scatter_add(0, won.clamp(min=0), g * (won >= 0))
    bag_of, idx, _ = _positions(indices, offsets, padding_idx, g.device)
    c = _coefficients(g, psw, indices, offsets, mode, padding_idx, divisor)
    return zeros.index_add(0, idx, g.index_select(0, bag_of) * c.unsqueeze(1))


def _weight_jvp(t, weight, psw, indices, offsets, mode, padding_idx, argmax, divisor):
    if mode == _MAX:
        won = creation.tensor(argmax, device=t.device)
        return t.gather(0, won.clamp(min=0)) * (won >= 0)
    params = {"indices": indices, "offsets": offsets, "mode": mode, "padding_idx": padding_idx, "divisor": None}
    return apply(_bag, (t,), params) if psw is None else apply(_bag_weighted, (t, psw), params)


def _psw_vjp(g, weight, indices, offsets, padding_idx):
    if not _differentiated():
        return apply(_dot, (g, weight), {"indices": indices, "offsets": offsets, "padding_idx": padding_idx})
    bag_of, idx, keep = _positions(indices, offsets, padding_idx, g.device)
    return (g.index_select(0, bag_of) * weight.index_select(0, idx)).sum(1) * keep


def _psw_jvp(t, weight, indices, offsets, padding_idx):
    bag_of, idx, keep = _positions(indices, offsets, padding_idx, t.device)
    rows = weight.index_select(0, idx) * (t * keep).unsqueeze(1)
    zeros = creation.zeros((offsets.shape[0] - 1, weight.shape[1]), dtype=t.dtype, device=t.device)
    return zeros.index_add(0, bag_of, rows)


_KERNELS = {"cpu": "cpu.embedding_bag.embedding_bag", "cuda": HOST}
_bag = kernel_op(
    "embedding_bag", 1, prepare=_prepare_bag, kernels=_KERNELS, backward_name="EmbeddingBagBackward0",
    vjp=(lambda g, ans, w, indices, offsets, mode, padding_idx, argmax, divisor: _weight_vjp(
        g, w.shape[0], None, indices, offsets, mode, padding_idx, argmax, divisor),),
    jvp=(lambda t, ans, w, indices, offsets, mode, padding_idx, argmax, divisor: _weight_jvp(
        t, w, None, indices, offsets, mode, padding_idx, argmax, divisor),))
# The same op with per-sample weights (sum mode only), a second input.
_bag_weighted = kernel_op(
    "embedding_bag_per_sample_weights", 2, prepare=_prepare_bag, kernels=_KERNELS,
    backward_name="EmbeddingBagBackward0",
    vjp=(lambda g, ans, w, psw, indices, offsets, mode, padding_idx, argmax, divisor: _weight_vjp(
            g, w.shape[0], psw, indices, offsets, mode, padding_idx, argmax, divisor),
         lambda g, ans, w, psw, indices, offsets, mode, padding_idx, argmax, divisor: _psw_vjp(
            g, w, indices, offsets, padding_idx)),
    jvp=(lambda t, ans, w, psw, indices, offsets, mode, padding_idx, argmax, divisor: _weight_jvp(
            t, w, psw, indices, offsets, mode, padding_idx, argmax, divisor),
         lambda t, ans, w, psw, indices, offsets, mode, padding_idx, argmax, divisor: _psw_jvp(
            t, w, indices, offsets, padding_idx)))
# The backward kernels run only outside recorded graphs, so they need no rules of their own.
_scatter = kernel_op("embedding_bag_dense_backward", 1, prepare=_prepare_scatter,
                     kernels={"cpu": "cpu.embedding_bag.embedding_bag_backward", "cuda": HOST})
_dot = kernel_op("embedding_bag_per_sample_weights_backward", 2, prepare=_prepare_dot,
                 kernels={"cpu": "cpu.embedding_bag.embedding_bag_per_sample_weights_backward", "cuda": HOST})


def _host_ints(t):
    host = t if t.device.type == "cpu" else t.cpu()
    return np.ascontiguousarray(host.numpy(force=True), dtype=np.int64)


def _frequency_divisors(indices):
    """Per position, what its gradient is divided by under ``scale_grad_by_freq``: PyTorch's CPU
    kernel divides the k-th smallest distinct index's rows by the frequency of the k-th smallest
    index (counted with repeats), which this reproduces."""
    uniq, counts = np.unique(indices, return_counts=True)
    per_distinct = np.repeat(counts, counts)[:uniq.shape[0]]
    return per_distinct[np.searchsorted(uniq, indices)].astype(np.float64)


def _bag_error(problem, position, indices, offsets, num_weights):
    """PyTorch's error for the problem :func:`bag_bounds` found."""
    if problem == FIRST_OFFSET:
        return RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                            f"position 0. However, got {offsets[0]}")
    if problem == LAST_OFFSET:
        return RuntimeError(f"offsets[-1] can not be greater than input's length {indices.shape[0]} but got "
                            f"offsets[-1] of {offsets[-1]}")
    if problem == DECREASING:
        return RuntimeError("offsets has to be a non-decreasing sequence of positions of input")
    return RuntimeError(f"Index {position} of input takes value {indices[position]} which is not in the valid range "
                        f"[0, {num_weights})")


def embedding_bag_op(weight, indices, offsets, per_sample_weights, mode: str, padding_idx,
                     scale_grad_by_freq: bool, include_last_offset: bool):
    """The bags of 1-D ``indices`` delimited by ``offsets`` reduced by ``mode``; arguments as
    :func:`numgrad.nn.functional.embedding_bag` after its checks (``padding_idx`` non-negative or
    None)."""
    if not weight.dtype.is_floating_point:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead (while checking arguments "
                           "for embedding_bag)")
    idx = _host_ints(indices)
    offs = _host_ints(offsets)
    num_weights = weight._shape[0]
    bounds, problem, position = bag_bounds(idx, offs, num_weights, include_last_offset)
    if problem:
        raise _bag_error(problem, position, idx, offs, num_weights)
    params = {"indices": idx, "offsets": bounds, "mode": MODES[mode],
              "padding_idx": -1 if padding_idx is None else int(padding_idx),
              "divisor": _frequency_divisors(idx) if scale_grad_by_freq and idx.shape[0] else None}
    if per_sample_weights is None:
        return apply(_bag, (weight,), params)
    if per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type {weight.type()} does not equal "
                           f"{per_sample_weights.type()} (while checking arguments for embedding_bag)")
    return apply(_bag_weighted, (weight, per_sample_weights.reshape(-1)), params)
