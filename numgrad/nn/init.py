"""Parameter initialisation schemes (PyTorch's ``torch.nn.init``); all fill tensors in place."""
from __future__ import annotations

import math

from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


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
    from ..creation import eye
    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))


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


def _default_layer_init_(weight, bias):
    """PyTorch's default for Linear and Conv layers: kaiming_uniform_(a=sqrt(5)) weights and a bias
    uniform in +-1/sqrt(fan_in)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in = _calculate_fan_in_and_fan_out(weight)[0]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
