"""Lazy modules: layers whose input size is read from their first input.

A lazy layer starts with :class:`UninitializedParameter` weights. Its first forward call (or
loading a state dict) learns the input's size, materializes the weights, initialises them as
the full layer would, and turns the module into that layer (``cls_to_become``).
"""
from __future__ import annotations

from ..parameter import UninitializedBuffer, UninitializedParameter, _Uninitialized
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Gives a module lazily sized parameters: ``initialize_parameters(*args, **kwargs)`` sizes
    them from the first forward's arguments, then the module becomes ``cls_to_become``."""

    cls_to_become = None

    def _start_lazy(self):
        self._lazy_hooks = (
            self.register_forward_pre_hook(_infer_parameters, with_kwargs=True),
            self.register_load_state_dict_pre_hook(_materialize_from_state_dict))

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer still waits for its shape."""
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, _Uninitialized) for t in tensors)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _finish_lazy(self):
        for handle in self.__dict__.pop("_lazy_hooks", ()):
            handle.remove()
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become


def _infer_parameters(module, args, kwargs):
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._finish_lazy()


def _materialize_from_state_dict(module, state_dict, prefix, *rest):
    tables = (module._parameters, module._buffers)
    for table in tables:
        for name, t in table.items():
            key = prefix + name
            if isinstance(t, _Uninitialized) and key in state_dict:
                t.materialize(state_dict[key].shape)


def _lazy_weights(module, bias: bool, device, dtype):
    module.weight = UninitializedParameter(device=device, dtype=dtype)
    if bias:
        module.bias = UninitializedParameter(device=device, dtype=dtype)


class LazyLinear(LazyModuleMixin, Linear):
    """LazyLinear(out_features, bias=True, device=None, dtype=None)

    A :class:`Linear` whose ``in_features`` is the last dim of its first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Linear.__init__(self, 0, 0, False, device=device, dtype=dtype)
        _lazy_weights(self, bias, device, dtype)
        if not bias:
            self.register_parameter("bias", None)
        self.out_features = out_features
        self._start_lazy()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        self.in_features = input.shape[-1]
        if self.has_uninitialized_params():
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    _transposed = False

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        batched = input.ndim == len(self.kernel_size) + 2
        self.in_channels = input.shape[1] if batched else input.shape[0]
        if self.has_uninitialized_params():
            if self.in_channels % self.groups:
                raise ValueError("in_channels must be divisible by groups")
            if self._transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(name, base, transposed):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *args, **kwargs):
        names = (("output_padding", "groups", "bias", "dilation", "padding_mode") if transposed
                 else ("dilation", "groups", "bias", "padding_mode"))
        options = dict(zip(names, args))
        options.update(kwargs)
        device, dtype = options.pop("device", None), options.pop("dtype", None)
        groups, bias = options.pop("groups", 1), options.pop("bias", True)
        base.__init__(self, 0, 0, kernel_size, stride=stride, padding=padding, groups=1, bias=False,
                      device=device, dtype=dtype, **options)
        self.groups, self.out_channels = groups, out_channels
        _lazy_weights(self, bias, device, dtype)
        if not bias:
            self.register_parameter("bias", None)
        self._start_lazy()

    signature = ("(out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True, "
                 "dilation=1, padding_mode='zeros', device=None, dtype=None)" if transposed else
                 "(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True, "
                 "padding_mode='zeros', device=None, dtype=None)")
    doc = f"{name}{signature}\n\n    A :class:`{base.__name__}` whose ``in_channels`` is read from its first input."
    return type(name, (_LazyConvMixin, base), {"__init__": __init__, "__doc__": doc, "cls_to_become": base,
                                              "_transposed": transposed, "__module__": __name__})


LazyConv1d = _lazy_conv("LazyConv1d", Conv1d, False)
LazyConv2d = _lazy_conv("LazyConv2d", Conv2d, False)
LazyConv3d = _lazy_conv("LazyConv3d", Conv3d, False)
LazyConvTranspose1d = _lazy_conv("LazyConvTranspose1d", ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv("LazyConvTranspose2d", ConvTranspose2d, True)
LazyConvTranspose3d = _lazy_conv("LazyConvTranspose3d", ConvTranspose3d, True)


class _LazyNormMixin(LazyModuleMixin):
    def _lazy_init(self, base, eps, momentum, affine, track_running_stats, device, dtype, bias):
        base.__init__(self, 0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            from ... import creation
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, device=device)
        self._start_lazy()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        self.num_features = input.shape[1] if input.ndim > self._unbatched_ndim else input.shape[0]
        if self.has_uninitialized_params():
            for name in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(self, name, None)
                if isinstance(t, _Uninitialized):
                    t.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, base, unbatched_ndim):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None,
                 *, bias=True):
        self._lazy_init(base, eps, momentum, affine, track_running_stats, device, dtype, bias)

    doc = (f"{name}(eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, "
           f"*, bias=True)\n\n    A :class:`{base.__name__}` whose ``num_features`` is read from its first input.")
    return type(name, (_LazyNormMixin, base), {"__init__": __init__, "__doc__": doc, "cls_to_become": base,
                                              "_unbatched_ndim": unbatched_ndim, "__module__": __name__})


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d, 1)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d, 3)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d, 4)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d, 2)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d, 3)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d, 4)
