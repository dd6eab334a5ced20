"""Convolution layers: Conv1d/2d/3d (windows as columns, then one matmul per group) and their
transposes ConvTranspose1d/2d/3d."""
from __future__ import annotations

from ... import creation
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(v, n: int) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(int(x) for x in v)
    return (int(v),) * n


class _ConvNd(Module):
    _n = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {{{', '.join(map(repr, _PADDING_MODES))}}}, but got "
                             f"padding_mode='{padding_mode}'")
        n = self._n
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _tuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._pad_amounts()
        channels = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(channels + self.kernel_size, device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _pad_amounts(self) -> list:
        """F.pad's amounts for the padding: (left, right) per dim, last dim first."""
        amounts = []
        for k in reversed(range(self._n)):
            if self.padding == "same":
                total = self.dilation[k] * (self.kernel_size[k] - 1)
                amounts += [total // 2, total - total // 2]
            elif self.padding == "valid":
                amounts += [0, 0]
            else:
                amounts += [self.padding[k], self.padding[k]]
        return amounts

    def _conv_forward(self, input, conv):
        if self.padding_mode == "zeros":
            return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def reset_parameters(self) -> None:
        init._default_layer_init_(self.weight, self.bias)

    def extra_repr(self) -> str:
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')

    1-D cross-correlation over (N, C, L) inputs; ``padding_mode`` is 'zeros', 'reflect',
    'replicate' or 'circular'."""

    _n = 1

    def forward(self, input):
        return self._conv_forward(input, F.conv1d)


class Conv2d(_ConvNd):
    """Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')

    2-D cross-correlation over (N, C, H, W) inputs, computed as im2col followed by a matmul;
    ``padding_mode`` is 'zeros', 'reflect', 'replicate' or 'circular'."""

    _n = 2

    def forward(self, input):
        return self._conv_forward(input, F.conv2d)


class Conv3d(_ConvNd):
    """Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')

    3-D cross-correlation over (N, C, D, H, W) inputs; ``padding_mode`` is 'zeros', 'reflect',
    'replicate' or 'circular'."""

    _n = 3

    def forward(self, input):
        return self._conv_forward(input, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims: int,
                        dilation=None) -> tuple:
        """The output padding that makes the output ``output_size`` (checked to be reachable)."""
        if output_size is None:
            return self.output_padding
        n = num_spatial_dims
        leading = 2 if input.dim() == n + 2 else 1
        size = list(output_size)
        if len(size) == leading + n:
            size = size[leading:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{leading + n} elements (got {len(output_size)})")
        lows, highs = [], []
        for d in range(n):
            low = ((input.size(d + leading) - 1) * stride[d] - 2 * padding[d]
                   + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            lows.append(low)
            highs.append(low + stride[d] - 1)
        for d in range(n):
            if not lows[d] <= size[d] <= highs[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range from {lows} to "
                                 f"{highs} (for an input of {list(input.shape[leading:])})")
        return tuple(size[d] - lows[d] for d in range(n))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._n, self.dilation)
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._n - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                    self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')

    1-D transposed convolution over (N, C, L) inputs; ``forward(input, output_size=None)``."""

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')

    2-D transposed convolution over (N, C, H, W) inputs; ``forward(input, output_size=None)``
    picks the output padding that gives ``output_size``."""

    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    """ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')

    3-D transposed convolution over (N, C, D, H, W) inputs; ``forward(input, output_size=None)``."""

    _n = 3
