"""Parameter initialisation schemes (PyTorch's ``torch.nn.init``); all fill tensors in place."""
from __future__ import annotations

import math
import warnings

from ..autograd.grad_mode import no_grad
from ..ops.functional_elementwise import where
from ..random.factories import empty_in_memory_order
from ..creation import eye
from ..linalg import qr
from ..random import randperm

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_", "sparse_"]


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity`` ('relu', 'tanh', 'leaky_relu', ...)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _gen(generator) -> dict:
    return {} if generator is None else {"generator": generator}


def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fills ``tensor`` with values drawn from U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, **_gen(generator))


def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fills ``tensor`` with values drawn from N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, **_gen(generator))


def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Fills ``tensor`` with values drawn from N(mean, std**2) truncated to [a, b].

    Draws as PyTorch does, so that a seed gives the same values: when most of the mass lies in
    [a, b], normals redrawn where they fall outside; otherwise uniforms on [a, b] accepted with
    the probability of the normal's density relative to its peak in [a, b]."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    kw = _gen(generator)

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            # Bounds in the tensor's dtype, so that what is rejected is what falls outside.
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, **kw)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = where(outside, empty_in_memory_order(result, None, None).normal_(mean, std, **kw), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = empty_in_memory_order(tensor, None, None)
        accept = empty_in_memory_order(tensor, None, None)

        def log_ratio(x):
            # log of the density relative to its peak, one in-place step at a time as PyTorch rounds it
            return x.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)

        tensor.uniform_(a, b, **kw)
        pending = accept.uniform_(**kw).log_().gt(log_ratio(candidates.copy_(tensor)))
        if not pending.any():
            return tensor
        result = tensor
        while True:
            candidates.uniform_(a, b, **kw)
            result = where(pending, candidates, result)
            pending = where(pending, accept.uniform_(**kw).log_().gt(log_ratio(candidates)), pending)
            if not pending.any():
                break
        tensor.copy_(result)
    return tensor


def constant_(tensor, val: float):
    """Fills ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fills ``tensor`` with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fills a 2-D ``tensor`` with the identity matrix."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))


def dirac_(tensor, groups: int = 1):
    """Fills a 3-, 4- or 5-D ``tensor`` with the Dirac delta: a convolution with it keeps as
    many input channels as it can (per group of output channels)."""
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = sqrt(3) * gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    # Rounded as PyTorch rounds it, so that a seed gives the same weights.
    a = math.sqrt(3.0) * (gain * math.sqrt(2.0 / float(fan_in + fan_out)))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None):
    """He uniform: U(-bound, bound) with bound = sqrt(3) * gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    # Rounded as PyTorch rounds it, so that a seed gives the same weights.
    bound = math.sqrt(3.0) * (calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None):
    """He normal: N(0, std**2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain: float = 1.0, generator=None):
    """Fills ``tensor`` (2 or more dims, flattened to rows x rest) with a (semi-)orthogonal
    matrix times ``gain``: the Q of a normal matrix's QR, its columns' signs those of R's diagonal."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, **_gen(generator))
    if rows < cols:
        flattened.t_()
    q, r = qr(flattened)
    q *= r.diagonal().sign()
    if rows < cols:
        q.t_()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None):
    """Fills a 2-D ``tensor`` with N(0, std**2) values, then zeroes ceil(sparsity * rows) randomly
    chosen elements in each column (chosen with the default generator, as PyTorch does)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, **_gen(generator))
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def _default_layer_init_(weight, bias):
    """PyTorch's default for Linear and Conv layers: kaiming_uniform_(a=sqrt(5)) weights and a bias
    uniform in +-1/sqrt(fan_in)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = _calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
