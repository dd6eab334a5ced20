"""The connectionist temporal classification loss: argument checks and reductions around the
per-sample kernel op of ``ops/ctc.py``."""
from __future__ import annotations

import math

from ...autograd.profiler import op_event
from ...ops import functional_elementwise as _E
from ...ops.ctc import ctc_loss_per_sample
from .loss import _check_reduction

__all__ = ["ctc_loss"]

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _ints(lengths) -> list:
    """Lengths given as a tensor, a sequence or an int, as a list of ints."""
    if hasattr(lengths, "tolist"):
        if lengths.dtype.is_floating_point:
            raise RuntimeError("ctc_loss(): lengths must be integral tensors")
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(lengths)] if isinstance(lengths, int) else [int(v) for v in lengths]


def _check_lengths(name, lengths, batch, most=None):
    if len(lengths) != batch:
        raise RuntimeError(f"{name} must be of size batch_size")
    for v in lengths:
        if v < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value {v}{_WHERE}")
        if most is not None and v > most:
            raise RuntimeError(f"Expected {name} to have value at most {most}, but got value {v}{_WHERE}")


def _target_rows(targets, target_lengths, batch, classes):
    """Each sample's target classes, from padded (N, S) or concatenated (sum(target_lengths),) targets."""
    values = targets.tolist()
    if targets.ndim == 2:
        if targets.shape[0] != batch:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets'{_WHERE}")
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets'{_WHERE}")
        rows = tuple(tuple(int(c) for c in row[:n]) for row, n in zip(values, target_lengths))
    else:
        total = sum(target_lengths)
        if targets.numel() != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size "
                               f"{targets.numel()} for argument #2 'targets'{_WHERE}")
        ends = [sum(target_lengths[:n + 1]) for n in range(batch)]
        rows = tuple(tuple(int(c) for c in values[end - n:end]) for end, n in zip(ends, target_lengths))
    # The kernel indexes log_probs by these: a class out of range would read past the array.
    if any(not 0 <= c < classes for row in rows for c in row):
        raise RuntimeError(f"ctc_loss(): targets must be class indices in [0, {classes})")
    return rows


@op_event("aten::ctc_loss", autocast="float32")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction='mean',
    zero_infinity=False) -> Tensor

    The connectionist temporal classification loss of log-probabilities ``log_probs`` (T, N, C)
    or (T, C) against targets padded (N, S) or concatenated (sum(target_lengths),); 'mean' divides
    each loss by its target length before averaging over the batch, and ``zero_infinity`` zeroes
    the infinite losses (and their gradients) of inputs too short for their targets."""
    _check_reduction(reduction)
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(f"ctc_loss(): Expected 2D or 3D log_probs, but got {log_probs.ndim}D")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    frames, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    input_lengths, target_lengths = _ints(input_lengths), _ints(target_lengths)
    _check_lengths("input_lengths", input_lengths, batch, frames)
    _check_lengths("target_lengths", target_lengths, batch)
    rows = _target_rows(targets.reshape(1, -1) if unbatched and targets.ndim == 1 else targets,
                        target_lengths, batch, classes)
    nll = ctc_loss_per_sample(lp, rows, tuple(input_lengths), blank, zero_infinity)
    if zero_infinity:
        nll = _E.where(nll == math.inf, 0, nll)
    if reduction == "mean":
        lengths = nll.new_tensor(target_lengths).clamp_min(1)
        return (nll / lengths).mean()
    if reduction == "sum":
        return nll.sum()
    return nll.squeeze(0) if unbatched else nll
