"""pad: constant, reflect, replicate and circular padding with PyTorch's argument checks."""
from __future__ import annotations

from ... import dtypes
from ...ops.nn import constant_pad
from ...ops.padding import index_pad, source_indices
from ...creation import tensor
from ...autograd.profiler import op_event

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")
_COMBINATIONS = ("Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


@op_event("aten::pad")
def pad(input, pad, mode: str = "constant", value=None):
    """pad(input, pad, mode='constant', value=None) -> Tensor

    ``pad`` lists (left, right) amounts for the last dim, then the one before it, and so on;
    negative amounts crop. 'constant' fills with ``value`` (0) and pads any number of dims;
    'reflect' (mirror without the edge), 'replicate' (repeat the edge) and 'circular' (wrap
    around) pad the last 1, 2 or 3 dims of a batched or unbatched input."""
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value not in (None, 0):
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    for k, p in enumerate(pad):
        if isinstance(p, float) or not hasattr(p, "__index__"):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element "
                            f"of type {type(p).__name__} at pos {k}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = [(int(pad[2 * k]), int(pad[2 * k + 1])) for k in range(len(pad) // 2)]
    if mode == "constant":
        return _constant(input, pairs, 0.0 if value is None else value)
    n = len(pairs)
    if not 1 <= n <= 3 or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                  + _COMBINATIONS)
    if mode == "circular":
        _check_circular(input, pairs)
    else:
        _check_reflect_replicate(input, pairs, mode)
    steps = []
    for k, (lo, hi) in enumerate(pairs):
        dim = input.ndim - 1 - k
        idx = source_indices(input.shape[dim], lo, hi, mode)
        steps.append((dim, _index_tensor(idx, input.device)))
    return index_pad(input, steps, mode)


def _constant(input, pairs, value):
    x = input
    for k, (lo, hi) in enumerate(pairs):
        dim = input.ndim - 1 - k
        kept = x.shape[dim] - max(-lo, 0) - max(-hi, 0)
        if kept < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        x = x.narrow(dim, max(-lo, 0), kept)
    return constant_pad(x, [(max(lo, 0), max(hi, 0)) for lo, hi in pairs], value)


def _check_reflect_replicate(input, pairs, mode):
    n, shape = len(pairs), list(input.shape)
    kernel = ("reflection" if mode == "reflect" else "replication") + f"_pad{n}d"
    if input.dtype is dtypes.bool:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    # The batch dim (when there is one) may be empty; the channel and padded dims may not.
    if any(s == 0 for s in shape[input.ndim - n - 1:]):
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {shape}")
    for k, (lo, hi) in enumerate(pairs):
        dim = input.ndim - 1 - k
        if mode == "reflect" and (lo >= shape[dim] or hi >= shape[dim]):
            raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({lo}, {hi}) at dimension {dim} of input {shape}")
    out = [shape[input.ndim - 1 - k] + lo + hi for k, (lo, hi) in enumerate(pairs)]
    if n == 1 and out[0] <= 0:
        raise RuntimeError(f"input (W: {shape[-1]}) is too small. Calculated output W: {out[0]}")
    if any(o < 0 for o in out):
        padded = list(shape)
        for k, o in enumerate(out):
            padded[input.ndim - 1 - k] = o
        o = min(out)
        raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {padded}")


def _check_circular(input, pairs):
    for k, (lo, hi) in enumerate(pairs):
        size = input.shape[input.ndim - 1 - k]
        interior = size - max(-lo, 0) - max(-hi, 0)
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if interior + max(lo, 0) + max(hi, 0) < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
        if max(lo, 0) > interior or max(hi, 0) > interior:
            # PyTorch copies such wraps from memory it is writing; numgrad refuses them too.
            raise RuntimeError("Padding value causes wrapping around more than once.")


def _index_tensor(values, device):
    return tensor(values, dtype=dtypes.int64, device=device)
