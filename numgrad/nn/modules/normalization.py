"""Normalization layers: LayerNorm, RMSNorm, GroupNorm, LocalResponseNorm, BatchNorm1d/2d/3d and
SyncBatchNorm, InstanceNorm1d/2d/3d (the last two families with optional running statistics)."""
from __future__ import annotations

import warnings

from ... import creation
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "RMSNorm", "GroupNorm", "LocalResponseNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
           "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class LayerNorm(Module):
    """LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)

    Normalizes over the trailing ``normalized_shape`` dims; weight starts at 1, bias at 0."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """RMSNorm(normalized_shape, eps=None, elementwise_affine=True)

    Divides by the root mean square over the trailing ``normalized_shape`` dims (``eps`` None
    meaning the input dtype's machine epsilon); weight starts at 1."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    """GroupNorm(num_groups, num_channels, eps=1e-5, affine=True, *, bias=True)

    Normalizes each of ``num_groups`` groups of channels of each sample; the per-channel weight
    starts at 1, bias at 0."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, num_channels, affine, bias, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)

    Divides each element by a power of the mean square of ``size`` neighbouring channels."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


def _affine_parameters(module, shape, affine, bias, device, dtype):
    """An elementwise ``weight`` of ``shape`` at 1 and ``bias`` at 0 (each None when absent)."""
    if affine:
        module.weight = Parameter(creation.ones(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(creation.zeros(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    """``weight`` back to 1 and ``bias`` to 0, where present."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _NormBase(Module):
    """The parameters and running statistics shared by the batch and instance normalizations."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, num_features, affine, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    _expected_dims: tuple = ()

    def _check_input_dim(self, input):
        if input.ndim not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input "
                             f"(got {input.ndim}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                # Cumulative moving average over all batches seen.
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        return F.batch_norm(input, self.running_mean if not self.training or self.track_running_stats else None,
                            self.running_var if not self.training or self.track_running_stats else None,
                            self.weight, self.bias, use_batch_stats, factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)

    Normalizes each channel of (N, C) or (N, C, L) input over the batch (and length)."""

    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)

    Normalizes each channel of (N, C, H, W) input over the batch and spatial dims."""

    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)

    Normalizes each channel of (N, C, D, H, W) input over the batch and volume dims."""

    _expected_dims = (5,)


class SyncBatchNorm(_BatchNorm):
    """SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, process_group=None)

    Batch normalization of (N, C, *) input whose statistics would be reduced over a process
    group; numgrad runs in one process, where it is BatchNorm."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None, *,
                 bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every batch normalization layer in it replaced by a SyncBatchNorm
        sharing its parameters and running statistics."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = cls(module.num_features, module.eps, module.momentum, module.affine,
                            module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                converted.weight = module.weight
                converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted


class _InstanceNorm(_NormBase):
    _unbatched_dims: int = 0

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        dims = self._unbatched_dims
        if input.ndim not in (dims, dims + 1):
            raise ValueError(f"expected {dims}D or {dims + 1}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - dims
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.ndim == dims:
            return self._normalize(input.unsqueeze(0)).squeeze(0)
        return self._normalize(input)

    def _normalize(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False)

    Normalizes each channel of each (N, C, L) or (C, L) sample over its length."""

    _unbatched_dims = 2


class InstanceNorm2d(_InstanceNorm):
    """InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False)

    Normalizes each channel of each (N, C, H, W) or (C, H, W) sample over its plane."""

    _unbatched_dims = 3


class InstanceNorm3d(_InstanceNorm):
    """InstanceNorm3d(num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False)

    Normalizes each channel of each (N, C, D, H, W) or (C, D, H, W) sample over its volume."""

    _unbatched_dims = 4
